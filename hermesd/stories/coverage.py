"""What a run of stories exercised, against what the daemon has (pure: dicts in, :class:`Section`\\ s out).

Each played turn leaves its reply (``session.turn`` / ``session.confirm`` result) and
its trace (``session.trace`` entry). From them, :func:`facts` reads: the intent,
the rule, the tools called, the states, the answer reading (``reading.act``), the
decision, the repairs and the state machine transitions ``[from, event, to]``.
A dimension the daemon does not report at all (no turn carries the field) is
shown as *not reported*, never as zero coverage.

The universe (:class:`Universe`) is what could be hit: the intents, rules and
tools the daemon loaded (None when unknown), the answer acts and decisions of
:mod:`hermesd.dialogue`, the repair classes of DESIGN.md and the state machine's
:data:`~hermesd.session.machine.TABLE`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

__all__ = ["REPAIRS", "Facts", "Section", "Universe", "act_of", "compute", "decision_of", "default_universe", "facts",
           "repair_class", "tools_called"]

#: The repair classes every conversation gets (DESIGN.md, "Dialogue manager"), as the report names them.
REPAIRS = ("digression", "correction", "session_anchor", "several_requests", "smalltalk", "nothing_open",
           "cancel", "repeat", "help")

#: How a daemon may spell a repair or a decision → the repair class it stands for.
_REPAIR_ALIASES = {
    "digress": "digression", "digression": "digression",
    "correct": "correction", "correction": "correction",
    "anchor": "session_anchor", "anchor_reuse": "session_anchor", "session_anchor": "session_anchor",
    "session_anchors": "session_anchor", "session_local_anchor": "session_anchor", "reuse_anchor": "session_anchor",
    "split": "several_requests", "several_requests": "several_requests", "multi_request": "several_requests",
    "multi_requests": "several_requests",
    "smalltalk": "smalltalk", "small_talk": "smalltalk",
    "nothing_open": "nothing_open",
    "cancel": "cancel", "skip": "cancel",
    "repeat": "repeat", "help": "help",
}

#: Fallbacks when :mod:`hermesd.dialogue` cannot be imported (another version of the package).
_ACTS = ("affirm", "deny", "hedge", "choose", "fill", "correct", "cancel", "repeat", "help", "request",
         "smalltalk", "unrelated")
_DECISIONS = ("resume", "fill", "correct", "choose", "cancel", "wait", "resume_task", "drop_task", "repeat",
              "help", "ask_again", "digress", "replace", "smalltalk", "new_turn", "nothing_open", "not_known", "picked",
              "expired", "split")


@dataclass(frozen=True, slots=True)
class Universe:
    """What a run can hit. ``None`` for intents/rules/tools = the daemon did not say (listed as unknown).

    :param sources: where each dimension's list came from (for the report), e.g. ``{"rules": "--packs config"}``.
    """

    intents: tuple[str, ...] | None = None
    rules: tuple[str, ...] | None = None
    tools: tuple[str, ...] | None = None
    acts: tuple[str, ...] = _ACTS
    decisions: tuple[str, ...] = _DECISIONS
    repairs: tuple[str, ...] = REPAIRS
    states: tuple[str, ...] = ()
    transitions: tuple[tuple[str, str, str], ...] = ()
    sources: Mapping[str, str] = field(default_factory=dict)


def default_universe(**known: Any) -> Universe:
    """The universe from this package's code (acts, decisions, states, transitions) plus ``known``
    (``intents=…, rules=…, tools=…, sources=…``)."""
    acts, decisions = _ACTS, _DECISIONS
    try:
        from ..dialogue.heard import ACTS

        acts = tuple(ACTS)
    except Exception:  # noqa: BLE001 - an older/newer package: the built-in list
        pass
    try:
        from typing import get_args

        from ..dialogue import policy

        names = [getattr(cls, "name", None) for cls in get_args(policy.Decision)]
        decisions = tuple(dict.fromkeys([n for n in names if isinstance(n, str)] + ["expired", "split"]))
    except Exception:  # noqa: BLE001
        pass
    states: tuple[str, ...] = ()
    table: tuple[tuple[str, str, str], ...] = ()
    try:
        from ..session.machine import TABLE, State

        states = tuple(s.value for s in State)
        table = tuple((a.value, e.value, b.value) for (a, e), b in TABLE.items())
    except Exception:  # noqa: BLE001
        pass
    return Universe(acts=acts, decisions=decisions, states=states, transitions=table, **known)


@dataclass(frozen=True, slots=True)
class Facts:
    """What one turn showed. A ``None`` field = the daemon did not report it for this turn."""

    intent: str | None = None
    rule: str | None = None
    tools: tuple[str, ...] = ()
    states: tuple[str, ...] = ()
    act: str | None = None
    decision: str | None = None
    repairs: tuple[str, ...] | None = None
    transitions: tuple[tuple[str, str, str], ...] | None = None


def tools_called(reply: Mapping[str, Any] | None) -> tuple[str, ...]:
    """Tools this reply ran, in order (none for a replayed reply: nothing ran again)."""
    if not reply or reply.get("replayed"):
        return ()
    return tuple(str(a["tool"]) for a in reply.get("actions") or () if isinstance(a, dict) and a.get("tool"))


def decision_of(reply: Mapping[str, Any] | None, trace: Mapping[str, Any] | None) -> str | None:
    """The decision the reply or the trace names, or None when neither reports one."""
    for src in (reply, trace):
        if src and isinstance(src.get("decision"), str):
            return src["decision"]
        if src and isinstance(src.get("decision"), dict) and isinstance(src["decision"].get("name"), str):
            return src["decision"]["name"]
    return None


def act_of(reply: Mapping[str, Any] | None, trace: Mapping[str, Any] | None) -> str | None:
    """The answer reading's act (``reading.act``) of the trace, or of the reply; None when not reported."""
    for src in (trace, reply):
        reading = (src or {}).get("reading")
        if isinstance(reading, dict) and isinstance(reading.get("act"), str):
            return reading["act"]
    return None


