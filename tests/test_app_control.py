"""The app as an instrument: what a new user hit (issue 10), each driven through the Pilot."""

from __future__ import annotations

import asyncio
import shutil
import threading

from textual.widgets import DataTable, Input, Static, TextArea

from conftest import FAMILIES
from probe import family as fam_mod
from probe.backends.fake import FakeBackend
from probe.runner import Runner, RunSettings
from screens.app import HomeScreen, make_app
from screens.help import HELP
from screens.history import HistoryScreen
from screens.run_display import _fmt_rate, count_form
from screens.run_view import RunScreen, sure_text
from test_app import answer_by_prompt, make, wait_until


def run(coro):
    return asyncio.run(coro)


def family_rows(app) -> list[str]:
    table = app.screen.query_one("#families", DataTable)
    return [str(table.get_row_at(i)[0]) for i in range(table.row_count)]


def select(app, name: str) -> None:
    table = app.screen.query_one("#families", DataTable)
    table.move_cursor(row=family_rows(app).index(name))


async def finished_run(app, pilot, timeout: float = 10.0):
    """Once the model is ready: r on Home, and the run view once its run has finished."""
    await wait_until(pilot, lambda: app.model_state == "ready")
    await pilot.press("r")
    rs = app.screen
    await wait_until(pilot, lambda: rs.state.startswith("finished"), timeout)
    await pilot.pause(0.3)
    return rs


def small_family(path, name="b", n=4):
    fam_mod.save(fam_mod.Family(name, "Choose a random popular butterfly.",
                                [f"Scenario {i}: which?" for i in range(n)]), path)


def test_a_run_reads_the_family_file_as_it_is_now(isolated):
    path = isolated / "families" / "b.toml"
    small_family(path)

    async def go():
        app = make(isolated)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            fam = fam_mod.load(path)
            fam.framings.append("Scenario 8: one more?")
            fam_mod.save(fam, path)                    # edited on disk, Home still open
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.state.startswith("finished"))
            assert len(rs.family.framings) == 5
            await pilot.press("escape")
            path.write_text('direct = "x"\nframings = []\n')     # now invalid on disk
            await pilot.press("r")
            assert isinstance(app.screen, HomeScreen)            # no run
            assert any("framings" in str(n.message) for n in app._notifications)
            assert len(app.store.runs()) == 1

    run(go())


def test_home_selection_follows_the_family_not_the_row(isolated):
    for name in ("a", "b", "c"):
        small_family(isolated / "families" / f"{name}.toml", name)

    async def go():
        app = make(isolated)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            select(app, "b")
            (isolated / "families" / "a.toml").unlink()
            app.screen.refresh_families()
            await pilot.press("r")
            rs = app.screen
            assert isinstance(rs, RunScreen) and rs.family.name == "b"
            await wait_until(pilot, lambda: rs.state.startswith("finished"))

    run(go())


def test_r_while_the_model_loads_runs_once_it_is_ready(isolated):
    small_family(isolated / "families" / "b.toml")
    gate = threading.Event()

    def factory(spec):
        gate.wait(10)
        return FakeBackend(answer_by_prompt), "fake-model"

    async def go():
        app = make_app(db_path=isolated / "probe.db", backend_factory=factory)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await pilot.press("r")
            assert isinstance(app.screen, HomeScreen)
            status = str(app.screen.query_one("#model-status", Static).render())
            assert "then runs b" in status
            gate.set()
            await wait_until(pilot, lambda: isinstance(app.screen, RunScreen))
            await wait_until(pilot, lambda: app.screen.state.startswith("finished"))

    run(go())


def test_escape_and_q_during_a_run_ask_first(isolated):
    small_family(isolated / "families" / "b.toml", n=30)

    async def go():
        app = make(isolated, backend=FakeBackend("Monarch", delay=0.05))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.samples_done >= 2)
            await pilot.press("escape")
            assert app.screen.__class__.__name__ == "Choice"
            await pilot.press("escape")                     # stay
            assert app.screen is rs and rs.state == "running"
            await pilot.press("q")
            assert app.screen.__class__.__name__ == "Choice"
            await pilot.press("escape")
            assert app.screen is rs and rs.state == "running" and app.is_running
            await pilot.press("escape", "s")                # stop and go back
            await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
            await wait_until(pilot, lambda: app.store.run(rs.run_id).status == "cancelled")

    run(go())


