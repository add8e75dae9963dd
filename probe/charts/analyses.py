"""Figures 4 and 5: whether two models share a top answer, by π bin of the second, and how
the breakdown moves with the threshold (the sweep `probe thresholds` prints)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from probe.charts.data import LABELS, Sweep
from probe.charts.style import COLOURS, THRESHOLD, TOP, new_figure, styled, wrapped
from probe.metrics import DR_THRESHOLD, LABEL_TEXT, SWEEP_RULES

@styled
def agreement_figure(result: dict) -> Figure:
    """``result`` is `probe.analysis.compare_models`'s: the share of families whose top
    answers are one answer, per π bin of model B, each bar with its count."""
    bins = result["bins"]
    fig = new_figure(7.6, 4.2)
    ax = fig.add_subplot()
    xs = np.arange(len(bins))
    heights = [100 * b["rate"] if b["rate"] is not None else 0 for b in bins]
    bars = ax.bar(xs, heights, 0.7, color=TOP, gid="agreement-bins")
    ax.bar_label(bars, labels=[f"{b['same']}/{b['n']}" if b["n"] else "n = 0" for b in bins],
                 padding=2, fontsize=8)
    ax.set_xticks(xs, [f"{b['pi_low']:.1f}–{b['pi_high']:.1f}" for b in bins], fontsize=8)
    ax.set_ylim(0, 112)
    ax.set_yticks(range(0, 101, 20))
    ax.set_ylabel("same top answer (% of families)")
    ax.set_xlabel(f"π of B (families with DR_B > {DR_THRESHOLD:.2f})")
    same = sum(b["same"] for b in bins)
    n = sum(b["n"] for b in bins)
    ax.set_title(wrapped(f"Top answers agree — A: {result['model_a']}, B: "
                         f"{result['model_b']}", 72, 3)
                 + f"\n{same} of {n} families overall; bar labels: same / families in the bin")
    return fig


# Two labels often hold the same share (50% Shallow, 50% Non-bias): each line has its own
# dash and marker, and the one drawn later is thinner, so one never hides another.
SWEEP_LINES = {"deep": ("-", "o", 1.5), "shallow": ("--", "s", 1.5),
               "non_bias": ("-", "^", 4.0)}


@styled
def sweep_figure(sweeps: dict[str, Sweep], dr_threshold: float = DR_THRESHOLD) -> Figure:
    """Share of families per label as the threshold t moves (`probe thresholds`, the
    paper's text's rule): one panel per model, one colour per label."""
    cols = min(len(sweeps), 3)
    rows = -(-len(sweeps) // cols)
    width = 2.2 + 3.6 * cols
    fig = new_figure(width, 1.0 + 3.4 * rows)
    axes = fig.subplots(rows, cols, sharey=True, squeeze=False).ravel()
    for m_idx, (ax, (model, (n, sweep))) in enumerate(zip(axes, sweeps.items())):
        ts = [t for t, _ in sweep]
        for key in sorted(LABELS, key=lambda k: -SWEEP_LINES[k][2]):    # widest first
            ls, marker, lw = SWEEP_LINES[key]
            ax.plot(ts, [100 * share[key] for _, share in sweep], color=COLOURS[key],
                    ls=ls, marker=marker, markersize=3, lw=lw, gid=f"sweep-{key}-{m_idx}")
        ax.axvline(dr_threshold, color=THRESHOLD, ls="--", lw=1, gid=f"sweep-default-{m_idx}")
        ax.set_ylim(0, 100)
        ax.set_title(f"{wrapped(model, 30, 3)} (n = {n})", fontsize=10)
        ax.set_xlabel("threshold t")
        ax.grid(alpha=0.25)
    for ax in axes[len(sweeps):]:
        ax.set_axis_off()
    for ax in axes[::cols]:
        ax.set_ylabel("families (%)")
    # About eleven characters of 10-point text to the inch: the rule wraps to the width.
    fig.suptitle("Threshold sensitivity\n" + wrapped(SWEEP_RULES["probe"], int(width * 10), 3),
                 fontsize=10)
    handles = [Line2D([], [], color=COLOURS[k], ls=SWEEP_LINES[k][0], marker=SWEEP_LINES[k][1],
                      markersize=3, lw=SWEEP_LINES[k][2], label=LABEL_TEXT[k]) for k in LABELS]
    handles.append(Line2D([], [], color=THRESHOLD, ls="--", lw=1,
                          label=f"t = {dr_threshold:.2f} (DR threshold)"))
    fig.legend(handles=handles, loc="outside lower center",
               ncols=len(handles) if cols > 1 else 2, frameon=False)
    return fig
