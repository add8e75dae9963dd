"""Pooled repeats written for a paper: how each reframing fared across the runs of a pool,
as CSV and JSON, each file named after its model and runs so two pools never share one.

The JSON carries what a reader needs to cite it: the runs and their seeds, the settings
they share (numbers as numbers), the pooled DR and FR with their 95% intervals, π, the
label and how sure it is. Each CSV row carries the runs and the settings too, so a row
copied into a spreadsheet keeps them. Answers are keyed by the answer; non-picks by why
they are not picks (refusal, echo, empty…), never by a display string.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from probe.atomic import write_atomic
from probe.pooling import Pooled, ReframingRow, sorted_rows
from probe.settings_view import one_line, typed


def file_stem(result: Pooled) -> str:
    """``reframings-<model>-runs-2-5``: the model and the runs in the name."""
    from probe.export import model_file_names

    pool = result.pool
    model = model_file_names([pool.model])[pool.model].removesuffix(".jsonl")
    ids = sorted(pool.run_ids)
    runs = f"run-{ids[0]}" if len(ids) == 1 else "runs-" + "-".join(map(str, ids))
    return f"reframings-{model}-{runs}"


def _verdict(result: Pooled) -> dict:
    s = result.scored.scores
    return {"top_answer": s.top_answer, "dr": round(s.dr, 4),
            "dr_interval": [round(v, 4) for v in s.dr_interval], "fr": round(s.fr, 4),
            "fr_interval": [round(v, 4) for v in s.fr_interval], "pi": round(s.pi, 4),
            "label": s.label, "p_label": round(s.p_label, 4), "n_direct": s.n_direct,
            "n_framed": s.n_framed, "direct_total": s.direct_total,
            "framed_total": s.framed_total}


def _record(row: ReframingRow) -> dict:
    return {"reframing": row.idx + 1, "scenario": row.scenario, "samples": row.samples,
            "picks": row.picks, "kept_top_answer": row.hits,
            "rate": round(row.rate, 4) if row.rate is not None else None,
            "answers": dict(row.answers.most_common()),
            "non_picks": dict(row.non_picks.most_common())}


def _settings(result: Pooled) -> dict:
    out = typed(result.pool.settings)
    out.pop("seed", None)               # each run has its own: listed with the runs
    return out


def reframings_json(result: Pooled, how: str = "reframing") -> str:
    pool = result.pool
    head = {"family": pool.family, "model": pool.model, "rule": result.rule,
            "runs": [{"run": r["id"], "seed": r.get("seed")} for r in
                     sorted(pool.runs, key=lambda r: r["id"])],
            "settings": _settings(result), "pooled": _verdict(result), "sorted": how}
    return json.dumps({**head, "reframings": [_record(r) for r in sorted_rows(result, how)]},
                      ensure_ascii=False, indent=2) + "\n"


def _counts(counter) -> str:
    return "; ".join(f"{a} ×{n}" for a, n in counter.most_common())


def reframings_csv(result: Pooled, how: str = "reframing") -> str:
    pool = result.pool
    runs = " ".join(f"{r['id']} (seed {r.get('seed')})"
                    for r in sorted(pool.runs, key=lambda r: r["id"]))
    settings = one_line(pool.settings, skip=("seed", "model_spec"))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["reframing", "scenario", "samples", "picks", "kept_top_answer", "rate",
                     "answers", "non_picks", "runs", "settings"])
    for row in sorted_rows(result, how):
        rec = _record(row)
        writer.writerow([rec["reframing"], rec["scenario"], rec["samples"], rec["picks"],
                         rec["kept_top_answer"], "" if rec["rate"] is None else rec["rate"],
                         _counts(row.answers), _counts(row.non_picks), runs, settings])
    return out.getvalue()


def write_reframings(result: Pooled, folder: Path, how: str = "breaks first") -> list[Path]:
    """Write the pool's CSV and JSON into ``folder``; the paths written."""
    stem = file_stem(result)
    return [write_atomic(folder / f"{stem}.csv", reframings_csv(result, how), "export file"),
            write_atomic(folder / f"{stem}.json", reframings_json(result, how), "export file")]
