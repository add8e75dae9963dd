"""The answers screen counts and marks as the run view does (a non-pick is a row of its own,
never folded into the pick of the same name), says what a pick does to the rates, and names
the rule that joined each form — the same while the run samples and after it ends."""

from __future__ import annotations

import asyncio
import itertools

from textual.widgets import DataTable, Static

from probe import family as fam_mod
from probe.backends.fake import FakeBackend
from probe.runner import Runner, RunSettings, SampleDrawn
from probe.store import Store
from probe.stored_result import kept_scored
from probe.verdict import framed_lines
from screens.answers import AnswersScreen
from screens.app import make_app
from test_app_control import finished_run


def rows(app) -> dict[str, list[str]]:
    table = app.screen.query_one("#answers", DataTable)
    out = {}
    for i in range(table.row_count):
        cells = [str(c) for c in table.get_row_at(i)]
        out[cells[1]] = cells
    return out


async def detail_for(app, pilot, label: str) -> str:
    table = app.screen.query_one("#answers", DataTable)
    for i in range(table.row_count):
        if str(table.get_row_at(i)[1]) == label:
            table.move_cursor(row=i)
    await pilot.pause()
    return str(app.screen.query_one("#answer-detail", Static).render())


def dist_counts(rs, selector: str) -> dict[str, int]:
    """Answer → count as the run view's distribution lists it (non-picks as 'X ⊘')."""
    s = rs.scored.scores
    side = s.direct_distribution if selector == "direct" else s.framed_distribution
    return {ac.answer + (" ⊘" if ac.refusal else ""): ac.count for ac in side}


def test_braces_non_picks_are_their_own_row_and_picks_say_what_they_count(isolated):
    fam_mod.save(fam_mod.Family("colour", "Choose a random colour.",
                                [f"Scenario {i}: which colour?" for i in range(6)]),
                 isolated / "families" / "colour.toml")
    direct = itertools.cycle(["{Red}", "{Red}", "{Red}", "{Blue}", "blue"])
    framed = ["{Blue}", "{Red}", "blue", "{Blue}", "I can't choose.", "{Red}"]

    def answer(prompt: str) -> str:
        if prompt.startswith("Choose"):
            return next(direct)
        return framed[int(prompt.split()[1].rstrip(":"))]

    async def go():
        app = make_app(db_path=isolated / "probe.db", backend_factory=lambda spec: (
            FakeBackend(answer), "fake-model"))
        app.run_settings = RunSettings(samples=10, seed=1, answer_format="braces")
        async with app.run_test(size=(120, 36)) as pilot:
            rs = await finished_run(app, pilot)
            assert rs.scored.scores.top_answer == "Red"
            await pilot.press("a")
            assert isinstance(app.screen, AnswersScreen)
            table = rows(app)
            # The Blue picks are one row, the unbraced "blue" another, marked ⊘.
            unbraced = next(k for k in table if k.casefold() == "blue ⊘")
            assert "Blue" in table and table["Blue"][2:4] == ["2", "2"]
            direct_dist, framed_dist = dist_counts(rs, "direct"), dist_counts(rs, "framed")
            for label, cells in table.items():
                assert int(cells[2]) == direct_dist.get(label, 0), label
                assert int(cells[3]) == framed_dist.get(label, 0), label
            assert table["Blue"][4] == "—" and table[unbraced][4] == "⊘"
            assert table["Red"][4] == "DR+FR"
            blue = await detail_for(app, pilot, "Blue")
            assert "a pick; counts against DR and FR" in blue
            assert "neither" not in blue
            assert "not a pick (refusal): left out of both rates" in await detail_for(
                app, pilot, unbraced)
            assert "counts toward DR and FR" in await detail_for(app, pilot, "Red")

    asyncio.run(go())


FRUIT = ["Strawberries", "Mango", "Strawberries", "Mangoes", "Apple", "Mango"]


def test_the_why_column_names_the_rule_and_reads_the_same_live_and_after(isolated):
    fam = fam_mod.Family("fruit", "Choose a random fruit.",
                         [f"Scenario {i}: which fruit?" for i in range(len(FRUIT))])
    backend = FakeBackend(lambda p: "Banana" if p.startswith("Choose") else
                          FRUIT[int(p.split()[1].rstrip(":"))])
    backend.load()
    store = Store(isolated / "probe.db")
    live = []
    runner = Runner(store, backend, on_event=lambda e: live.append(e)
                    if isinstance(e, SampleDrawn) else None)
    run_id = runner.create(fam, RunSettings(samples=4, seed=2), "fake-model")
    runner.execute(run_id)
    last_live = {i: ln.why for i, ln in framed_lines(live[-1].scored).items()}
    kept = {i: ln.why for i, ln in framed_lines(kept_scored(store, run_id)).items()}
    assert last_live == kept
    # Named as `probe match` names them: the first Strawberries is exact too, Apple (once)
    # joined nothing, Mangoes joined Mango by the same word.
    assert kept[0] == kept[2] == "exact" and kept[4] == "new answer"
    assert kept[3] == "exact"
    assert "repeated" not in kept.values() and "the answer itself" not in kept.values()
