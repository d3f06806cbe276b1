"""A turn's reply against its :class:`~.model.Expect` (pure): a list of mismatches, empty when it holds.

Each mismatch reads ``<key>: expected …, got …`` so a report line can show it as
is. A field the daemon does not report (``act``, ``decision``, ``repairs`` before the
dialogue manager reports them) fails the expectation *saying so*, never silently.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from .coverage import act_of, decision_of, repair_class, tools_called
from .model import Expect

__all__ = ["check", "plain_problems"]

_SHOW_CHARS = 160
_JSON_PUNCT = re.compile(r"[{}\[\]]")
_BOOLEAN = re.compile(r"(?<![A-Za-z])(true|false|null)(?![A-Za-z])")
_CODE = re.compile(r"(?<![A-Za-z0-9_])[A-Z]{2,}(?:_[A-Z0-9]+)+(?![A-Za-z0-9_])")
_RAW_SECONDS = re.compile(r"\d+\.\d+\s*(?:s|sec|秒)(?![A-Za-z])|\d{3,}\s*(?:s|sec|秒)(?![A-Za-z])")
_RAW_INSTANT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


def _show(text: str) -> str:
    text = text.replace("\n", " ⏎ ")
    return repr(text if len(text) <= _SHOW_CHARS else text[:_SHOW_CHARS] + "…")


def _fold(s: str) -> str:
    return s.casefold()


def plain_problems(text: str, said: str = "") -> list[str]:
    """What in ``text`` a person should not have to read: JSON brackets, ``true``/``false``/``null``,
    stable codes (``INPUT_INVALID``), raw seconds (``1523.2 s``), raw ISO instants.

    :param said: the user's own words this turn: a word the user said ("remind me to set debug to
        true") is theirs when the reply repeats it, not a leaked value; only what they did not say counts.
    """
    out = []
    own = {m.group(0).casefold() for rx in (_BOOLEAN, _CODE) for m in rx.finditer(said)}
    for what, rx in (("JSON brackets", _JSON_PUNCT), ("a raw boolean/null", _BOOLEAN), ("a code", _CODE),
                     ("raw seconds", _RAW_SECONDS), ("a raw ISO timestamp", _RAW_INSTANT)):
        m = next((m for m in rx.finditer(text) if m.group(0).casefold() not in own), None)
        if m:
            out.append(f"{what} {m.group(0)!r}")
    return out


def _one_of(key: str, allowed: tuple[Any, ...], got: Any) -> list[str]:
    if got in allowed:
        return []
    want = allowed[0] if len(allowed) == 1 else f"one of {list(allowed)}"
    return [f"{key}: expected {want}, got {got}"]


def _basics(e: Expect, reply: Mapping[str, Any]) -> list[str]:
    """intent, rule, path, state, replayed, tools, not_tools."""
    out: list[str] = []
    for key, want, got in (("intent", e.intent, reply.get("intent")), ("rule", e.rule, reply.get("rule_id")),
                           ("path", e.path, reply.get("path")), ("state", e.state, reply.get("state"))):
        if want is not None:
            out += _one_of(key, want, got)
    if e.replayed is not None and bool(reply.get("replayed")) != e.replayed:
        out.append(f"replayed: expected {'the stored reply' if e.replayed else 'a fresh reply'}, "
                   f"got {'the stored one' if reply.get('replayed') else 'a fresh one'}")
    called = tools_called(reply)
    if e.tools is not None:
        same = sorted(called) == sorted(e.tools) if e.tools_any_order else list(called) == list(e.tools)
        if not same:
            how = " (any order)" if e.tools_any_order else ""
            out.append(f"tools: expected {list(e.tools)}{how}, got {list(called)}")
    ran = [t for t in e.not_tools if t in called]
    if ran:
        out.append(f"not_tools: {ran} must not run, got {list(called)}")
    return out


def _text(e: Expect, text: str, said: str = "") -> list[str]:
    """reply_contains, reply_contains_any, reply_not_contains (case-insensitive), reply_plain."""
    out: list[str] = []
    folded = _fold(text)
    missing = [s for s in e.reply_contains if _fold(s) not in folded]
    if missing:
        out.append(f"reply_contains: expected {missing[0]!r} in the reply, got {_show(text)}")
    if e.reply_contains_any and not any(_fold(s) in folded for s in e.reply_contains_any):
        out.append(f"reply_contains_any: expected one of {list(e.reply_contains_any)} in the reply, got {_show(text)}")
    present = [s for s in e.reply_not_contains if _fold(s) in folded]
    if present:
        out.append(f"reply_not_contains: {present[0]!r} must not be in the reply, got {_show(text)}")
    if e.reply_plain and (bad := plain_problems(text, said)):
        out.append(f"reply_plain: the reply shows {bad[0]}: {_show(text)}")
    return out


def _card(e: Expect, card: Mapping[str, Any] | None) -> list[str]:
    """card, card_choices, card_fields (the first field that differs)."""
    out: list[str] = []
    if e.card is not None and (card is not None) != e.card:
        out.append(f"card: expected {'a card' if e.card else 'no card'}, got {'one' if card else 'none'}")
    if e.card_choices is not None:
        choices = [c for c in (card or {}).get("choices") or () if isinstance(c, dict)]
        if isinstance(e.card_choices, int):
            if len(choices) != e.card_choices:
                out.append(f"card_choices: expected {e.card_choices} choices, got {len(choices)}")
        elif (shown := [str(c.get("display")) for c in choices]) != list(e.card_choices):
            out.append(f"card_choices: expected {list(e.card_choices)}, got {shown}")
    fields = (card or {}).get("fields")
    fields = fields if isinstance(fields, dict) else {}
    for k, v in e.card_fields:
        if card is None:
            return out + [f"card_fields: expected {k} = {v!r}, got no card"]
        if k not in fields:
            shown = f"fields {sorted(fields)}" if fields else \
                f"a card without fields ({_show(str(card.get('question', '')))})"
            return out + [f"card_fields: expected {k} = {v!r}, got {shown}"]
        if str(fields[k]) != v:
            return out + [f"card_fields: expected {k} = {v!r}, got {fields[k]!r}"]
    return out


def _want(values: tuple[str, ...]) -> str:
    return values[0] if len(values) == 1 else str(list(values))


def _dialogue(e: Expect, reply: Mapping[str, Any], trace: Mapping[str, Any] | None) -> list[str]:
    """act, decision, repairs: what the dialogue manager reports (saying so when it reports nothing)."""
    out: list[str] = []
    if e.act is not None:
        act = act_of(reply, trace)
        if act is None:
            out.append(f"act: expected {_want(e.act)}, got nothing: the daemon does not report the answer reading "
                       "(trace reading.act)")
        else:
            out += _one_of("act", e.act, act)
    if e.decision is not None:
        decision = decision_of(reply, trace)
        if decision is None:
            out.append(f"decision: expected {_want(e.decision)}, got nothing: the daemon does not report the "
                       "decision (reply/trace decision)")
        else:
            out += _one_of("decision", e.decision, decision)
    if e.repairs:
        reported = (trace or {}).get("repairs")
        if not isinstance(reported, list):
            out.append(f"repairs: expected {list(e.repairs)}, got nothing: the daemon does not report repairs "
                       "(trace repairs)")
        else:
            classes = {repair_class(str(r)) for r in reported}
            lacking = [r for r in e.repairs if repair_class(r) not in classes]
            if lacking:
                out.append(f"repairs: expected {lacking[0]!r} among the turn's repairs, got {reported}")
    return out


def _events(e: Expect, reply: Mapping[str, Any], session_id: str | None) -> list[str]:
    """events, not_events: the kinds of the session's own events on the reply (other sessions' events
    of the same user, which stories playing at once raise, are not this turn's)."""
    if not e.events and not e.not_events:
        return []
    got = [str(ev.get("kind")) for ev in reply.get("events") or () if isinstance(ev, dict)
           and (session_id is None or (ev.get("data") or {}).get("session_id") == session_id)]
    out = [f"events: expected a {k!r} event of this session on the reply, got {got}" for k in e.events if k not in got]
    return out + [f"not_events: a {k!r} event of this session must not be on the reply, got {got}"
                  for k in e.not_events if k in got]


