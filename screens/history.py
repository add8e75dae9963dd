"""Past runs: filter, open read-only, compare two runs (or two results of one run), and the
pooled view of repeat runs.

Each run's row is its result as sampled; a re-score after a merge or split is a row of its
own beneath it, dated, so the original is always in view. The highlighted run's settings
are spelled out under the table; `p` shows one row per group of compatible runs instead."""

from __future__ import annotations

import time

from screens.markup import escape
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from probe.metrics import LABEL_TEXT
from probe.settings_view import one_line, parse, shared_form, short_line
from probe.store import as_sampled, version_kind
from screens.compare import compare_text
from screens.pooled import PooledView
from screens.tables import RowTable, cursor_key, fit_columns, move_to_key

WIDE = (" ", "run", "family", "model", "ended", "samples", "settings", "seed", "label", "DR",
        "FR", "π", "top answer", "when")
# 120 columns cannot hold all of them readably: the seed, top answer and date go (the line
# under the table has the highlighted run's seed and every setting), the settings stay.
MEDIUM = (" ", "run", "family", "model", "ended", "samples", "settings", "label", "DR", "FR",
          "π")
NARROW = (" ", "run", "family", "model", "ended", "samples", "label", "π")
FIXED = {" ": 1, "run": 4, "ended": 11, "samples": 7, "seed": 10, "label": 10, "DR": 4, "FR": 4,
         "π": 4, "when": 16}
FLEXIBLE = {"family": 0.8, "model": 1.0, "settings": 1.0, "top answer": 0.6}
WIDE_FROM, MEDIUM_FROM = 160, 120


def when(t: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t)) if t else "—"


def row_key(run_id: int, version: int | None = None) -> str:
    return str(run_id) if version is None else f"{run_id}.v{version}"


def parse_key(key: str) -> tuple[int, int | None]:
    run, _, version = key.partition(".v")
    return int(run), int(version) if version else None


