"""Issue 17, the outside re-check: runs scored from files (`probe score`) reopened from
History say what counts and why, in words that fit the screen."""

from __future__ import annotations

import asyncio

from textual.widgets import DataTable, Static

from probe import family as fam_mod
from probe.cli_score import score_command
from screens.answers import AnswersScreen
from screens.app import make_app
from test_app import wait_until
from conftest import write_jsonl


def run(coro):
    return asyncio.run(coro)


def fruit(isolated, framed: list[str], direct=("Apple",) * 6 + ("Banana",) * 2):
    """A fruit family scored from files under ``rule``; the run is stored in the test's
    database as `probe score` stores it."""
    path = isolated / "families" / "fruit.toml"
    fam_mod.save(fam_mod.Family("fruit", "Name a fruit.",
                                [f"Scenario {i}: which fruit for the stall?"
                                 for i in range(len(framed))]), path)
    rows = [{"response": r} for r in direct]
    rows += [{"framing_idx": i, "response": r} for i, r in enumerate(framed)]
    return path, write_jsonl(isolated / "r.jsonl", rows)


def score(isolated, path, responses, rule):
    score_command(str(path), (str(responses),), False, "ext-model", False, rule,
                  str(isolated / "probe.db"))


async def open_from_history(app, pilot):
    await wait_until(pilot, lambda: app.screen.__class__.__name__ == "HomeScreen")
    await pilot.press("h")
    await wait_until(pilot, lambda: app.screen.__class__.__name__ == "HistoryScreen")
    await pilot.pause(0.2)
    await pilot.press("enter")
    await wait_until(pilot, lambda: app.screen.__class__.__name__ == "RunScreen")
    await pilot.pause(0.3)
    return app.screen


def reopened(isolated, check):
    """The app at 120×36 with the stored run opened from History, handed to ``check``."""
    async def go():
        app = make_app(db_path=isolated / "probe.db")
        async with app.run_test(size=(120, 36)) as pilot:
            await check(app, pilot, await open_from_history(app, pilot))

    run(go())


def table_lines(rs) -> list[str]:
    table = rs.query_one("#framings", DataTable)
    return [s.text.rstrip() for s in table.render_lines(table.region.reset_offset)]


def why_cells(rs) -> list[str]:
    table = rs.query_one("#framings", DataTable)
    return [str(table.get_cell(str(i), "why")) for i in range(table.row_count)]


def test_reference_surface_matches_say_so_and_non_picks_give_their_kind(isolated):
    path, responses = fruit(isolated, ["Green apple", "Green apple", "Banana", "Banana",
                                       "Red apple"])
    score(isolated, path, responses, "reference")

    async def check(app, pilot, rs):
        assert rs.scored.scores.fr_hits == 3
        why = why_cells(rs)
        assert why[0] == why[1] == why[4] == "surface match of Apple"
        # The words are whole on screen, not cut to "surface match of A…".
        assert sum("surface match of Apple" in ln for ln in table_lines(rs)) == 3
        await pilot.press("a")
        assert isinstance(app.screen, AnswersScreen)
        green = app.screen.clusters()["Green apple"]
        assert green.forms == {"Green apple": {"framed: surface match of Apple"}}

    reopened(isolated, check)


def test_a_non_pick_row_gives_its_kind_within_the_width(isolated):
    path, responses = fruit(isolated, ["Apple", "Banana", "Apple", "Apple", "Fruit",
                                       "I can't choose."])
    score(isolated, path, responses, "probe")

    async def check(app, pilot, rs):
        why = why_cells(rs)
        assert why[4] == "echo" and why[5] == "refusal"
        assert not any("new answer" in w for w in why[4:])
        lines = table_lines(rs)
        assert any("Fruit" in ln and "echo" in ln for ln in lines)
        assert not any("…" in ln.split("Fruit")[-1][:30] for ln in lines if "Fruit" in ln)

    reopened(isolated, check)


def test_the_cli_marks_the_framed_surface_matches_it_counts(isolated, capsys):
    path, responses = fruit(isolated, ["Green apple", "Green apple", "Banana", "Banana",
                                       "Red apple"])
    score(isolated, path, responses, "reference")
    out = capsys.readouterr().out
    assert "FR       0.60  (3/5" in out
    framed = out.split("framed answers")[1].splitlines()
    marked = [ln for ln in framed if ln.startswith(" ≈")]
    assert [ln.split()[0] for ln in marked] == ["≈Green", "≈Red"]
    assert all("surface match of Apple" in ln for ln in marked)
    assert not any("surface match" in ln for ln in framed if "Banana" in ln)
    assert "FR counts 3: 3 surface matches of Apple (reference rule)" in out


def test_the_report_highlights_the_framed_bars_that_count(isolated):
    from matplotlib.colors import to_hex

    from probe.charts import data
    from probe.charts.answers import answers_figure
    from probe.charts.style import PICK, TOP
    from probe.store import Store

    path, responses = fruit(isolated, ["Green apple", "Green apple", "Banana", "Banana",
                                       "Red apple"])
    score(isolated, path, responses, "reference")
    fig = answers_figure("fruit", data.family_answers(Store(isolated / "probe.db"), "fruit"))
    framed = fig.axes[1]
    names = [t.get_text() for t in framed.get_yticklabels()]
    colours = dict(zip(names, (to_hex(p.get_facecolor()) for p in framed.patches)))
    assert colours == {"Green apple ≈": TOP.lower(), "Banana": PICK.lower(),
                       "Red apple ≈": TOP.lower()}
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("surface match" in t and "reference rule" in t for t in legend)


def test_a_scored_run_reopened_shows_the_samples_it_has(isolated):
    path, responses = fruit(isolated, ["Apple", "Banana", "Apple", "Apple", "Fig"])
    score(isolated, path, responses, "probe")

    async def check(app, pilot, rs):
        title = str(rs.query_one("#run-title", Static).render())
        assert "13/13 samples" in title

    reopened(isolated, check)


def test_no_framed_pick_leaves_pi_undefined_and_the_label_undecided(isolated, capsys):
    path, responses = fruit(isolated, ["I can't choose."] * 4)
    score(isolated, path, responses, "probe")
    out = capsys.readouterr().out
    assert "π        —" in out and "label    Undecided" in out and "Shallow" not in out

    async def check(app, pilot, rs):
        pi = str(rs.query_one("#pi", Static).render())
        badge = str(rs.query_one("#badge", Static).render())
        assert "—" in pi and "0.00" not in pi
        assert badge.startswith("Undecided") and "Shallow" not in badge
        await pilot.press("w")
        why = " ".join(str(w.render()) for w in app.screen.query(Static))
        assert "Why Undecided" in why and "Why Shallow" not in why
        assert "FR and π are undefined" in why

    reopened(isolated, check)


def test_a_count_of_one_reads_singular(isolated):
    from probe.explain import _count

    assert _count(1, "more direct sample") == "1 more direct sample"
    assert _count(12, "more reframing") == "12 more reframings"
    path, responses = fruit(isolated, ["Apple"])
    score(isolated, path, responses, "probe")

    async def check(app, pilot, rs):
        fr = str(rs.query_one("#fr", Static).render())
        assert "1 of 1 pick" in fr and "1 picks" not in fr
        await pilot.press("w")
        why = " ".join(str(w.render()) for w in app.screen.query(Static))
        assert " 1 more direct samples" not in why and " 1 more reframings" not in why

    reopened(isolated, check)
