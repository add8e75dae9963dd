"""One look for every figure: colours (from ``palette``), fonts, and a headless matplotlib
figure. matplotlib is imported here, so only
`probe report` imports this module (the CLI and the app never load it)."""

from __future__ import annotations

import functools
from typing import Callable

import matplotlib

matplotlib.use("Agg")  # headless: never a window, never a display

from matplotlib.figure import Figure  # noqa: E402

from probe.charts.palette import COLOURS, THRESHOLD  # noqa: E402,F401 (the figures' colours)

TOP = "#0072B2"            # the direct top answer, on both sides
PICK = "#A6C8E0"           # any other answer
NONPICK = "#E6E6E6"        # refusals, echoes, empty responses: grey and hatched
NONPICK_HATCH = "///"
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")

RC = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.fonttype": "none",        # text stays text: searchable, and tests can read it
    # Answers and model names are model output: "$5 bill" or "$\\frac{" must print as
    # written, never go to mathtext (which raises on what it cannot parse).
    "text.parse_math": False,
    "hatch.color": "#6E6E6E",
}


def new_figure(width: float, height: float) -> Figure:
    """A figure that belongs to no GUI and no global pyplot state."""
    return Figure(figsize=(width, height), layout="constrained")


def styled(draw: Callable[..., Figure]) -> Callable[..., Figure]:
    """Run a figure function inside the house style (rcParams are read as artists are made)."""
    @functools.wraps(draw)
    def wrapper(*args, **kwargs) -> Figure:
        with matplotlib.rc_context(RC):
            return draw(*args, **kwargs)
    return wrapper


def rc(extra: dict | None = None):
    """The style (plus ``extra``), for saving inside."""
    return matplotlib.rc_context({**RC, **(extra or {})})


def wrapped(text: str, width: int = 22, lines: int = 3) -> str:
    """Text over at most ``lines`` lines of ``width`` characters, for labels that must not
    be cut: a model name has few spaces, so it breaks after a space, - / . or :, and
    mid-word only when one piece is longer than a line."""
    import re

    # Pieces end after a separator; a point between digits (0.72) is no place to break.
    pieces = [p for p in re.findall(r"(?:[^-/.: ]|\.(?=\d))*[-/.: ]?", text) if p]
    rows = [""]
    for piece in pieces:
        while len(piece) > width:                  # longer than a line: cut it
            if rows[-1]:
                rows.append("")
            rows[-1], piece = piece[:width], piece[width:]
            rows.append("")
        if len(rows[-1]) + len(piece.rstrip()) > width and rows[-1]:
            rows.append("")
        rows[-1] += piece
    rows = [r.rstrip() for r in rows if r.strip()] or [""]
    if len(rows) > lines:
        rows = rows[:lines]
        rows[-1] = rows[-1][:width - 1] + "…"
    return "\n".join(rows)


def short(text: str | None, limit: int = 24) -> str:
    text = "no answer" if text is None else text
    return text if len(text) <= limit else text[: limit - 1] + "…"
