"""Charts of stored families: the Deep/Shallow/Non-bias breakdown and a DR-vs-FR scatter
with the threshold lines, drawn in the terminal."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from probe.metrics import DEEP, DR_THRESHOLD, NON_BIAS, PI_THRESHOLD, SHALLOW
from probe.report import bar

STYLE = {DEEP: "bold green", SHALLOW: "bold yellow", NON_BIAS: "bold white"}
MARK = {DEEP: "●", SHALLOW: "▲", NON_BIAS: "·"}


def breakdown_text(rows: list[dict]) -> Text:
    n = len(rows)
    text = Text(f"Families by bias type (n = {n}, newest run per family and model)\n",
                style="bold")
    for key, name in ((DEEP, "Deep"), (SHALLOW, "Shallow"), (NON_BIAS, "Non-bias")):
        share = sum(r["label"] == key for r in rows) / n if n else 0.0
        text.append(f"{name:<9}")
        text.append(bar(share, 40), style=STYLE[key])
        text.append(f" {share:6.1%}\n")
    return text


def scatter_text(rows: list[dict], width: int = 60, height: int = 18) -> Text:
    """DR on x, FR on y; | marks DR = 0.65, ~ marks π = 0.40 (FR = 0.40 / DR)."""
    grid = [[" "] * width for _ in range(height)]
    styles: dict[tuple[int, int], str] = {}

    def cell(dr: float, fr: float) -> tuple[int, int]:
        return (height - 1 - min(height - 1, int(fr * height)),
                min(width - 1, int(dr * width)))

    for y in range(height):
        grid[y][cell(DR_THRESHOLD, 0)[1]] = "│"
    for x in range(width):
        dr = (x + 0.5) / width
        if dr > DR_THRESHOLD and PI_THRESHOLD / dr <= 1:
            y, _ = cell(dr, PI_THRESHOLD / dr)
            grid[y][x] = "~"
    for r in rows:
        y, x = cell(r["dr"], r["fr"])
        grid[y][x] = MARK[r["label"]]
        styles[(y, x)] = STYLE[r["label"]]
    text = Text("FR\n", style="bold")
    for y, line in enumerate(grid):
        label = f"{1 - y / height:4.1f} " if y % 4 == 0 else "     "
        text.append(label + "│")
        for x, ch in enumerate(line):
            text.append(ch, style=styles.get((y, x), "red" if ch in "│~" else ""))
        text.append("\n")
    text.append("     └" + "─" * width + "\n")
    text.append("      0" + " " * (width // 2 - 4) + "0.5" + " " * (width // 2 - 5) + "1  DR\n")
    text.append("      ● Deep  ▲ Shallow  · Non-bias   │ DR = 0.65   ~ π = 0.40", style="dim")
    return text


class ChartsScreen(Screen):
    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="breakdown")
        yield Static("", id="scatter")
        yield Footer()

    def on_mount(self) -> None:
        rows = self.app.store.latest_results()  # type: ignore[attr-defined]
        if not rows:
            self.query_one("#breakdown", Static).update(
                "No finished runs yet: run a family (r on the home screen) or `probe batch`.")
            return
        self.query_one("#breakdown", Static).update(breakdown_text(rows))
        self.query_one("#scatter", Static).update(scatter_text(rows))
