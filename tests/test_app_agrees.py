"""Issue 17, item 1 and 4: every panel of the run view and the answers screen draws from one
scored result under the run's own rule, so their counts agree with DR and FR, and a
non-pick is shown as ⊘, never as a miss."""

from __future__ import annotations

import asyncio

from textual.widgets import DataTable, Static

from probe import family as fam_mod
from probe.backends.fake import FakeBackend
from probe.runner import RunSettings
from screens.app import make_app
from screens.answers import AnswersScreen
from test_app import wait_until
from test_app_control import finished_run


def run(coro):
    return asyncio.run(coro)


def planet_family(isolated, n=10):
    fam_mod.save(fam_mod.Family("planet", "Choose a random planet.",
                                [f"Scenario {i}: which planet for the poster?"
                                 for i in range(n)]), isolated / "families" / "planet.toml")


def framed_marks(rs) -> list[str]:
    table = rs.query_one("#framings", DataTable)
    return [str(table.get_cell(str(i), "top")) for i in range(table.row_count)]


def dist_rows(rs, selector) -> list[str]:
    w = rs.query_one(selector, Static)
    return [s.text.rstrip() for s in w.render_lines(w.region.reset_offset)][1:]


def counted_in_panel(rows: list[str]) -> int:
    """The counts of the rows the panel marks ✓ (they count toward the rate)."""
    return sum(int(r.split()[-2]) for r in rows if r.endswith("✓"))


def answers_counting(app, side: str) -> int:
    table = app.screen.query_one("#answers", DataTable)
    total = 0
    for i in range(table.row_count):
        row = [str(c) for c in table.get_row_at(i)]
        counts = row[4]
        if ("DR" if side == "direct" else "FR") in counts:
            total += int(row[2 if side == "direct" else 3])
    return total


def reference_answer(prompt: str) -> str:
    """Direct: Mercury. Framed: 'the planet Mercury' (a cluster of its own, named so,
    that the released rule still counts for Mercury) for scenarios 0–6, else Jupiter."""
    if prompt.startswith("Choose"):
        return "Mercury"
    n = int(prompt.split()[1].rstrip(":"))
    return "the planet Mercury" if n < 7 else "Jupiter"


async def check_agreement(app, pilot, rs, fr_hits: int, n_framed: int):
    s = rs.scored.scores
    assert (s.fr_hits, s.n_framed) == (fr_hits, n_framed)
    fr_box = " ".join(s.text for s in rs.query_one("#fr", Static).render_lines(
        rs.query_one("#fr", Static).region.reset_offset))
    assert f"{fr_hits} of {n_framed} picks" in fr_box or f"{fr_hits}/{n_framed}" in fr_box
    marks = framed_marks(rs)
    assert marks.count("✓") == fr_hits
    assert marks.count("✗") == n_framed - fr_hits
    assert counted_in_panel(dist_rows(rs, "#framed-dist")) == fr_hits
    assert counted_in_panel(dist_rows(rs, "#direct-dist")) == s.dr_hits
    await pilot.press("a")
    assert isinstance(app.screen, AnswersScreen)
    assert answers_counting(app, "framed") == fr_hits
    assert answers_counting(app, "direct") == s.dr_hits
    await pilot.press("escape")


def test_a_reference_run_shows_the_same_fr_in_every_panel_also_reopened(isolated):
    planet_family(isolated)

    async def go():
        app = make_app(db_path=isolated / "probe.db", backend_factory=lambda spec: (
            FakeBackend(reference_answer), "fake-model"))
        app.run_settings = RunSettings(samples=10, seed=42, rule="reference")
        async with app.run_test(size=(120, 40)) as pilot:
            rs = await finished_run(app, pilot, timeout=90)   # the embedding model loads
            # The framed cluster is called 'the planet Mercury', not 'Mercury': the released
            # rule counts it for FR by surface match, and so must every panel.
            assert rs.scored.scores.top_answer == "Mercury"
            await check_agreement(app, pilot, rs, 7, 10)
            # The panels say where FR's count comes from.
            framed = " ".join(dist_rows(rs, "#framed-dist"))
            assert "FR counts 7: 7 surface matches of Mercury (reference rule)" in framed
            await pilot.press("w")
            why = str(app.screen.query_one("#why-text", Static).render())
            assert "FR counts 7: 7 surface matches of Mercury" in why
            await pilot.press("escape")
            await pilot.press("escape", "h")
            await pilot.press("enter")            # the run again, read-only, from History
            await wait_until(pilot, lambda: app.screen.__class__.__name__ == "RunScreen")
            await pilot.pause(0.3)
            await check_agreement(app, pilot, app.screen, 7, 10)

    run(go())


def test_non_picks_are_marked_and_said_to_count_for_neither_side(isolated):
    planet_family(isolated, n=6)

    def answer(prompt):
        if prompt.startswith("Choose"):
            return "Mercury"
        n = int(prompt.split()[1].rstrip(":"))
        return ["Mercury", "I can't choose.", "Venus", "Mercury", "", "Mars"][n]

    async def go():
        app = make_app(db_path=isolated / "probe.db", backend_factory=lambda spec: (
            FakeBackend(answer), "fake-model"))
        app.run_settings = RunSettings(samples=5, seed=1)
        async with app.run_test(size=(120, 40)) as pilot:
            rs = await finished_run(app, pilot)
            marks = framed_marks(rs)
            assert marks == ["✓", "⊘", "✗", "✓", "⊘", "✗"]
            s = rs.scored.scores
            # Counting ✗ gives what FR counts against: never the non-picks too.
            assert marks.count("✗") == s.n_framed - s.fr_hits
            table = rs.query_one("#framings", DataTable)
            table.move_cursor(row=1)
            await pilot.press("enter")
            text = " ".join(str(w.render()) for w in app.screen.query(Static))
            assert "not a pick (refusal)" in text and "neither for nor against" in text
            assert "does not match" not in text
            await pilot.press("escape")
            table.move_cursor(row=2)
            await pilot.press("enter")
            text = " ".join(str(w.render()) for w in app.screen.query(Static))
            assert "counts against FR" in text

    run(go())
