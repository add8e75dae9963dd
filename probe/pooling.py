"""Repeat runs pooled: one verdict per family and model from every finished run that
measured the same way (same family prompts, model weights, settings and rule; any seed).

The pooled result scores all their samples as one set, with the family's newest answers,
under the runs' rule: DR over every direct sample, FR over every reframing of every run
(each run samples each reframing once, so k runs give k samples of each). Its intervals
treat the samples as independent draws. Per reframing, the pooled result says how often
that scenario kept the direct top answer: the ones that break the bias stand out.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field

from probe.errors import BadInput
from probe.family import Family
from probe.scoring import Response, Scored
from probe.settings_view import measurement_key, one_line, parse
from probe.store import Store
from probe.verdict import sample_lines


@dataclass
class Pool:
    """Finished runs of one family on one model that measured the same way."""

    family: str
    model: str
    runs: list[dict]                 # newest first: id, family_id, settings, seed, picks…
    settings: dict                   # the newest run's stored settings

    @property
    def run_ids(self) -> list[int]:
        return [r["id"] for r in self.runs]

    @property
    def picks(self) -> int:
        return sum((r["n_direct"] or 0) + (r["n_framed"] or 0) for r in self.runs)

    def describe(self) -> str:
        return one_line(self.settings, skip=("seed", "quick", "model_spec", "engine"))


def _prompts_key(store: Store, family_id: int, cache: dict) -> str:
    if family_id not in cache:
        fam = store.family(family_id)
        cache[family_id] = hashlib.sha256(json.dumps([fam.direct, fam.framings],
                                                     ensure_ascii=False).encode()).hexdigest()
    return cache[family_id]


def pools(store: Store, family: str | None = None, model: str | None = None) -> list[Pool]:
    """Every group of compatible finished runs, newest group first."""
    sql = ("SELECT runs.id, runs.family_id, runs.family_name, runs.model, runs.model_hash, "
           "runs.settings, runs.seed, runs.created_at, results.n_direct, results.n_framed "
           "FROM runs JOIN results ON results.run_id = runs.id WHERE runs.status = 'finished'")
    params: list = []
    if family is not None:
        sql += " AND runs.family_name = ?"
        params.append(family)
    if model is not None:
        sql += " AND runs.model = ?"
        params.append(model)
    groups: dict[tuple, Pool] = {}
    prompts: dict[int, str] = {}
    for r in store.query(sql + " ORDER BY runs.id DESC", params):
        settings = parse(r["settings"])
        key = (r["family_name"], r["model"], _prompts_key(store, r["family_id"], prompts),
               measurement_key(settings, r["model"], r["model_hash"]))
        pool = groups.setdefault(key, Pool(r["family_name"], r["model"], [], settings))
        pool.runs.append({**r, "settings": settings})
    return list(groups.values())


def standing(candidates: list[Pool]) -> Pool | None:
    """The pool that stands for a family on a model: the most picks, then the newest."""
    if not candidates:
        return None
    return max(candidates, key=lambda p: (p.picks, p.run_ids[0]))


def left_out(pool: Pool, candidates: list[Pool]) -> list[Pool]:
    return [p for p in candidates if p is not pool]


@dataclass
class ReframingRow:
    idx: int
    scenario: str
    samples: int = 0
    picks: int = 0
    hits: int = 0                     # kept the direct top answer
    answers: Counter = field(default_factory=Counter)      # the picks, by answer
    non_picks: Counter = field(default_factory=Counter)    # the rest, by why (refusal, echo…)

    @property
    def rate(self) -> float | None:
        return self.hits / self.picks if self.picks else None

    @property
    def breaks(self) -> int:
        return self.picks - self.hits


@dataclass
class Pooled:
    pool: Pool
    family: Family
    scored: Scored
    rule: str
    reframings: list[ReframingRow]


_CACHE: dict[tuple, Pooled] = {}


def pooled(store: Store, pool: Pool) -> Pooled:
    """Score the pool's samples as one set (cached until a run in it changes)."""
    from probe.reference import rescore_with
    from probe.runner import RunSettings

    versions = {rid: store.result_versions(rid) for rid in pool.run_ids}
    key = (str(store.path), tuple((rid, len(v)) for rid, v in versions.items()))
    if key in _CACHE:
        return _CACHE[key]
    try:
        settings = RunSettings.from_dict(pool.settings)
    except BadInput as exc:
        raise BadInput(f"run {pool.run_ids[0]}: {exc}") from None
    newest = versions[pool.run_ids[0]]
    family_id = newest[-1]["family_id"] if newest and newest[-1]["family_id"] \
        else pool.runs[0]["family_id"]
    family = store.family(family_id)
    scored = None
    if len(pool.run_ids) == 1:
        # One run is its own result as kept, the very one its run view and History show.
        from probe.stored_result import kept_scored

        scored = kept_scored(store, pool.run_ids[0])
    if scored is None:
        responses: list[Response] = []
        direct = 0
        for rid in reversed(pool.run_ids):                       # oldest run first
            samples = sorted(store.samples(rid), key=lambda s: (s.kind != "direct", s.idx))
            for s in samples:
                if s.kind == "direct":
                    responses.append(Response("direct", direct, s.response))
                    direct += 1
                else:
                    responses.append(Response("framed", s.idx, s.response))
        scored = rescore_with(family, responses, settings.rule, settings.dr_threshold,
                              settings.pi_threshold, settings.answer_format)
    rows = [ReframingRow(i, text) for i, text in enumerate(family.framings)]
    for line in sample_lines(scored):
        if line.kind != "framed" or not 0 <= line.idx < len(rows):
            continue
        row = rows[line.idx]
        row.samples += 1
        if line.nonpick:
            row.non_picks[line.nonpick] += 1
            continue
        row.picks += 1
        row.hits += line.counts
        row.answers[line.canonical] += 1
    result = Pooled(pool, family, scored, settings.rule, rows)
    if len(_CACHE) > 64:
        _CACHE.clear()
    _CACHE[key] = result
    return result


SORTS = {
    "reframing": lambda r: r.idx,
    "breaks first": lambda r: (r.rate if r.rate is not None else 2.0, -r.picks, r.idx),
    "keeps first": lambda r: (-(r.rate if r.rate is not None else -1.0), -r.picks, r.idx),
    "picks": lambda r: (-r.picks, r.idx),
}


def sorted_rows(result: Pooled, how: str = "reframing") -> list[ReframingRow]:
    return sorted(result.reframings, key=SORTS[how])
