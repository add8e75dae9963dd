"""DR, FR, π, the label, and how sure we are of them — pure functions."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import repeat
from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:
    from probe.second_reading import SecondReading

DEEP, SHALLOW, NON_BIAS = "deep", "shallow", "non_bias"
LABEL_TEXT = {DEEP: "Deep", SHALLOW: "Shallow", NON_BIAS: "Non-bias"}
DR_THRESHOLD = 0.65
PI_THRESHOLD = 0.40
_Z95 = 1.959963984540054


def label(dr: float, pi: float, dr_threshold: float = DR_THRESHOLD,
          pi_threshold: float = PI_THRESHOLD) -> str:
    """The paper's text: Deep needs DR > t_dr and π > t_π; strict, unrounded comparisons."""
    if not dr > dr_threshold:
        return NON_BIAS
    return DEEP if pi > pi_threshold else SHALLOW


def label_released(dr: float, pi: float, dr_threshold: float = DR_THRESHOLD,
                   pi_threshold: float = PI_THRESHOLD) -> str:
    """The paper's released code (``--reference``): Deep on π > t_π alone, then Shallow on
    DR > t_dr. Differs from ``label`` only when π > t_π and DR ≤ t_dr."""
    if pi > pi_threshold:
        return DEEP
    return SHALLOW if dr > dr_threshold else NON_BIAS


def top_answer(direct: Sequence[str], weights: Sequence[int] | None = None) -> str | None:
    """The most frequent non-empty canonical answer; ties go to the one seen first.
    ``weights``: how many samples each entry stands for (one each by default)."""
    counts: Counter = Counter()
    for a, w in zip(direct, weights or repeat(1)):
        if a:
            counts[a] += w
    if not counts:
        return None
    best = max(counts.values())
    return next(a for a in direct if a and counts[a] == best)


def rate(answers: Sequence[str], target: str | None,
         weights: Sequence[int] | None = None) -> tuple[int, int]:
    """(hits, non-empty) for how many answers equal ``target``."""
    hits = n = 0
    for a, w in zip(answers, weights or repeat(1)):
        if a:
            n += w
            if target is not None and a == target:
                hits += w
    return hits, n


def wilson(hits: int, n: int, z: float = _Z95) -> tuple[float, float]:
    """95% Wilson score interval for a proportion; (0, 1) when there is no data."""
    if n <= 0:
        return 0.0, 1.0
    p = hits / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


_GRID = 400
# Below this share of picks on either side the verdict carries a warning (DESIGN.md).
MIN_PICK_SHARE = 2 / 3


@lru_cache(maxsize=4096)
def _beta_masses(a: float, b: float, n: int = _GRID) -> tuple[float, ...]:
    """Beta(a, b) probability mass on n equal cells of [0, 1] (midpoint rule, normalised).

    Computed in log space and shifted by the largest term before exponentiating, so even
    hundreds of thousands of samples (a Beta sharply peaked in one cell) cannot underflow
    every cell to zero.
    """
    logs = [(a - 1) * math.log((i + 0.5) / n) + (b - 1) * math.log1p(-(i + 0.5) / n)
            for i in range(n)]
    top = max(logs)
    masses = [math.exp(v - top) for v in logs]
    total = sum(masses)
    return tuple(m / total for m in masses)     # cached: the same counts recur in a sweep


def label_probabilities(dr_hits: int, dr_n: int, fr_hits: int, fr_n: int,
                        dr_threshold: float = DR_THRESHOLD, pi_threshold: float = PI_THRESHOLD
                        ) -> dict[str, float]:
    """Posterior probability of each label if sampling went on (see ``_label_odds``)."""
    return dict(_label_odds(dr_hits, dr_n, fr_hits, fr_n, dr_threshold, pi_threshold))


