"""The app, driven with Textual's Pilot as a user would: author → save → run → merge →
history → compare, with a scripted backend; failures shown, never crashing."""

from __future__ import annotations

import asyncio
import shutil
import statistics
import time

import pytest
from textual import events
from textual.widgets import DataTable, Input, Static, TextArea

from conftest import FAMILIES
from probe import family as fam_mod
from probe.backends.fake import FakeBackend
from probe.errors import BadInput
from screens.app import HomeScreen, HelpScreen, make_app
from screens.editor import EditorScreen
from screens.history import HistoryScreen
from screens.answers import AnswersScreen
from screens.run_view import RunScreen


def answer_by_prompt(prompt: str) -> str:
    """Direct: always Monarch. Framed: Monarch for even scenarios, 'monarch butterfly' for
    multiples of 3, else Viceroy — so merges and table rows have something to show."""
    if prompt.startswith("Choose"):
        return "Monarch"
    n = int(prompt.split()[1].rstrip(":")) if prompt.startswith("Scenario") else 0
    return "Monarch" if n % 2 == 0 else "Viceroy"


def make(tmp_path, backend=None, **kw):
    backend = backend or FakeBackend(answer_by_prompt)
    return make_app(db_path=tmp_path / "probe.db",
                    backend_factory=lambda spec: (backend, "fake-model"), **kw)


async def wait_until(pilot, condition, timeout=10.0, message=lambda: ""):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"condition not met in time {message()}")


def run(coro):
    return asyncio.run(coro)


def test_home_lists_bundled_families_and_the_model(isolated):
    for f in FAMILIES.glob("*.toml"):
        shutil.copy(f, isolated / "families" / f.name)

    async def go():
        app = make(isolated)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            table = app.screen.query_one("#families", DataTable)
            names = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
            assert "butterfly" in names and len(names) == 6
            status = str(app.screen.query_one("#model-status", Static).render())
            assert "fake-model" in status and "ready" in status
            await pilot.press("question_mark")
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            assert isinstance(app.screen, HomeScreen)

    run(go())


