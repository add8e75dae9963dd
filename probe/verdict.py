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
    """The rule that joined a form to its answer, named as `probe match` names it (exact,
    alias, containment, typo…), or *new answer* for an answer given once that joined
    nothing (``times``: how many samples of the result gave that answer). It reads the
    same while a run samples and after: the first of several "Strawberries" is *exact*
    once a second arrives, as the final, order-free pass says too."""
    same = normalise(answer) == normalise(canonical)
    if reason in ("new", "exact") and times <= 1:
        return "new answer"
    if reason in ("new", "exact") or (reason == "alias" and same):
        return "exact" if same or reason == "exact" else "new answer"
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
    top = scored.scores.top_answer
    times = Counter(m.canonical for _, m in scored.matches)
    out = []
    for r, m in scored.matches:
        nonpick = _nonpick(m)
        counts = not nonpick and m.canonical in hits[r.kind]
        if nonpick:
            # Its kind is the whole story: how it joined a cluster would read as an answer.
            why = nonpick
        elif counts and top is not None and m.canonical != top:
            # The released rule counts it for the top answer whatever cluster it formed.
            why = f"surface match of {top}"
        else:
            why = why_words(m.answer, m.canonical, m.reason, times[m.canonical])
        named = scored.scores.second.names(r.kind, r.idx) \
            if scored.scores.reading_sensitive else None
        if named is not None:
            # The label depends on replies like this one: say what else it could be.
            why = f"⚠ names {named}"
        out.append(SampleLine(r.kind, r.idx, m.answer, m.canonical, why, nonpick, counts))
    return out


def framed_lines(scored: Scored) -> dict[int, SampleLine]:
    """Reframing index → its sample's line."""
    return {ln.idx: ln for ln in sample_lines(scored) if ln.kind == "framed"}


def surface_note(scores) -> str | None:
    """Under the released rule, what FR counts when clusters named otherwise surface-match
    the direct top answer: ``FR counts 8: 6 Banana + 2 surface matches (reference rule)``;
    None when every framed hit is the top answer itself."""
    top = scores.top_answer
    if top is None:
        return None
    hits = [ac for ac in scores.framed_distribution if ac.hit and not ac.refusal]
    own = sum(ac.count for ac in hits if ac.answer == top)
    extra = sum(ac.count for ac in hits if ac.answer != top)
    if not extra:
        return None
    matches = f"{extra} surface match{'es' if extra != 1 else ''}"
    if not own:
        return f"FR counts {extra}: {matches} of {top} (reference rule)"
    return f"FR counts {own + extra}: {own} {top} + {matches} (reference rule)"


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
    """One row of the answers list: an answer with its counts on each side. The samples of
    an answer that are not picks (an unbraced "blue" beside "{Blue}") are a row of their
    own, as the run view's distributions list them."""

    name: str
    direct: int = 0
    framed: int = 0
    nonpick: bool = False
    counts: set[str] = field(default_factory=set)       # {"DR", "FR"} it counts toward
    forms: dict[str, set[str]] = field(default_factory=dict)   # surface form → reasons
    kinds: set[str] = field(default_factory=set)        # why not a pick: refusal, echo…

    @property
    def key(self) -> str:
        """Unique among a result's groups: the name, marked when its samples are not picks."""
        return f"{self.name} {NONPICK}" if self.nonpick else self.name

    @property
    def counts_text(self) -> str:
        if self.nonpick:
            return NONPICK
        return "+".join(r for r in ("DR", "FR") if r in self.counts) or "—"

    @property
    def counts_words(self) -> str:
        """What the answer does to the rates, in words: a pick is in the denominator of each
        side it was given on, so it counts toward that rate or against it."""
        if self.nonpick:
            kinds = ", ".join(sorted(self.kinds - {""})) or "not a pick"
            return f"not a pick ({kinds}): left out of both rates"
        sides = [r for r, n in (("DR", self.direct), ("FR", self.framed)) if n]
        toward = [r for r in sides if r in self.counts]
        against = [r for r in sides if r not in self.counts]
        parts = ([f"counts toward {' and '.join(toward)}"] if toward else []) + \
            ([f"counts against {' and '.join(against)}"] if against else [])
        return "a pick; " + ", ".join(parts)


def answer_groups(scored: Scored, rule: str = "probe") -> list[AnswerGroup]:
    """The answers of a result, most frequent first, picks and non-picks apart. Under the
    released rule each side is clustered on its own, so a form's reason says which side
    it was seen on."""
    groups: dict[tuple[str, bool], AnswerGroup] = {}
    for line in sample_lines(scored):
        if not line.canonical:
            continue
        nonpick = bool(line.nonpick)
        g = groups.setdefault((line.canonical, nonpick),
                              AnswerGroup(line.canonical, nonpick=nonpick))
        setattr(g, line.kind, getattr(g, line.kind) + 1)
        g.kinds.add(line.nonpick)
        if line.counts:
            g.counts.add("DR" if line.kind == "direct" else "FR")
        why = f"{line.kind}: {line.why}" if rule == "reference" else line.why
        g.forms.setdefault(line.answer, set()).add(why)
    return sorted(groups.values(), key=lambda g: (g.nonpick, -(g.direct + g.framed)))
