"""Past runs: filter, open read-only, and compare two runs of one family."""

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
from screens.tables import cursor_key


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
        self.marked: list[int] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="filter by family or model…", id="filter")
        yield DataTable(id="runs", cursor_type="row", zebra_stripes=True)
        yield Static("", id="compare")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#runs", DataTable)
        table.add_columns(" ", "run", "family", "model", "status", "label", "DR", "FR", "π",
                          "top answer", "when")
        self.refresh_runs()
        table.focus()

    @on(Input.Changed, "#filter")
    def refresh_runs(self) -> None:
        text = self.query_one("#filter", Input).value.strip().casefold()
        table = self.query_one("#runs", DataTable)
        table.clear()
        for r in self.app.store.runs():  # type: ignore[attr-defined]
            if text and text not in r["family_name"].casefold() \
                    and text not in r["model"].casefold():
                continue
            fmt = lambda v: f"{v:.2f}" if v is not None else "—"  # noqa: E731
            table.add_row("●" if r["id"] in self.marked else " ", str(r["id"]),
                          Text(r["family_name"]), Text(r["model"]), r["status"],
                          LABEL_TEXT.get(r["label"], "—"), fmt(r["dr"]), fmt(r["fr"]),
                          fmt(r["pi"]), Text(r["top_answer"] or "—"),
                          time.strftime("%Y-%m-%d %H:%M", time.localtime(r["created_at"])),
                          key=str(r["id"]))

    def selected(self) -> int | None:
        key = cursor_key(self.query_one("#runs", DataTable))
        return int(key) if key is not None else None

    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_back(self) -> None:
        if self.query_one("#filter", Input).has_focus:
            self.query_one("#runs", DataTable).focus()
            return
        self.app.pop_screen()

    def action_open(self) -> None:
        run_id = self.selected()
        if run_id is None:
            return
        store = self.app.store  # type: ignore[attr-defined]
        fam = store.family(store.run(run_id).family_id)
        self.app.open_run(fam, run_id=run_id, read_only=True)  # type: ignore[attr-defined]

    @on(DataTable.RowSelected, "#runs")
    def row_chosen(self) -> None:
        self.action_open()

    def action_mark(self) -> None:
        run_id = self.selected()
        if run_id is None:
            return
        if run_id in self.marked:
            self.marked.remove(run_id)
        else:
            self.marked = (self.marked + [run_id])[-2:]
        self.refresh_runs()

    def action_compare(self) -> None:
        if len(self.marked) != 2:
            self.notify("Mark two runs with space, then press c.", severity="warning")
            return
        self.query_one("#compare", Static).update(compare_text(self.app.store, *self.marked))


def compare_text(store, a: int, b: int) -> str:
    """Two runs of one family side by side, and whether their top answers agree."""
    ra, rb = store.run(a), store.run(b)
    res_a, res_b = store.result(a), store.result(b)
    if not res_a or not res_b:
        return "[yellow]Both runs need at least one sample to compare.[/yellow]"
    fam = store.family(ra.family_id)
    note = "" if ra.family_name == rb.family_name else \
        "  [yellow](different families)[/yellow]"
    same = top_answers_agree(res_a["top_answer"], res_b["top_answer"], fam)
    rows = [f"[b]compare[/b] {escape(ra.family_name)}{note}",
            f"{'':<8}{'run ' + str(a):<28}{'run ' + str(b):<28}",
            f"{'model':<8}{escape(ra.model[:26]):<28}{escape(rb.model[:26]):<28}"]
    for key, name in (("dr", "DR"), ("fr", "FR"), ("pi", "π")):
        rows.append(f"{name:<8}{res_a[key]:<28.2f}{res_b[key]:<28.2f}")
    rows.append(f"{'label':<8}{LABEL_TEXT[res_a['label']]:<28}{LABEL_TEXT[res_b['label']]:<28}")
    rows.append(f"{'top':<8}{escape(str(res_a['top_answer'])):<28}"
                f"{escape(str(res_b['top_answer'])):<28}")
    rows.append("same top answer: " + ("[green]yes[/green]" if same else "[red]no[/red]"))
    if ra.model != rb.model:
        # Two models: the paper's view over every family both have run.
        from probe.errors import BadInput

        try:
            rows += ["", escape(render_compare(compare_models(store, ra.model, rb.model)))]
        except BadInput as exc:
            rows.append(escape(str(exc)))
    return "\n".join(rows)
