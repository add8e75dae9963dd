"""Everything about one family, written to a folder for a paper or a colleague: its
answers figure, the release records of its runs and, where repeats were pooled, how each
reframing fared across them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from probe.atomic import ensure_folder
from probe.store import Store


@dataclass
class Exported:
    folder: Path
    files: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def slug(text: str) -> str:
    return re.sub(r"[^\w.-]+", "-", text).strip("-.").lower()[:80] or "family"


def export_family(store: Store, family: str, run_id: int, root: Path) -> Exported:
    """Write ``root/<family>/``: figures (answers of ``run_id``, SVG and PNG), records
    (one JSONL per model of the family's finished runs, or this run if none finished)
    and, for the pool ``run_id`` belongs to, its reframings as CSV and JSON, named after
    the model and the runs (``probe.pool_export``)."""
    from probe.charts.write import ReportRequest, write_report
    from probe.export import export_to
    from probe.pool_export import write_reframings
    from probe.pooling import pooled, pools

    out = Exported(root / slug(family))
    ensure_folder(out.folder)
    report = write_report(store, ReportRequest(out.folder / "figures", formats=("svg", "png"),
                                               run_id=run_id, summaries=False))
    out.files += report.written
    finished = [r["id"] for r in store.runs(family=family, limit=100_000)
                if r["status"] == "finished"]
    written = export_to(store, store.path, finished or [run_id], None,
                        out.folder / "records", None, out_is_folder=True)
    out.files += [p for p, _ in written if p is not None]
    run = store.run(run_id)
    mine = next((p for p in pools(store, family, run.model) if run_id in p.run_ids), None)
    if mine is None:
        out.notes.append("no reframings table: the run is not finished")
    else:
        out.files += write_reframings(pooled(store, mine), out.folder)
        if len(mine.run_ids) > 1:
            out.notes.append(f"reframings pooled over runs {', '.join(map(str, mine.run_ids))}")
    return out
