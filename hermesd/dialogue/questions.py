"""The open questions a session can hold between turns (typed, never dicts).

A session asks at most one question at a time; the next turn is first read as an
answer to it (:mod:`.reader`) and :func:`hermesd.dialogue.policy.decide` says what
follows. Each question round-trips through :func:`to_dict` / :func:`from_dict` so
it survives a restart in the session's L2 row (``kind`` names the class).

- :class:`Ask`: a rule's ``ask`` step wants one slot (``slot``, filled by an
  entity of type ``entity``); the plan resumes from the start with it filled.
- :class:`Confirm`: a yes/no card before step ``index`` of rule ``rule_id``.
- :class:`Choice`: a mention ("张工") that names several people; the answer picks
  one of ``candidates`` and the original utterance ``text`` runs again.
- :class:`Offer`: unfinished work from an earlier session (a pending task).
- :class:`Pick`: which of several things a rule's ``choose`` step found; the plan resumes with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Mapping, Union

from .. import lazyre

__all__ = ["Ask", "Candidate", "Choice", "Confirm", "Offer", "OpenQuestion", "Pick", "choices_of", "from_dict", "reasked", "to_dict"]


@dataclass(frozen=True, slots=True)
class Candidate:
    """One choice of a :class:`Choice` card: a directory person (or any anchor).

    :param anchor_id: e.g. ``person:zhang.wei``. :param display: the name shown (张伟).
    :param attrs: what the card shows and an answer may name: ``dept``, ``dept_name``,
        ``title``, ``email``, ``aliases`` (a list) …
    """

    anchor_id: str
    display: str
    attrs: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"anchor_id": self.anchor_id, "display": self.display, **dict(self.attrs)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Candidate":
        attrs = {k: v for k, v in d.items() if k not in ("anchor_id", "display")}
        return cls(str(d["anchor_id"]), str(d.get("display") or d["anchor_id"]), attrs)


@dataclass(frozen=True, slots=True)
class _Plan:
    """Where a suspended rule plan stands (shared by :class:`Ask` and :class:`Confirm`).

    :param intent: the plan's intent. :param rule_id: the rule that suspended.
    :param index: the action index it stopped at. :param entities: the form's slot values so far.
    :param steps: results of the tool steps already run (``steps.<id>``).
    :param prompt: the question as asked (rendered, in the session's language).
    :param utterance: what the user first said for this plan (for a later offer).
    :param ref: the plan's reference instant, ISO 8601 (an answer continues it).
    :param reasked: asked again once already after a digression (never a second time).
    :param then: requests said after this one in the same utterance, held until it is answered.
    :param prompts: ``prompt`` in each language it could be rendered in (language → text).
    """

    intent: str | None
    rule_id: str | None
    index: int
    entities: Mapping[str, Any] = field(default_factory=dict)
    steps: Mapping[str, Any] = field(default_factory=dict)
    prompt: str = ""
    utterance: str | None = None
    ref: str | None = None
    reasked: bool = False
    then: tuple[str, ...] = ()
    #: the question in each language (``zh``, ``en``), for a re-ask in a later turn's language
    prompts: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Ask(_Plan):
    """A slot question: ``slot`` is filled by an entity of type ``entity`` (or any text when None)."""

    slot: str = ""
    entity: str | None = None
    #: answers already not understood (asked again saying what is expected); one more drops the form
    missed: int = 0
    #: asked of an utterance that said only a time (下午三点, "at 6pm": no request of the person's yet): the
    #: question is no unfinished work — left unanswered it is dropped, never kept as a pending task
    tentative: bool = False


@dataclass(frozen=True, slots=True)
class Confirm(_Plan):
    """A yes/no card shown before action ``index`` runs. :param card: the structured card."""

    card: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Pick(_Plan):
    """Which of several things a rule's ``choose`` step found (two quotes sent to different people):
    ``items`` are the things, ``choices`` how the card shows each (1-based), ``save`` the step id the chosen
    item becomes (``steps.<save>``); the plan resumes after the step once one is picked."""

    items: tuple[Any, ...] = ()
    choices: tuple[Candidate, ...] = ()
    save: str = ""

    @property
    def card(self) -> dict[str, Any]:
        return {"question": self.prompt, "choices": [c.to_dict() for c in self.choices]}


@dataclass(frozen=True, slots=True)
class Choice:
    """Which of several people a mention means.

    :param mention: the words said (张工). :param candidates: in the order shown (1-based to a person).
    :param text: the utterance to run again once chosen. :param ref: its reference instant (ISO 8601).
    :param prompt: the question as asked. :param outer: the question the ambiguous utterance answered
        (it comes back once the choice is made), or None.
    :param asks: the catalogue key of the question, to word it again in either language: ``choose``
        (which of several a mention means) or ``person_did_you_mean`` (a name nobody has, typed like
        these: a yes takes the one offered) or ``did_you_mean`` (a word one edit from a document kind, "qoute":
        the one kind offered; a yes runs ``text``, the request as corrected, a no drops it).
    """

    mention: str
    candidates: tuple[Candidate, ...]
    text: str
    ref: str | None = None
    prompt: str = ""
    outer: "OpenQuestion | None" = None
    reasked: bool = False
    then: tuple[str, ...] = ()
    asks: str = "choose"

    @property
    def card(self) -> dict[str, Any]:
        return {"question": self.prompt, "choices": [c.to_dict() for c in self.candidates]}


@dataclass(frozen=True, slots=True)
class Offer:
    """Resume unfinished work? :param task_id: the pending task. :param intent: its intent.
    :param slots: what was filled. :param prompt: the offer as worded last (at the session's open,
    then in the language of the turn that said it). :param reasked: said in a reply already (an
    offer made when the session opened may never have been read: it is said after the first answer)."""

    task_id: int
    intent: str
    slots: Mapping[str, Any] = field(default_factory=dict)
    prompt: str = ""
    reasked: bool = False
    then: tuple[str, ...] = ()


_STAMP = lazyre.compile(r"^\d{4}-\d\d-\d\d|^\d+$")


def choices_of(items: Any, labels: list[str]) -> tuple[Candidate, ...]:
    """The card of a :class:`Pick`: one :class:`Candidate` per item, shown as its label, with the item's
    words an answer may name as attributes (its top-level and ``params`` strings: the document, the
    recipient …; timestamps and ids are no words). ``at`` stays for a time said ("上周三那个")."""
    out = []
    for k, item in enumerate(items or ()):
        attrs: dict[str, Any] = {}
        if isinstance(item, Mapping):
            leaves = {**{f"params.{a}": b for a, b in (item.get("params") or {}).items()
                         if isinstance(item.get("params"), Mapping)}, **item}
            for key, v in leaves.items():
                if isinstance(v, str) and v.strip() and not _STAMP.match(v.strip()) and key != "at":
                    attrs[key] = v
            if isinstance(item.get("at"), str):
                attrs["at"] = item["at"]
        out.append(Candidate(str(k + 1), labels[k] if k < len(labels) else str(k + 1), attrs))
    return tuple(out)


OpenQuestion = Union[Ask, Confirm, Choice, Offer, Pick]

_KINDS: dict[str, type] = {"ask": Ask, "confirm": Confirm, "choice": Choice, "offer": Offer, "pick": Pick}
_NAMES = {cls: name for name, cls in _KINDS.items()}


def kind_of(q: OpenQuestion) -> str:
    """``ask`` | ``confirm`` | ``choice`` | ``offer`` | ``pick``."""
    return _NAMES[type(q)]


def reasked(q: OpenQuestion) -> OpenQuestion:
    """The same question, marked as asked again after a digression."""
    return replace(q, reasked=True)


def to_dict(q: OpenQuestion | None) -> dict[str, Any] | None:
    """JSON-ready dict with ``kind`` (the session row's ``pending``); None stays None."""
    if q is None:
        return None
    out: dict[str, Any] = {"kind": kind_of(q)}
    for f in fields(q):
        v = getattr(q, f.name)
        if f.name in ("candidates", "choices"):
            v = [c.to_dict() for c in v]
        elif f.name == "outer":
            v = to_dict(v)
        elif isinstance(v, Mapping):
            v = dict(v)
        elif isinstance(v, tuple):
            v = list(v)
        out[f.name] = v
    if isinstance(q, (Choice, Pick)):
        out["card"] = q.card
    return out


def from_dict(d: Mapping[str, Any] | None) -> OpenQuestion | None:
    """Inverse of :func:`to_dict`. Unknown keys are ignored (an older row still loads).

    :raises ValueError: ``kind`` is not one of ask / confirm / choice / offer.
    """
    if not d:
        return None
    cls = _KINDS.get(str(d.get("kind")))
    if cls is None:
        raise ValueError(f"unknown open question kind {d.get('kind')!r}")
    names = {f.name for f in fields(cls)}
    kw: dict[str, Any] = {k: v for k, v in d.items() if k in names}
    if "then" in kw:
        kw["then"] = tuple(kw["then"] or ())
    if cls is Choice:
        kw["candidates"] = tuple(Candidate.from_dict(c) for c in d.get("candidates") or ())
        kw["outer"] = from_dict(d.get("outer"))
    if cls is Pick:
        kw["items"] = tuple(kw.get("items") or ())
        kw["choices"] = tuple(Candidate.from_dict(c) for c in d.get("choices") or ())
    return cls(**kw)
