"""Scores of one family under the released pipeline.

What the released code counts as an answer is the raw response with surrounding whitespace
removed; only an empty one is dropped. Refusals and echoes are ordinary answers here (they
can be the top answer). DR is the top cluster's share of the direct answers; FR is the share
of framed answers whose cluster surface-matches the direct top cluster; the label is Deep on
π > 0.40 alone, Shallow on DR > 0.65, Non-bias otherwise.
"""

from __future__ import annotations

import math
from collections import Counter

from probe.family import Family
from probe.matching import Match
from probe.metrics import (DR_THRESHOLD, NON_BIAS, PI_THRESHOLD, AnswerCount, Scores,
                           _beta_masses, label_released, wilson)
from probe.reference.cluster import Side, cluster_answers
from probe.reference.embed import Embedder, ensure_available, shared
from probe.reference.keys import cluster_key
from probe.scoring import Response, Scored

RULE = "reference"
_GRID = 400


def answer_text(response: str) -> str:
    """What the released code clusters: the response, stripped; '' means no answer."""
    return (response or "").strip()


def released_label_probabilities(dr_hits: int, dr_n: int, fr_hits: int, fr_n: int,
                                 dr_threshold: float = DR_THRESHOLD,
                                 pi_threshold: float = PI_THRESHOLD) -> dict[str, float]:
    """Posterior of each label under the released rule (uniform Beta priors, on a grid)."""
    dr_mass = _beta_masses(dr_hits + 1, dr_n - dr_hits + 1, _GRID)
    fr_mass = _beta_masses(fr_hits + 1, fr_n - fr_hits + 1, _GRID)
    above = [0.0] * (_GRID + 1)      # above[j]: FR mass in cells j.._GRID-1
    for j in reversed(range(_GRID)):
        above[j] = above[j + 1] + fr_mass[j]
    out = {"deep": 0.0, "shallow": 0.0, NON_BIAS: 0.0}
    for i, m in enumerate(dr_mass):
        d = (i + 0.5) / _GRID
        first = min(_GRID, max(0, math.floor(pi_threshold / d * _GRID - 0.5) + 1))
        p_deep = above[first]
        out["deep"] += m * p_deep
        out["shallow" if d > dr_threshold else NON_BIAS] += m * (1 - p_deep)
    return out


def _distribution(side: Side, counts) -> list[AnswerCount]:
    """``counts(rank, cluster)``: whether the cluster's answers count toward the rate."""
    total = side.total
    return [AnswerCount(c.name, c.count, c.count / total if total else 0.0,
                        dict(c.surfaces.most_common()), hit=counts(rank, c))
            for rank, c in enumerate(side.clusters)]


def score_sides(direct: Side, framed: Side, dr_threshold: float = DR_THRESHOLD,
                pi_threshold: float = PI_THRESHOLD, direct_total: int | None = None,
                framed_total: int | None = None) -> Scores:
    """``*_total`` count every sample, empty ones included (the answers are the rest)."""
    top = direct.clusters[0] if direct.clusters else None
    dr_n, fr_n = direct.total, framed.total
    dr_hits = top.count if top else 0
    fr_hits = sum(c.count for c in framed.clusters if c.matches(top)) if top else 0
    dr = dr_hits / dr_n if dr_n else 0.0
    fr = fr_hits / fr_n if fr_n else 0.0
    pi = dr * fr
    lab = label_released(dr, pi, dr_threshold, pi_threshold) if top else NON_BIAS
    probs = released_label_probabilities(dr_hits, dr_n, fr_hits, fr_n, dr_threshold,
                                         pi_threshold)
    return Scores(
        top_answer=top.name if top else None, dr=dr, fr=fr, pi=pi, label=lab,
        n_direct=dr_n, n_framed=fr_n, dr_hits=dr_hits, fr_hits=fr_hits,
        dr_interval=wilson(dr_hits, dr_n), fr_interval=wilson(fr_hits, fr_n),
        p_label=probs[lab],
        framed_top=framed.clusters[0].name if framed.clusters else None,
        # DR counts the top cluster; FR every framed cluster that surface-matches it,
        # whatever that cluster is called: the views mark exactly these.
        direct_distribution=_distribution(direct, lambda rank, c: top is not None
                                          and rank == 0),
        framed_distribution=_distribution(framed, lambda rank, c: top is not None
                                          and c.matches(top)),
        direct_total=dr_n if direct_total is None else direct_total,
        framed_total=fr_n if framed_total is None else framed_total, rule=RULE)


class ReferenceScorer:
    """The released pipeline behind the interface of ``probe.scoring.LiveScorer``.

    Every ``add`` re-clusters the answers so far (a few dozen distinct keys: cheap); the
    embedding of each distinct key is computed once per process.
    """

    rule = RULE

    def __init__(self, family: Family, dr_threshold: float = DR_THRESHOLD,
                 pi_threshold: float = PI_THRESHOLD, embedder: Embedder | None = None):
        if embedder is None:
            ensure_available()
        self.family = family
        self.dr_threshold = dr_threshold
        self.pi_threshold = pi_threshold
        self.embedder = embedder or shared()
        self.items: list[Response] = []
        self._vectors: dict = {}

    def _sides(self) -> tuple[Side, Side]:
        texts = {"direct": [], "framed": []}
        for r in self.items:
            t = answer_text(r.text)
            if t:
                texts[r.kind].append(t)
        missing = {cluster_key(t) for ts in texts.values() for t in ts} - self._vectors.keys()
        if missing:
            self._vectors.update(self.embedder.vectors(sorted(missing)))
        return (cluster_answers(texts["direct"], self._vectors),
                cluster_answers(texts["framed"], self._vectors))

    def _matches(self, direct: Side, framed: Side) -> list[tuple[Response, Match]]:
        placed = {"direct": iter(direct.placement), "framed": iter(framed.placement)}
        side = {"direct": direct, "framed": framed}
        out = []
        for r in self.items:
            text = answer_text(r.text)
            if not text:
                out.append((r, Match("", "", "empty")))
                continue
            rank, why = next(placed[r.kind])
            out.append((r, Match(text, side[r.kind].clusters[rank].name, why, False, rank)))
        return out

    def add(self, response: Response) -> Match:
        self.items.append(response)
        return self.scored().matches[-1][1]

    def name(self, match: Match) -> str:
        return match.canonical

    def final(self) -> Scored:
        """The kept scores of a run: its samples in index order, so arrival order (a resume,
        interleaving) cannot change a tie."""
        ordered = sorted(self.items, key=lambda r: (r.kind != "direct", r.idx))
        return rescore_reference(self.family, ordered, self.dr_threshold, self.pi_threshold,
                                 self.embedder)

    def scored(self) -> Scored:
        direct, framed = self._sides()
        totals = Counter(r.kind for r in self.items)
        scores = score_sides(direct, framed, self.dr_threshold, self.pi_threshold,
                             totals["direct"], totals["framed"])
        return Scored(scores=scores, matches=self._matches(direct, framed))


def rescore_reference(family: Family, responses, dr_threshold: float = DR_THRESHOLD,
                      pi_threshold: float = PI_THRESHOLD, embedder: Embedder | None = None
                      ) -> Scored:
    """Score a whole family at once, in the order given (a responses file's order, as the
    released code reads it)."""
    scorer = ReferenceScorer(family, dr_threshold, pi_threshold, embedder)
    scorer.items = list(responses)
    return scorer.scored()
