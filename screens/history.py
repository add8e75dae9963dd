"""Past runs: filter, open read-only, and compare two runs (or two results of one run).

Each run's row is its result as sampled; a re-score after a merge or split is a row of its
own beneath it, dated, so the original is always in view."""

from __future__ import annotations

import time

from rich.markup import escape
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from probe.analysis import compare_models, render_compare, top_answers_agree
from probe.metrics import LABEL_TEXT
from probe.store import as_sampled, version_kind
from screens.tables import RowTable, cursor_key, fit_columns, move_to_key

WIDE = (" ", "run", "family", "model", "ended", "samples", "seed", "label", "DR", "FR", "π",
        "top answer", "when")
NARROW = (" ", "run", "family", "model", "ended", "samples", "label", "π")
FIXED = {" ": 1, "run": 4, "ended": 11, "samples": 7, "seed": 10, "label": 8, "DR": 4, "FR": 4,
         "π": 4, "when": 16}
FLEXIBLE = {"family": 0.7, "model": 1.5, "top answer": 0.7}


def when(t: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t)) if t else "—"


def row_key(run_id: int, version: int | None = None) -> str:
    return str(run_id) if version is None else f"{run_id}.v{version}"


def parse_key(key: str) -> tuple[int, int | None]:
    run, _, version = key.partition(".v")
    return int(run), int(version) if version else None