def test_seed_ending_and_samples_are_shown(isolated):
    async def go():
        app = make(isolated, autoload=False)
        fam = fam_mod.Family("b", "Choose a random popular butterfly.",
                             [f"Scenario {i}: which?" for i in range(30)])
        backend = FakeBackend("Monarch")
        backend.load()
        r = Runner(app.store, backend)
        quick = r.execute(r.create(fam, RunSettings(samples=30, quick=True, seed=11),
                                   "fake-model"))
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot.press("h")
            assert isinstance(app.screen, HistoryScreen)
            cells = app.screen.query_one("#runs", DataTable).get_row_at(0)
            row = dict(zip(app.screen.columns, map(str, cells)))
            assert row["ended"] == "quick check" and row["seed"] == "11"
            assert row["samples"] == f"{quick.samples_used}/60"
            assert row["settings"] == "N 30 · T 0.6 · base 5 · probe"
            await pilot.press("enter")
            title = str(app.screen.query_one("#run-title", Static).render())
            assert "seed 11" in title and "quick check" in title

    run(go())


def test_the_badge_never_rounds_up_to_settled():
    assert sure_text(0.9487) == "94% sure"
    assert sure_text(0.95) == "95% sure"
    assert sure_text(0.999) == "99% sure"


def test_run_settings_dialog_sets_the_next_run(isolated):
    small_family(isolated / "families" / "b.toml")

    async def go():
        app = make(isolated)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("s")
            dialog = app.screen
            assert dialog.__class__.__name__ == "SettingsScreen"
            await pilot.press("backspace", "backspace", "1", "0")     # typed straight in
            assert dialog.query_one("#set-samples", Input).value == "10"
            dialog.query_one("#set-samples", Input).value = "x"
            await pilot.press("ctrl+s")
            assert app.screen is dialog and "not a number" in str(
                dialog.query_one("#settings-error", Static).render())
            dialog.query_one("#set-samples", Input).value = "0"
            await pilot.press("ctrl+s")
            assert "Direct samples (N) must be at least 1" in str(
                dialog.query_one("#settings-error", Static).render())
            dialog.query_one("#set-samples", Input).value = "6"
            dialog.query_one("#set-concurrency", Input).value = "0"
            await pilot.press("ctrl+s")
            assert "Concurrency must be between 1 and 1024" in str(
                dialog.query_one("#settings-error", Static).render())
            dialog.query_one("#set-concurrency", Input).value = "12"
            dialog.query_one("#set-seed", Input).value = "42"
            dialog.query_one("#set-pi_threshold", Input).value = "0.7"
            await pilot.press("ctrl+s")
            assert isinstance(app.screen, HomeScreen)
            assert "6 direct samples" in str(app.screen.query_one("#settings-line",
                                                                   Static).render())
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.state.startswith("finished"))
            stored = app.store.run(rs.run_id)
            assert stored.seed == 42 and stored.settings["samples"] == 6
            assert stored.settings["pi_threshold"] == 0.7 and stored.settings["rule"] == "probe"
            assert stored.settings["concurrency"] == 12     # stored with the run
            assert len(app.store.samples(rs.run_id)) == 10

    run(go())


def test_reframing_columns_use_the_width_and_enter_shows_the_sample(isolated):
    fam_mod.save(fam_mod.Family("g", "Choose a random gemstone.",
                                [f"Scenario {i}: which gemstone?" for i in range(3)]),
                 isolated / "families" / "g.toml")

    async def go():
        app = make(isolated, backend=FakeBackend(lambda p: "Grapefruit tourmaline"))
        async with app.run_test(size=(160, 45)) as pilot:
            rs = await finished_run(app, pilot)
            table = rs.query_one("#framings", DataTable)
            assert table.columns["answer"].width >= len("Grapefruit tourmaline")
            assert table.columns["why"].width >= len("exact")
            table.focus()
            await pilot.press("enter")
            assert app.screen.__class__.__name__ == "SampleDetail"
            text = " ".join(str(w.render()) for w in app.screen.query(Static))
            assert "Prompt sent" in text and "Q: Scenario 0" in text or "Scenario 0" in text
            assert "Raw response" in text and "Extracted answer" in text
            assert "How it joined" in text and "Counts for FR?" in text

    run(go())