class HistoryScreen(PooledView, Screen):
    BINDINGS = [
        Binding("enter", "open", "Open"),
        Binding("space", "mark", "Mark"),
        Binding("c", "compare", "Compare marked"),
        Binding("p", "pooled", "Pooled repeats"),
        Binding("slash", "filter", "Filter"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.marked: list[str] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="/ filters by family or model (enter: back to the table)",
                    id="filter")
        yield RowTable(id="runs", cursor_type="row", zebra_stripes=True)
        yield RowTable(id="pools", cursor_type="row", zebra_stripes=True)
        yield Static("", id="run-detail")
        yield Static("", id="compare")
        yield Footer()

    def on_mount(self) -> None:
        self.columns = ()
        self.query_one("#pools", DataTable).display = False
        self.on_resize()
        self.query_one("#runs", DataTable).focus()

    def on_screen_resume(self) -> None:
        # Back from a run opened here: a merge or split there added a re-score to show.
        self.refresh_runs()
        if self.showing_pools:
            self.refresh_pools()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in ("mark", "compare"):
            return not self.showing_pools
        return True

    def on_resize(self) -> None:
        # A narrow terminal shows fewer columns, each readable, rather than all of them cut
        # to a few letters; enter on a run shows the rest.
        width = self.size.width
        columns = WIDE if width >= WIDE_FROM else MEDIUM if width >= MEDIUM_FROM else NARROW
        table = self.query_one("#runs", DataTable)
        flexible = {k: w for k, w in FLEXIBLE.items() if k in columns} \
            if columns != NARROW else {"family": 1.0, "model": 1.0}
        fixed = {k: w for k, w in FIXED.items() if k in columns}
        # Whole run ids, however many digits: run 100001 never reads "1000".
        top = self.app.store.query("SELECT MAX(id) AS top FROM runs")[0]["top"]  # type: ignore
        fixed["run"] = max(fixed["run"], len(str(top or 0)))
        if "settings" in columns:
            fixed["settings"] = self._settings_room(width, columns, fixed)
            del flexible["settings"]
        widths = fit_columns(table, width, fixed, flexible, minimum=6) \
            if columns == self.columns else None
        if columns != self.columns:
            self.columns = columns
            table.clear(columns=True)
            for key in columns:
                table.add_column(key, key=key)
            widths = fit_columns(table, width, fixed, flexible, minimum=6)
            self.settings_width = widths.get("settings")
            self.refresh_runs()
        elif widths.get("settings") != getattr(self, "settings_width", None):
            self.settings_width = widths.get("settings")
            self.refresh_runs()         # the settings cells take the form that fits
        self.fit_pools()

    def _settings_room(self, width: int, columns: tuple, fixed: dict) -> int:
        """The settings column's width: room for the tightest form of the longest row at
        least (so the answer format is never cut), the loosest where the width allows; the
        names share what is left."""
        settings = [r["settings"] for r in self.app.store.runs()]  # type: ignore
        tight = max((len(short_line(x, form=2)) for x in settings), default=12)
        loose = max((len(short_line(x, form=0)) for x in settings), default=12)
        room = width - 2 * len(columns) - 2 - sum(fixed.values())
        return max(8, min(loose, max(tight, int(room * 0.5))))

    @on(Input.Changed, "#filter")
    def refresh_runs(self) -> None:
        if not self.columns:
            return
        if self.showing_pools:
            self.refresh_pools()
        store = self.app.store  # type: ignore[attr-defined]
        text = self.query_one("#filter", Input).value.strip().casefold()
        table = self.query_one("#runs", DataTable)
        keep = cursor_key(table)
        table.clear()
        fmt = lambda v: f"{v:.2f}" if v is not None else "—"  # noqa: E731

        def add(key: str, **cells) -> None:
            cells[" "] = "●" if key in self.marked else " "
            table.add_row(*[cells.get(c, "") for c in self.columns], key=key)

        shown = [r for r in store.runs() if not text or text in r["family_name"].casefold()
                 or text in r["model"].casefold()]
        form = shared_form([r["settings"] for r in shown], getattr(self, "settings_width", None))
        for r in shown:
            versions = store.result_versions(r["id"]) if r["n_versions"] > 1 else []
            # The run's row is its result as sampled (after any resume); re-scores after
            # answer edits are the rows under it. A partial result from before a resume is
            # kept in the database, but it is not a result of the run: it is not listed.
            first = as_sampled(versions) or r
            planned = _planned(r)
            used = r["samples_used"] if r["samples_used"] is not None else \
                (r["n_direct"] or 0) + (r["n_framed"] or 0)
            add(row_key(r["id"]), run=str(r["id"]),
                family=Text(r["family_name"], overflow="ellipsis"),
                model=Text(r["model"], overflow="ellipsis"),
                ended=Text(r["ending"] or r["status"]),
                samples=f"{used}/{planned}" if planned else str(used),
                settings=Text(short_line(r["settings"], form=form), overflow="ellipsis"),
                seed="—" if r["seed"] is None else Text(str(r["seed"])),
                label=_label(first), DR=fmt(first["dr"]),
                FR=fmt(first["fr"]), **{"π": fmt(first["pi"]),
                                        "top answer": Text(first["top_answer"] or "—")},
                when=when(r["created_at"]))
            for v in versions:
                if v is first or version_kind(v, versions) == "partial":
                    continue
                kind = "↳ " + version_kind(v, versions)
                add(row_key(r["id"], v["version"]), run=f"v{v['version']}",
                    family=Text(kind, style="italic"),
                    model=Text(v["note"] or when(v["created_at"]), style="italic"),
                    label=_label(v), DR=fmt(v["dr"]), FR=fmt(v["fr"]),
                    **{"π": fmt(v["pi"]), "top answer": Text(v["top_answer"] or "—")},
                    when=when(v["created_at"]))
        move_to_key(table, keep)
        self.show_detail()

    @on(DataTable.RowHighlighted, "#runs")
    @on(DataTable.RowHighlighted, "#pools")
    def show_detail(self) -> None:
        """The highlighted run's settings, every one it stored, under the table (or the
        highlighted pool's model, runs and settings)."""
        detail = self.query_one("#run-detail", Static)
        if self.showing_pools:
            pool = self.highlighted_pool()
            detail.display = pool is not None
            if pool is not None:
                runs = ", ".join(f"{r['id']} (seed {r['seed']})" for r in pool.runs)
                detail.update(f"[b]{escape(pool.family)}[/b] on {escape(pool.model)} · runs "
                              f"{escape(runs)}\n [dim]{escape(pool.describe())}[/dim]")
            return
        key = self.selected()
        if key is None or self.query_one("#compare", Static).display:
            detail.display = False
            return
        run = self.app.store.run(parse_key(key)[0])  # type: ignore[attr-defined]
        text = one_line(run.settings, run.model, run.model_hash, run.seed,
                        skip=("model_spec",))
        detail.update(f"[b]run {run.id}[/b] [dim]{escape(text)}[/dim]")
        detail.display = True

    def selected(self) -> str | None:
        return cursor_key(self.query_one("#runs", DataTable))

    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    @on(Input.Submitted, "#filter")
    def filter_done(self) -> None:
        self.query_one("#pools" if self.showing_pools else "#runs", DataTable).focus()

    def action_back(self) -> None:
        if self.query_one("#filter", Input).has_focus:
            self.query_one("#pools" if self.showing_pools else "#runs", DataTable).focus()
            return
        if self.showing_pools:
            self.action_pooled()
            return
        self.app.pop_screen()

    def action_open(self) -> None:
        if self.showing_pools:
            self.open_pool()
            return
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

    @on(DataTable.RowSelected, "#pools")
    def pool_chosen(self) -> None:
        self.open_pool()

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
        # The comparison names both runs' settings; the one run's line makes room for it.
        self.query_one("#run-detail", Static).display = False


def _planned(r: dict) -> int | None:
    n = parse(r["settings"]).get("samples")
    framings = r.get("n_framings")
    return n + framings if isinstance(n, int) and framings else None


def _label(version: dict) -> str:
    """A result's label, marked ⚠ when it depends on how some replies were read (a run's
    row says so; a version says so in its kept scores)."""
    scores = version.get("scores")
    second = scores.get("second") if isinstance(scores, dict) else None
    sensitive = version.get("reading_sensitive") if scores is None else \
        isinstance(second, dict) and second.get("agrees") is False
    return LABEL_TEXT.get(version["label"], "—") + (" ⚠" if sensitive else "")
