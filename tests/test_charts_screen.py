"""The app's charts screen (`g`): the plotext scatter fills the terminal, shows the ticks,
legend and threshold lines, filters by model, and lets the user pick a point with the keys
or the mouse and open its run. Snapshots at 80×24 and 160×45."""

from __future__ import annotations

import shutil

from textual.widgets import Static

from chart_data import MODEL_A, MODEL_B, RUNS, build_two_models, score
from conftest import FAMILIES
from probe.backends.fake import FakeBackend
from screens.app import make_app
from screens.charts import ChartsScreen
from screens.chart_plots import BreakdownPlot, ScatterPlot
from screens.run_view import RunScreen
from test_app import run, wait_until

N_RUNS = sum(len(runs) for runs in RUNS.values())


def charts_app(isolated):
    return make_app(db_path=isolated / "probe.db",
                    backend_factory=lambda spec: (FakeBackend("Monarch"), "fake-model"))


async def open_charts(app, pilot):
    await wait_until(pilot, lambda: app.model_state == "ready")
    app.clear_notifications()
    await pilot.press("g")
    await wait_until(pilot, lambda: isinstance(app.screen, ChartsScreen))
    await pilot.pause(0.1)


def on_charts(isolated, check, size=(100, 30), runs=True):
    """Open the charts screen over the two-model database (or an empty one) and ``check``."""
    if runs:
        build_two_models(isolated)

    async def go():
        app = charts_app(isolated)
        async with app.run_test(size=size) as pilot:
            await open_charts(app, pilot)
            await check(app, pilot, app.screen)

    run(go())


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def plot_text(screen) -> str:
    return screen.query_one(ScatterPlot).render().plain


def test_scatter_fills_80x24_with_unit_ticks_and_every_point(isolated):
    async def check(app, pilot, screen):
        plot = screen.query_one(ScatterPlot)
        assert plot.size.width == 80 and plot.size.height >= 16
        lines = plot_text(screen).splitlines()
        assert len(lines) == plot.size.height
        y_ticks = [line.split("┤")[0].strip() for line in lines if "┤" in line]
        assert y_ticks == ["1.0", "0.8", "0.6", "0.4", "0.2", "0"]
        x_ticks = next(line for line in lines if "0.2" in line and "0.4" in line).split()
        assert x_ticks == ["0", "0.2", "0.4", "0.6", "0.8", "1.0"]
        assert len(plot.rows) == N_RUNS
        legend = text_of(screen, "#charts-legend")
        assert all(word in legend for word in ("Deep", "Shallow", "Non-bias",
                                           "DR = 0.65", "π = 0.40"))
        status = text_of(screen, "#charts-status")
        assert f"{N_RUNS} families" in status and "Deep 4 50%" in status

    on_charts(isolated, check, size=(80, 24))


def test_arrows_walk_the_points_and_enter_opens_the_run_read_only(isolated):
    async def check(app, pilot, screen):
        by_dr = sorted(screen.rows, key=lambda r: (r["dr"], r["fr"]))
        assert screen.current() == by_dr[0]
        assert by_dr[0]["family_name"] in text_of(screen, "#charts-point")
        await pilot.press("right", "right")
        assert screen.current() == by_dr[2]
        await pilot.press("left")
        assert screen.current() == by_dr[1]
        top = max(screen.rows, key=lambda r: (r["fr"], r["dr"]))
        for _ in range(N_RUNS):
            await pilot.press("up")
        assert screen.current() == top
        point = text_of(screen, "#charts-point")
        assert top["family_name"] in point and f"FR {top['fr']:.2f}" in point
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, RunScreen))
        assert app.screen.run_id == top["run_id"] and app.screen.read_only
        await pilot.press("escape")
        assert isinstance(app.screen, ChartsScreen) and screen.current() == top

    on_charts(isolated, check)