def test_k_again_and_again_adds_no_toasts(isolated):
    small_family(isolated / "families" / "b.toml", n=30)

    async def go():
        app = make(isolated, backend=FakeBackend(lambda p: "Monarch" if p.startswith("C")
                                                 else "Viceroy", delay=0.3))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            app.clear_notifications()
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.state == "running")
            await pilot.press(*["k"] * 9)
            await pilot.pause()
            assert len(app._notifications) == 0
            assert "quick check on" in str(rs.query_one("#run-title", Static).render())
            rs.action_stop()
            await wait_until(pilot, lambda: rs.state == "cancelled")
            await pilot.press(*["k"] * 6)            # not sampling: one message, not six
            await pilot.pause()
            assert len(app._notifications) == 1

    run(go())


def test_history_filter_enter_moves_to_the_table_and_compare_names_both(isolated):
    async def go():
        app = make(isolated, autoload=False)
        backend = FakeBackend("Luna")
        backend.load()
        for name, model in (("moths", "some-model-with-a-long-name-q4_k_m"),
                            ("bees", "another-model-with-a-long-name-q8_0")):
            fam = fam_mod.Family(name, "Choose a random moth.", ["Scenario 1: which moth?"])
            r = Runner(app.store, backend)
            r.execute(r.create(fam, RunSettings(samples=2), model))
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot.press("h", "slash", "m", "enter")
            runs = app.screen.query_one("#runs", DataTable)
            assert runs.has_focus
            app.screen.query_one("#filter", Input).value = ""
            await pilot.pause()
            runs.focus()
            await pilot.press("space", "down", "space", "c")
            text = str(app.screen.query_one("#compare", Static).render())
            assert "bees vs moths" in text
            assert "some-model-with-a-long-name-q4_k_m" in text
            assert "another-model-with-a-long-name-q8_0" in text

    run(go())


def test_palette_entries_are_not_repeated(isolated):
    async def go():
        app = make(isolated)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            commands = list(app.get_system_commands(app.screen))
            titles = [c.title for c in commands]
            assert titles.count("Charts") == 1 and titles.count("Run") == 1
            assert all(c.title not in c.help for c in commands if c.title == "Run")

    run(go())


def test_a_unicode_family_name_is_saved(isolated):
    async def go():
        app = make(isolated)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("n")
            ed = app.screen
            ed.query_one("#name", Input).value = "früchte"
            ed.query_one("#direct", Input).value = "Choose a random fruit."
            ed.query_one("#framings", TextArea).text = "Which fruit for the bowl?"
            await pilot.pause()
            assert "valid" in str(ed.query_one("#validation", Static).render())
            await pilot.press("ctrl+s")
            assert fam_mod.load(isolated / "families" / "früchte.toml").name == "früchte"
            ed.query_one("#name", Input).value = "../evil"
            await pilot.pause()
            assert "not allowed" in str(ed.query_one("#validation", Static).render())

    run(go())


def test_a_missing_model_file_is_named(isolated):
    async def go():
        app = make_app(db_path=isolated / "probe.db", model="/nonexistent.gguf")
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "failed")
            status = str(app.screen.query_one("#model-status", Static).render())
            assert "/nonexistent.gguf" in status and "default model" not in status
            assert any("does not exist" in str(n.message) for n in app._notifications)

    run(go())


def test_home_columns_fit_and_other_models_keep_their_names(isolated):
    small_family(isolated / "families" / "b.toml")
    (isolated / "families" / "broken.toml").write_text(
        'direct = "x"\nframings = ["a"]\nnonsense = "' + "very long error " * 20 + '"\n')

    async def go():
        app = make(isolated, autoload=False)
        backend = FakeBackend(answer_by_prompt)
        backend.load()
        r = Runner(app.store, backend)
        r.execute(r.create(fam_mod.load(isolated / "families" / "b.toml"),
                           RunSettings(samples=3), "gemma-3-270m-q4_k_m"))
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            table = app.screen.query_one("#families", DataTable)
            widths = {k.value: c.get_render_width(table) for k, c in table.columns.items()}
            assert sum(widths.values()) <= 100
            assert widths["label"] >= len("Non-bias  π 0.43") + 2
            cell = str(table.get_row_at(family_rows(app).index("b"))[4])
            assert "gemma-3-270m-q4_k_m: Deep" in cell
            select(app, "broken")
            await pilot.pause()
            hint = str(app.screen.query_one("#home-hint", Static).render())
            assert "unknown key 'nonsense'" in hint

    run(go())


