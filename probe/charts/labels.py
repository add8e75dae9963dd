"""Figures 2 and 3: the bias-type breakdown per model, and DR against FR per family with
the two thresholds that decide the label."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from probe.charts.data import LABELS, Thresholds, model_names
from probe.charts.style import COLOURS, MARKERS, THRESHOLD, new_figure, short, styled
from probe.metrics import LABEL_TEXT

UNIT_TICKS = [0, 0.2, 0.4, 0.6, 0.8, 1.0]


@styled
def breakdown_figure(by_model: dict[str, dict]) -> Figure:
    """Deep / Shallow / Non-bias share of each model's families, grouped by model."""
    models = list(by_model)
    fig = new_figure(max(5.0, 1.7 * len(models) + 2.2), 4.2)
    ax = fig.add_subplot()
    width = 0.26
    xs = np.arange(len(models))
    for i, key in enumerate(LABELS):
        shares = [by_model[m][key] for m in models]
        bars = ax.bar(xs + (i - 1) * width, shares, width, color=COLOURS[key],
                      label=LABEL_TEXT[key], gid=f"breakdown-{key}")
        ax.bar_label(bars, labels=[f"{s:.0f}%" for s in shares], padding=2, fontsize=8)
    ax.set_xticks(xs, [f"{short(m, 28)}\nn = {by_model[m]['n']}" for m in models])
    ax.set_ylim(0, 110)
    ax.set_yticks(range(0, 101, 20))
    ax.set_ylabel("families (%)")
    ax.set_xlabel("model")
    ax.set_title("Bias types per model")
    ax.legend(loc="upper right", ncols=3, frameon=False)
    return fig


def _threshold_lines(ax, t: Thresholds) -> list[Line2D]:
    dr_line = ax.axvline(t.dr, color=THRESHOLD, ls="--", lw=1, gid="dr-threshold")
    # π = DR × FR = t_π is the hyperbola FR = t_π / DR; it separates Deep from Shallow only
    # where DR > t_DR, so it is drawn solid there and faint to its left.
    inside = np.linspace(t.dr, 1.0, 120)
    ax.plot(inside, np.minimum(t.pi / inside, 1.05), color=THRESHOLD, lw=1.3, gid="pi-threshold")
    left = np.linspace(max(t.pi, 1e-3), t.dr, 80)
    ax.plot(left, np.minimum(t.pi / left, 1.05), color=THRESHOLD, lw=0.8, ls=":", alpha=0.6)
    return [Line2D([], [], color=THRESHOLD, ls="--", lw=1, label=f"DR = {t.dr:.2f}"),
            Line2D([], [], color=THRESHOLD, lw=1.3, label=f"π = {t.pi:.2f}")]


@styled
def scatter_figure(rows: Sequence[dict], t: Thresholds, annotate: bool = False) -> Figure:
    """One point per family and model; colour is the label, marker shape the model."""
    models = model_names(rows)
    fig = new_figure(7.6, 5.6)
    ax = fig.add_subplot()
    for m_idx, model in enumerate(models):
        for key in LABELS:
            mine = [r for r in rows if r["model"] == model and r["label"] == key]
            if mine:
                ax.scatter([r["dr"] for r in mine], [r["fr"] for r in mine], s=38,
                           color=COLOURS[key], marker=MARKERS[m_idx % len(MARKERS)],
                           edgecolors="white", linewidths=0.6, alpha=0.9, zorder=3,
                           gid=f"points-{key}-{m_idx}")
    if annotate:
        for r in rows:
            ax.annotate(short(r["family_name"], 28), (r["dr"], r["fr"]), xytext=(4, 3),
                        textcoords="offset points", fontsize=7, zorder=4)
    handles = _threshold_lines(ax, t)
    for key in LABELS:
        n = sum(r["label"] == key for r in rows)
        handles.append(Line2D([], [], ls="", marker="o", color=COLOURS[key],
                              label=f"{LABEL_TEXT[key]} ({n})"))
    if len(models) > 1:
        handles += [Line2D([], [], ls="", marker=MARKERS[i % len(MARKERS)], color="#444444",
                           label=short(model, 28)) for i, model in enumerate(models)]
    ax.set_xlim(-0.03, 1.03)              # a point at 0 or 1 shows whole, not cut in half
    ax.set_ylim(-0.03, 1.03)
    ax.set_xticks(UNIT_TICKS)
    ax.set_yticks(UNIT_TICKS)
    ax.set_xlabel("DR (direct rate)")
    ax.set_ylabel("FR (framed rate)")
    ax.grid(alpha=0.25)
    title = f"DR vs FR per family ({len(rows)} point{'' if len(rows) == 1 else 's'})"
    if t.mixed:
        title += "\nruns used different thresholds: the lines show the most common"
    ax.set_title(title)
    fig.legend(handles=handles, loc="outside right upper", frameon=False)
    return fig