def check(e: Expect, reply: Mapping[str, Any] | None, trace: Mapping[str, Any] | None, *,
          error: tuple[str, str] | None = None, offer: bool | None = None, said: str = "",
          session_id: str | None = None) -> list[str]:
    """Every way ``reply`` (and its ``trace`` entry) misses ``e``.

    :param said: the turn's user text (``reply_plain`` lets the reply repeat the user's own words).
    :param session_id: the turn's session (``events``/``not_events`` count only its events).
    :param error: ``(code, message)`` when the call failed (then ``reply`` is None).
    :param offer: whether the session opened for this turn offered unfinished work (None: none was opened).
    """
    out: list[str] = []
    if e.offer is not None and offer is not None and e.offer != offer:
        out.append(f"offer: expected {'an offer of unfinished work' if e.offer else 'no offer'} when the session "
                   f"opened, got {'one' if offer else 'none'}")
    if error is not None:
        if e.error is None:
            return out + [f"the call failed: {error[0]}: {error[1]}"]
        return out + ([] if e.error == error[0] else [f"error: expected {e.error}, got {error[0]}: {error[1]}"])
    reply = reply or {}
    body = reply.get("reply") if isinstance(reply.get("reply"), dict) else {}
    text = str(body.get("text") or "")
    if e.error is not None:
        return out + [f"error: expected {e.error}, got a reply ({_show(text)})"]
    card = body.get("card") if isinstance(body.get("card"), dict) else None
    return (out + _basics(e, reply) + _text(e, text, said) + _card(e, card) + _dialogue(e, reply, trace)
            + _events(e, reply, session_id))