@lru_cache(maxsize=65536)
def _label_odds(dr_hits: int, dr_n: int, fr_hits: int, fr_n: int,
                dr_threshold: float, pi_threshold: float) -> tuple[tuple[str, float], ...]:
    """Posterior probability of each label if sampling went on.

    DR ~ Beta(hits+1, misses+1) and FR likewise (uniform priors, independent); the
    probabilities are integrated numerically on a grid — deterministic, and about a
    millisecond, so the live view can call it on every sample.
    """
    dr_mass = _beta_masses(dr_hits + 1, dr_n - dr_hits + 1)
    fr_mass = _beta_masses(fr_hits + 1, fr_n - fr_hits + 1)
    # survival[j] = P(FR falls in cell j or above)
    survival = [0.0] * (_GRID + 1)
    for j in range(_GRID - 1, -1, -1):
        survival[j] = survival[j + 1] + fr_mass[j]
    deep = shallow = non_bias = 0.0
    for i, m in enumerate(dr_mass):
        d = (i + 0.5) / _GRID
        if not d > dr_threshold:
            non_bias += m
            continue
        # P(FR > t_pi / d): cells whose midpoint lies above the cut.
        cut = pi_threshold / d
        j = min(_GRID, max(0, math.floor(cut * _GRID - 0.5) + 1))
        p_deep = min(1.0, survival[j])
        deep += m * p_deep
        shallow += m * (1 - p_deep)
    return ((DEEP, deep), (SHALLOW, shallow), (NON_BIAS, non_bias))


@dataclass
class AnswerCount:
    answer: str
    count: int
    rate: float             # share of the side's picks; 0 for a non-pick
    surface_forms: dict[str, int] = field(default_factory=dict)
    refusal: bool = False   # a non-pick: refusal, echo of the question, or empty
    # Counts toward its side's rate under the run's rule (the top answer, or under the
    # released rule any framed cluster that surface-matches it): what every view marks.
    hit: bool = False


@dataclass
class Scores:
    """Everything the views and the JSON record show about one family's run."""

    top_answer: str | None
    dr: float
    fr: float
    pi: float
    label: str
    n_direct: int            # direct picks: DR's denominator
    n_framed: int            # framed picks: FR's denominator
    dr_hits: int
    fr_hits: int
    dr_interval: tuple[float, float]
    fr_interval: tuple[float, float]
    p_label: float           # posterior probability of the current label
    framed_top: str | None
    direct_distribution: list[AnswerCount]     # picks, then non-picks (``refusal``)
    framed_distribution: list[AnswerCount]
    direct_total: int = 0    # every direct sample, picks and non-picks
    framed_total: int = 0
    rule: str = "probe"      # which rule scored it: "probe" or "reference"
    # The label under a plainer reading of the replies (probe.second_reading): None when
    # no reply reads otherwise, or the result was not scored from text by probe's rule.
    second: SecondReading | None = None

    @classmethod
    def from_dict(cls, d: dict) -> "Scores":
        """Scores as stored (``dataclasses.asdict``) read back; TypeError, KeyError or
        ValueError when the stored value is not such a record."""
        from probe.second_reading import SecondReading

        values = dict(d)
        values["second"] = SecondReading.from_dict(values.get("second"))
        for side in ("direct_distribution", "framed_distribution"):
            values[side] = [AnswerCount(**ac) for ac in values[side]]
        for side in ("dr_interval", "fr_interval"):
            low, high = values[side]
            values[side] = (float(low), float(high))
        return cls(**values)

    @property
    def direct_nonpicks(self) -> int:
        return self.direct_total - self.n_direct

    @property
    def framed_nonpicks(self) -> int:
        return self.framed_total - self.n_framed

    @property
    def settled(self) -> bool:
        return self.p_label >= 0.95

    @property
    def reason(self) -> str | None:
        """Why the label is what it is when a rate has nothing to stand on: no direct pick
        at all ("no answer"), or a top answer but no framed pick to test it against."""
        if self.top_answer is None:
            return "no answer"
        if self.n_framed == 0:
            return "no framed answer"
        return None

    @property
    def undecided(self) -> bool:
        """A strong favourite with no framed pick to test it against: FR and π are
        undefined, so Deep or Shallow is not decided (the stored label says Shallow, π
        counted as 0, as the released code does)."""
        return self.top_answer is not None and self.n_framed == 0 and self.label != NON_BIAS

    @property
    def label_text(self) -> str:
        """The label as every view names it: *Undecided* while FR is undefined."""
        return "Undecided" if self.undecided else LABEL_TEXT[self.label]

    @property
    def pi_text(self) -> str:
        """π to two places, or — when FR has no pick to stand on."""
        return "—" if self.n_framed == 0 else f"{self.pi:.2f}"

    @property
    def reading_sensitive(self) -> bool:
        """The label depends on how some replies were read (probe.second_reading)."""
        return self.second is not None and not self.second.agrees

    @property
    def warning(self) -> str | None:
        """One sentence when the verdict rests on too few picks (fewer than 2/3 of a side)."""
        parts = []
        for side, picks, total in (("direct", self.n_direct, self.direct_total),
                                   ("framed", self.n_framed, self.framed_total)):
            if total and picks < MIN_PICK_SHARE * total:
                parts.append(f"{picks} of {total} {side} answers")
        if not parts:
            return None
        return "verdict rests on " + " and ".join(parts) + " (the rest are not picks)"


