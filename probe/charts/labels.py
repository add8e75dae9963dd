"""Figures 2 and 3: the bias-type breakdown per model, and DR against FR per family with
the two thresholds that decide the label."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from probe.charts.data import LABELS, Thresholds, model_names
from probe.charts.style import (COLOURS, MARKERS, THRESHOLD, new_figure, short, styled,
                                wrapped)
from probe.metrics import LABEL_TEXT

UNIT_TICKS = [0, 0.2, 0.4, 0.6, 0.8, 1.0]


@styled
def breakdown_figure(by_model: dict[str, dict]) -> Figure:
    """Deep / Shallow / Non-bias share of each model's families, grouped by model. Model
    names wrap under their bars rather than being cut; the legend sits below the axes, clear
    of the bars' percent labels."""
    models = list(by_model)
    fig = new_figure(max(5.0, 1.8 * len(models) + 2.2), 4.6)
    ax = fig.add_subplot()
    width = 0.26
    xs = np.arange(len(models))
    for i, key in enumerate(LABELS):
        shares = [by_model[m][key] for m in models]
        bars = ax.bar(xs + (i - 1) * width, shares, width, color=COLOURS[key],
                      label=LABEL_TEXT[key], gid=f"breakdown-{key}")
        ax.bar_label(bars, labels=[f"{s:.0f}%" for s in shares], padding=2, fontsize=8)
    ax.set_xticks(xs, [f"{wrapped(m, 18, 4)}\nn = {by_model[m]['n']}" for m in models],
                  fontsize=9)
    ax.set_ylim(0, 112)
    ax.set_yticks(range(0, 101, 20))
    ax.set_ylabel("families (%)")
    ax.set_xlabel("model")
    ax.set_title("Bias types per model")
    fig.legend(handles=ax.get_legend_handles_labels()[0], loc="outside lower center",
               ncols=3, frameon=False)
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


def _intervals(ax, rows: Sequence[dict], colour: str, gid: str) -> None:
    """95% Wilson intervals of DR (across) and FR (up) as thin error bars."""
    have = [r for r in rows if r.get("dr_low") is not None and r.get("fr_low") is not None]
    if not have:
        return
    xs, ys = [r["dr"] for r in have], [r["fr"] for r in have]
    xerr = [[max(0.0, r["dr"] - r["dr_low"]) for r in have],
            [max(0.0, r["dr_high"] - r["dr"]) for r in have]]
    yerr = [[max(0.0, r["fr"] - r["fr_low"]) for r in have],
            [max(0.0, r["fr_high"] - r["fr"]) for r in have]]
    bars = ax.errorbar(xs, ys, xerr=xerr, yerr=yerr, fmt="none", ecolor=colour, alpha=0.45,
                       lw=0.8, capsize=0, zorder=2)
    for part in bars.lines[2]:             # the across and up line collections
        part.set_gid(gid)


@styled
def scatter_figure(rows: Sequence[dict], t: Thresholds, annotate: bool = False,
                   intervals: bool = True) -> Figure:
    """One point per family and model; colour is the label, marker shape the model; with
    ``intervals``, each point's 95% Wilson intervals of DR and FR as error bars."""
    models = model_names(rows)
    fig = new_figure(7.6, 5.6)
    ax = fig.add_subplot()
    for m_idx, model in enumerate(models):
        for key in LABELS:
            mine = [r for r in rows if r["model"] == model and r["label"] == key]
            if mine:
                if intervals:
                    _intervals(ax, mine, COLOURS[key], f"intervals-{key}-{m_idx}")
                ax.scatter([r["dr"] for r in mine], [r["fr"] for r in mine], s=38,
                           color=COLOURS[key], marker=MARKERS[m_idx % len(MARKERS)],
                           edgecolors="white", linewidths=0.6, alpha=0.9, zorder=3,
                           gid=f"points-{key}-{m_idx}")
    if annotate:
        for r in rows:
            ax.annotate(short(r["family_name"], 28), (r["dr"], r["fr"]), xytext=(4, 3),
                        textcoords="offset points", fontsize=7, zorder=4,
                        annotation_clip=True)
    handles = _threshold_lines(ax, t)
    for key in LABELS:
        n = sum(r["label"] == key for r in rows)
        handles.append(Line2D([], [], ls="", marker="o", color=COLOURS[key],
                              label=f"{LABEL_TEXT[key]} ({n})"))
    if intervals:
        handles.append(Line2D([], [], color="#777777", lw=0.8, label="95% intervals"))
    if len(models) > 1:
        handles += [Line2D([], [], ls="", marker=MARKERS[i % len(MARKERS)], color="#444444",
                           label=wrapped(model, 22, 3)) for i, model in enumerate(models)]
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
