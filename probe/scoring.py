"""From raw responses to canonical answers, scores and the paper-shaped JSON record."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from probe.errors import BadInput
from probe.family import Family
from probe.jsonl import iter_objects
from probe.matching import Canonicalizer, Match
from probe.metrics import DR_THRESHOLD, PI_THRESHOLD, AnswerCount, Scores, score


@dataclass
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

    Adding a response costs one match against the forms seen so far; ``scored()`` reads
    each cluster's current name (its most frequent surface form), so names can change as
    samples arrive while the matching itself never does.
    """

    def __init__(self, family: Family, dr_threshold: float = DR_THRESHOLD,
                 pi_threshold: float = PI_THRESHOLD):
        self.family = family
        self.dr_threshold = dr_threshold
        self.pi_threshold = pi_threshold
        self.canon = Canonicalizer(family.direct, family.answers)
        self.items: list[tuple[Response, Match]] = []

    def add(self, response: Response) -> Match:
        match = self.canon.add(response.text)
        self.items.append((response, match))
        return match

    def name(self, match: Match) -> str:
        return self.canon.name_of(match.cluster)

    def scored(self) -> Scored:
        matches = []
        for r, m in self.items:
            m.canonical = self.canon.name_of(m.cluster)
            matches.append((r, m))
        direct = [m for r, m in matches if r.kind == "direct"]
        framed = [m for r, m in matches if r.kind == "framed"]
        refusal_names = {m.canonical for _, m in matches if m.refusal and m.canonical}
        scores = score(
            [m.canonical for m in direct], [m.canonical for m in framed],
            [m.answer for m in direct], [m.answer for m in framed],
            refusals=refusal_names, dr_threshold=self.dr_threshold,
            pi_threshold=self.pi_threshold)
        return Scored(scores=scores, matches=matches)


def rescore(family: Family, responses: Sequence[Response],
            dr_threshold: float = DR_THRESHOLD, pi_threshold: float = PI_THRESHOLD) -> Scored:
    """Match every response in arrival order, then score the family."""
    live = LiveScorer(family, dr_threshold, pi_threshold)
    for r in responses:
        live.add(r)
    return live.scored()


def _dist(items: list[AnswerCount]) -> list[dict]:
    out = []
    for ac in items:
        d = {"answer": ac.answer, "count": ac.count, "rate": round(ac.rate, 4),
             "surface_forms": ac.surface_forms}
        if ac.refusal:
            d["refusal"] = True
        out.append(d)
    return out


def to_record(family: Family, model: str, run_id: int | None, s: Scores,
              rule: str = "probe") -> dict:
    """The record ``--json`` prints: the shape of the paper's released outputs; ``probe``
    says which scoring rule made it (probe's, or the released code's: "reference")."""
    return {
        "family": family.name,
        "model": model,
        "run_id": run_id,
        "direct": {"top_answer": s.top_answer, "dr": round(s.dr, 4), "n_samples": s.n_direct,
                   "distribution": _dist(s.direct_distribution)},
        "framed": {"top_answer": s.framed_top, "fr": round(s.fr, 4), "n_samples": s.n_framed,
                   "distribution": _dist(s.framed_distribution)},
        "pi": round(s.pi, 4),
        "bias_type": s.label,
        "probe": {"rule": rule},
    }


# ----------------------------------------------------------- responses files

def read_responses(path: str | Path, family: Family) -> list[Response]:
    """A JSONL file of samples: ``response`` and, for framed ones, ``framing_idx``."""
    path = Path(path)
    out: list[Response] = []
    n_direct = 0
    framed_seen: dict[int, int] = {}
    for lineno, obj in iter_objects(path, "responses file", ("response",)):
        text = obj["response"]
        if text is None:
            text = ""
        if not isinstance(text, str):
            raise BadInput(f"{path}, line {lineno}: 'response' must be a string.")
        fidx = obj.get("framing_idx")
        if fidx is None:
            out.append(Response("direct", n_direct, text))
            n_direct += 1
            continue
        if isinstance(fidx, bool) or not isinstance(fidx, int):
            raise BadInput(f"{path}, line {lineno}: 'framing_idx' must be an integer.")
        if not 0 <= fidx < len(family.framings):
            raise BadInput(f"{path}, line {lineno}: framing_idx {fidx} is out of range "
                           f"(family '{family.name}' has {len(family.framings)} framings).")
        if fidx in framed_seen:
            raise BadInput(f"{path}, line {lineno}: framing_idx {fidx} appears again "
                           f"(first on line {framed_seen[fidx]}).")
        framed_seen[fidx] = lineno
        out.append(Response("framed", fidx, text))
    if not out:
        raise BadInput(f"{path}: has no responses.")
    return out


def prompts_for(family: Family, responses: Iterable[Response]) -> list[str]:
    return [family.direct if r.kind == "direct" else family.framings[r.idx] for r in responses]