def facts(reply: Mapping[str, Any] | None, trace: Mapping[str, Any] | None) -> Facts:
    """Read one turn's reply and trace entry (either may be None: a failed call, no trace)."""
    reply, trace = reply or {}, trace or {}
    states = [v for v in (trace.get("state_before"), trace.get("state_after"), reply.get("state")) if isinstance(v, str)]
    transitions = None
    if isinstance(trace.get("transitions"), list):
        transitions = tuple((str(t[0]), str(t[1]), str(t[2])) for t in trace["transitions"]
                            if isinstance(t, (list, tuple)) and len(t) >= 3)
        states += [x for t in transitions for x in (t[0], t[2])]
    repairs = None
    if isinstance(trace.get("repairs"), list):
        repairs = tuple(str(r) for r in trace["repairs"])
    plan = trace.get("plan") if isinstance(trace.get("plan"), dict) else {}
    return Facts(intent=reply.get("intent") or trace.get("intent"), rule=reply.get("rule_id") or plan.get("rule_id"),
                 tools=tools_called(reply), states=tuple(dict.fromkeys(states)), act=act_of(reply, trace),
                 decision=decision_of(reply, trace), repairs=repairs, transitions=transitions)


@dataclass(frozen=True, slots=True)
class Section:
    """One dimension of the report.

    :param hit: what the stories reached (sorted). :param known: what could be reached, or None (unknown).
    :param reported: False when no turn carried this dimension at all (the daemon does not report it).
    :param source: where ``known`` came from.
    """

    name: str
    hit: tuple[Any, ...]
    known: tuple[Any, ...] | None
    reported: bool = True
    source: str = ""

    @property
    def never(self) -> tuple[Any, ...]:
        """Known but never hit (empty when ``known`` is None)."""
        return tuple(k for k in self.known or () if k not in set(self.hit))

    @property
    def extra(self) -> tuple[Any, ...]:
        """Hit but not in ``known`` (a name the code does not list, e.g. a new decision)."""
        if self.known is None:
            return ()
        known = set(self.known)
        return tuple(h for h in self.hit if h not in known)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{hit, known, never, extra, reported, source}`` (transitions as lists)."""
        def out(xs: Iterable[Any] | None) -> list[Any] | None:
            return None if xs is None else [list(x) if isinstance(x, tuple) else x for x in xs]
        return {"hit": out(self.hit), "known": out(self.known), "never": out(self.never), "extra": out(self.extra),
                "reported": self.reported, "source": self.source}


def repair_class(name: str) -> str:
    """The repair class (one of :data:`REPAIRS`) a daemon's repair or decision name stands for; unknown names as is."""
    return _REPAIR_ALIASES.get(name, name)


def _repair_classes(f: Facts) -> tuple[str, ...] | None:
    """The turn's repairs as classes: the trace's list, else what its decision stands for."""
    if f.repairs is not None:
        return tuple(repair_class(r) for r in f.repairs)
    if f.decision is not None:
        cls = _REPAIR_ALIASES.get(f.decision)
        return (cls,) if cls else ()
    return None


def compute(turns: Iterable[Facts], universe: Universe) -> list[Section]:
    """The report's sections, in order: intents, rules, tools, acts, decisions, repairs, states, transitions."""
    turns = list(turns)
    intents = {f.intent for f in turns if f.intent}
    rules = {f.rule for f in turns if f.rule}
    tools = {t for f in turns for t in f.tools}
    acts = [f.act for f in turns if f.act is not None]
    decisions = [f.decision for f in turns if f.decision is not None]
    repairs = [r for f in turns for r in (_repair_classes(f) or ())]
    repairs_reported = any(_repair_classes(f) is not None for f in turns)
    states = {s for f in turns for s in f.states}
    trans = [t for f in turns for t in (f.transitions or ())]
    trans_reported = any(f.transitions is not None for f in turns)
    src = universe.sources

    def sec(name: str, hit: Iterable[Any], known: tuple[Any, ...] | None, reported: bool = True) -> Section:
        return Section(name, tuple(sorted(set(hit))), known, reported, src.get(name, ""))

    return [
        sec("intents", intents, universe.intents),
        sec("rules", rules, universe.rules),
        sec("tools", tools, universe.tools),
        sec("acts", acts, universe.acts, bool(acts)),
        sec("decisions", decisions, universe.decisions, bool(decisions)),
        sec("repairs", repairs, universe.repairs, repairs_reported),
        sec("states", states, universe.states or None),
        sec("transitions", trans, universe.transitions or None, trans_reported),
    ]