def test_editor_at_80x24_scrolls_to_the_answers_and_dialogs_fit(isolated):
    shutil.copy(FAMILIES / "tea.toml", isolated / "families" / "tea.toml")

    async def go():
        app = make(isolated)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("e")
            ed = app.screen
            answers = ed.query_one("#answers", TextArea)
            answers.focus()
            await wait_until(pilot, lambda: answers.region.height > 0
                             and answers.region.bottom <= 23)       # above the footer
            assert ed.query_one("#validation", Static).region.bottom <= 24
            assert not answers.soft_wrap
            answers.insert("\nx")
            await pilot.press("escape")
            box = app.screen.query_one(".dialog")
            assert box.region.height < 12

    run(go())


def gem_run(app, isolated):
    """A finished past run of a gemstone family (Diamond direct; Emerald on odd framings)."""
    path = isolated / "families" / "gemstone.toml"
    fam_mod.save(fam_mod.Family("gemstone", "Choose a random gemstone.",
                                [f"Scenario {i}: which gem?" for i in range(4)],
                                {"Emerald": ["Smaragd"]}), path)
    backend = FakeBackend(lambda p: "Diamond" if p.startswith("Choose") or
                          int(p.split()[1].rstrip(":")) % 2 == 0 else "emerald")
    backend.load()
    r = Runner(app.store, backend)
    r.execute(r.create(fam_mod.load(path), RunSettings(samples=4), "fake-model"))
    return path


async def open_answers_of_run_1(app, pilot):
    await pilot.press("h", "enter")
    rs = app.screen
    assert isinstance(rs, RunScreen) and rs.read_only
    await pilot.press("a")
    return rs, app.screen.query_one("#answers", DataTable)


def test_merge_then_split_in_a_past_run_leaves_a_file_that_loads(isolated):
    async def go():
        app = make(isolated, autoload=False)
        path = gem_run(app, isolated)
        before = path.read_text()
        original = app.store.result_versions(1)
        async with app.run_test(size=(120, 36)) as pilot:
            rs, t = await open_answers_of_run_1(app, pilot)
            t.move_cursor(row=t.get_row_index("Emerald"))
            await pilot.press("space")
            t.move_cursor(row=t.get_row_index("Diamond"))
            await pilot.press("m")
            question = str(app.screen.query_one("#question").render())
            assert "past run" in question and "Change the family file" in question
            await pilot.press("f")
            await pilot.pause()
            assert "Smaragd" in fam_mod.load(path).answers["Diamond"]
            t.move_cursor(row=t.get_row_index("Diamond"))
            await pilot.press("x")
            forms = app.screen.forms
            await pilot.press(*["down"] * forms.index("emerald"), "enter", "f")
            await pilot.pause()
            assert fam_mod.load(path).answers == {"Emerald": ["Smaragd"]}
            assert path.read_text() == before
            versions = app.store.result_versions(1)
            assert versions[0] == original[0] and len(versions) == 3
            assert app.store.family(app.store.run(1).family_id).answers == {
                "Emerald": ["Smaragd"]}                 # the run's snapshot as sampled

    run(go())


def test_a_past_run_never_recreates_a_deleted_family_file_silently(isolated):
    async def go():
        app = make(isolated, autoload=False)
        path = gem_run(app, isolated)
        path.unlink()
        async with app.run_test(size=(120, 36)) as pilot:
            rs, t = await open_answers_of_run_1(app, pilot)
            t.move_cursor(row=t.get_row_index("Emerald"))
            await pilot.press("space")
            t.move_cursor(row=t.get_row_index("Diamond"))
            await pilot.press("m")
            assert "no longer exists" in str(app.screen.query_one("#question").render())
            await pilot.press("r")
            await pilot.pause()
            assert not path.exists()
            assert rs.scored.scores.fr == 1.0
            assert [v["kind"] for v in app.store.result_versions(1)] == ["sampled", "rescored"]

    run(go())


