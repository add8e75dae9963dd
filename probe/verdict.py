"""One scored result as every view shows it.

A run's scorer (probe's rule or the released one) decides which answers count toward DR and
FR and flags them in the distributions (``AnswerCount.hit``). Everything a screen draws —
the DR/FR boxes, the distributions, each reframing's ✓/✗/⊘, the answers list — is read from
that one result here, so no view re-matches text or re-decides what counts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from probe.matching import normalise
from probe.scoring import Scored

PICK, MISS, NONPICK = "✓", "✗", "⊘"


def frozen(scored: Scored) -> Scored:
    """A copy whose matches no scorer will update later: a live scorer refreshes its
    matches in place, and a screen on another thread must see one moment's result."""
    return Scored(scored.scores, [(r, replace(m)) for r, m in scored.matches])


def why_words(answer: str, canonical: str, reason: str, times: int = 1) -> str:
    """The matcher's reason in words: how a form joined its answer, or that it joined none
    (``times``: how often the run gave this form). A bare "exact" on a row that only
    repeats an answer would read as "exact match"; "alias" on the answer's own name as if
    it were another word for it."""
    if reason == "new":
        return "new answer"
    if normalise(answer) == normalise(canonical) and reason in ("exact", "alias"):
        return "repeated" if times > 1 else "the answer itself"
    return reason


@dataclass(frozen=True)
class SampleLine:
    """One sample as the result counts it."""

    kind: str             # direct | framed
    idx: int
    answer: str           # the surface form the matcher extracted
    canonical: str        # its answer on this side ('' for an empty response)
    why: str              # how it joined that answer, in words
    nonpick: str          # '' for a pick, else why not: empty, refusal, echo…
    counts: bool          # one of its side's hits (DR's or FR's numerator)

    @property
    def mark(self) -> str:
        return NONPICK if self.nonpick else PICK if self.counts else MISS


def _hit_names(scored: Scored) -> dict[str, set[str]]:
    s = scored.scores
    return {"direct": {a.answer for a in s.direct_distribution if a.hit and not a.refusal},
            "framed": {a.answer for a in s.framed_distribution if a.hit and not a.refusal}}


def _nonpick(match) -> str:
    if not match.canonical:
        return "empty"
    if match.refusal:
        return match.nonpick or "not a pick"
    return ""


def sample_lines(scored: Scored) -> list[SampleLine]:
    """Every sample in the result's order, each with whether it counts."""
    hits = _hit_names(scored)
    times = Counter(normalise(m.answer) for _, m in scored.matches)
    out = []
    for r, m in scored.matches:
        nonpick = _nonpick(m)
        out.append(SampleLine(r.kind, r.idx, m.answer, m.canonical,
                              why_words(m.answer, m.canonical, m.reason,
                                        times[normalise(m.answer)]),
                              nonpick, not nonpick and m.canonical in hits[r.kind]))
    return out


def framed_lines(scored: Scored) -> dict[int, SampleLine]:
    """Reframing index → its sample's line."""
    return {ln.idx: ln for ln in sample_lines(scored) if ln.kind == "framed"}


def verdict_words(line: SampleLine, top: str | None, rule: str = "probe") -> str:
    """Why a sample counts for its rate, against it, or not at all."""
    rate = "DR" if line.kind == "direct" else "FR"
    if line.nonpick:
        return (f"not a pick ({line.nonpick}): left out of {rate}, counted neither for nor "
                "against it")
    if top is None:
        return "no direct top answer yet: nothing to count against"
    if line.counts:
        same = "is" if line.canonical == top else "surface-matches"
        return f"{same} the direct top answer ({top}): counts toward {rate}"
    joined = " (the released rule finds no surface match)" if rule == "reference" else ""
    return f"a different answer from the direct top answer ({top}){joined}: counts " \
           f"against {rate}"


@dataclass
class AnswerGroup:
    """One row of the answers list: an answer with its counts on each side."""

    name: str
    direct: int = 0
    framed: int = 0
    nonpick: bool = False
    counts: set[str] = field(default_factory=set)       # {"DR", "FR"} it counts toward
    forms: dict[str, set[str]] = field(default_factory=dict)   # surface form → reasons

    @property
    def counts_text(self) -> str:
        if self.nonpick:
            return NONPICK
        return "+".join(r for r in ("DR", "FR") if r in self.counts) or "—"


def answer_groups(scored: Scored, rule: str = "probe") -> list[AnswerGroup]:
    """The answers of a result, most frequent first. Under the released rule each side is
    clustered on its own, so a form's reason says which side it was seen on."""
    groups: dict[str, AnswerGroup] = {}
    for line in sample_lines(scored):
        if not line.canonical:
            continue
        g = groups.setdefault(line.canonical, AnswerGroup(line.canonical))
        setattr(g, line.kind, getattr(g, line.kind) + 1)
        g.nonpick |= bool(line.nonpick)
        if line.counts:
            g.counts.add("DR" if line.kind == "direct" else "FR")
        why = f"{line.kind}: {line.why}" if rule == "reference" else line.why
        g.forms.setdefault(line.answer, set()).add(why)
    return sorted(groups.values(), key=lambda g: -(g.direct + g.framed))
