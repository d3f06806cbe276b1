"""CrossWOZ pack tool ``crosswoz_taxi``: book the taxi that ``crosswoz_query`` offered (transactional).

Its descriptor says ``confirm: true`` and the rule that runs it shows a card first ("叫一辆从A到B的
出租车？"), so it runs only after the user said yes to that card. Input ``{trip: {from, to},
state}`` (``state``: ``session.cw``, which holds the offer as ``taxi_offer``). Output ``{state,
booked: {出发地, 目的地}, say}``: the offer is cleared and the booking kept (``taxi_booked``).
The CrossWOZ taxi database holds no real cars (车型 ``#CX`` and 车牌 ``#CP`` are placeholders,
Zhu et al., TACL 2020), so the reply never invents a car: it says that the car and plate come
once a driver takes the order. A trip that is not a 出发地 and a 目的地 is ``TRIP_INVALID``.
"""

from __future__ import annotations


class TripInvalid(Exception):
    """The trip to book has no ``from`` (出发地) or ``to`` (目的地) (code ``TRIP_INVALID``)."""

    code = "TRIP_INVALID"


def handle(input: dict) -> dict:
    trip = input.get("trip") or {}
    a, b = str(trip.get("from") or "").strip(), str(trip.get("to") or "").strip()
    if not a or not b:
        raise TripInvalid("a taxi needs a 出发地 and a 目的地")
    state = dict(input.get("state") or {})
    state.pop("taxi_offer", None)
    state["taxi_booked"] = {"出发地": a, "目的地": b}
    return {"state": state, "booked": {"出发地": a, "目的地": b},
            "say": f"已为您叫车：从{a}到{b}。司机接单后会把车型和车牌发给您。"}
