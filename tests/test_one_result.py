"""A run stopped, resumed and finished shows one result everywhere: the live view once it
ends, History, the run reopened from History, the copies, `probe export` and the answers
figure, even when the matcher would now read an answer otherwise (it keeps changing between
releases: a stored run is read back, never matched again)."""

from __future__ import annotations

import asyncio
import json

from textual.widgets import DataTable, Static

import probe.scoring as scoring
from probe import family as fam_mod
from probe.backends.fake import FakeBackend
from probe.export import release_record
from probe.matching import Match
from probe.runner import RunSettings
from screens.app import make_app
from test_app import wait_until

FRAMED = ["Red", "Blue", "Green", "Red", "Red and Yellow", "Blue", "Red", "Purple"]


def answer(prompt: str) -> str:
    if prompt.startswith("Choose"):
        return "Red"
    return FRAMED[int(prompt.split()[1].rstrip(":"))]


def colour_family(isolated):
    fam_mod.save(fam_mod.Family("colour", "Choose a random colour.",
                                [f"Scenario {i}: which colour for the logo?"
                                 for i in range(len(FRAMED))]),
                 isolated / "families" / "colour.toml")


def box(screen, wid: str) -> str:
    w = screen.query_one(wid, Static)
    return " ".join(s.text for s in w.render_lines(w.region.reset_offset))


def marks(screen) -> list[str]:
    table = screen.query_one("#framings", DataTable)
    return [str(table.get_cell(str(i), "top")) for i in range(table.row_count)]


def newer_matcher(original):
    """A later matcher that calls 'Red and Yellow' a list, not a pick."""
    def cluster(texts, *args, **kwargs):
        out = original(texts, *args, **kwargs)
        return [Match(m.answer, m.canonical, m.reason, True, m.cluster, "list")
                if m.answer == "Red and Yellow" else m for m in out]
    return cluster


def test_a_stopped_and_resumed_run_shows_one_result_everywhere(isolated, monkeypatch):
    colour_family(isolated)

    async def go():
        app = make_app(db_path=isolated / "probe.db", backend_factory=lambda spec: (
            FakeBackend(answer, delay=0.05), "fake-model"))
        app.run_settings = RunSettings(samples=8, seed=3)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.samples_done >= 5)
            await pilot.press("s")
            await wait_until(pilot, lambda: rs.state == "cancelled")
            await pilot.press("u")
            await wait_until(pilot, lambda: rs.state.startswith("finished"), timeout=20)
            await pilot.pause(0.3)
            live_fr, live_marks = box(rs, "#fr"), marks(rs)
            s = rs.scored.scores
            assert f"{s.fr_hits} of {s.n_framed} picks" in live_fr
            assert live_marks[4] == "✗"           # a pick, and not the top answer

            # A newer matcher arrives: the stored run must still read as it was scored.
            monkeypatch.setattr(scoring, "cluster_answers",
                                newer_matcher(scoring.cluster_answers))
            await pilot.press("escape", "h")
            await pilot.pause(0.3)
            table = app.screen.query_one("#runs", DataTable)
            rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
            assert len(rows) == 1, rows          # no 'partial' row under the run
            fr_col = list(table.columns).index("FR")
            assert rows[0][fr_col] == f"{s.fr:.2f}"
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.screen.__class__.__name__ == "RunScreen")
            await pilot.pause(0.3)
            again = app.screen
            assert box(again, "#fr") == live_fr
            assert marks(again) == live_marks
            titles = {c.title: c for c in app.get_system_commands(again)}
            titles["Copy result as JSON"].callback()
            copied = json.loads(app.clipboard)
            assert copied["framed"]["fr"] == round(s.fr, 4)
            assert copied["non_picks"]["framed"] == s.framed_nonpicks

            record = release_record(app.store, again.run_id)
            assert record["framed"]["fr"] == round(s.fr, 6)
            assert record["probe"]["non_picks"]["framed"] == s.framed_nonpicks
            # The record says how it was measured: the settings as numbers, and the seed.
            settings = record["probe"]["settings"]
            assert (settings["samples"], settings["temperature"]) == (8, 0.6)
            assert settings["answer_format"] == "words" and record["probe"]["seed"] == 3

    asyncio.run(go())
