"""`probe report`: draw the figures from stored runs, save each in every format asked for,
and write the HTML page that holds them all."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

from probe.atomic import check_folder, ensure_folder, write_atomic
from probe.charts import data
from probe.charts.page import PageFigure, render_page
from probe.errors import BadInput, RunFailed
from probe.store import Store

FORMATS = ("svg", "png", "pdf")


@dataclass
class ReportRequest:
    out: Path
    models: tuple[str, ...] = ()
    formats: tuple[str, ...] = FORMATS
    dpi: int = 150
    family: str | None = None
    run_id: int | None = None
    model_a: str | None = None
    model_b: str | None = None
    annotate: bool = False
    intervals: bool = True           # Wilson intervals as error bars on the scatter
    summaries: bool = True           # False: only the answer distributions


@dataclass
class Report:
    written: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)    # figures left out, and why


def parse_formats(text: str) -> tuple[str, ...]:
    formats = tuple(dict.fromkeys(f.strip().lower() for f in text.split(",") if f.strip()))
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise BadInput(f"--format '{text}' is not a list of {', '.join(FORMATS)} "
                       "(for example svg,png).")
    return formats


def _svg(fig, name: str) -> str:
    from probe.charts.style import rc

    buf = io.StringIO()
    with rc({"svg.hashsalt": name}):          # ids unique per figure, stable across runs
        fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()


def _save(fig, name: str, svg: str, req: ReportRequest) -> list[Path]:
    from probe.charts.style import rc

    paths = []
    for fmt in req.formats:
        path = req.out / f"{name}.{fmt}"
        if fmt == "svg":
            write_atomic(path, svg)
        else:
            buf = io.BytesIO()
            with rc():
                metadata = {"CreationDate": None} if fmt == "pdf" else None
                fig.savefig(buf, format=fmt, dpi=req.dpi, metadata=metadata)
            # Exclusive temp file and rename: a planted link is never written through.
            write_atomic(path, buf.getvalue())
        paths.append(path)
    return paths


def _answers(store: Store, req: ReportRequest, report: Report) -> list:
    from probe.charts.answers import answers_figure

    if not req.family and req.run_id is None:
        report.notes.append("answer distributions left out: give --family NAME (or --run ID).")
        return []
    runs = data.family_answers(store, req.family, req.models, req.run_id)
    return [("answers", f"Answer distributions: {runs[0].family}",
             "Direct and framed answers of each run; the direct top answer is dark blue on "
             "both sides; non-picks (refusals, echoes of the question, empty responses) are "
             "grey, hatched and marked ⊘, and count in neither DR nor FR.",
             answers_figure(runs[0].family, runs), runs)]


def _summaries(store: Store, req: ReportRequest, rows: list[dict], report: Report) -> list:
    """(name, title, caption, figure, runs) for each figure over all the finished runs."""
    from probe.analysis import compare_models
    from probe.charts.analyses import agreement_figure, sweep_figure
    from probe.charts.labels import breakdown_figure, scatter_figure

    t = data.run_thresholds(store, rows)
    bars = (" The bars across and up are each point's 95% Wilson intervals of DR and FR."
            if req.intervals else "")
    out = [("breakdown", "Bias types per model",
            "Share of each model's families labelled Deep, Shallow and Non-bias "
            "(n = families with a finished run).",
            breakdown_figure(data.breakdown_by_model(rows)), None),
           ("scatter", "DR vs FR per family",
            f"Deep: DR > {t.dr:.2f} and π > {t.pi:.2f}; Shallow: DR > {t.dr:.2f} and "
            f"π ≤ {t.pi:.2f}; Non-bias: DR ≤ {t.dr:.2f}. The dashed line is DR = {t.dr:.2f}, "
            f"the curve π = DR × FR = {t.pi:.2f}.{bars}",
            scatter_figure(rows, t, req.annotate, req.intervals), None)]
    if req.model_a and req.model_b:
        result = compare_models(store, req.model_a, req.model_b)
        out.append(("agreement", "Agreement by π bin",
                    f"Families run on both models ({len(result['families'])}); per π bin of "
                    "B, the share whose top answers are one answer by the family's matcher.",
                    agreement_figure(result), None))
    else:
        report.notes.append("agreement by π bin left out: give --a MODEL --b MODEL.")
    out.append(("thresholds", "Threshold sensitivity",
                "The sweep `probe thresholds` prints: as t goes from 0.50 to 0.86, the share "
                "of families that are Deep (DR > t and π > t²), Shallow (DR > t and π ≤ t²) "
                "and Non-bias (the rest).",
                sweep_figure(data.sweep_by_model(rows), t.dr), None))
    return out


def write_report(store: Store, req: ReportRequest) -> Report:
    if bool(req.model_a) != bool(req.model_b):
        raise BadInput("give both --a MODEL and --b MODEL for the agreement figure.")
    check_folder(req.out)           # before the figures: a bad --out costs nothing
    report = Report()
    rows: list[dict] = []
    if req.summaries:
        from probe.charts.standing import report_rows

        rows, report.notes[:0] = report_rows(store, req.models)
    if not rows and not req.family and req.run_id is None:
        data.require_rows(store, req.models)          # says there is nothing to draw
    figures = _answers(store, req, report)
    if rows:
        figures += _summaries(store, req, rows, report)
    elif req.summaries:
        report.notes.append("breakdown, DR vs FR, agreement and thresholds left out: no "
                            "finished runs.")
    try:
        _write(store, req, rows, figures, report)
    except OSError as exc:
        where = exc.filename or req.out
        raise RunFailed(f"cannot write {where}: {exc.strerror or exc}.") from None
    return report


def _write(store: Store, req: ReportRequest, rows: list[dict], figures: list,
           report: Report) -> None:
    ensure_folder(req.out)
    page_figures, table = [], list(rows)
    for name, title, caption, fig, runs in figures:
        svg = _svg(fig, name)
        report.written += _save(fig, name, svg, req)
        page_figures.append(PageFigure(name, title, caption, svg))
        for run in runs or ():
            if not any(r["run_id"] == run.run_id for r in table):
                table.append(run.table_row())
    page = req.out / "report.html"
    write_atomic(page, render_page(page_figures, table, req.formats, report.notes,
                                   str(store.path.name)))
    report.written.append(page)
