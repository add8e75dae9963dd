"""From raw responses to canonical answers, scores and the paper-shaped JSON record."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from probe.family import Family
from probe.matching import Canonicalizer, Match, cluster_answers
from probe.metrics import DR_THRESHOLD, PI_THRESHOLD, AnswerCount, Scores, score
from probe.second_reading import second_reading


@dataclass(slots=True)
class Response:
    """One model response: kind ``direct`` or ``framed``, and its index in that kind."""

    kind: str
    idx: int
    text: str


@dataclass
class Scored:
    scores: Scores
    matches: list[tuple[Response, Match]]   # in arrival order


class LiveScorer:
    """Matches responses one at a time and scores on demand: what a live run needs.

    Adding a response costs one match against the forms seen so far; ``scored()`` re-reads
    each answer's cluster and name, so the live view refines as samples arrive. ``final()``
    matches the whole set again, order-free: the scores a run keeps never depend on the
    order its samples arrived in.
    """

    def __init__(self, family: Family, dr_threshold: float = DR_THRESHOLD,
                 pi_threshold: float = PI_THRESHOLD, answer_format: str = "words"):
        self.family = family
        self.dr_threshold = dr_threshold
        self.pi_threshold = pi_threshold
        self.answer_format = answer_format
        self.canon = Canonicalizer(family.direct, family.answers, answer_format)
        self.items: list[tuple[Response, Match]] = []

    def add(self, response: Response) -> Match:
        match = self.canon.add(response.text)
        self.items.append((response, match))
        return match

    def name(self, match: Match) -> str:
        return self.canon.refresh(match).canonical

    def scored(self) -> Scored:
        matches = [(r, self.canon.refresh(m)) for r, m in self.items]
        return Scored(_score(matches, self.dr_threshold, self.pi_threshold), matches)

    def final(self) -> Scored:
        """Every response matched again as one set, in sample order (direct first, then by
        index): the same result in any arrival order, and the one a stored run is re-scored
        with (``probe.services.score_samples``)."""
        ordered = sorted((r for r, _ in self.items), key=lambda r: (r.kind != "direct", r.idx))
        return rescore(self.family, ordered, self.dr_threshold, self.pi_threshold,
                       answer_format=self.answer_format)


def _score(matches: list[tuple[Response, Match]], dr_threshold: float,
           pi_threshold: float) -> Scores:
    return score_matches([m for r, m in matches if r.kind == "direct"],
                         [m for r, m in matches if r.kind == "framed"], dr_threshold,
                         pi_threshold)


def score_matches(direct: Sequence[Match], framed: Sequence[Match],
                  dr_threshold: float = DR_THRESHOLD, pi_threshold: float = PI_THRESHOLD,
                  direct_weights: Sequence[int] | None = None,
                  framed_weights: Sequence[int] | None = None) -> Scores:
    """Scores of one family from the matches of its samples, each side in sample order
    (or each distinct response once, in the order first seen, with its ``weights``)."""
    return score(
        [m.canonical for m in direct], [m.canonical for m in framed],
        [m.answer for m in direct], [m.answer for m in framed],
        dr_threshold=dr_threshold, pi_threshold=pi_threshold,
        direct_nonpick=[m.refusal for m in direct],
        framed_nonpick=[m.refusal for m in framed],
        direct_weights=direct_weights, framed_weights=framed_weights)


def rescore(family: Family, responses: Sequence[Response],
            dr_threshold: float = DR_THRESHOLD, pi_threshold: float = PI_THRESHOLD,
            answer_format: str = "words") -> Scored:
    """Match every response as one set, then score the family: order-free."""
    fresh = cluster_answers([r.text for r in responses], family.direct, family.answers,
                            answer_format)
    matches = list(zip(responses, fresh))
    # A tie for the top answer goes to the first seen: "first" means the lowest sample
    # index, then the name, never the order the samples arrived in.
    ordered = sorted(matches, key=lambda rm: (rm[0].kind, rm[0].idx, rm[1].canonical,
                                              rm[1].answer))
    scores = _score(ordered, dr_threshold, pi_threshold)
    if answer_format == "words":
        side = {k: [(r, m) for r, m in ordered if r.kind == k] for k in ("direct", "framed")}
        scores.second = second_reading(
            family.direct, [m for _, m in side["direct"]], [m for _, m in side["framed"]],
            scores, [r.text for r, _ in side["direct"]], [r.text for r, _ in side["framed"]],
            dr_threshold=dr_threshold, pi_threshold=pi_threshold,
            ids=lambda kind, pos: (side[kind][pos][0].idx,))
    return Scored(scores, matches)


def _dist(items: list[AnswerCount]) -> list[dict]:
    return [{"answer": ac.answer, "count": ac.count, "rate": round(ac.rate, 4),
             "surface_forms": ac.surface_forms} for ac in items if not ac.refusal]


def _nonpick_dist(items: list[AnswerCount]) -> list[dict]:
    return [{"answer": ac.answer, "count": ac.count, "surface_forms": ac.surface_forms}
            for ac in items if ac.refusal]


def to_record(family: Family, model: str, run_id: int | None, s: Scores) -> dict:
    """The record ``--json`` prints: the shape of the paper's released outputs.

    ``n_samples`` and the rates count picks only; ``non_picks`` says how many answers on
    each side were not choices (empty, refusals, echoes of the question), and
    ``non_pick_answers`` lists them. ``warning`` is set when a side has too few picks to
    carry the verdict; ``reason`` is "no answer" when the direct side has no pick at all.
    ``second_reading`` is the label when replies read as no pick or a lone answer are read
    for the one family answer they name (probe.second_reading); null when none is.
    A family from a dataset carries its dataset ``id`` first.
    """
    record = {"id": family.dataset_id} if family.dataset_id is not None else {}
    record |= {
        "family": family.name,
        "model": model,
        "run_id": run_id,
        "direct": {"top_answer": s.top_answer, "dr": round(s.dr, 4), "n_samples": s.n_direct,
                   "distribution": _dist(s.direct_distribution),
                   "non_pick_answers": _nonpick_dist(s.direct_distribution)},
        "framed": {"top_answer": s.framed_top, "fr": round(s.fr, 4), "n_samples": s.n_framed,
                   "distribution": _dist(s.framed_distribution),
                   "non_pick_answers": _nonpick_dist(s.framed_distribution)},
        "pi": round(s.pi, 4),
        "bias_type": s.label,
        "non_picks": {"direct": s.direct_nonpicks, "framed": s.framed_nonpicks},
        "warning": s.warning,
        "reason": s.reason,
        "second_reading": s.second.to_record() if s.second else None,
        "probe": {"rule": s.rule},
    }
    if family.drafted is not None:       # the framings came from templates: say so
        record["probe"]["drafted"] = family.drafted.to_dict()
    return record


