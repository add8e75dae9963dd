"""Issue 17, item 2: each run's settings are on screen (run view, History), Compare
highlights the ones that differ and warns, and the run settings outlive the app."""

from __future__ import annotations

import asyncio
import json

from textual.widgets import DataTable, Static

from probe import family as fam_mod
from probe.backends.fake import FakeBackend
from probe.metrics import score
from probe.runner import Runner, RunSettings
from screens.app import make_app
from screens.compare import compare_text
from screens.history import HistoryScreen
from test_app import make, wait_until


def run(coro):
    return asyncio.run(coro)


def text_of(screen, selector) -> str:
    w = screen.query_one(selector, Static)
    return " ".join(s.text for s in w.render_lines(w.region.reset_offset))


def stored_runs(app, extra: dict | None = None):
    """Two finished runs of one family: T 0.1 / probe / 10 samples and T 1.0 / reference
    rule / 50 samples (the walkthrough's pair), the second with a setting this version of
    probe does not know ('answer_format'), as a later one may store."""
    fam = fam_mod.Family("moths", "Choose a random moth.", ["Scenario 1: which moth?",
                                                            "Scenario 2: which moth?"])
    backend = FakeBackend("Luna")
    backend.load()
    r = Runner(app.store, backend)
    a = r.create(fam, RunSettings(samples=10, temperature=0.1, seed=5), "fake-model")
    r.execute(a)
    b = r.create(fam, RunSettings(samples=50, temperature=1.0, seed=6, rule="reference"),
                 "fake-model", extra=extra)
    app.store.db.execute("UPDATE runs SET status = 'finished' WHERE id = ?", [b])
    app.store.save_result(b, score(["Luna"] * 50, ["Luna", "Luna"]))
    return a, b


def test_history_and_the_run_view_show_each_runs_settings_and_compare_warns(isolated):
    async def go():
        app = make(isolated, autoload=False)
        a, b = stored_runs(app, extra={"answer_format": "braces"})
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot.press("h")
            assert isinstance(app.screen, HistoryScreen)
            table = app.screen.query_one("#runs", DataTable)
            rows = [dict(zip(app.screen.columns, map(str, table.get_row_at(i))))
                    for i in range(table.row_count)]
            # The loosest form that fits the column, whole (the format last, never cut).
            width = table.columns["settings"].width
            assert len(rows[0]["settings"]) <= width
            assert rows[0]["settings"].replace(" ", "") == "N50·T1·base5·reference·braces"
            assert rows[1]["settings"].replace(" ", "") == "N10·T0.1·base5·probe"
            # The highlighted run's every setting, even one this version does not know.
            detail = text_of(app.screen, "#run-detail")
            assert "answer format braces" in detail and "seed 6" in detail
            assert "rule reference" in detail and "weights" in detail
            await pilot.press("space", "down", "space", "c")
            text = str(app.screen.query_one("#compare", Static).render())
            assert "⚠ measured differently" in text
            for word in ("N", "T", "rule", "answer format"):
                assert word in text.split("⚠ measured differently (")[1].split(")")[0]
            assert "T             1                           0.1  ≠" in text
            # The markup: what changes the measurement in yellow, a seed only in bold.
            lines = compare_text(app.store, (b, None), (a, None)).splitlines()
            assert next(ln for ln in lines if "0.1" in ln).startswith("[b yellow]T ")
            seed_line = next(ln for ln in lines if ln.startswith("[b]seed"))
            assert "yellow" not in seed_line and "≠" not in seed_line
            await pilot.press("enter")                # run 1, read-only
            await pilot.pause(0.3)
            settings = text_of(app.screen, "#run-settings")
            assert "N 10" in settings and "T 0.1" in settings and "rule probe" in settings
            assert "seed 5" in text_of(app.screen, "#run-title")

    run(go())


def test_compare_of_runs_measured_alike_does_not_warn(isolated):
    async def go():
        app = make(isolated, autoload=False)
        fam = fam_mod.Family("moths", "Choose a random moth.", ["Scenario 1: which moth?"])
        backend = FakeBackend("Luna")
        backend.load()
        for seed in (1, 2):
            r = Runner(app.store, backend)
            r.execute(r.create(fam, RunSettings(samples=3, seed=seed), "fake-model"))
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot.press("h", "space", "down", "space", "c")
            text = str(app.screen.query_one("#compare", Static).render())
            assert "measured differently" not in text and "same top answer: yes" in text

    run(go())


def test_run_settings_outlive_the_app_and_a_bad_file_is_a_notice(isolated):
    fam_mod.save(fam_mod.Family("b", "Choose a random popular butterfly.",
                                ["Scenario 1: which?"]), isolated / "families" / "b.toml")

    async def set_them():
        app = make(isolated)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("s")
            box = app.screen
            for name, value in (("samples", "12"), ("temperature", "0.9"), ("seed", "77")):
                box.query_one(f"#set-{name}").value = value
            await pilot.press("ctrl+s")
            assert app.run_settings.samples == 12

    async def read_them():
        app = make(isolated)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            assert (app.run_settings.samples, app.run_settings.temperature,
                    app.run_settings.seed) == (12, 0.9, 77)
            line = text_of(app.screen, "#settings-line")
            assert "12 direct samples" in line and "T 0.9" in line
            return [str(n.message) for n in app._notifications]

    run(set_them())
    saved = isolated / "config" / "settings.json"
    assert json.loads(saved.read_text())["run"]["samples"] == 12
    assert not any("ignored" in n for n in run(read_them()))
    for bad, why in (("{not json", "not JSON"), ('{"run": {"samples": "many"}}', "damaged"),
                     ('{"run": {"samples": -3}}', "at least 1"), ("[1, 2]", "not an object")):
        saved.write_text(bad)

        async def restart():
            app = make_app(db_path=isolated / "probe.db", autoload=False)
            async with app.run_test(size=(100, 30)) as pilot:
                await pilot.pause(0.2)
                notes = [str(n.message) for n in app._notifications]
                assert app.run_settings == RunSettings()
                assert any("settings.json was ignored" in n and why in n for n in notes), notes

        run(restart())
