"""What a story is, once loaded (plain frozen dataclasses; the YAML side is :mod:`.loader`).

A :class:`Story` is a list of :class:`Turn`\\ s played in one or more sessions; each
turn carries one input (``user`` text or a card ``answer``), how to play it
(reference time, new session, wait, restart) and an :class:`Expect` (what a person
expects of the reply). Every object knows the file and line it came from, so a
failure points at the YAML.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

__all__ = ["ANY_ORDER", "DEFAULT_CLOCK", "Expect", "Story", "Turn", "When"]

#: The story clock when a story names none: a Wednesday, years ahead of the wall clock, so
#: reminders set "tomorrow" are still pending when the story lists them.
DEFAULT_CLOCK = datetime.fromisoformat("2030-06-19T10:00:00+08:00")

#: ``tools: {set: [...]}``: the tools called, in any order.
ANY_ORDER = "set"


@dataclass(frozen=True, slots=True)
class When:
    """A turn's reference time, resolved when the turn is played.

    :param absolute: an aware instant (``at: 2030-06-19T10:00:00+08:00``).
    :param offset: added to the previous turn's time (``at: +1d``), or to the wall clock when
        ``from_now`` (``at: now-2m``).
    """

    absolute: datetime | None = None
    offset: timedelta = timedelta(0)
    from_now: bool = False

    def resolve(self, previous: datetime, now: datetime) -> datetime:
        """The instant this turn happens at, given the previous turn's time and the wall clock."""
        if self.absolute is not None:
            return self.absolute
        return (now if self.from_now else previous) + self.offset


@dataclass(frozen=True, slots=True)
class Expect:
    """What a turn's reply must show; ``None`` = not checked.

    Tuples of allowed values are any-of (``intent: [doc.send, doc.resend]``); ``None`` inside
    ``intent``/``rule`` means "no intent" / "no rule" (``intent: null``).

    :param tools: tools called this turn, in order; with ``tools_any_order`` as a set.
    :param not_tools: none of these may be called. :param reply_contains: every one must appear.
    :param reply_contains_any: at least one must appear. :param reply_not_contains: none may appear
        (all three case-insensitive). :param reply_plain: no JSON, booleans, codes or raw seconds.
    :param card: a card is shown (True) or not (False). :param card_choices: how many choices,
        or their display names in order. :param card_fields: these fields, with these values.
    :param act: how the answer was read (trace ``reading.act``). :param decision: what followed.
    :param repairs: every one of these repairs is reported for the turn.
    :param error: the call fails with this stable code (``INPUT_INVALID`` …).
    :param offer: the session opened for this turn offered unfinished work (or did not).
    :param replayed: the reply is the stored one of a repeated ``message_id``.
    :param events: these event kinds of the turn's own session ride on this reply (``events``).
    :param not_events: none of these does (an event of the session told one turn late).
    """

    intent: tuple[str | None, ...] | None = None
    rule: tuple[str | None, ...] | None = None
    path: tuple[str, ...] | None = None
    state: tuple[str, ...] | None = None
    tools: tuple[str, ...] | None = None
    tools_any_order: bool = False
    not_tools: tuple[str, ...] = ()
    reply_contains: tuple[str, ...] = ()
    reply_contains_any: tuple[str, ...] = ()
    reply_not_contains: tuple[str, ...] = ()
    reply_plain: bool = False
    card: bool | None = None
    card_choices: int | tuple[str, ...] | None = None
    card_fields: tuple[tuple[str, str], ...] = ()
    act: tuple[str, ...] | None = None
    decision: tuple[str, ...] | None = None
    repairs: tuple[str, ...] = ()
    error: str | None = None
    offer: bool | None = None
    replayed: bool | None = None
    events: tuple[str, ...] = ()
    not_events: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Turn:
    """One thing the user does, and what they expect back.

    :param user: the text said (``session.turn``), or None for a card answer.
    :param accept: ``answer: {accept: …}`` (``session.confirm``). :param choice: ``answer: {choice: n}``, 1-based.
    :param at: the reference time (default: the previous turn's; the first turn: the story clock).
    :param session: the named session this turn is played in (default ``main``).
    :param new_session: open a fresh session (the previous one of that name is closed) first.
    :param wait_s: sleep this long first; :param wait_timeout: first wait until the session's
        current state times out (a card left unanswered), bounded by the runner's ``max_wait_s``.
    :param restart: restart the daemon first (needs a runner that controls it).
    :param message_id: sent as ``message_id`` (a repeated id must return the stored reply).
    :param line: where the turn starts in its file.
    """

    user: str | None = None
    accept: bool | None = None
    choice: int | None = None
    at: When = field(default_factory=When)
    session: str = "main"
    new_session: bool = False
    wait_s: float = 0.0
    wait_timeout: bool = False
    restart: bool = False
    message_id: str | None = None
    expect: Expect = field(default_factory=Expect)
    line: int = 0

    @property
    def said(self) -> str:
        """What the turn does, for a report line: the text, or ``[accept]`` / ``[choice 2]``."""
        if self.user is not None:
            return self.user
        if self.choice is not None:
            return f"[choice {self.choice}]"
        return "[accept]" if self.accept else "[reject]"


@dataclass(frozen=True, slots=True)
class Story:
    """A named conversation.

    :param locale: passed to ``session.open`` (``zh`` | ``en``), or None (the daemon decides).
    :param tz: IANA zone passed to ``session.open``. :param clock: the first turn's time.
    :param documents: file name → content, created in the daemon's documents folder before any
        story is played (one folder for the whole run, so every story sees the same files).
    :param clear_reminders: before the first turn, cancel every pending reminder of the invoking user
        (``reminder`` tool through ``tools.call``), so a list shows only the story's own reminders.
    :param exclusive: played alone, after the concurrent ones (implied by a wait, a restart or
        ``clear_reminders``).
    :param covers: the classes of behaviour the story is written for (free tags, reported).
    """

    name: str
    turns: tuple[Turn, ...]
    file: str = ""
    line: int = 0
    description: str = ""
    locale: str | None = None
    tz: str | None = None
    clock: datetime = DEFAULT_CLOCK
    documents: tuple[tuple[str, str], ...] = ()
    clear_reminders: bool = False
    exclusive: bool = False
    covers: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        """``file:line`` of the story."""
        return f"{self.file}:{self.line}"

    @property
    def needs_restart(self) -> bool:
        """A turn restarts the daemon."""
        return any(t.restart for t in self.turns)
