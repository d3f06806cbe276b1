"""A tool's own reply template: what its output says, in zh and en (pure).

``tools/<name>/tool.yaml`` may carry ``reply:``, either one text per language or a list of
cases tried in order (each but the last with a ``when`` condition over the output)::

    reply:
      - when: "not has(reminders.0)"
        zh: 你现在没有待办的提醒。
        en: You have no pending reminders.
      - zh: "你有 {{reminders | count(条)}}提醒：\\n{{reminders | lines('{due | datetime} {text}')}}"
        en: "You have {{reminders | count(reminder)}}:\\n{{reminders | lines('{due | datetime} {text}')}}"

Paths start at the output's top-level fields (``{{free_mb | size_mb}}``, not ``steps.…``) and
may only name fields the output schema declares; filters are those of :mod:`.templating`.
Every case needs both languages. The executor renders the phrase over a tool step's output
into ``steps.<id>.reply``, in the turn's language.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .conditions import Condition, ConditionError
from .conditions import parse as parse_condition
from .filters import Style, as_text
from .templating import Template, TemplateSyntaxError

__all__ = ["LANGS", "Phrase", "PhraseError"]

#: languages every case of a tool's reply template must give.
LANGS: tuple[str, ...] = ("zh", "en")


class PhraseError(ValueError):
    """A reply template does not parse; ``key`` is where (``reply.1.zh``)."""

    def __init__(self, key: str, message: str) -> None:
        self.key, self.message = key, message
        super().__init__(f"{key}: {message}")


@dataclass(frozen=True, slots=True)
class _Case:
    when: Condition | None
    texts: Mapping[str, Template]


@dataclass(frozen=True, slots=True)
class Phrase:
    """A parsed reply template: cases, the first whose ``when`` holds is said."""

    cases: tuple[_Case, ...]

    @classmethod
    def parse(cls, raw: Any, fields: Sequence[str], *, key: str = "reply") -> Phrase:
        """Parse a ``reply:`` value.

        :param raw: ``{zh, en}`` or a list of ``{when?, zh, en}``.
        :param fields: the output's top-level field names: the only names paths may start with.
        :raises PhraseError: naming the case and language, for any problem.
        """
        roots = tuple(fields)
        items = raw if isinstance(raw, list) else [raw]
        if not items:
            raise PhraseError(key, "needs at least one case")
        cases = []
        for i, item in enumerate(items):
            where = f"{key}.{i}" if isinstance(raw, list) else key
            if not isinstance(item, Mapping):
                raise PhraseError(where, "a reply is a mapping with zh and en")
            unknown = set(item) - {"when", *LANGS}
            if unknown:
                raise PhraseError(where, f"unknown key(s) {', '.join(sorted(map(str, unknown)))} (use when, zh, en)")
            when = item.get("when")
            last = i == len(items) - 1
            if when is None and not last:
                raise PhraseError(where, "only the last case may go without 'when'")
            if when is not None and last:
                raise PhraseError(where, "the last case needs no 'when' (it is said when no other case holds)")
            cond = None
            if when is not None:
                try:
                    cond = parse_condition(str(when), roots)
                except ConditionError as exc:
                    raise PhraseError(f"{where}.when", f"{exc} (output fields: {', '.join(roots) or 'none'})") from None
            texts = {}
            for lang in LANGS:
                src = item.get(lang)
                if not isinstance(src, str) or not src.strip():
                    raise PhraseError(f"{where}.{lang}", "missing: every case gives zh and en")
                try:
                    texts[lang] = Template.parse(src, roots)
                except TemplateSyntaxError as exc:
                    raise PhraseError(f"{where}.{lang}", str(exc)) from None
            cases.append(_Case(cond, texts))
        return cls(tuple(cases))

    @property
    def paths(self) -> list[tuple[str, ...]]:
        """Every output path the templates read."""
        return [p for c in self.cases for t in c.texts.values() for p in t.paths]

    def render(self, output: Mapping[str, Any], style: Style) -> str:
        """The sentence for ``output`` in ``style.lang``. :raises MissingValue: a field is absent."""
        for case in self.cases:
            if case.when is None or case.when(output):
                tmpl = case.texts.get("zh" if style.zh else "en") or next(iter(case.texts.values()))
                return as_text(tmpl.render(output, style)).strip()
        return ""  # pragma: no cover - the last case has no condition