def test_author_save_run_merge_history_compare(isolated):
    async def go():
        app = make(isolated)
        async with app.run_test(size=(110, 36)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            # --- author a family with five reframings, pasted at once
            await pilot.press("n")
            assert isinstance(app.screen, EditorScreen)
            ed = app.screen
            ed.query_one("#name", Input).value = "butterflies"
            await pilot.pause()
            assert "'direct' is empty" in str(ed.query_one("#validation", Static).render())
            ed.query_one("#direct", Input).value = "Choose a random popular butterfly."
            ed.query_one("#framings", TextArea).text = "\n".join(
                f"Scenario {i}: which butterfly for the card?" for i in range(5))
            await pilot.pause()
            assert "5 reframings" in str(ed.query_one("#framing-count", Static).render())
            assert "valid" in str(ed.query_one("#validation", Static).render())
            await pilot.press("ctrl+s")
            saved = fam_mod.load(isolated / "families" / "butterflies.toml")
            assert len(saved.framings) == 5
            await pilot.press("escape")
            assert isinstance(app.screen, HomeScreen)
            # --- run it with r
            table = app.screen.query_one("#families", DataTable)
            row = [str(table.get_row_at(i)[0]) for i in range(table.row_count)].index("butterflies")
            table.move_cursor(row=row)
            await pilot.press("r")
            assert isinstance(app.screen, RunScreen)
            rs = app.screen
            await wait_until(pilot, lambda: rs.state.startswith("finished"))
            await pilot.pause(0.3)
            assert rs.scored.scores.fr == pytest.approx(3 / 5)
            badge = str(rs.query_one("#badge", Static).render())
            assert "Deep" in badge
            original = app.store.result_versions(rs.run_id)[0]
            # --- merge Viceroy into Monarch: said before, confirmed, FR goes to 1
            await pilot.press("a")
            assert isinstance(app.screen, AnswersScreen)
            ans = app.screen
            t = ans.query_one("#answers", DataTable)
            keys = [t.coordinate_to_cell_key((i, 0)).row_key.value for i in range(t.row_count)]
            t.move_cursor(row=keys.index("Viceroy"))
            await pilot.press("space")
            assert t.cursor_row == keys.index("Viceroy")          # marking never moves
            t.move_cursor(row=keys.index("Monarch"))
            await pilot.pause()
            plan = str(ans.query_one("#answer-plan", Static).render())
            assert "merges Viceroy into Monarch" in plan
            await pilot.press("m")
            assert app.screen.__class__.__name__ == "Choice"
            assert "Merge Viceroy into Monarch" in str(app.screen.query_one("#question").render())
            await pilot.press("y")
            await pilot.pause()
            assert rs.scored.scores.fr == 1.0
            path = isolated / "families" / "butterflies.toml"
            assert "Viceroy" in fam_mod.load(path).answers["Monarch"]
            assert app.store.result(rs.run_id)["fr"] == 1.0          # latest: re-scored
            versions = app.store.result_versions(rs.run_id)
            assert [v["kind"] for v in versions] == ["sampled", "rescored"]
            assert versions[0] == original                           # as sampled, unchanged
            # --- split it back out: the file is as it was and loads
            t.move_cursor(row=t.get_row_index("Monarch"))
            await pilot.press("x")
            picker = app.screen
            await pilot.press(*["down"] * picker.forms.index("Viceroy"), "enter")
            await pilot.press("y")
            await pilot.pause()
            assert fam_mod.load(path).answers == saved.answers
            assert rs.scored.scores.fr == pytest.approx(3 / 5)
            assert app.store.result_versions(rs.run_id)[0] == original
            await pilot.press("escape", "escape")
            # --- a second run, then history and compare
            await pilot.press("r")
            rs2 = app.screen
            await wait_until(pilot, lambda: rs2.state.startswith("finished"))
            assert app.store.run(rs2.run_id).seed != app.store.run(rs.run_id).seed
            await pilot.press("escape", "h")
            assert isinstance(app.screen, HistoryScreen)
            runs = app.screen.query_one("#runs", DataTable)
            cols = app.screen.columns
            rows = [dict(zip(cols, map(str, runs.get_row_at(i))))
                    for i in range(runs.row_count)]
            assert len(rows) == 4            # run 2; run 1 as sampled and its two re-scores
            assert rows[1]["run"] == "1" and rows[1]["label"] == "Deep"
            assert rows[1]["π"] == "0.60"                 # the result as sampled
            assert "re-scored" in rows[2]["family"]
            assert rows[2]["model"] == "merge Viceroy into Monarch"
            assert rows[2]["π"] == "1.00" and rows[3]["π"] == "0.60"
            await pilot.press("space", "down", "space")
            assert runs.cursor_row == 1
            await pilot.press("c")
            text = str(app.screen.query_one("#compare", Static).render())
            assert "same top answer: yes" in text and "butterflies" in text
            await pilot.press("enter")
            assert isinstance(app.screen, RunScreen) and app.screen.read_only
            assert fam_mod.load(path).answers == saved.answers

    run(go())


def test_history_filter(isolated):
    async def go():
        app = make(isolated, autoload=False)
        fam = fam_mod.Family("moths", "Choose a random moth.", ["Scenario 1: which moth?"])
        from probe.runner import Runner, RunSettings

        backend = FakeBackend("Luna")
        backend.load()
        for name in ("moths", "bees"):
            fam.name = name
            r = Runner(app.store, backend)
            r.execute(r.create(fam, RunSettings(samples=2), "fake-model"))
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("h", "slash")
            for ch in "bee":
                await pilot.press(ch)
            runs = app.screen.query_one("#runs", DataTable)
            assert runs.row_count == 1 and str(runs.get_row_at(0)[2]) == "bees"

    run(go())


def test_leaving_the_editor_with_unsaved_changes_asks_first(isolated):
    async def go():
        app = make(isolated)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("n")
            app.screen.query_one("#direct", Input).value = "Choose a random moth."
            await pilot.press("escape")
            assert app.screen.__class__.__name__ == "ConfirmLeave"
            await pilot.press("n")
            assert isinstance(app.screen, EditorScreen)
            assert app.screen.query_one("#direct", Input).value == "Choose a random moth."
            await pilot.press("escape", "y")
            assert isinstance(app.screen, HomeScreen)

    run(go())


def test_a_model_that_fails_to_load_is_a_message_not_a_crash(isolated):
    async def go():
        backend = FakeBackend(load_error=BadInput("model file x.gguf does not exist."))
        app = make(isolated, backend=backend)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "failed")
            assert any("does not exist" in str(n.message) for n in app._notifications)
            shutil.copy(FAMILIES / "butterfly.toml", isolated / "families" / "butterfly.toml")
            app.screen.refresh_families()
            await pilot.press("r")
            assert isinstance(app.screen, HomeScreen)     # no run without a model

    run(go())