def footer_keys(screen) -> set[str]:
    return {b.binding.key for b in screen.active_bindings.values() if b.binding.show}


def test_a_finished_run_offers_no_stop_resume_or_quick_check(isolated):
    async def go():
        app = make(isolated, backend=FakeBackend("Monarch", delay=0.05))
        gem_run(app, isolated)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("h", "enter")
            rs = app.screen
            assert isinstance(rs, RunScreen) and rs.read_only
            await pilot.pause(0.3)
            assert not {"s", "u", "k"} & footer_keys(rs) and "a" in footer_keys(rs)
            await pilot.press("s")
            assert "Nothing to stop: the run is finished" in str(
                list(app._notifications)[-1].message)
            await pilot.press("escape", "escape")
            select(app, "gemstone")
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.state == "running")
            await pilot.pause(0.3)
            assert {"s", "k"} <= footer_keys(rs) and "u" not in footer_keys(rs)
            await pilot.press("s")
            await wait_until(pilot, lambda: rs.state == "cancelled")
            await pilot.pause(0.3)
            assert "u" in footer_keys(rs) and not {"s", "k"} & footer_keys(rs)

    run(go())


def test_home_follows_the_families_folder_and_names_what_is_wrong(isolated):
    folder = isolated / "families"
    for name in ("a", "b", "c"):
        small_family(folder / f"{name}.toml", name)

    async def go():
        app = make(isolated)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            table = app.screen.query_one("#families", DataTable)
            await pilot.press("end")
            assert family_rows(app)[table.cursor_row] == "c"
            await pilot.press("home")
            assert family_rows(app)[table.cursor_row] == "a"
            select(app, "b")
            (folder / "0.toml").write_text('direct = "x"\nframings = []\n')   # sorts first
            small_family(folder / "d.toml", "d")
            await wait_until(pilot, lambda: "d" in family_rows(app), timeout=5)
            assert family_rows(app)[table.cursor_row] == "b"        # still on b
            await pilot.press("home", "e")
            message = str(list(app._notifications)[-1].message)
            assert "0.toml" in message and "text editor" in message and "framings" in message
            await pilot.press("r")
            assert "text editor" in str(list(app._notifications)[-1].message)
            select(app, "c")
            (folder / "c.toml").unlink()
            await pilot.press("r")
            assert isinstance(app.screen, HomeScreen)
            assert "c.toml no longer exists" in str(list(app._notifications)[-1].message)
            assert "c" not in family_rows(app)

    run(go())


def test_the_why_column_names_the_rule_and_never_calls_an_answer_its_own_alias(isolated):
    path = isolated / "families" / "gemstone.toml"
    fam_mod.save(fam_mod.Family("gemstone", "Choose a random gemstone.",
                                [f"Scenario {i}: which gem?" for i in range(4)],
                                {"Emerald": ["Smaragd"]}), path)
    answers = {"0": "Diamond", "1": "Emerald", "2": "Opal", "3": "Smaragd"}

    async def go():
        app = make(isolated, backend=FakeBackend(
            lambda p: "Diamond" if p.startswith("Choose") else answers[p.split()[1][0]]))
        async with app.run_test(size=(160, 45)) as pilot:
            rs = await finished_run(app, pilot)
            table = rs.query_one("#framings", DataTable)
            why = [str(table.get_cell(str(i), "why")) for i in range(4)]
            assert why[2] == "new answer"                    # Opal, once: joined nothing
            # Emerald by its own name (never "alias"), Smaragd by the family's alias.
            assert why[1] == "exact" and why[3] == "alias"
            await pilot.press("a")
            detail = str(app.screen.query_one("#answer-detail", Static).render())
            assert "Diamond" in detail and "exact" in detail and "repeated" not in detail

    run(go())


