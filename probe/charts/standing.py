"""Which result stands for each family and model in `probe report`, and why.

A family run several times on one model may have been measured in different ways (another
N, temperature or rule). The runs that measured alike pool into one result; among such
groups the one with the most picks stands (the newest on a tie), and the report says which
runs it holds and which it left out. One run alone stands as stored."""

from __future__ import annotations

from typing import Sequence

from probe.pooling import Pool, pooled, pools, standing
from probe.store import Store


def _matches(model: str, patterns: Sequence[str]) -> bool:
    return not patterns or any(p.casefold() in model.casefold() for p in patterns)


def _pooled_row(store: Store, pool: Pool) -> dict:
    result = pooled(store, pool)
    s = result.scored.scores
    newest = pool.run_ids[0]
    fam = store.family(pool.runs[0]["family_id"])
    return {"run_id": newest, "family_name": pool.family, "model": pool.model,
            "family_id": pool.runs[0]["family_id"], "direct": fam.direct,
            "top_answer": s.top_answer, "dr": s.dr, "fr": s.fr, "pi": s.pi, "label": s.label,
            "n_direct": s.n_direct, "n_framed": s.n_framed, "direct_total": s.direct_total,
            "framed_total": s.framed_total, "dr_low": s.dr_interval[0],
            "dr_high": s.dr_interval[1], "fr_low": s.fr_interval[0],
            "fr_high": s.fr_interval[1], "p_label": s.p_label, "rule": s.rule}


def _run_row(store: Store, pool: Pool) -> dict:
    run_id = pool.run_ids[0]
    fam = store.family(pool.runs[0]["family_id"])
    return {**(store.result(run_id) or {}), "run_id": run_id, "family_name": pool.family,
            "model": pool.model, "family_id": pool.runs[0]["family_id"],
            "direct": fam.direct}


def _ids(pool: Pool) -> str:
    ids = sorted(pool.run_ids)
    return f"run {ids[0]}" if len(ids) == 1 else "runs " + ", ".join(map(str, ids))


def report_rows(store: Store, models: Sequence[str] = ()) -> tuple[list[dict], list[str]]:
    """One row per (family, model) — a pooled result or one run's — and a sentence for each
    family and model whose runs were not all used alike."""
    groups: dict[tuple[str, str], list[Pool]] = {}
    for pool in pools(store):
        if _matches(pool.model, models):
            groups.setdefault((pool.family, pool.model), []).append(pool)
    rows, notes = [], []
    for (family, model), candidates in sorted(groups.items()):
        pool = standing(candidates)
        many = len(pool.run_ids) > 1
        row = _pooled_row(store, pool) if many else _run_row(store, pool)
        row["runs"] = sorted(pool.run_ids)
        row["stands"] = ("pooled " if many else "") + _ids(pool)
        row["settings_text"] = pool.describe()
        rows.append(row)
        others = [p for p in candidates if p is not pool]
        if others:
            left = "; ".join(f"{_ids(p)} ({p.describe()})" for p in others)
            notes.append(f"{family} on {model}: {row['stands']} stand"
                         f"{'' if many else 's'} for it ({pool.describe()}; the most picks); "
                         f"left out, measured otherwise: {left}.")
    return rows, notes
