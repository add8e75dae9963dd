"""Repeat runs pooled (History's `p`): one row per family, model and way of measuring, with
the pooled verdict and its intervals; enter shows how each reframing fared across the
runs, sortable, and `x` exports that table."""

from __future__ import annotations

from screens.markup import escape
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from probe.errors import ProbeError
from probe.metrics import LABEL_TEXT
from probe.report import floor_percent
from probe.settings_view import short_line
from screens.tables import RowTable, cursor_key, fit_columns

POOL_COLUMNS = ("family", "model", "runs", "settings", "DR", "FR", "π", "label")


def ci(value: float, interval: tuple[float, float]) -> str:
    return f"{value:.2f} [{interval[0]:.2f}–{interval[1]:.2f}]"


def verdict_cells(pooled) -> dict:
    s = pooled.scored.scores
    settled = "" if s.settled else f" {floor_percent(s.p_label)}"
    return {"DR": ci(s.dr, s.dr_interval), "FR": ci(s.fr, s.fr_interval),
            "π": f"{s.pi:.2f}", "label": f"{LABEL_TEXT[s.label]}{settled}"}


class PooledView:
    """History's pooled rows; the screen composes a ``#pools`` table beside ``#runs``."""

    @property
    def showing_pools(self) -> bool:
        return self.query_one("#pools", DataTable).display

    def action_pooled(self) -> None:
        runs, pools = self.query_one("#runs", DataTable), self.query_one("#pools", DataTable)
        showing = not self.showing_pools
        pools.display, runs.display = showing, not showing
        self.query_one("#compare", Static).display = False
        (pools if showing else runs).focus()
        if showing:
            self.refresh_pools()
            self.notify("Pooled: finished runs of one family and model that measured the same "
                        "way (settings and rule; any seed). enter: each reframing across them; "
                        "p: back to the runs.", timeout=8)
        self.show_detail()
        self.refresh_bindings()

    def fit_pools(self) -> None:
        table = self.query_one("#pools", DataTable)
        if not table.columns:
            for key in POOL_COLUMNS:
                table.add_column(key, key=key)
        fit_columns(table, self.size.width, {"runs": 4, "DR": 16, "FR": 16, "π": 4,
                                             "label": 12},
                    {"family": 0.8, "model": 1.0, "settings": 1.0}, minimum=6)

    def refresh_pools(self) -> None:
        from probe.pooling import pools

        self.fit_pools()
        text = self.query_one("#filter", Input).value.strip().casefold()
        found = [p for p in pools(self.app.store)  # type: ignore[attr-defined]
                 if not text or text in p.family.casefold() or text in p.model.casefold()]
        self.pool_list = found
        table = self.query_one("#pools", DataTable)
        keep = cursor_key(table)
        table.clear()
        for i, pool in enumerate(found):
            runs = ", ".join(map(str, pool.run_ids))
            table.add_row(Text(pool.family), Text(pool.model, overflow="ellipsis"),
                          Text(str(len(pool.run_ids))),
                          Text(short_line(pool.settings), overflow="ellipsis"),
                          "…", "…", "…", Text(f"runs {runs}", style="dim",
                                              overflow="ellipsis"), key=str(i))
        if keep is not None and keep.isdigit() and int(keep) < table.row_count:
            table.move_cursor(row=int(keep))
        self._score_pools(found)

    @work(thread=True, exclusive=True, exit_on_error=False, group="pools",
          description="pooling repeat runs")
    def _score_pools(self, found: list) -> None:
        from probe.pooling import pooled

        for i, pool in enumerate(found):
            try:
                cells = verdict_cells(pooled(self.app.store, pool))  # type: ignore
            except ProbeError as exc:
                cells = {"DR": "—", "FR": "—", "π": "—", "label": str(exc)[:40]}
            self.app.call_from_thread(self._pool_scored, found, i, cells)

    def _pool_scored(self, found: list, i: int, cells: dict) -> None:
        if getattr(self, "pool_list", None) is not found:
            return                  # the list was drawn again meanwhile
        table = self.query_one("#pools", DataTable)
        for key, value in cells.items():
            table.update_cell(str(i), key, Text(value, overflow="ellipsis"))

    def open_pool(self) -> None:
        key = cursor_key(self.query_one("#pools", DataTable))
        if key is None:
            return
        from probe.pooling import pooled

        try:
            result = pooled(self.app.store, self.pool_list[int(key)])  # type: ignore
        except ProbeError as exc:
            self.notify(str(exc), severity="error")
            return
        self.app.push_screen(ReframingsScreen(result))


