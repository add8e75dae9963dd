"""Issue 17, item 9: the smaller things a new user tripped over, each as they met it."""

from __future__ import annotations

import asyncio
import json

from click.testing import CliRunner
from textual.widgets import DataTable, Footer, Select, Static

from probe import family as fam_mod
from probe.backends.fake import FakeBackend
from probe.cli import cli
from probe.runner import Runner, RunSettings
from screens.app import make_app
from screens.history import HistoryScreen
from test_app import make, wait_until
from test_app_control import finished_run


def run(coro):
    return asyncio.run(coro)


def lines_of(widget) -> list[str]:
    return [s.text for s in widget.render_lines(widget.region.reset_offset)]


def small(isolated, name="b", n=4, filename="b.toml"):
    fam = fam_mod.Family(name, "Choose a random popular butterfly.",
                         [f"Scenario {i}: which?" for i in range(n)])
    fam_mod.save(fam, isolated / "families" / filename)
    return fam


def test_history_shows_a_rescore_made_from_it_without_leaving(isolated):
    fam = small(isolated)

    async def go():
        app = make(isolated, autoload=False)
        backend = FakeBackend(lambda p: "Monarch" if p.startswith("Choose") or "0" in p
                              else "Viceroy")
        backend.load()
        r = Runner(app.store, backend)
        r.execute(r.create(fam, RunSettings(samples=3, seed=1), "fake-model"))
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.press("h", "enter")
            await pilot.pause(0.3)
            await pilot.press("a")
            table = app.screen.query_one("#answers", DataTable)
            table.move_cursor(row=table.get_row_index("Viceroy"))
            await pilot.press("space")
            table.move_cursor(row=table.get_row_index("Monarch"))
            await pilot.press("m", "r")                      # this run only
            await pilot.pause(0.2)
            await pilot.press("escape", "escape")
            assert isinstance(app.screen, HistoryScreen)
            runs = app.screen.query_one("#runs", DataTable)
            families = [str(runs.get_row_at(i)[2]) for i in range(runs.row_count)]
            assert any("re-scored" in f for f in families), families

    run(go())


def test_the_quit_dialog_follows_the_run_to_its_end(isolated):
    small(isolated, n=10)

    async def go():
        app = make(isolated, backend=FakeBackend("Monarch", delay=0.05))
        app.run_settings = RunSettings(samples=30, seed=2)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.samples_done >= 1)
            await pilot.press("q")
            assert app.screen.__class__.__name__ == "Choice"
            question = app.screen.query_one("#question", Static)
            first = str(question.render())
            assert "still sampling" in first
            await wait_until(pilot, lambda: rs.state.startswith("finished"), timeout=30)
            await pilot.pause(0.7)
            later = str(question.render())
            assert "has finished (40 samples)" in later and "Nothing is sampling" in later

    run(go())


def test_narrow_screens_keep_help_the_seed_and_a_whole_settings_line(isolated):
    small(isolated)

    async def go(width):
        app = make(isolated)
        app.run_settings = RunSettings(samples=5, seed=1234567)
        async with app.run_test(size=(width, 24)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            keys = {getattr(w, "key", None): w for w in app.screen.query_one(Footer).query("*")}
            palette = keys["ctrl+p"].region
            for key in ("question_mark", "r", "q"):       # whole, and clear of ^p palette
                assert keys[key].region.right <= palette.x, key
            assert "r/⏎ Run" in " ".join(lines_of(keys["r"]))
            line = lines_of(app.screen.query_one("#settings-line", Static))
            assert len(line) == 1 and "…" not in line[0] and "5 direct samples" in line[0]
            rs = await finished_run(app, pilot)
            title = lines_of(rs.query_one("#run-title", Static))[0]
            assert "seed 1234567" in title and "finished" in title and "b" in title
            assert len(lines_of(rs.query_one("#run-settings", Static))) == 1

    for width in (80, 100):
        run(go(width))


def test_enter_on_home_says_it_runs_and_the_picker_says_how_to_add_a_model(isolated):
    small(isolated)

    async def go():
        app = make(isolated)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            from screens.home import ModelPicker

            app.push_screen(ModelPicker([]))
            await pilot.pause()
            hint = str(app.screen.query_one("#picker-hint", Static).render())
            assert "models" in hint and "PROBE_MODELS" in hint and ".gguf" in hint
            await pilot.press("escape")
            await pilot.press("enter")
            assert app.screen.__class__.__name__ == "RunScreen"
            assert any("enter runs the selected family (b)" in str(n.message)
                       for n in app._notifications)

    run(go())


def test_the_rule_choice_is_described(isolated):
    async def go():
        app = make(isolated, autoload=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("s")
            described = str(app.screen.query_one("#rule-help", Static).render())
            assert "aliases" in described and "non-picks" in described
            app.screen.query_one("#set-rule", Select).value = "reference"
            await pilot.pause()
            described = str(app.screen.query_one("#rule-help", Static).render())
            assert "released code" in described and "π alone" in described

    run(go())


def test_the_cli_takes_the_name_the_app_shows(isolated):
    small(isolated, name="my planet v2", filename="planets-second.toml")
    assert fam_mod.resolve("my planet v2", isolated / "families").name == "my planet v2"
    responses = isolated / "r.jsonl"
    responses.write_text("".join(json.dumps({"response": "Mars"}) + "\n" for _ in range(3)))
    out = CliRunner().invoke(cli, ["score", "my planet v2", "--responses", str(responses),
                                   "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["family"] == "my planet v2"


def test_export_to_a_new_folder_writes_a_folder(isolated):
    fam = small(isolated)
    app = make_app(db_path=isolated / "probe.db", autoload=False)
    backend = FakeBackend("Monarch")
    backend.load()
    r = Runner(app.store, backend)
    r.execute(r.create(fam, RunSettings(samples=2), "fake-model"))
    out = CliRunner().invoke(cli, ["export", "--db", str(isolated / "probe.db"), "--out",
                                   str(isolated / "results")])
    assert out.exit_code == 0, out.output
    assert (isolated / "results").is_dir()
    assert (isolated / "results" / "fake-model.jsonl").is_file()
    out = CliRunner().invoke(cli, ["export", "--db", str(isolated / "probe.db"), "--out",
                                   str(isolated / "one.jsonl")])
    assert out.exit_code == 0 and (isolated / "one.jsonl").is_file()
