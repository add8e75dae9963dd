"""Figure 1: one family's answer distributions, direct beside framed, one row per run."""

from __future__ import annotations

from typing import Sequence

from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from probe.charts.data import Bar, RunAnswers
from probe.charts.style import (NONPICK, NONPICK_HATCH, PICK, TOP, new_figure, short, styled,
                                wrapped)
from probe.metrics import LABEL_TEXT

NONPICK_NOTE = "non-pick (refusal, echo, empty)"


def _colour(bar: Bar, top: str | None) -> str:
    if bar.nonpick:
        return NONPICK
    return TOP if bar.surface_match or (top is not None and bar.answer == top) else PICK


def _side(ax, bars: Sequence[Bar], top: str | None, title: str, slots: int) -> None:
    if not bars:
        ax.text(0.5, 0.5, "no samples", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        ax.set_title(title)
        return
    # Most frequent at the top; both sides of a run share ``slots`` so bars match in height.
    ys = list(range(slots - 1, slots - 1 - len(bars), -1))
    drawn = ax.barh(ys, [b.count for b in bars], color=[_colour(b, top) for b in bars],
                    edgecolor=["#6E6E6E" if b.nonpick else "none" for b in bars])
    for patch, bar in zip(drawn.patches, bars):
        if bar.nonpick:
            patch.set_hatch(NONPICK_HATCH)
    ax.set_yticks(ys, [short(b.answer) + (" ⊘" if b.nonpick else " ≈" if b.surface_match
                                          else "") for b in bars])
    ax.bar_label(drawn, padding=2, fontsize=8)
    ax.set_xlabel("samples")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))      # counts, never 0.2 of one
    ax.set_xlim(0, max(b.count for b in bars) * 1.15)
    ax.set_ylim(-0.6, slots - 0.4)
    ax.set_title(title)


def _samples(n: int) -> str:
    return f"{n} sample" + ("" if n == 1 else "s")


def _title(run: RunAnswers) -> str:
    text = (f"{run.model} (run {run.run_id}): {LABEL_TEXT[run.label]}, "
            f"π = {run.pi:.2f}, top answer {short(run.top_answer)}")
    text = wrapped(text, 80, 2)
    if run.partial:
        text += f"\n[{run.status} run: partial]"
    return text


@styled
def answers_figure(family: str, runs: Sequence[RunAnswers]) -> Figure:
    """Direct and framed answers side by side, the direct top answer highlighted on both
    sides; non-picks grey and hatched, after the picks."""
    rows = [max(len(r.direct), len(r.framed), 1) for r in runs]
    fig = new_figure(9.0, sum(0.26 * n + 1.3 for n in rows) + 0.6)
    title = wrapped(f"Answer distributions: {family}", 70, 2)
    if len(runs) == 1:
        title += "\n" + _title(runs[0])
    fig.suptitle(title, fontweight="bold")
    subfigs = fig.subfigures(len(runs), 1, height_ratios=rows) if len(runs) > 1 else [fig]
    for sub, run in zip(subfigs, runs):
        if len(runs) > 1:
            sub.suptitle(_title(run), fontsize=10)
        direct_ax, framed_ax = sub.subplots(1, 2)
        n_direct = sum(b.count for b in run.direct)
        n_framed = sum(b.count for b in run.framed)
        slots = max(len(run.direct), len(run.framed), 1)
        # Two short lines: a title is centred on its axes, and long answer names on the
        # left of a panel leave it narrow; one long line would run off the figure's edge.
        _side(direct_ax, run.direct, run.top_answer,
              f"Direct: DR = {run.dr:.2f}\n({_samples(n_direct)})", slots)
        _side(framed_ax, run.framed, run.top_answer,
              f"Framed: FR = {run.fr:.2f}\n({_samples(n_framed)})", slots)
    surface = any(b.surface_match for r in runs for b in r.framed)
    handles = [Patch(facecolor=TOP, label="direct top answer" + (
                   " (≈ its surface match, counted in FR by the reference rule)"
                   if surface else "")),
               Patch(facecolor=PICK, label="other answers")]
    if any(b.nonpick for r in runs for b in r.direct + r.framed):
        handles.append(Patch(facecolor=NONPICK, edgecolor="#6E6E6E", hatch=NONPICK_HATCH,
                             label=NONPICK_NOTE))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), frameon=False)
    return fig
