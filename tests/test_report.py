"""`probe report`: the paper's five figures from stored runs, in SVG, PNG and PDF, and one
self-contained HTML page. The tests read the figures' structure (axis titles, legend
entries, bars and points, threshold lines), never their pixels."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from chart_data import MODEL_A, MODEL_B, RUNS, build_two_models, score
from conftest import FAMILIES
from probe.cli import cli
from probe.family import load
from probe.metrics import score as score_answers
from probe.store import SampleRow, Store

SVG = "{http://www.w3.org/2000/svg}"
FIGURES = ("answers", "breakdown", "scatter", "agreement", "thresholds")


def cli_run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def two_models(isolated):
    build_two_models(isolated)
    return Store(isolated / "probe.db")


def svg_texts(path) -> list[str]:
    root = ET.parse(path).getroot()
    return ["".join(t.itertext()).strip() for t in root.iter(f"{SVG}text")]


def svg_ids(path) -> set[str]:
    return {g.get("id") for g in ET.parse(path).getroot().iter() if g.get("id")}


def legend_texts(fig) -> list[str]:
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]
    return [t.get_text() for leg in legends for t in leg.get_texts()]


def points(ax) -> list[tuple[float, float]]:
    """The scatter's points (its interval bars are collections too)."""
    return [tuple(xy) for c in ax.collections if str(c.get_gid()).startswith("points")
            for xy in c.get_offsets()]


def cancelled_run(store: Store, family_path, model: str) -> int:
    """A run stopped after one direct sample ("Mint"): partial, with a result."""
    run_id = store.create_run(load(family_path), model, "fake", {}, 0)
    store.add_sample(SampleRow(run_id, "direct", 0, "p", "Mint", "Mint", "Mint", "new",
                               False, None, None))
    store.save_result(run_id, score_answers(["Mint"], []))
    store.set_status(run_id, "cancelled")
    return run_id


# ------------------------------------------------------------------------ files and page