class ReframingsScreen(Screen):
    """Each reframing across the pooled runs: how often it kept the direct top answer."""

    BINDINGS = [
        Binding("o", "sort", "Sort"),
        Binding("x", "export", "Export CSV + JSON"),
        Binding("escape", "app.pop_screen", "Back"),
    ]

    def __init__(self, result) -> None:
        super().__init__()
        self.result = result
        self.sort = "breaks first"

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="pool-title")
        yield RowTable(id="reframings", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#reframings", DataTable)
        for key, label in (("n", "#"), ("rate", "kept"), ("picks", "kept/picks"),
                           ("answers", "answers given"), ("scenario", "scenario")):
            table.add_column(label, key=key)
        self.draw()

    def on_resize(self) -> None:
        fit_columns(self.query_one("#reframings", DataTable), self.size.width,
                    {"n": 3, "rate": 5, "picks": 10}, {"answers": 1.0, "scenario": 1.6},
                    minimum=8)

    def draw(self) -> None:
        from probe.pooling import sorted_rows

        r, s = self.result, self.result.scored.scores
        pool = r.pool
        cells = verdict_cells(r)
        self.query_one("#pool-title", Static).update(
            f" [b]{escape(pool.family)}[/b] on {escape(pool.model)} — {len(pool.run_ids)} "
            f"run{'s' if len(pool.run_ids) != 1 else ''} pooled "
            f"({escape(', '.join(map(str, pool.run_ids)))})\n"
            f" [dim]{escape(pool.describe())}[/dim]\n"
            f" top answer [b]{escape(s.top_answer or 'no answer')}[/b] · DR {cells['DR']} · "
            f"FR {cells['FR']} · π {cells['π']} · [b]{escape(cells['label'])}[/b]"
            f"   [dim]sorted: {self.sort} (o)[/dim]")
        table = self.query_one("#reframings", DataTable)
        table.clear()
        for row in sorted_rows(r, self.sort):
            rate = f"{row.rate:.0%}" if row.rate is not None else "—"
            style = "red" if row.rate is not None and row.rate < 0.5 else ""
            answers = ", ".join(f"{a} ×{n}" for a, n in row.answers.most_common())
            table.add_row(str(row.idx + 1), Text(rate, style=style),
                          f"{row.hits}/{row.picks}", Text(answers, overflow="ellipsis"),
                          Text(row.scenario, overflow="ellipsis"), key=str(row.idx))
        self.on_resize()

    def action_sort(self) -> None:
        from probe.pooling import SORTS

        order = list(SORTS)
        self.sort = order[(order.index(self.sort) + 1) % len(order)]
        self.draw()

    def action_export(self) -> None:
        from probe.atomic import write_atomic
        from probe.export import model_file_names
        from probe.family_export import slug
        from probe.paths import exports_dir
        from probe.pooling import reframings_csv, reframings_json

        pool = self.result.pool
        stem = model_file_names([pool.model])[pool.model].removesuffix(".jsonl")
        folder = exports_dir() / slug(pool.family)
        try:
            written = [write_atomic(folder / f"reframings-{stem}.csv",
                                    reframings_csv(self.result, self.sort), "export file"),
                       write_atomic(folder / f"reframings-{stem}.json",
                                    reframings_json(self.result, self.sort), "export file")]
        except (ProbeError, OSError) as exc:
            self.notify(f"Not exported: {exc}", severity="error", markup=False)
            return
        self.notify("Wrote " + " and ".join(str(p) for p in written), timeout=10,
                    markup=False)
