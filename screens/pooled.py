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
from probe.settings_view import shared_form, short_line
from screens.tables import RowTable, cursor_key, fit_columns

POOL_COLUMNS = ("family", "model", "runs", "settings", "DR", "FR", "π", "label")
# Below 100 columns the model and settings make way for whole names, rates and labels; the
# highlighted pool's model and settings are spelled out under the table instead.
POOL_NARROW = ("family", "runs", "DR", "FR", "π", "label")
POOL_WIDE_FROM = 100


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

    def pool_columns(self) -> tuple:
        return POOL_COLUMNS if self.size.width >= POOL_WIDE_FROM else POOL_NARROW

    def fit_pools(self) -> None:
        table = self.query_one("#pools", DataTable)
        columns = self.pool_columns()
        if tuple(str(k.value) for k in table.columns) != columns:
            table.clear(columns=True)
            for key in columns:
                table.add_column(key, key=key)
            if getattr(self, "pool_list", None) is not None and self.showing_pools:
                self.refresh_pools()
                return
        flexible = {k: w for k, w in (("family", 0.6), ("model", 0.6), ("settings", 1.8))
                    if k in columns}
        widths = fit_columns(table, self.size.width, {"runs": 4, "DR": 16, "FR": 16, "π": 4,
                                                      "label": 12}, flexible, minimum=6)
        self.pool_settings_width = widths.get("settings")

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
        columns = [str(k.value) for k in table.columns]
        form = shared_form([p.settings for p in found], getattr(self, "pool_settings_width", None))
        for i, pool in enumerate(found):
            runs = ", ".join(map(str, pool.run_ids))
            cells = {"family": Text(pool.family, overflow="ellipsis"),
                     "model": Text(pool.model, overflow="ellipsis"),
                     "runs": Text(str(len(pool.run_ids))),
                     "settings": Text(short_line(pool.settings, form=form), overflow="ellipsis"),
                     "DR": "…", "FR": "…", "π": "…",
                     "label": Text(f"runs {runs}", style="dim", overflow="ellipsis")}
            table.add_row(*[cells[c] for c in columns], key=str(i))
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
            try:
                table.update_cell(str(i), key, Text(value, overflow="ellipsis"))
            except Exception:       # the table was laid out again meanwhile
                return

    def highlighted_pool(self):
        key = cursor_key(self.query_one("#pools", DataTable))
        found = getattr(self, "pool_list", None)
        if key is None or not key.isdigit() or not found or int(key) >= len(found):
            return None
        return found[int(key)]

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
            answers = ", ".join([f"{a} ×{n}" for a, n in row.answers.most_common()]
                                + [f"⊘ {kind} ×{n}" for kind, n in row.non_picks.most_common()])
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
        from probe.family_export import slug
        from probe.paths import exports_dir
        from probe.pool_export import write_reframings

        folder = exports_dir() / slug(self.result.pool.family)
        try:
            written = write_reframings(self.result, folder, self.sort)
        except (ProbeError, OSError) as exc:
            self.notify(f"Not exported: {exc}", severity="error", markup=False)
            return
        self.notify("Wrote " + " and ".join(str(p) for p in written), timeout=10,
                    markup=False)