def test_report_writes_five_figures_in_three_formats_and_one_offline_page(two_models,
                                                                           isolated):
    out = isolated / "rep"
    result = cli_run("report", "--out", str(out), "--family", "butterfly",
                     "--a", MODEL_A, "--b", MODEL_B, "--dpi", "80")
    assert result.exit_code == 0, result.output
    names = {p.name for p in out.iterdir()}
    assert names == {f"{f}.{x}" for f in FIGURES for x in ("svg", "png", "pdf")} | {
        "report.html"}
    png = (out / "scatter.png").read_bytes()
    assert (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")) == (
        round(7.6 * 80), round(5.6 * 80))                 # the figure's inches × --dpi
    for fig in FIGURES:
        assert (out / f"{fig}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert (out / f"{fig}.pdf").read_bytes()[:5] == b"%PDF-"
        ET.parse(out / f"{fig}.svg")          # well-formed
    page = (out / "report.html").read_text(encoding="utf-8")
    assert not re.search(r"https?://", page), "the page must open offline"
    assert "<script" not in page and "<link" not in page
    for fig in FIGURES:
        assert f'<section id="fig-{fig}">' in page
        for fmt in ("svg", "png", "pdf"):
            assert f'href="{fig}.{fmt}"' in page
    assert page.count("<svg") == len(FIGURES)
    # The table of families behind the figures: every finished run, with its numbers.
    table = page[page.index('<section id="families">'):]
    assert table.count("<tr>") == 1 + sum(len(runs) for runs in RUNS.values())
    assert "gemstone" in table and MODEL_B in table and "Monarch" in table
    # gemma's butterflies: a refusal and an empty direct answer, two echoed framed ones.
    assert '<td class="num">28 of 30 / 28 of 30</td>' in table


def test_report_options_choose_formats_and_figures(two_models, isolated):
    out = isolated / "only-svg"
    result = CliRunner().invoke(
        cli, ["report", "--out", str(out), "--format", "svg", "--model", MODEL_B])
    assert result.exit_code == 0
    assert {p.name for p in out.iterdir()} == {"breakdown.svg", "scatter.svg",
                                               "thresholds.svg", "report.html"}
    assert "--family" in result.stderr and "--a MODEL --b MODEL" in result.stderr
    texts = svg_texts(out / "breakdown.svg")
    assert any(MODEL_B in t for t in texts) and not any(MODEL_A in t for t in texts)


@pytest.mark.parametrize("args, says", [
    (["--format", "svg,bmp"], "--format 'svg,bmp'"),
    (["--a", MODEL_A], "--a MODEL and --b MODEL"),
    (["--family", "nosuch"], "no finished run of family 'nosuch'"),
    (["--model", "nobody"], "no finished runs to chart for a model matching 'nobody'"),
    (["--run", "999"], "no run 999"),
    (["--run", "1", "--family", "tea"], "run 1 is of family 'butterfly', not 'tea'"),
    (["--dpi", "0"], "--dpi"),
])
def test_report_bad_input_is_one_sentence(two_models, isolated, args, says):
    result = cli_run("report", "--out", str(isolated / "x"), *args)
    assert result.exit_code == 2
    assert says in result.output and "Traceback" not in result.output


def test_report_on_an_empty_database(isolated):
    from probe.store import Store

    Store(isolated / "probe.db").close()           # a database with no runs in it
    result = cli_run("report", "--out", str(isolated / "x"))
    assert result.exit_code == 2 and "no finished runs to chart" in result.output


def test_help_and_the_app_never_load_matplotlib():
    code = ("import sys, probe.cli, probe.charts.data, screens.app, screens.charts; "
            "sys.exit('matplotlib' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


# ---------------------------------------------------------------------------- figures

def test_scatter_has_axes_legend_thresholds_and_one_point_per_run(two_models, isolated):
    from probe.charts import data
    from probe.charts.labels import scatter_figure

    rows = data.require_rows(two_models)
    fig = scatter_figure(rows, data.run_thresholds(two_models, rows))
    ax = fig.axes[0]
    assert ax.get_xlabel() == "DR (direct rate)" and ax.get_ylabel() == "FR (framed rate)"
    assert sorted(points(ax)) == sorted((r["dr"], r["fr"]) for r in rows)
    assert len(rows) == sum(len(runs) for runs in RUNS.values())
    assert list(ax.get_xticks()) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    legend = legend_texts(fig)
    assert {"DR = 0.65", "π = 0.40", MODEL_A, MODEL_B} <= set(legend)
    assert {t.split(" (")[0] for t in legend} >= {"Deep", "Shallow", "Non-bias"}
    lines = {line.get_gid(): line for line in ax.get_lines()}
    assert set(lines["dr-threshold"].get_xdata()) == {0.65}
    x, y = lines["pi-threshold"].get_xdata(), lines["pi-threshold"].get_ydata()
    assert x[0] == pytest.approx(0.65) and x[-1] == 1.0
    assert all(abs(a * b - 0.40) < 1e-9 for a, b in zip(x, y))


def test_scatter_svg_annotates_family_names_only_when_asked(two_models, isolated):
    cli_run("report", "--out", str(isolated / "plain"), "--format", "svg")
    cli_run("report", "--out", str(isolated / "named"), "--format", "svg", "--annotate")
    plain = svg_texts(isolated / "plain" / "scatter.svg")
    named = svg_texts(isolated / "named" / "scatter.svg")
    assert "DR (direct rate)" in plain and "FR (framed rate)" in plain
    assert "gemstone" not in plain
    assert sorted(t for t in named if t in RUNS[MODEL_A] or t in RUNS[MODEL_B]) == sorted(
        f for runs in RUNS.values() for f in runs)
    assert {"dr-threshold", "pi-threshold"} <= svg_ids(isolated / "named" / "scatter.svg")


def test_scatter_thresholds_come_from_the_runs_settings(isolated):
    store = Store(isolated / "probe.db")
    fam = load(FAMILIES / "tea.toml")
    run_id = store.create_run(fam, "m", "fake", {"dr_threshold": 0.7, "pi_threshold": 0.5}, 0)
    store.save_result(run_id, score_answers(["Green"] * 3, ["Green"] * 2, dr_threshold=0.7,
                                            pi_threshold=0.5))
    store.set_status(run_id, "finished")
    cli_run("report", "--out", str(isolated / "r"), "--format", "svg")
    texts = svg_texts(isolated / "r" / "scatter.svg")
    assert "DR = 0.70" in texts and "π = 0.50" in texts


def test_cancelled_runs_stay_out_unless_asked_for(two_models, isolated):
    from probe.charts import data

    before = {(r["family_name"], r["model"]): (r["dr"], r["fr"])
              for r in data.chart_rows(two_models)}
    run_id = cancelled_run(two_models, isolated / "families" / "tea.toml", MODEL_A)
    after = {(r["family_name"], r["model"]): (r["dr"], r["fr"])
             for r in data.chart_rows(two_models)}
    assert after == before
    out = isolated / "partial"
    result = cli_run("report", "--out", str(out), "--run", str(run_id), "--format", "svg")
    assert result.exit_code == 0
    assert any("cancelled run: partial" in t for t in svg_texts(out / "answers.svg"))
    assert "Shallow (cancelled, partial)" in (out / "report.html").read_text()


def test_answer_distributions_highlight_the_top_answer_and_mark_non_picks(two_models):
    from probe.charts import data
    from probe.charts.answers import answers_figure
    from probe.charts.style import NONPICK, TOP

    runs = data.family_answers(two_models, "butterfly")
    assert [r.model for r in runs] == [MODEL_A, MODEL_B]
    fig = answers_figure("butterfly", runs)
    direct, framed = fig.axes[0], fig.axes[1]           # gemma's row
    assert [t.get_text() for t in direct.get_yticklabels()] == [
        "Monarch", "Blue Morpho", "I can't choose ⊘", "(empty) ⊘"]
    assert [t.get_text() for t in framed.get_yticklabels()] == [
        "Monarch", "Swallowtail", "Butterfly ⊘"]
    assert [p.get_width() for p in direct.patches] == [26, 2, 1, 1]
    assert [p.get_width() for p in framed.patches] == [25, 3, 2]

    def hexes(ax):
        from matplotlib.colors import to_hex
        return [to_hex(p.get_facecolor()) for p in ax.patches]

    assert hexes(direct)[0] == hexes(framed)[0] == TOP.lower()
    assert hexes(direct)[2:] == [NONPICK.lower()] * 2 and direct.patches[2].get_hatch()
    assert not direct.patches[1].get_hatch()
    assert "non-pick (refusal, echo, empty)" in legend_texts(fig)
    assert direct.get_title().startswith("Direct: DR = ") and "(30 samples)" in direct.get_title()
    assert len(fig.axes) == 4                            # two models, two sides each


def test_breakdown_bars_per_model_with_percent_and_n(two_models):
    from probe.charts import data
    from probe.charts.labels import breakdown_figure

    rows = data.require_rows(two_models)
    by_model = data.breakdown_by_model(rows)
    fig = breakdown_figure(by_model)
    ax = fig.axes[0]
    assert len(ax.patches) == 3 * 2
    assert [t.get_text() for t in ax.get_xticklabels()] == [f"{MODEL_A}\nn = 4",
                                                            f"{MODEL_B}\nn = 4"]
    assert legend_texts(fig) == ["Deep", "Shallow", "Non-bias"]
    heights = sorted(round(p.get_height(), 1) for p in ax.patches)
    assert heights == sorted(v for m in by_model.values()
                             for k, v in m.items() if k != "n")
    bar_labels = [t.get_text() for t in ax.texts]
    assert all(t.endswith("%") for t in bar_labels) and len(bar_labels) == 6
    assert ax.get_ylabel() == "families (%)"


def test_agreement_by_pi_bin_matches_compare(two_models):
    from probe.analysis import compare_models
    from probe.charts.analyses import agreement_figure

    result = compare_models(two_models, MODEL_A, MODEL_B)
    fig = agreement_figure(result)
    ax = fig.axes[0]
    assert len(ax.patches) == 10
    labels = [t.get_text() for t in ax.texts]
    assert labels == [f"{b['same']}/{b['n']}" if b["n"] else "n = 0" for b in result["bins"]]
    assert any(b["n"] for b in result["bins"])
    assert ax.get_xlabel().startswith("π of B") and "same top answer" in ax.get_ylabel()


def test_threshold_sweep_lines_are_what_probe_thresholds_prints(two_models):
    from probe.charts import data
    from probe.charts.analyses import sweep_figure

    fig = sweep_figure(data.sweep_by_model(data.require_rows(two_models)))
    assert {"Deep", "Shallow", "Non-bias", "t = 0.65 (DR threshold)"} <= set(legend_texts(fig))
    for m_idx, model in enumerate((MODEL_A, MODEL_B)):
        printed = json.loads(cli_run("thresholds", "--model", model, "--json").output)
        ax = fig.axes[m_idx]
        assert ax.get_title() == f"{model} (n = 4)"
        lines = {line.get_gid(): line for line in ax.get_lines()}
        for key in ("deep", "shallow", "non_bias"):
            line = lines[f"sweep-{key}-{m_idx}"]
            assert list(line.get_xdata()) == [row["t"] for row in printed]
            assert list(line.get_ydata()) == pytest.approx([100 * row[key] for row in printed])


def test_dollar_signs_in_answers_and_model_names_print_as_written(isolated):
    shutil.copy(FAMILIES / "number.toml", isolated / "families" / "number.toml")
    score(isolated, "number", ["$5 bill"] * 8 + [r"$\frac{"] * 2, ["$5 bill", "$x$"], "m$1$")
    out = isolated / "r"
    result = cli_run("report", "--out", str(out), "--family", "number", "--format", "svg",
                     "--annotate")
    assert result.exit_code == 0, result.output
    labels = svg_texts(out / "answers.svg")
    assert "$5 bill" in labels and r"$\frac{" in labels and "$x$" in labels
    assert any("m$1$" in t for t in svg_texts(out / "breakdown.svg"))


def test_a_family_without_a_finished_run_points_to_the_run_there_is(isolated):
    run_id = cancelled_run(Store(isolated / "probe.db"), FAMILIES / "tea.toml", "m")
    result = cli_run("report", "--out", str(isolated / "r"), "--family", "tea")
    assert result.exit_code == 2
    assert f"run {run_id} is cancelled: draw it with --run {run_id}" in result.output


def test_many_answers_share_one_other_bar_and_non_picks_stay_apart():
    from probe.charts.data import OTHER_LIMIT, answer_bars

    answers = [f"answer {i}" for i in range(OTHER_LIMIT + 3)] + ["answer 0", "", "nope"]
    samples = [SampleRow(1, "framed", i, "p", a, a, a, "new", a == "nope", None, None)
               for i, a in enumerate(answers)]
    bars = answer_bars(samples, "framed")
    assert bars[0].answer == "answer 0" and bars[0].count == 2
    assert [b.answer for b in bars[OTHER_LIMIT:]] == ["other (3 answers)", "(empty)", "nope"]
    assert [b.nonpick for b in bars[OTHER_LIMIT:]] == [False, True, True]
    assert sum(b.count for b in bars) == len(answers)
    assert answer_bars(samples, "direct") == []


def test_only_a_cancelled_run_still_draws_its_answers(isolated):
    run_id = cancelled_run(Store(isolated / "probe.db"), FAMILIES / "tea.toml", "m")
    out = isolated / "r"
    result = cli_run("report", "--out", str(out), "--run", str(run_id), "--format", "svg")
    assert result.exit_code == 0, result.output
    assert {p.name for p in out.iterdir()} == {"answers.svg", "report.html"}
    assert "no finished runs" in result.output


def test_a_folder_that_cannot_be_made_is_one_sentence(two_models, isolated):
    (isolated / "a-file").write_text("")
    result = cli_run("report", "--out", str(isolated / "a-file" / "rep"), "--format", "svg")
    # A path under a file is bad input (issue 11 item 14): exit 2, one sentence naming it.
    assert result.exit_code == 2
    assert result.output.startswith("probe: ") and "a-file" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "Traceback" not in result.output