def test_while_a_model_loads_home_shows_its_own_last_labels(isolated):
    path = isolated / "families" / "b.toml"
    small_family(path)
    gate = threading.Event()

    class SlowLoad(FakeBackend):
        def load(self, progress=None):
            gate.wait(10)
            super().load(progress)

    async def go():
        app = make_app(db_path=isolated / "probe.db",
                       backend_factory=lambda spec: (SlowLoad(answer_by_prompt), "fake-model"))
        backend = FakeBackend(answer_by_prompt)
        backend.load()
        r = Runner(app.store, backend)
        r.execute(r.create(fam_mod.load(path), RunSettings(samples=3), "fake-model"))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state.startswith("loading: loading"))
            await pilot.pause(0.2)
            table = app.screen.query_one("#families", DataTable)
            row = [str(c) for c in table.get_row_at(0)]
            assert row[3].startswith("Deep") or row[3].startswith("Shallow") or \
                row[3].startswith("Non-bias"), row
            assert "fake-model" not in row[4]
            gate.set()
            await wait_until(pilot, lambda: app.model_state == "ready")

    run(go())


def test_home_leaves_out_the_words_every_direct_prompt_starts_with(isolated):
    for name, thing in (("b", "popular butterfly."), ("g", "gemstone."), ("t", "type of tea.")):
        fam_mod.save(fam_mod.Family(name, f"Choose a random {thing}", ["Which one?"]),
                     isolated / "families" / f"{name}.toml")

    async def go():
        app = make(isolated, autoload=False)
        # From 100 columns (below, the column gives way to the names and labels).
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            table = app.screen.query_one("#families", DataTable)
            cells = [str(table.get_row_at(i)[2]) for i in range(3)]
            assert cells == ["…popular butterfly.", "…gemstone.", "…type of tea."]
            assert table.columns["others"].width >= len("other models")

    run(go())


def test_at_80x24_every_run_view_line_stays_one_line(isolated):
    fam_mod.save(fam_mod.Family("gemstone", "Choose a random gemstone.",
                                [f"Scenario {i}: which gem? " + "so many words " * 8
                                 for i in range(14)]), isolated / "families" / "g.toml")
    long = "Grapefruit tourmaline from the mines of Madagascar"

    def answer(p):
        if p.startswith("Choose"):
            return long
        return "I can't choose." if int(p.split()[1].rstrip(":")) % 2 else "Watermelon opal"

    async def go():
        app = make_app(db_path=isolated / "probe.db", backend_factory=lambda spec: (
            FakeBackend(answer), "gemma-3-270m-it-qat (Q4_K_M, a long display name)"))
        async with app.run_test(size=(80, 24)) as pilot:
            rs = await finished_run(app, pilot)

            def lines(selector):
                w = rs.query_one(selector, Static)
                return [strip.text.strip() for strip in w.render_lines(w.region.reset_offset)]

            title = lines("#run-title")
            # One line: the model's name shrinks (…) before the state, count or seed go.
            assert len(title) == 2 and "gemma-3-270m" in title[0] and "…" in title[0]
            assert "finished" in title[0] and "seed" in title[0] and "44/44" in title[0]
            for side in ("#direct-dist", "#framed-dist"):
                rows = [line for line in lines(side) if line]
                assert all(line.split()[-1].isdigit() or line.endswith(("⊘", "✓")) or
                           line.startswith(("Direct", "Framed", "…")) for line in rows), rows
            assert any("…" in line for line in lines("#direct-dist"))
            fr = lines("#fr")
            assert any("picks · 7 ⊘" in line for line in fr), fr
        form = count_form([(0, 13, 17), (19, 29, 1)], 16)
        assert _fmt_rate("FR", 0, 0, 13, (0, 0.23), 17, form).split("\n")[1] == \
            "0/13 picks[dim] · 17⊘[/dim]"           # the walkthrough's box, one line

    run(go())


def test_help_fits_80x24_names_every_screens_keys_and_wraps_under_itself(isolated):
    async def go():
        app = make(isolated, autoload=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("question_mark")
            box = app.screen.query_one("#help-box")
            assert box.region.height <= 24
            w = app.screen.query_one("#help-text", Static)
            lines = [strip.text for strip in w.render_lines(w.region.reset_offset)]
            text = " ".join(" ".join(lines).split())
            assert "g suggest merges" in text and "Charts" in text and "enter open its run" in text
            sections = [where for where, _ in HELP]
            for line in lines:
                assert line.split()[0] in sections or line.startswith(" " * 8), line

    run(go())