def test_a_run_that_fails_is_shown(isolated):
    shutil.copy(FAMILIES / "butterfly.toml", isolated / "families" / "butterfly.toml")

    async def go():
        app = make(isolated, backend=FakeBackend("Monarch", fail_after=3))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.state == "failed")
            assert any("scripted failure" in str(n.message) for n in app._notifications)

    run(go())


def test_stop_and_resume_keys(isolated):
    shutil.copy(FAMILIES / "butterfly.toml", isolated / "families" / "butterfly.toml")

    async def go():
        app = make(isolated, backend=FakeBackend("Monarch", delay=0.1))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.samples_done >= 5)
            await pilot.press("s")
            await wait_until(pilot, lambda: rs.state == "cancelled", message=lambda: rs.state)
            n = len(app.store.samples(rs.run_id))
            assert 5 <= n < 60
            await pilot.press("u")
            await wait_until(pilot, lambda: rs.state.startswith("finished"), timeout=20)
            assert len(app.store.samples(rs.run_id)) == 60
            # History's row is the finished result; the partial one is not a row of its own.
            await pilot.press("escape")
            await pilot.press("h")
            await pilot.pause(0.3)
            table = app.screen.query_one("#runs", DataTable)
            rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
            assert rows[0][table.columns and list(table.columns).index("samples")] == "60/60"
            assert len(rows) == 1 and not any("partial" in c for c in rows[0])
            assert not any("↳ resumed" in cell for row in rows for cell in row)

    run(go())


def test_keystrokes_are_handled_within_100ms_while_sampling(isolated):
    shutil.copy(FAMILIES / "butterfly.toml", isolated / "families" / "butterfly.toml")

    async def go():
        app = make(isolated, backend=FakeBackend("Monarch", delay=0.2))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.samples_done >= 3)
            latencies = []
            for _ in range(10):
                # Key event in, screen changed: what the user waits for. (Pilot.press also
                # waits for the whole app to go idle, which measures the test harness.)
                t = time.perf_counter()
                app.post_message(events.Key("question_mark", "?"))
                while not isinstance(app.screen, HelpScreen):
                    await asyncio.sleep(0.001)
                latencies.append(time.perf_counter() - t)
                await pilot.press("escape")
            assert rs.state == "running"          # it really was sampling throughout
            assert statistics.median(latencies) < 0.1, latencies
            assert max(latencies) < 0.5, latencies

    run(go())