def test_a_click_selects_the_nearest_point(isolated):
    async def check(app, pilot, screen):
        plot = screen.query_one(ScatterPlot)
        target = next(r for r in screen.rows if r["family_name"] == "gemstone")
        top, left, bottom, right = plot._frame
        col = left + 1 + round(target["dr"] * (right - left - 2))
        row = top + 1 + round((1 - target["fr"]) * (bottom - top - 2))
        await pilot.click(ScatterPlot, offset=(col, row))
        await pilot.pause()
        assert screen.current() == target

    on_charts(isolated, check)


def test_model_filter_cycles_through_the_models(isolated):
    async def check(app, pilot, screen):
        await pilot.press("m")
        assert {r["model"] for r in screen.rows} == {MODEL_A}
        assert MODEL_A in text_of(screen, "#charts-status")
        await pilot.press("m")
        assert {r["model"] for r in screen.rows} == {MODEL_B}
        assert {r["family_name"] for r in screen.rows} == set(RUNS[MODEL_B])
        await pilot.press("m")
        assert len(screen.rows) == N_RUNS

    on_charts(isolated, check)


def test_an_empty_database_says_what_to_do(isolated):
    async def check(app, pilot, screen):
        assert "no finished runs yet" in text_of(screen, "#charts-status")
        await pilot.press("right", "enter")
        assert isinstance(app.screen, ChartsScreen)

    on_charts(isolated, check, size=(80, 24), runs=False)


def test_a_model_name_cannot_style_the_breakdown(isolated):
    shutil.copy(FAMILIES / "tea.toml", isolated / "families" / "tea.toml")
    score(isolated, "tea", ["Green"] * 3, ["Green"] * 2, "red")
    # The command line refuses such a name; a planted database can still hold one.
    import sqlite3

    with sqlite3.connect(isolated / "probe.db") as db:
        db.execute("UPDATE runs SET model = ?", ["\x1b[31mred"])

    async def check(app, pilot, screen):
        plain = screen.query_one(BreakdownPlot).render().plain
        assert "[31mred (1)" in plain

    on_charts(isolated, check, size=(160, 45), runs=False)


def snapshot_app(isolated):
    build_two_models(isolated)
    app = charts_app(isolated)

    async def charts(pilot):
        await open_charts(app, pilot)
        await pilot.press("right", "up")
        await pilot.pause(0.2)

    return app, charts


def test_charts_snapshot_80x24(snap_compare, isolated):
    app, charts = snapshot_app(isolated)
    assert snap_compare(app, terminal_size=(80, 24), run_before=charts)


def test_charts_snapshot_160x45(snap_compare, isolated):
    app, charts = snapshot_app(isolated)
    assert snap_compare(app, terminal_size=(160, 45), run_before=charts)


def test_at_80x24_a_long_model_name_keeps_the_point_numbers_and_one_model_is_named(isolated):
    shutil.copy(FAMILIES / "tea.toml", isolated / "families" / "tea.toml")
    model = "gemma-3-270m-it-qat-q4_0-unquantized (Q4_K_M, 241 MB)"
    score(isolated, "tea", ["Green"] * 3, ["Green"] * 2, model)

    async def check(app, pilot, screen):
        point = screen.query_one("#charts-point", Static)
        text = "\n".join(strip.text for strip in
                         point.render_lines(point.region.reset_offset))
        assert "run 1" in text and "DR 1.00" in text
        assert "enter:" not in text or "enter: open" in text         # never cut in two
        status = text_of(screen, "#charts-status")
        # The one model is named (shortened: the label counts stay whole at 80 columns).
        assert status.startswith(model[:19]) and "all models" not in status
        assert status.rstrip().endswith("Non-bias 0 0%"), status

    on_charts(isolated, check, size=(80, 24), runs=False)


def test_the_breakdown_names_each_model_over_its_own_bar(isolated):
    async def check(app, pilot, screen):
        lines = screen.query_one(BreakdownPlot).render().plain.splitlines()
        for model in (MODEL_A, MODEL_B):
            at = next(i for i, line in enumerate(lines) if line.startswith(model))
            assert set(lines[at + 1]) == {"█"}                       # its bar, right under it
            assert "Deep" in lines[at + 2] and "%" in lines[at + 2]  # the colours in words

    on_charts(isolated, check, size=(160, 45))