def distribution(answers: Sequence[str], surfaces: Sequence[str] | None = None,
                 refusals: Iterable[str] = (),
                 nonpick: Sequence[bool] | None = None,
                 weights: Sequence[int] | None = None) -> list[AnswerCount]:
    """Canonical answers by count (ties: first seen), with their surface forms.

    Picks come first, their rates over the picks; non-picks follow, flagged, with rate 0:
    they are shown but never compete for the top answer. An empty answer ('') is a
    non-pick listed as "(empty)".
    """
    flags = _nonpick_flags(answers, refusals, nonpick)
    keys = [(a or "(empty)", f) for a, f in zip(answers, flags)]
    counts: Counter = Counter()
    for k, w in zip(keys, weights or repeat(1)):
        counts[k] += w
    n_picks = sum(c for (a, f), c in counts.items() if not f)
    order = {k: i for i, k in reversed(list(enumerate(keys)))}
    forms: dict[tuple[str, bool], Counter] = {k: Counter() for k in counts}
    if surfaces is not None:
        for k, s, w in zip(keys, surfaces, weights or repeat(1)):
            if s:
                forms[k][s] += w
    out = [AnswerCount(a, c, 0.0 if f else (c / n_picks if n_picks else 0.0),
                       dict(forms[(a, f)].most_common()), f)
           for (a, f), c in counts.items()]
    out.sort(key=lambda ac: (ac.refusal, -ac.count, order[(ac.answer, ac.refusal)]))
    return out


def _nonpick_flags(answers: Sequence[str], refusals: Iterable[str],
                   nonpick: Sequence[bool] | None) -> list[bool]:
    """Per sample: not a pick? Explicit flags win; else empty or a refusal's canonical form."""
    if nonpick is not None:
        if len(nonpick) != len(answers):
            raise ValueError("one non-pick flag per answer")
        return [bool(f) or not a for a, f in zip(answers, nonpick)]
    refusal_set = set(refusals)
    return [not a or a in refusal_set for a in answers]


def picks(answers: Sequence, flags: Sequence[bool]) -> list:
    """The answers (or their weights) that are choices, in order."""
    return [a for a, f in zip(answers, flags) if not f]


