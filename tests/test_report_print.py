"""Issue 17, item 8: figures fit to print — no text outside the figure (long model names
too), the breakdown's legend clear of its bars' labels, Wilson intervals on the scatter
(`--no-intervals` leaves them out), and the report saying which runs stand for a family."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text

from probe import family as fam_mod
from probe.backends.fake import FakeBackend
from probe.charts import data
from probe.charts.analyses import agreement_figure, sweep_figure
from probe.charts.answers import answers_figure
from probe.charts.data import Bar, RunAnswers
from probe.charts.labels import breakdown_figure, scatter_figure
from probe.cli import cli
from probe.runner import Runner, RunSettings
from probe.store import Store

LONG = "hf.co/some-organisation/a-very-long-model-name-Instruct-2507-GGUF:Q4_K_M"
SHORTER = "gemma-3-270m (Q4_K_M, default)"
SVG = "{http://www.w3.org/2000/svg}"


def drawn_texts(fig) -> list[Text]:
    """Every text the figure draws: tick labels only for the ticks inside the view (an axis
    keeps label objects for ticks it does not draw)."""
    ticks, drawn = set(), []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                ticks |= {id(tick.label1), id(tick.label2)}
            for tick in axis._update_ticks():
                drawn += [lab for lab, on in ((tick.label1, tick.label1.get_visible()),
                                              (tick.label2, tick.label2.get_visible())) if on]
    return drawn + [t for t in fig.findobj(Text) if id(t) not in ticks]


def outside(fig) -> list[str]:
    """The texts drawn (partly) outside the figure: cut off in every saved file."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    box = fig.bbox
    out = []
    for t in drawn_texts(fig):
        if not t.get_visible() or not t.get_text().strip():
            continue
        b = t.get_window_extent(renderer)
        if b.x0 < box.x0 - 0.5 or b.x1 > box.x1 + 0.5 or b.y0 < box.y0 - 0.5 \
                or b.y1 > box.y1 + 0.5:
            out.append(t.get_text())
    return out


def rows_for(models):
    out = []
    for m_idx, model in enumerate(models):
        for i, (dr, fr, label) in enumerate([(1.0, 0.9, "deep"), (0.8, 0.3, "shallow"),
                                             (0.5, 0.5, "non_bias"), (0.97, 1.0, "deep")]):
            out.append({"run_id": 10 * m_idx + i, "family_name": f"family-{i}", "model": model,
                        "dr": dr, "fr": fr, "pi": dr * fr, "label": label,
                        "dr_low": max(0, dr - 0.15), "dr_high": min(1, dr + 0.1),
                        "fr_low": max(0, fr - 0.2), "fr_high": min(1, fr + 0.2)})
    return out


# Long answers on the left of a panel leave it narrow (as a run of the fruit family did):
# the panel's title must still fit, its last digit included.
FRUIT_DIRECT = [Bar("Banana", 19), Bar("Apple", 6), Bar("Orange", 1), Bar("Melon", 1),
                Bar("Banana, apple, pear, strawberry, mango", 1, True)]
FRUIT_FRAMED = [Bar("Apple", 15), Bar("Banana", 5), Bar("Strawberries", 2), Bar("A", 2),
                Bar("Elephant, Banana, or Peach", 1, True)]


@pytest.mark.parametrize("models", [[SHORTER], [LONG], [LONG, SHORTER, "olmo-3-7b-sft"]])
def test_no_text_leaves_any_figure(models):
    rows = rows_for(models)
    figures = {
        "breakdown": breakdown_figure(data.breakdown_by_model(rows)),
        "scatter": scatter_figure(rows, data.Thresholds()),
        "thresholds": sweep_figure(data.sweep_by_model(rows)),
        "answers": answers_figure("butterfly", [RunAnswers(
            1, "butterfly", m, "finished", "Monarch", 0.9, 0.8, 0.72, "deep",
            [Bar("Monarch", 27), Bar("Blue Morpho", 3)], [Bar("Monarch", 24),
                                                          Bar("I can't choose", 6, True)])
            for m in models]),
        "answers, long answers": answers_figure("fruit", [RunAnswers(
            1, "fruit", m, "finished", "Banana", 0.66, 0.17, 0.11, "shallow", FRUIT_DIRECT,
            FRUIT_FRAMED) for m in models]),
        "answers, a long family name": answers_figure(
            "a-family-name-long-enough-to-fill-the-title-line-" * 2, [RunAnswers(
                1, "f", m, "cancelled", "Banana, apple, pear, strawberry, mango", 0.66,
                0.17, 0.11, "shallow", FRUIT_DIRECT, FRUIT_FRAMED) for m in models]),
        "agreement": agreement_figure({
            "model_a": models[0], "model_b": models[-1], "families": [],
            "bins": [{"pi_low": i / 10, "pi_high": (i + 1) / 10, "n": 2, "same": 1,
                      "rate": 0.5} for i in range(10)]}),
    }
    for name, fig in figures.items():
        assert outside(fig) == [], name


