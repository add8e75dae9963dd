"""The charts screen's plots (plotext through textual-plotext): DR against FR with the
threshold lines and a selected point, and the bias-type breakdown per model. Imported when
the charts screen opens, not when the app starts (plotext costs ~40 ms)."""

from __future__ import annotations

from typing import Sequence

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget
from textual_plotext import PlotextPlot

from probe.charts.data import LABELS, Thresholds
from probe.charts.palette import COLOURS, MARKS, SELECTED, THRESHOLD, rgb
from probe.metrics import LABEL_TEXT

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


class BreakdownPlot(Widget):
    """Per model, the share of its families that are Deep, Shallow and Non-bias: the name
    on its own line, one stacked bar under it and the percents in words, so a bar never
    drifts from its label (plotext's grouped bars did) and a long name is shortened with …"""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.by_model: dict[str, dict] = {}

    def show(self, by_model: dict[str, dict]) -> None:
        self.by_model = by_model
        self.refresh()

    def render(self) -> Text:
        width = max(10, self.size.width - 2)
        text = Text("Bias types per model\n", style="bold")
        for key in LABELS:
            text.append(f"{MARKS[key]} {LABEL_TEXT[key]}  ", style=f"bold {COLOURS[key]}")
        text.append("\n")
        for model, shares in self.by_model.items():
            # The name is data: only its printable characters, never its escapes.
            name = f"{''.join(c for c in model if c.isprintable())} ({shares['n']})"
            text.append("\n" + (name if len(name) <= width else name[:width - 1] + "…"),
                        style="bold")
            text.append("\n")
            done = 0.0
            for key in LABELS:        # cumulative rounding: the segments fill the bar exactly
                start, done = round(done * width / 100), done + shares[key]
                text.append("█" * (round(done * width / 100) - start), style=COLOURS[key])
            text.append("\n")
            for key in LABELS:
                text.append(f"{LABEL_TEXT[key]} {shares[key]:.0f}%  ", style=COLOURS[key])
            text.append("\n")
        return text
