"""How a run reads: one line per story, the summary line, the coverage report (text), or all of it as JSON."""

from __future__ import annotations

from typing import Any

from .coverage import Section, compute
from .runner import RunResult, StoryResult

__all__ = ["coverage_lines", "story_line", "summary_line", "text_report", "to_json"]

_WHY_UNKNOWN = {
    "intents": "loaded intents unknown (give --packs DIR)",
    "rules": "loaded rules unknown: this daemon does not list its rules (give --packs DIR)",
    "tools": "loaded tools unknown (tools.list failed)",
}
_NOT_REPORTED = {
    "acts": "not reported by this daemon (trace reading.act)",
    "decisions": "not reported by this daemon (reply/trace decision)",
    "repairs": "not reported by this daemon (trace repairs)",
    "transitions": "not reported by this daemon (trace transitions)",
}


def story_line(r: StoryResult, verbose: bool = False) -> str:
    """``PASS  file:line  name`` / ``FAIL  file:line  name — turn N «…»: expected …, got …`` (more with ``verbose``)."""
    head = f"{r.status.upper():<4}  {r.story.where}  {r.story.name}"
    if r.status == "pass":
        return head
    line = f"{head} — {r.first_problem}"
    if verbose:
        for t in r.turns:
            if not t.mismatches:
                continue
            reply = ((t.reply or {}).get("reply") or {}).get("text", "")
            line += f"\n      turn {t.index} «{t.turn.said}» (line {t.turn.line}), reply {reply!r}"
            line += "".join(f"\n        {m}" for m in t.mismatches)
    return line


def summary_line(run: RunResult) -> str:
    """``N passed, M failed`` (stories)."""
    return f"{run.count('pass')} passed, {run.count('fail')} failed"


def _transition(t: tuple[str, str, str]) -> str:
    return f"{t[0]} --{t[1]}--> {t[2]}"


def coverage_lines(sections: list[Section]) -> list[str]:
    """The coverage report: per dimension hit/known and what was never hit (transitions one per line)."""
    out = ["coverage"]
    for s in sections:
        label = f"  {s.name:<12}"
        if not s.reported:
            extra = f"; {len(s.known)} known" if s.known else ""
            out.append(f"{label}{_NOT_REPORTED.get(s.name, 'not reported')}{extra}")
            continue
        if s.known is None:
            out.append(f"{label}{len(s.hit)} hit; {_WHY_UNKNOWN.get(s.name, 'universe unknown')}")
            continue
        hit_known = len(s.hit) - len(s.extra)
        line = f"{label}{hit_known}/{len(s.known)}"
        if s.source:
            line += f"  (from {s.source})"
        out.append(line)
        never = s.never
        if s.name == "transitions":
            out += [f"      never: {_transition(t)}" for t in never]
            out += [f"      not in the table: {_transition(t)}" for t in s.extra]
        else:
            if never:
                out.append(f"      never: {', '.join(map(str, never))}")
            if s.extra:
                out.append(f"      also hit (not listed): {', '.join(map(str, s.extra))}")
    return out


def text_report(run: RunResult, verbose: bool = False) -> str:
    """Every story line, the summary line, a line for skipped stories, then the coverage report."""
    lines = [story_line(r, verbose) for r in run.stories]
    lines.append(summary_line(run))
    skipped = run.count("skip")
    if skipped:
        lines.append(f"{skipped} not played to the end (see SKIP above)")
    lines.append(f"({len(run.stories)} stories, {sum(len(r.turns) for r in run.stories)} turns in {run.seconds:.1f} s)")
    lines += coverage_lines(compute(run.facts(), run.universe))
    return "\n".join(lines)


def to_json(run: RunResult) -> dict[str, Any]:
    """Machine-readable: counts, every story with its turns, the coverage sections."""
    return {"passed": run.count("pass"), "failed": run.count("fail"), "skipped": run.count("skip"),
            "seconds": round(run.seconds, 3), "stories": [r.to_dict() for r in run.stories],
            "coverage": {s.name: s.to_dict() for s in compute(run.facts(), run.universe)}}
