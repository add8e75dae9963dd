"""Charts of stored families: DR against FR with the threshold lines, a selected point you
move between with the arrow keys (or a click) and open with enter, and the Deep / Shallow /
Non-bias breakdown — from the same newest-finished-run query as `probe report`."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from probe.charts.data import LABELS, Thresholds, breakdown_by_model, chart_rows, model_names, \
    run_thresholds
from probe.charts.palette import COLOURS, MARKS, SELECTED, THRESHOLD
from probe.metrics import LABEL_TEXT
from probe.settings_view import measurement_key, short_line

STYLE = {key: f"bold {colour}" for key, colour in COLOURS.items()}
WIDE = 120          # from this many columns the breakdown plot sits beside the scatter


class ChartsScreen(Screen):
    DEFAULT_CSS = """
    ChartsScreen #charts-status { height: 1; padding: 0 1;
        text-wrap: nowrap; text-overflow: ellipsis; }
    ChartsScreen #charts-legend { height: auto; max-height: 2; padding: 0 1;
        text-wrap: nowrap; text-overflow: ellipsis; }
    ChartsScreen #charts-point { height: 2; padding: 0 1; background: $boost; }
    ChartsScreen #charts-body { height: 1fr; }
    ChartsScreen #scatter { width: 2fr; }
    ChartsScreen #breakdown { width: 1fr; display: none; padding: 0 1; }
    ChartsScreen.-wide #breakdown { display: block; }
    """
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("m", "next_model", "Model filter"),
        Binding("left", "move('dr', -1)", "Point ←", show=False),
        Binding("right", "move('dr', 1)", "Point →", show=False),
        Binding("down", "move('fr', -1)", "Point ↓", show=False),
        Binding("up", "move('fr', 1)", "Point ↑", show=False),
        Binding("enter", "open_run", "Open run"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.all_rows: list[dict] = []
        self.models: list[str] = []
        self.model: str | None = None          # None: every model
        self.rows: list[dict] = []
        self.selected: int | None = None
        self.thresholds = Thresholds()

    def compose(self) -> ComposeResult:
        from screens.chart_plots import BreakdownPlot, ScatterPlot

        yield Header()
        yield Static("", id="charts-status")
        with Horizontal(id="charts-body"):
            yield ScatterPlot(id="scatter")
            yield BreakdownPlot(id="breakdown")
        yield Static("", id="charts-legend")
        yield Static("", id="charts-point")
        yield Footer()

    def on_mount(self) -> None:
        self.reload()

    def on_screen_resume(self) -> None:
        self.reload()

    def on_resize(self) -> None:
        self.set_class(self.size.width >= WIDE, "-wide")
        if self.rows or self.all_rows:
            self.query_one("#charts-status", Static).update(self.status_text())
            self.query_one("#charts-legend", Static).update(self.legend_text())
        self.query_one("#charts-point", Static).update(self.point_text())

    def reload(self) -> None:
        store = self.app.store  # type: ignore[attr-defined]
        self.all_rows = chart_rows(store)
        self.models = model_names(self.all_rows)
        if self.model not in self.models:
            self.model = None
        self.thresholds = run_thresholds(store, self.all_rows)
        # Each point's settings, and whether the points were measured in more than one way
        # (another N, temperature or rule): said, never mixed silently.
        ways = set()
        for r in self.all_rows:
            run = store.run(r["run_id"])
            r["settings_text"] = short_line(run.settings)
            r["settings"] = run.settings
            ways.add(tuple(kv for kv in measurement_key(run.settings, "", None)
                           if kv[0] not in ("model", "model_hash")))
        self.mixed_settings = len(ways) > 1
        self.set_class(self.size.width >= WIDE, "-wide")
        self.redraw()

    def redraw(self) -> None:
        from screens.chart_plots import BreakdownPlot, ScatterPlot

        previous = self.current()
        rows = [r for r in self.all_rows if self.model is None or r["model"] == self.model]
        self.rows = sorted(rows, key=lambda r: (r["dr"], r["fr"], r["family_name"], r["model"]))
        ids = [r["run_id"] for r in self.rows]
        if previous and previous["run_id"] in ids:
            self.selected = ids.index(previous["run_id"])
        else:
            self.selected = 0 if self.rows else None
        self.query_one(ScatterPlot).show(self.rows, self.thresholds, self.selected)
        self.query_one(BreakdownPlot).show(breakdown_by_model(self.rows))
        self.query_one("#charts-status", Static).update(self.status_text())
        self.query_one("#charts-legend", Static).update(self.legend_text())
        self.query_one("#charts-point", Static).update(self.point_text())

    def current(self) -> dict | None:
        return self.rows[self.selected] if self.selected is not None and self.rows else None

    # ------------------------------------------------------------------ text

    def status_text(self) -> Text:
        which = self.model or (self.models[0] if len(self.models) == 1 else
                               f"all models ({len(self.models)})")
        n = len(self.rows)
        counts = Text()
        if not n:
            counts.append("no finished runs yet: run a family (r on Home) or `probe batch`.")
        else:
            counts.append(f"{n} famil{'y' if n == 1 else 'ies'} · ")
            for i, key in enumerate(LABELS):
                k = sum(r["label"] == key for r in self.rows)
                counts.append(("  " if i else "") + f"{LABEL_TEXT[key]} {k} {k / n:.0%}",
                              style=STYLE[key])
        # The counts stay whole; the model's name gives way (…) at 80 columns.
        room = max(8, (self.size.width or 80) - 2 - counts.cell_len - len(" (m) · "))
        from screens.fit import shorten

        return Text.assemble((shorten(which, room), "bold"), (" (m)", "dim"), " · ", counts)

    def legend_text(self) -> Text:
        t = self.thresholds
        text = Text()
        for key in LABELS:
            text.append(f"{MARKS[key]} {LABEL_TEXT[key]}  ", style=STYLE[key])
        text.append("◆ selected  ", style=f"bold {SELECTED}")
        text.append(f"│ DR = {t.dr:.2f}   ⠢ π = {t.pi:.2f}", style=THRESHOLD)
        notes = []
        if t.mixed:
            notes.append(("(runs used other thresholds too)", "dim"))
        if getattr(self, "mixed_settings", False):
            notes.append(("⚠ points measured with different settings (enter shows each)",
                          "bold yellow"))
        room = (self.size.width or 80) - 2
        for note, style in notes:
            # A warning that does not fit beside the legend gets a line of its own.
            last = text.plain.split("\n")[-1]
            text.append("  " if len(last) + 2 + len(note) <= room else "\n")
            text.append(note, style=style)
        return text

    def point_text(self) -> Text:
        r = self.current()
        if r is None:
            return Text("No point to select.", style="dim")
        top = r["top_answer"] if r["top_answer"] is not None else "no answer"
        first = Text.assemble(("◆ ", f"bold {SELECTED}"), (r["family_name"], "bold"), "  ",
                              (r["model"], "italic"), "  ", (LABEL_TEXT[r["label"]],
                                                             STYLE[r["label"]]))
        room = self.size.width - 2
        head = f"DR {r['dr']:.2f}  FR {r['fr']:.2f}  π {r['pi']:.2f}  top {top}  " \
               f"run {r['run_id']}  "
        # The settings in the tightest form they need, so the answer format is not the part
        # cut off.
        settings = short_line(r["settings"], room - len(head)) if "settings" in r else \
            r.get("settings_text", "")
        second = Text(head + settings)
        # Two lines whatever the width: the keys go where there is room, else only in the
        # footer; a line too long ends in … rather than pushing the numbers out of the box.
        hint = "   ←↑↓→/click: move · enter: open"
        for line in (first, second):
            if line.cell_len + len(hint) <= room:
                line.append(hint, style="dim")
                break
        for line in (first, second):
            line.truncate(room, overflow="ellipsis")
        return Text("\n").join([first, second])

    # --------------------------------------------------------------- actions

    def action_next_model(self) -> None:
        choices: list[str | None] = [None, *self.models]
        self.model = choices[(choices.index(self.model) + 1) % len(choices)]
        self.redraw()

    def action_move(self, axis: str, step: int) -> None:
        """Left/right walk the points in DR order, up/down in FR order."""
        current = self.current()
        if current is None:
            return
        order = sorted(range(len(self.rows)), key=lambda i: (
            self.rows[i][axis], self.rows[i]["dr" if axis == "fr" else "fr"], i))
        pos = order.index(self.selected)
        self.select(order[max(0, min(len(order) - 1, pos + step))])

    def select(self, index: int) -> None:
        from screens.chart_plots import ScatterPlot

        self.selected = index
        self.query_one(ScatterPlot).show(self.rows, self.thresholds, self.selected)
        self.query_one("#charts-point", Static).update(self.point_text())

    def on_scatter_plot_point_clicked(self, message) -> None:
        self.select(message.index)

    def action_open_run(self) -> None:
        r = self.current()
        if r is None:
            return
        family = self.app.store.family(r["family_id"])  # type: ignore[attr-defined]
        self.app.open_run(family, run_id=r["run_id"], read_only=True)  # type: ignore