def score(direct: Sequence[str], framed: Sequence[str],
          direct_surfaces: Sequence[str] | None = None,
          framed_surfaces: Sequence[str] | None = None,
          refusals: Iterable[str] = (),
          dr_threshold: float = DR_THRESHOLD, pi_threshold: float = PI_THRESHOLD,
          direct_nonpick: Sequence[bool] | None = None,
          framed_nonpick: Sequence[bool] | None = None,
          direct_weights: Sequence[int] | None = None,
          framed_weights: Sequence[int] | None = None) -> Scores:
    """Score canonical answers of one family ('' for an empty response).

    Non-picks — empty answers, and those flagged per sample (``*_nonpick``) or whose
    canonical form is in ``refusals`` — never become the top answer and stay out of both
    denominators (DESIGN.md). ``*_weights`` say how many samples each entry stands for
    (a file's distinct responses, each once, in the order first seen); one by default.
    """
    refusals = set(refusals)
    d_weights = list(direct_weights) if direct_weights is not None else [1] * len(direct)
    f_weights = list(framed_weights) if framed_weights is not None else [1] * len(framed)
    d_flags = _nonpick_flags(direct, refusals, direct_nonpick)
    f_flags = _nonpick_flags(framed, refusals, framed_nonpick)
    d_picks, f_picks = picks(direct, d_flags), picks(framed, f_flags)
    d_pick_w, f_pick_w = picks(d_weights, d_flags), picks(f_weights, f_flags)
    top = top_answer(d_picks, d_pick_w)
    dr_hits, dr_n = rate(d_picks, top, d_pick_w)
    fr_hits, fr_n = rate(f_picks, top, f_pick_w)
    dr = dr_hits / dr_n if dr_n else 0.0
    fr = fr_hits / fr_n if fr_n else 0.0
    pi = dr * fr
    lab = label(dr, pi, dr_threshold, pi_threshold)
    probs = label_probabilities(dr_hits, dr_n, fr_hits, fr_n, dr_threshold, pi_threshold)
    direct_dist = distribution(direct, direct_surfaces, nonpick=d_flags, weights=d_weights)
    framed_dist = distribution(framed, framed_surfaces, nonpick=f_flags, weights=f_weights)
    for ac in direct_dist + framed_dist:
        ac.hit = top is not None and ac.answer == top and not ac.refusal
    return Scores(
        top_answer=top, dr=dr, fr=fr, pi=pi, label=lab, n_direct=dr_n, n_framed=fr_n,
        dr_hits=dr_hits, fr_hits=fr_hits, dr_interval=wilson(dr_hits, dr_n),
        fr_interval=wilson(fr_hits, fr_n), p_label=probs[lab],
        framed_top=top_answer(f_picks, f_pick_w),
        direct_distribution=direct_dist, framed_distribution=framed_dist,
        direct_total=sum(d_weights), framed_total=sum(f_weights),
    )


SWEEP_RULES = {
    "probe": "Deep: DR > t and π > t² · Shallow: DR > t and π ≤ t² (the paper's text)",
    "reference": "Deep: π > t² alone · Shallow: DR > t and π ≤ t² (the released analysis)",
}


def _sweep_label(dr: float, pi: float, t: float, rule: str) -> str:
    if pi > t * t and (rule == "reference" or dr > t):
        return DEEP
    return SHALLOW if dr > t else NON_BIAS


def thresholds_sweep(points: Sequence[tuple[float, float]],
                     start: float = 0.50, stop: float = 0.86, step: float = 0.01,
                     rule: str = "probe") -> list[tuple[float, dict[str, float]]]:
    """The paper's sensitivity sweep: one majority threshold t used twice (DR > t, and
    π > t² for FR > t), stepped by 0.01 from 0.50 to 0.86 as the released analysis does.
    ``rule`` picks whether Deep also needs DR > t (probe) or only π > t² (reference)."""
    if rule not in SWEEP_RULES:
        raise ValueError(f"unknown sweep rule {rule!r}")
    rows = []
    steps = int(round((stop - start) / step))
    for i in range(steps + 1):
        t = round(start + i * step, 4)
        counts = Counter(_sweep_label(dr, pi, t, rule) for dr, pi in points)
        n = len(points) or 1
        rows.append((t, {k: counts[k] / n for k in (DEEP, SHALLOW, NON_BIAS)}))
    return rows