def test_markup_in_answers_is_shown_as_text(isolated):
    # A canonical name that Rich would treat as markup (and "[/]" would crash it).
    fam = fam_mod.load(FAMILIES / "butterfly.toml")
    fam.answers = {"[/]Mon[bold]arch": ["Monarch"]}
    fam_mod.save(fam, isolated / "families" / "butterfly.toml")

    async def go():
        app = make(isolated, backend=FakeBackend("Monarch\x1b[31m\x07"))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.state.startswith("finished"))
            await pilot.pause(0.3)
            text = str(rs.query_one("#direct-dist", Static).render())
            assert "[/]Mon[bold]arch" in text and "\x1b" not in text and "\x07" not in text
            assert "[/]Mon[bold]arch" in str(rs.query_one("#pi", Static).render())
            await pilot.press("a")
            assert "[/]Mon[bold]arch" in str(app.screen.query_one("#answer-detail",
                                                                   Static).render())

    run(go())


def test_real_default_model_through_the_app(isolated):
    fam = fam_mod.Family("bird", "Choose a random bird.",
                         ["I'm painting a bird on a mug. Which bird should it be?",
                          "Our team needs a bird mascot. Which bird?",
                          "Which bird should my son draw for class?"])
    fam_mod.save(fam, isolated / "families" / "bird.toml")

    async def go():
        app = make_app(db_path=isolated / "probe.db")          # the real default model
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.model_state in ("ready", "failed"), 120)
            assert app.model_state == "ready", app.model_state
            assert app.model_display.startswith("gemma-3-270m")
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.state.startswith("finished"), 300)
            await pilot.pause(0.3)
            assert len(app.store.samples(rs.run_id)) == 33
            result = app.store.result(rs.run_id)
            assert result["label"] in ("deep", "shallow", "non_bias")
            assert result["n_direct"] + result["n_framed"] > 0
            assert "DR" in str(rs.query_one("#dr", Static).render())

    run(go())


def test_split_an_answer_back_out(isolated):
    fam = fam_mod.Family("b", "Choose a random popular butterfly.",
                         [f"Scenario {i}: which?" for i in range(4)],
                         {"Monarch": ["Viceroy"]})         # a wrong alias to undo
    fam_mod.save(fam, isolated / "families" / "b.toml")

    async def go():
        app = make(isolated)
        async with app.run_test(size=(110, 36)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.state.startswith("finished"))
            assert rs.scored.scores.fr == 1.0          # Viceroy counted as Monarch
            await pilot.press("a")
            t = app.screen.query_one("#answers", DataTable)
            assert "Viceroy" in str(app.screen.query_one("#answer-detail", Static).render())
            await pilot.press("x")
            assert app.screen.__class__.__name__ == "SplitPicker"
            forms = app.screen.forms
            await pilot.press(*["down"] * forms.index("Viceroy"), "enter", "y")
            await pilot.pause()
            assert rs.scored.scores.fr == 0.5
            saved = fam_mod.load(isolated / "families" / "b.toml")
            assert "Viceroy" in saved.answers and "Viceroy" not in saved.answers["Monarch"]
            assert t.row_count == 2

    run(go())