class HistoryScreen(Screen):
    BINDINGS = [
        Binding("enter", "open", "Open"),
        Binding("space", "mark", "Mark"),
        Binding("c", "compare", "Compare marked"),
        Binding("slash", "filter", "Filter"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.marked: list[str] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="filter by family or model… (enter: to the table)",
                    id="filter")
        yield RowTable(id="runs", cursor_type="row", zebra_stripes=True)
        yield Static("", id="compare")
        yield Footer()

    def on_mount(self) -> None:
        self.columns = ()
        self.on_resize()
        self.query_one("#runs", DataTable).focus()

    def on_resize(self) -> None:
        # A narrow terminal shows fewer columns, each readable, rather than all of them cut
        # to a few letters; enter on a run shows the rest.
        columns = WIDE if self.size.width >= 120 else NARROW
        table = self.query_one("#runs", DataTable)
        if columns != self.columns:
            self.columns = columns
            table.clear(columns=True)
            for key in columns:
                table.add_column(key, key=key)
            self.refresh_runs()
        flexible = FLEXIBLE if columns == WIDE else {"family": 1.0, "model": 1.0}
        fixed = {k: w for k, w in FIXED.items() if k in columns}
        # Whole run ids, however many digits: run 100001 never reads "1000".
        top = self.app.store.query("SELECT MAX(id) AS top FROM runs")[0]["top"]  # type: ignore
        fixed["run"] = max(fixed["run"], len(str(top or 0)))
        fit_columns(table, self.size.width, fixed, flexible, minimum=6)

    @on(Input.Changed, "#filter")
    def refresh_runs(self) -> None:
        if not self.columns:
            return
        store = self.app.store  # type: ignore[attr-defined]
        text = self.query_one("#filter", Input).value.strip().casefold()
        table = self.query_one("#runs", DataTable)
        keep = cursor_key(table)
        table.clear()
        fmt = lambda v: f"{v:.2f}" if v is not None else "—"  # noqa: E731

        def add(key: str, **cells) -> None:
            cells[" "] = "●" if key in self.marked else " "
            table.add_row(*[cells.get(c, "") for c in self.columns], key=key)

        for r in store.runs():
            if text and text not in r["family_name"].casefold() \
                    and text not in r["model"].casefold():
                continue
            versions = store.result_versions(r["id"]) if r["n_versions"] > 1 else []
            # The run's row is its result as sampled (after any resume); partial results
            # from before a resume and re-scores after answer edits are the rows under it.
            first = as_sampled(versions) or r
            planned = _planned(r)
            used = r["samples_used"] if r["samples_used"] is not None else \
                (r["n_direct"] or 0) + (r["n_framed"] or 0)
            add(row_key(r["id"]), run=str(r["id"]), family=Text(r["family_name"]),
                model=Text(r["model"]), ended=r["ending"] or r["status"],
                samples=f"{used}/{planned}" if planned else str(used),
                seed="—" if r["seed"] is None else str(r["seed"]),
                label=LABEL_TEXT.get(first["label"], "—"), DR=fmt(first["dr"]),
                FR=fmt(first["fr"]), **{"π": fmt(first["pi"]),
                                        "top answer": Text(first["top_answer"] or "—")},
                when=when(r["created_at"]))
            for v in versions:
                if v is first:
                    continue
                kind = "↳ " + version_kind(v, versions)
                add(row_key(r["id"], v["version"]), run=f"v{v['version']}",
                    family=Text(kind, style="italic"),
                    model=Text(v["note"] or when(v["created_at"]), style="italic"),
                    label=LABEL_TEXT.get(v["label"], "—"), DR=fmt(v["dr"]), FR=fmt(v["fr"]),
                    **{"π": fmt(v["pi"]), "top answer": Text(v["top_answer"] or "—")},
                    when=when(v["created_at"]))
        move_to_key(table, keep)

    def selected(self) -> str | None:
        return cursor_key(self.query_one("#runs", DataTable))

    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    @on(Input.Submitted, "#filter")
    def filter_done(self) -> None:
        self.query_one("#runs", DataTable).focus()

    def action_back(self) -> None:
        if self.query_one("#filter", Input).has_focus:
            self.query_one("#runs", DataTable).focus()
            return
        self.app.pop_screen()

    def action_open(self) -> None:
        key = self.selected()
        if key is None:
            return
        run_id, _ = parse_key(key)
        store = self.app.store  # type: ignore[attr-defined]
        fam = store.family(store.run(run_id).family_id)
        self.app.open_run(fam, run_id=run_id, read_only=True)  # type: ignore[attr-defined]

    @on(DataTable.RowSelected, "#runs")
    def row_chosen(self) -> None:
        self.action_open()

    def action_mark(self) -> None:
        # The mark cell changes in place: the cursor stays on the row the user chose.
        key = self.selected()
        if key is None:
            return
        if key in self.marked:
            self.marked.remove(key)
        else:
            self.marked = (self.marked + [key])[-2:]
        table = self.query_one("#runs", DataTable)
        for i in range(table.row_count):
            k = table.coordinate_to_cell_key((i, 0)).row_key.value
            table.update_cell(k, " ", "●" if k in self.marked else " ")
        self.query_one("#compare", Static).display = False

    def action_compare(self) -> None:
        if len(self.marked) != 2:
            self.notify("Mark two runs (or two results of one run) with space, then press c.",
                        severity="warning")
            return
        a, b = (parse_key(k) for k in self.marked)
        box = self.query_one("#compare", Static)
        box.update(compare_text(self.app.store, a, b))
        box.display = True


def _planned(r: dict) -> int | None:
    import json

    try:
        settings = json.loads(r["settings"])
    except (TypeError, ValueError):
        return None
    n = settings.get("samples")
    framings = r.get("n_framings")
    return n + framings if isinstance(n, int) and framings else None


def _ended(run) -> str:
    return f"{run.ending or run.status}, {run.samples_used or 0} samples"


def _result(store, run_id: int, version: int | None) -> dict | None:
    """A run's result as sampled (version None) or one of its re-scores."""
    versions = store.result_versions(run_id)
    if not versions:
        return None
    if version is None:
        return as_sampled(versions)
    return next((v for v in versions if v["version"] == version), None)


def compare_text(store, a: tuple[int, int | None], b: tuple[int, int | None]) -> str:
    """Two results side by side (two runs, or two results of one run), and whether their
    top answers agree."""
    ra, rb = store.run(a[0]), store.run(b[0])
    res_a, res_b = _result(store, *a), _result(store, *b)
    if not res_a or not res_b:
        return "[yellow]Both runs need at least one sample to compare.[/yellow]"
    fam = store.family(res_a["family_id"] or ra.family_id)
    families = escape(ra.family_name) if ra.family_name == rb.family_name else \
        f"{escape(ra.family_name)} vs {escape(rb.family_name)}  [yellow](different families)" \
        "[/yellow]"
    same = top_answers_agree(res_a["top_answer"], res_b["top_answer"], fam)

    def name(ref, res) -> str:
        return f"run {ref[0]}" + (f" v{res['version']} (re-scored)" if ref[1] else "")

    col = max(28, len(ra.model) + 2, len(rb.model) + 2)
    rows = [f"[b]compare[/b] {families}",
            f"{'':<8}{name(a, res_a):<{col}}{name(b, res_b):<{col}}",
            f"{'model':<8}{escape(ra.model):<{col}}{escape(rb.model):<{col}}",
            f"{'seed':<8}{str(ra.seed):<{col}}{str(rb.seed):<{col}}",
            f"{'ended':<8}{_ended(ra):<{col}}{_ended(rb):<{col}}"]
    for key, label in (("dr", "DR"), ("fr", "FR"), ("pi", "π")):
        rows.append(f"{label:<8}{res_a[key]:<{col}.2f}{res_b[key]:<{col}.2f}")
    rows.append(f"{'label':<8}{LABEL_TEXT[res_a['label']]:<{col}}"
                f"{LABEL_TEXT[res_b['label']]:<{col}}")
    rows.append(f"{'top':<8}{escape(str(res_a['top_answer'])):<{col}}"
                f"{escape(str(res_b['top_answer'])):<{col}}")

    def picks(res) -> str:
        # Each side's picks of its samples: a verdict on 1 of 10 answers reads as such.
        if res.get("direct_total") is None:
            return f"{res['n_direct']} + {res['n_framed']}"
        return (f"{res['n_direct']}/{res['direct_total']} + "
                f"{res['n_framed']}/{res['framed_total']}")

    rows.append(f"{'picks':<8}{picks(res_a):<{col}}{picks(res_b):<{col}}")
    rows.append("same top answer: " + ("[green]yes[/green]" if same else "[red]no[/red]"))
    if ra.model != rb.model:
        # Two models: the paper's view over every family both have run.
        from probe.errors import BadInput

        try:
            rows += ["", escape(render_compare(compare_models(store, ra.model, rb.model)))]
        except BadInput as exc:
            rows.append(escape(str(exc)))
    return "\n".join(rows)
