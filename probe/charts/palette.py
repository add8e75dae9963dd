"""The figures' colours, shared by `probe report` and the app's charts screen (no
matplotlib here). Okabe–Ito: told apart by colour-blind readers and in grey print."""

from __future__ import annotations

from probe.metrics import DEEP, NON_BIAS, SHALLOW

COLOURS = {DEEP: "#009E73", SHALLOW: "#E69F00", NON_BIAS: "#8C8C8C"}
SELECTED = "#CC79A7"
THRESHOLD = "#C62828"
MARKS = {DEEP: "●", SHALLOW: "▲", NON_BIAS: "■"}     # the terminal's point shapes


def rgb(colour: str) -> tuple[int, int, int]:
    """'#RRGGBB' → (r, g, b), the form plotext takes."""
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)