def test_drafting_offers_templates_without_a_chat_model_and_never_saves_by_itself(isolated):
    """Base model: ctrl+g drafts from templates at once. Chat model: the user picks
    templates or the model. Either way the drafts wait in a review box, unsaved."""
    drafts = "\n".join(f"{i}. I'm planning a picnic; which butterfly should I look for #{i}?"
                       for i in range(1, 4))

    async def go(chat: bool, pick: str | None):
        backend = FakeBackend(drafts, chat=chat)
        app = make(isolated, backend=backend)
        async with app.run_test(size=(110, 36)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("n")
            ed = app.screen
            ed.query_one("#name", Input).value = "quick"
            ed.query_one("#direct", Input).value = "Choose a random popular butterfly."
            await pilot.press("ctrl+g")
            if chat:
                await wait_until(pilot, lambda: app.screen.__class__.__name__ == "Choice")
                await pilot.press(pick)
            # The first draft loads the word lists in a worker: seconds on a busy CPU.
            await wait_until(pilot, lambda: app.screen.__class__.__name__ == "DraftReview",
                             timeout=60)
            lines = app.screen.query_one("#drafts", TextArea).text.splitlines()
            if pick == "m":
                assert lines[0].startswith("I'm planning a picnic")
            else:
                assert len(lines) == 30
                assert all(("popular butterfly" in ln or "popular butterflies" in ln)
                           and ln.endswith("?") for ln in lines)
            await pilot.press("ctrl+s")
            assert ed.query_one("#framings", TextArea).text.splitlines() == lines
            assert not list((isolated / "families").glob("*.toml"))   # not saved yet
            built = ed.build()
            if pick == "m":
                assert built.drafted is None
            else:
                assert built.drafted.templates and all(built.drafted.templates)
                assert built.drafted.category == "popular butterfly"
            await pilot.press("ctrl+s")
            saved = fam_mod.load(isolated / "families" / "quick.toml")
            assert (saved.drafted is None) == (pick == "m")

    run(go(chat=False, pick=None))
    (isolated / "families" / "quick.toml").unlink()
    run(go(chat=True, pick="t"))
    (isolated / "families" / "quick.toml").unlink()
    run(go(chat=True, pick="m"))


def test_editor_drafting_asks_for_the_category_it_cannot_read(isolated):
    async def go():
        app = make(isolated, backend=FakeBackend("x"))
        async with app.run_test(size=(110, 36)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("n")
            ed = app.screen
            ed.query_one("#direct", Input).value = "Why do people like this?"
            await pilot.press("ctrl+g")
            await wait_until(pilot, lambda: app.screen.__class__.__name__ == "AskCategory",
                             timeout=60)
            assert "what kind of answer" in str(
                app.screen.query_one("#question", Static).render())
            await pilot.press(*"board game", "enter")
            await wait_until(pilot, lambda: app.screen.__class__.__name__ == "DraftReview",
                             timeout=60)
            lines = app.screen.query_one("#drafts", TextArea).text.splitlines()
            assert len(lines) == 30 and all("board game" in ln for ln in lines)
            assert app.screen.query_one("#drafts", TextArea).text.count("Why do people") == 0

    run(go())


def test_editor_warns_of_a_framing_that_repeats_the_direct_question(isolated):
    async def go():
        app = make(isolated, backend=FakeBackend("x"))
        async with app.run_test(size=(110, 36)) as pilot:
            await pilot.press("n")
            ed = app.screen
            ed.query_one("#direct", Input).value = "Pick a number between 1 and 100."
            ed.query_one("#framings", TextArea).text = (
                "For a raffle: pick a number between 1 and 100! Which?\n"
                "My locker code needs a number from 1 to 100. Which number?")
            await pilot.pause()
            count = str(ed.query_one("#framing-count", Static).render())
            assert "1 contains the direct question word for word" in count

    run(go())


def test_quick_family_goes_from_a_question_to_a_run(isolated):
    """Home's f: type the question, see the category it found, enter → the family is drafted,
    saved beside the others and run."""
    async def go():
        app = make(isolated, backend=FakeBackend("Monarch"))
        async with app.run_test(size=(110, 36)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("f")
            await wait_until(pilot, lambda: app.screen.__class__.__name__ == "QuickFamily")
            await pilot.press(*"Why is it so?")
            found = app.screen.query_one("#quick-found", Static)
            await wait_until(pilot, lambda: "What kind of answer" in str(found.render()),
                             timeout=60)
            await pilot.press("enter")
            category = app.screen.query_one("#quick-category", Input)
            await wait_until(pilot, lambda: category.display and category.has_focus)
            question = app.screen.query_one("#quick-question", Input)
            question.value = ""
            question.focus()
            await pilot.press(*"Choose a random popular butterfly.")
            await wait_until(pilot, lambda: "popular butterfly" in str(found.render()))
            category.value = ""
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, RunScreen), timeout=20)
            await wait_until(pilot, lambda: app.screen.state.startswith("finished"),
                             timeout=30)
            saved = fam_mod.load(isolated / "families" / "popular-butterfly.toml")
            assert len(saved.framings) == 30 and saved.drafted is not None
            assert app.screen.family.framings == saved.framings

    run(go())


def test_charts_and_palette(isolated):
    from screens.charts import ChartsScreen

    fam = fam_mod.Family("b", "Choose a random popular butterfly.",
                         [f"Scenario {i}: which?" for i in range(4)])
    fam_mod.save(fam, isolated / "families" / "b.toml")

    async def go():
        app = make(isolated)
        async with app.run_test(size=(110, 36)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            commands = [c.title for c in app.get_system_commands(app.screen)]
            assert {"Run", "New", "Edit", "History", "Model", "Charts"} <= set(commands)
            await pilot.press("r")
            await wait_until(pilot, lambda: app.screen.state.startswith("finished"))
            await pilot.press("escape", "g")
            assert isinstance(app.screen, ChartsScreen)
            text = str(app.screen.query_one("#charts-status", Static).render())
            assert "1 family" in text and "100%" in text

    run(go())


def test_model_picker_quick_check_key_and_reordering(isolated):
    shutil.copy(FAMILIES / "butterfly.toml", isolated / "families" / "butterfly.toml")
    loads = []

    def factory(spec):
        loads.append(spec)
        return FakeBackend("Monarch", delay=0.05), f"fake-{len(loads)}"

    async def go():
        app = make_app(db_path=isolated / "probe.db", backend_factory=factory)
        async with app.run_test(size=(110, 36)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("m")
            assert app.screen.__class__.__name__ == "ModelPicker"
            assert app.screen.models[0]["spec"] == "default"
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.model_display == "fake-2")
            assert loads == ["", ""]
            # quick check on: a clear family stops well before 60 samples
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.runner is not None)
            await pilot.press("k")
            await wait_until(pilot, lambda: rs.state.startswith("finished"))
            assert "quick check settled" in rs.state
            assert len(app.store.samples(rs.run_id)) < 60
            await pilot.press("escape", "e")
            area = app.screen.query_one("#framings", TextArea)
            first, second = area.text.splitlines()[:2]
            area.move_cursor((0, 0))
            await pilot.press("alt+down")
            assert area.text.splitlines()[:2] == [second, first]
            assert "(unsaved)" in str(app.screen.query_one("#validation", Static).render())

    run(go())


def test_a_merge_keeps_edits_made_to_the_family_file_meanwhile(isolated):
    path = isolated / "families" / "b.toml"
    fam_mod.save(fam_mod.Family("b", "Choose a random popular butterfly.",
                                [f"Scenario {i}: which?" for i in range(4)]), path)

    async def go():
        app = make(isolated)
        async with app.run_test(size=(110, 36)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.state.startswith("finished"))
            # Meanwhile the user adds a reframing in their editor.
            edited = fam_mod.load(path)
            edited.framings.append("Scenario 9: a new one?")
            fam_mod.save(edited, path)
            await pilot.press("a")
            t = app.screen.query_one("#answers", DataTable)
            keys = [t.coordinate_to_cell_key((i, 0)).row_key.value for i in range(t.row_count)]
            t.move_cursor(row=keys.index("Viceroy"))
            await pilot.press("space")
            t.move_cursor(row=keys.index("Monarch"))
            await pilot.press("m", "y")
            await pilot.pause()
            saved = fam_mod.load(path)
            assert "Scenario 9: a new one?" in saved.framings
            assert "Viceroy" in saved.answers["Monarch"]
            assert rs.scored.scores.fr == 1.0

    run(go())


def test_a_past_run_opens_with_its_own_sample_count_and_thresholds(isolated):
    from probe.runner import Runner, RunSettings

    async def go():
        app = make(isolated, autoload=False)
        fam = fam_mod.Family("b", "Choose a random popular butterfly.",
                             [f"Scenario {i}: which?" for i in range(4)])
        backend = FakeBackend(answer_by_prompt)
        backend.load()
        r = Runner(app.store, backend)
        # DR 1.0, FR 0.5 → π 0.5: Deep by default, Shallow with --pi-threshold 0.6
        r.execute(r.create(fam, RunSettings(samples=5, pi_threshold=0.6), "fake-model"))
        async with app.run_test(size=(110, 36)) as pilot:
            app.open_run(fam, run_id=1, read_only=True)
            await pilot.pause(0.3)
            rs = app.screen
            assert "9/9 samples" in str(rs.query_one("#run-title", Static).render())
            assert rs.scored.scores.label == "shallow"

    run(go())


def test_the_run_view_shows_non_picks_and_never_crowns_an_echo(isolated):
    """The default model's butterfly run used to read "Shallow, top: Butterfly ⊘"."""
    shutil.copy(FAMILIES / "butterfly.toml", isolated / "families" / "butterfly.toml")
    count = {"direct": 0}

    def echo_mostly(prompt: str) -> str:
        if prompt.startswith("Choose"):
            count["direct"] += 1
            return "Butterfly" if count["direct"] % 3 else "Monarch"
        return "Butterfly" if "card" in prompt else "Monarch"

    async def go():
        app = make(isolated, backend=FakeBackend(echo_mostly))
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.state.startswith("finished"), timeout=30)
            await pilot.pause(0.3)
            s = rs.scored.scores
            assert s.top_answer == "Monarch" and s.dr == 1.0
            assert s.n_direct == 10 and s.direct_nonpicks == 20
            pi = str(rs.query_one("#pi", Static).render())
            assert "top: Monarch" in pi
            dr = str(rs.query_one("#dr", Static).render())
            assert "10 of 10 picks" in dr and "20 ⊘" in dr
            note = " ".join(str(w.render()) for w in rs.query(Static))
            assert "verdict rests on 10 of 30 direct answers" in note

    run(go())


