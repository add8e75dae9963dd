"""The charts screen's plots (plotext through textual-plotext): DR against FR with the
threshold lines and a selected point, and the bias-type breakdown per model. Imported when
the charts screen opens, not when the app starts (plotext costs ~40 ms)."""

from __future__ import annotations

from typing import Sequence

from rich.text import Text
from textual import events
from textual.message import Message
from textual_plotext import PlotextPlot

from probe.charts.data import LABELS, Thresholds
from probe.charts.palette import COLOURS, MARKS, SELECTED, THRESHOLD, rgb

UNIT_TICKS = [0, 0.2, 0.4, 0.6, 0.8, 1.0]
UNIT_LABELS = ["0", "0.2", "0.4", "0.6", "0.8", "1.0"]
RGB = {key: rgb(colour) for key, colour in COLOURS.items()}
SELECTED_MARK = "◆"


class ScatterPlot(PlotextPlot):
    """DR on x, FR on y; one point per family and model, shaped and coloured by label."""

    class PointClicked(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows: list[dict] = []
        self.selected: int | None = None
        self._frame: tuple[int, int, int, int] | None = None   # top, left, bottom, right

    def show(self, rows: Sequence[dict], t: Thresholds, selected: int | None) -> None:
        self.rows, self.selected = list(rows), selected
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        plt.xlim(0, 1)
        plt.ylim(0, 1)
        plt.xticks(UNIT_TICKS, UNIT_LABELS)
        plt.yticks(UNIT_TICKS, UNIT_LABELS)
        plt.xlabel("DR (direct rate)")
        plt.ylabel("FR (framed rate)")
        plt.plot([t.dr, t.dr], [0, 1], color=rgb(THRESHOLD), marker="braille")
        steps = 80
        xs = [t.dr + (1 - t.dr) * i / steps for i in range(steps + 1)]
        plt.plot(xs, [min(1.0, t.pi / x) for x in xs], color=rgb(THRESHOLD), marker="braille")
        for key in LABELS:
            mine = [r for r in self.rows if r["label"] == key]
            if mine:
                plt.scatter([r["dr"] for r in mine], [r["fr"] for r in mine], marker=MARKS[key],
                            color=RGB[key])
        if selected is not None and self.rows:
            r = self.rows[selected]
            plt.scatter([r["dr"]], [r["fr"]], marker=SELECTED_MARK, color=rgb(SELECTED),
                        style="bold")
        self.refresh()

    def render(self):
        text = super().render()
        self._frame = _frame_of(text.plain if isinstance(text, Text) else str(text))
        return text

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self._frame is None or not self.rows:
            return
        top, left, bottom, right = self._frame
        if right - left < 3 or bottom - top < 3:
            return
        # Cell → data: the frame's inside spans the axes' limits, 0 to 1 on both.
        x = (offset.x - left - 1) / (right - left - 2)
        y = 1 - (offset.y - top - 1) / (bottom - top - 2)
        width, height = right - left - 2, bottom - top - 2

        def cells_away(r: dict) -> float:
            return ((r["dr"] - x) * width) ** 2 + ((r["fr"] - y) * height * 2) ** 2

        best = min(range(len(self.rows)), key=lambda i: cells_away(self.rows[i]))
        self.post_message(self.PointClicked(best))


def _frame_of(plain: str) -> tuple[int, int, int, int] | None:
    lines = plain.splitlines()
    top = next((i for i, line in enumerate(lines) if "┌" in line), None)
    bottom = next((i for i, line in enumerate(lines) if "└" in line), None)
    if top is None or bottom is None:
        return None
    left = lines[top].index("┌")
    right = lines[top].rfind("┐")
    return (top, left, bottom, right) if right > left else None


class BreakdownPlot(PlotextPlot):
    """Per model, the share of its families that are Deep, Shallow and Non-bias."""

    def show(self, by_model: dict[str, dict]) -> None:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        # Horizontal, so model names are y labels: plotext places x labels in an order
        # that depends on Python's hash seed, which made the picture differ between runs.
        models = list(by_model)[::-1]                  # the first model on top
        if models:
            # plotext's output is read back as ANSI: a name's own escapes must not style it.
            names = [f"{''.join(c for c in m if c.isprintable())[:16]} ({by_model[m]['n']})"
                     for m in models]
            # Deep on top of each group; the colours are the screen's legend line's.
            order = LABELS[::-1]
            plt.multiple_bar(names, [[by_model[m][k] for m in models] for k in order],
                             color=[RGB[k] for k in order], orientation="horizontal")
            plt.xlim(0, 100)
            plt.xticks([0, 20, 40, 60, 80, 100])
        plt.title("Bias types per model (%)")
        self.refresh()
