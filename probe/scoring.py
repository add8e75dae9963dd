"""From raw responses to canonical answers, scores and the paper-shaped JSON record."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from probe.errors import BadInput
from probe.family import Family
from probe.jsonl import iter_objects
from probe.limits import MAX_RESPONSE_CHARS
from probe.matching import Canonicalizer, Match, cluster_answers
from probe.metrics import DR_THRESHOLD, PI_THRESHOLD, AnswerCount, Scores, score
from probe.reading import clean_text


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
        """Every response matched again as one set: the same result in any arrival order."""
        return rescore(self.family, [r for r, _ in self.items], self.dr_threshold,
                       self.pi_threshold, answer_format=self.answer_format)


def _score(matches: list[tuple[Response, Match]], dr_threshold: float,
           pi_threshold: float) -> Scores:
    direct = [m for r, m in matches if r.kind == "direct"]
    framed = [m for r, m in matches if r.kind == "framed"]
    return score(
        [m.canonical for m in direct], [m.canonical for m in framed],
        [m.answer for m in direct], [m.answer for m in framed],
        dr_threshold=dr_threshold, pi_threshold=pi_threshold,
        direct_nonpick=[m.refusal for m in direct],
        framed_nonpick=[m.refusal for m in framed])


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
    return Scored(_score(ordered, dr_threshold, pi_threshold), matches)


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
        "probe": {"rule": s.rule},
    }
    if family.drafted is not None:       # the framings came from templates: say so
        record["probe"]["drafted"] = family.drafted.to_dict()
    return record


# ----------------------------------------------------------- responses files

def _row_id(obj: dict, where: str) -> str | None:
    """A sample's family id: the released raw files say ``id``, its samplers ``entry_id``.
    An integer and its digits are one id (as import-dataset reads them); anything else that
    is not a string is refused rather than read as "no id"."""
    for key in ("id", "entry_id"):
        value = obj.get(key)
        if value is None:
            continue
        if type(value) is int or (isinstance(value, str) and value.strip()):
            return str(value)
        raise BadInput(f"{where}: '{key}' must be a string or an integer.")
    return None


def _id_list(ids: Iterable[str | None], limit: int = 5) -> str:
    shown = sorted(str(i) if i is not None else "(none)" for i in ids)
    more = f" and {len(shown) - limit} more" if len(shown) > limit else ""
    return ", ".join(shown[:limit]) + more


def read_rows(paths: str | Path | Sequence[str | Path]
              ) -> dict[str | None, list[tuple[Path, int, dict]]]:
    """Every sample row of one or more JSONL files, grouped by family id (None: no id).

    Rows that record a failed call (an ``error`` key, as the paper's samplers write) are
    not samples and are left out."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    groups: dict[str | None, list[tuple[Path, int, dict]]] = {}
    seen: dict[Path, Path] = {}
    for path in map(Path, paths):
        real = path.resolve()
        if real in seen:
            raise BadInput(f"{path}: is given twice (as {seen[real]}); its samples would "
                           "count twice.")
        seen[real] = path
        for lineno, obj in iter_objects(path, "responses file"):
            if obj.get("error"):
                continue          # a failed call, with or without a 'response'
            where = f"{path}, line {lineno}"
            if "response" not in obj:
                raise BadInput(f"{where}: missing 'response'.")
            groups.setdefault(_row_id(obj, where), []).append((path, lineno, obj))
    return groups


def responses_from_rows(rows: list[tuple[Path, int, dict]], family: Family) -> list[Response]:
    """One family's rows → responses: direct ones numbered by ``sample_idx`` (else in file
    order), framed ones by the dataset's ``framing_idx``, each kind sorted by its index."""
    direct: list[Response] = []
    framed: list[Response] = []
    direct_seen: dict[int, str] = {}
    framed_seen: dict[int, str] = {}
    for path, lineno, obj in rows:
        where = f"{path}, line {lineno}"
        text = obj["response"]
        if text is None:
            text = ""
        if not isinstance(text, str):
            raise BadInput(f"{where}: 'response' must be a string.")
        # Cut a runaway response and replace lone surrogates before matching and storage.
        text = clean_text(text, MAX_RESPONSE_CHARS)
        fidx = obj.get("framing_idx")
        if fidx is None:
            sidx = obj.get("sample_idx")
            if sidx is None:
                sidx = len(direct)
                while sidx in direct_seen:
                    sidx += 1
            elif type(sidx) is not int or not 0 <= sidx < 2 ** 31:
                raise BadInput(f"{where}: 'sample_idx' must be an integer (0 or more).")
            if sidx in direct_seen:
                raise BadInput(f"{where}: sample_idx {sidx} appears again "
                               f"(first at {direct_seen[sidx]}).")
            direct_seen[sidx] = where
            direct.append(Response("direct", sidx, text))
            continue
        if type(fidx) is not int or not 0 <= fidx < 2 ** 31:
            raise BadInput(f"{where}: 'framing_idx' must be an integer (0 or more).")
        position = family.framing_index(fidx)
        if position is None:
            raise BadInput(f"{where}: framing_idx {fidx} is out of range: not a framing of "
                           f"family "
                           f"'{family.name}' ({len(family.framings)} framings).")
        if position in framed_seen:
            raise BadInput(f"{where}: framing_idx {fidx} appears again "
                           f"(first at {framed_seen[position]}).")
        framed_seen[position] = where
        framed.append(Response("framed", position, text))
    direct.sort(key=lambda r: r.idx)
    framed.sort(key=lambda r: r.idx)
    return direct + framed


def read_responses(paths: str | Path | Sequence[str | Path], family: Family
                   ) -> list[Response]:
    """The samples of ``family`` in one or more JSONL files (``response``, plus
    ``framing_idx`` for framed ones). A file holding several families (``id``) is never
    pooled: only the family's own id is read, or the file is refused naming the ids."""
    groups = read_rows(paths)
    label = ", ".join(str(p) for p in ([paths] if isinstance(paths, (str, Path)) else paths))
    if not groups:
        raise BadInput(f"{label}: has no responses.")
    if family.dataset_id is not None and family.dataset_id in groups:
        rows = groups[family.dataset_id]
    elif len(groups) == 1:
        rows = next(iter(groups.values()))
    else:
        raise BadInput(
            f"{label}: holds responses of {len(groups)} families (ids {_id_list(groups)}); "
            f"family '{family.name}' has " + (f"id {family.dataset_id}, which is not among them"
                                              if family.dataset_id else "no dataset id")
            + ". Score a folder of their family files (probe import-dataset writes one) "
              "or split the file.")
    return responses_from_rows(rows, family)


def families_for_rows(groups: dict, families: Sequence[Family], label: str
                      ) -> list[tuple[Family, list]]:
    """Pair each family id in a responses file with the family file of that id."""
    by_id: dict[str, Family] = {}
    for fam in families:
        if fam.dataset_id is None:
            continue
        if fam.dataset_id in by_id:
            first = by_id[fam.dataset_id]
            raise BadInput(f"{first.path or first.name} and {fam.path or fam.name} both have "
                           f"id {fam.dataset_id!r}; which one the responses are of is unclear.")
        by_id[fam.dataset_id] = fam
    missing = [i for i in groups if i not in by_id]
    if missing:
        raise BadInput(f"{label}: no family file for id(s) {_id_list(missing)} "
                       f"among {len(by_id)} families with a dataset id.")
    return [(by_id[i], rows) for i, rows in sorted(groups.items(), key=lambda kv: str(kv[0]))]


def prompts_for(family: Family, responses: Iterable[Response]) -> list[str]:
    return [family.direct if r.kind == "direct" else family.framings[r.idx] for r in responses]