def test_answers_screen_suggests_merges_with_their_cosine(isolated):
    """The embedding model only suggests; a suggestion becomes a merge through m and its
    confirmation, like any other."""
    fam = fam_mod.Family("v", "Choose a random object.", [f"Scenario {i}: which?" for i in range(4)])
    fam_mod.save(fam, isolated / "families" / "v.toml")

    def reply(prompt: str) -> str:
        return "Car" if prompt.startswith("Choose") or "0" in prompt else (
            "Automobile" if "1" in prompt else "Sofa")

    async def go():
        app = make(isolated, backend=FakeBackend(reply))
        async with app.run_test(size=(110, 40)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.state.startswith("finished"))
            await pilot.press("a")
            screen = app.screen
            await pilot.press("g")
            await wait_until(pilot, lambda: screen.suggestions is not None, timeout=60)
            assert [(a, b) for a, b, _ in screen.suggestions] == [("Car", "Automobile")]
            text = str(screen.query_one("#answer-suggest", Static).render())
            assert "Car ↔ Automobile" in text and "0.8" in text
            assert rs.scored.scores.fr == 0.25          # nothing merged by suggesting
            await pilot.press("g")                        # marks the pair for m
            assert screen.marked == {"Car"} and screen.selected() == "Automobile"

    run(go())


def test_a_form_that_is_the_same_word_cannot_be_split(isolated):
    """Splitting "Rubies" out of Ruby used to rename the answer and write `"Rubies" = []`."""
    fam = fam_mod.Family("g", "Choose a random gemstone.", [f"Scenario {i}: which?" for i in range(4)])
    fam_mod.save(fam, isolated / "families" / "g.toml")
    before = (isolated / "families" / "g.toml").read_bytes()

    async def go():
        app = make(isolated, backend=FakeBackend(
            lambda p: "Rubies" if "1" in p else "Ruby"))
        async with app.run_test(size=(110, 36)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.state.startswith("finished"))
            await pilot.press("a")
            await pilot.press("x")
            assert app.screen.__class__.__name__ == "AnswersScreen"    # no picker offered
            assert any("same word to the matcher" in str(n.message) for n in app._notifications)
            assert (isolated / "families" / "g.toml").read_bytes() == before

    run(go())
