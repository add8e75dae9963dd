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


def short(text: str | None, limit: int = 24) -> str:
    text = "no answer" if text is None else text
    return text if len(text) <= limit else text[: limit - 1] + "…"