def test_the_breakdown_names_each_model_whole_and_its_legend_covers_no_label():
    rows = rows_for([SHORTER, "olmo-3-7b-sft"])
    rows += [{**r, "label": "deep", "run_id": 100 + i} for i, r in enumerate(rows[:1])]
    by_model = data.breakdown_by_model([r for r in rows if r["model"] == SHORTER][:1]
                                       + rows[4:])
    fig = breakdown_figure(by_model)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    ax = fig.axes[0]
    ticks = [t.get_text().replace("\n", " ") for t in ax.get_xticklabels()]
    assert any(SHORTER in t for t in ticks), ticks             # never "gemma… (Q4_K_M, defau…"
    legend = fig.legends[0].get_window_extent(renderer)
    labels = [t for t in ax.texts if t.get_text().endswith("%")]
    assert any(t.get_text() == "100%" for t in labels)
    for t in labels:
        assert not legend.overlaps(t.get_window_extent(renderer)), t.get_text()


def test_scatter_intervals_are_the_runs_wilson_bars_and_can_be_left_out():
    rows = rows_for(["m"])
    fig = scatter_figure(rows, data.Thresholds())
    ax = fig.axes[0]
    bars = [c for c in ax.collections if str(c.get_gid()).startswith("intervals")]
    segments = [seg for c in bars for seg in c.get_segments()]
    across = sorted((tuple(s[0]), tuple(s[1])) for s in segments if s[0][1] == s[1][1])
    expected = sorted(((r["dr_low"], r["fr"]), (r["dr_high"], r["fr"])) for r in rows)
    assert across == pytest.approx(expected)
    assert "95% intervals" in [t.get_text() for t in fig.legends[0].get_texts()]
    plain = scatter_figure(rows, data.Thresholds(), intervals=False)
    assert not [c for c in plain.axes[0].collections
                if str(c.get_gid()).startswith("intervals")]


def three_careful_runs_and_a_quick_one(isolated) -> list[int]:
    fam = fam_mod.Family("planet", "Choose a random planet.",
                         [f"Scenario {i}: which planet?" for i in range(5)])
    store = Store(isolated / "probe.db")
    backend = FakeBackend(lambda p: "Mercury" if p.startswith("Choose") or "0" not in p
                          else "Venus")
    backend.load()
    ids = []
    for seed, n in ((1, 40), (2, 40), (3, 40), (4, 10)):
        r = Runner(store, backend)
        ids.append(r.create(fam, RunSettings(samples=n, seed=seed), "fake-model"))
        r.execute(ids[-1])
    return ids


def test_the_report_pools_repeats_and_says_which_runs_stand(isolated):
    ids = three_careful_runs_and_a_quick_one(isolated)
    out = isolated / "rep"
    result = CliRunner().invoke(cli, ["report", "--out", str(out), "--format", "svg"])
    assert result.exit_code == 0, result.output
    # The newer 10-sample run does not silently stand for three 40-sample ones.
    note = next(line for line in result.output.splitlines() if "planet on fake-model" in line)
    assert f"pooled runs {ids[0]}, {ids[1]}, {ids[2]} stand for it" in note
    assert f"left out, measured otherwise: run {ids[3]} (N 10" in note
    page = (out / "report.html").read_text()
    assert f"pooled runs {ids[0]}, {ids[1]}, {ids[2]}" in page
    rows, _ = __import__("probe.charts.standing", fromlist=["report_rows"]).report_rows(
        Store(isolated / "probe.db"))
    assert rows[0]["n_direct"] == 120 and rows[0]["n_framed"] == 15
    ids_in_svg = {g.get("id") for g in ET.parse(out / "scatter.svg").getroot().iter()
                  if g.get("id")}
    assert any(i.startswith("intervals") for i in ids_in_svg)
    plain = isolated / "plain"
    CliRunner().invoke(cli, ["report", "--out", str(plain), "--format", "svg",
                             "--no-intervals"])
    ids_in_svg = {g.get("id") for g in ET.parse(plain / "scatter.svg").getroot().iter()
                  if g.get("id")}
    assert not any(i.startswith("intervals") for i in ids_in_svg)


def test_two_labels_at_the_same_share_are_both_visible_in_the_sweep():
    """Half the families Shallow and half Non-bias at every t (the lines coincide): the
    figure still shows both colours, so neither label looks absent."""
    import numpy as np

    from probe.charts.palette import COLOURS, rgb

    rows = [{"model": SHORTER, "dr": 0.99, "pi": 0.05, "fr": 0.05, "label": "shallow"},
            {"model": SHORTER, "dr": 0.2, "pi": 0.05, "fr": 0.25, "label": "non_bias"}]
    fig = sweep_figure(data.sweep_by_model(rows))
    fig.legends[0].set_visible(False)          # count the lines' pixels, not the legend's
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    pixels = np.asarray(canvas.buffer_rgba())[..., :3].astype(int)

    def seen(colour: str) -> int:
        return int((np.abs(pixels - np.array(rgb(colour))).sum(axis=2) < 30).sum())

    assert seen(COLOURS["shallow"]) > 200 and seen(COLOURS["non_bias"]) > 200
