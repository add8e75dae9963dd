"""Hostile text on every screen: a database and a family whose every field holds terminal
escapes (OSC title and OSC 52 clipboard writes, ESC, BEL, C1), bidi overrides and
zero-width characters. Every screen and dialog is opened with the Pilot, and what it
draws must hold none of them: the app draws every line through the terminal-safe filter.
"""

from __future__ import annotations

import asyncio
import re
import time

from textual.widgets import DataTable

from probe import family as fam_mod
from probe.backends.fake import FakeBackend
from probe.errors import BadInput
from probe.runner import Runner, RunSettings
from screens.app import make_app

OSC_TITLE = "\x1b]0;pwned\x07"
OSC_CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"
HOSTILE = [OSC_TITLE, OSC_CLIPBOARD, "\x1b[2J\x07", "\u202eevil", "zero\u200bwidth\u200d\ufeff",
           "\x9b31mred", "line\u2028break", "\x1bP+q\x1b\\"]
# What must never reach the terminal: C0 (newline and tab aside), DEL, C1, bidi and
# format characters. (The screenshot is SVG, whose own markup holds newlines.)
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e"
                 "\u2060-\u2069\ufeff]")
MARKS = ("␛", "␇", "�")


def evil(i: int) -> str:
    return HOSTILE[i % len(HOSTILE)]


def hostile_family() -> fam_mod.Family:
    return fam_mod.Family(
        "evil", f"Choose a random {evil(0)} butterfly {evil(3)}.",
        [f"Scenario {i}: which one {evil(i)}?" for i in range(6)],
        {f"Mon{evil(1)}arch": [f"mon{evil(4)}arch"], f"Vice{evil(2)}roy": []})


def answer(prompt: str) -> str:
    n = sum(map(ord, prompt)) % len(HOSTILE)
    return f"Mon{evil(1)}arch" if n % 2 else f"{evil(n)} Viceroy {evil(n + 1)}"


def fill_database(store, isolated):
    """Runs whose family, model, answers, notes and errors are all hostile, as a planted
    or damaged database could hold them (the command line refuses such a model name)."""
    fam = hostile_family()
    fam_mod.save(fam, isolated / "families" / "evil.toml")
    backend = FakeBackend(answer)
    backend.load()
    model = f"model {evil(0)}{evil(3)}"
    runner = Runner(store, backend)
    first = runner.create(fam, RunSettings(samples=4), model)
    runner.execute(first)
    second = Runner(store, backend).create(fam, RunSettings(samples=4), f"other {evil(1)}")
    Runner(store, backend).execute(second)
    scores = store.result(first)
    from probe.scoring import rescore
    from probe.scoring import Response

    rescored = rescore(fam, [Response(s.kind, s.idx, s.response) for s in store.samples(first)])
    store.save_result(first, rescored.scores, kind="rescored", note=f"merge {evil(5)}",
                      family=fam)
    failed = Runner(store, backend).create(fam, RunSettings(samples=2), model)
    store.set_status(failed, "failed", f"template said {OSC_CLIPBOARD} {evil(3)}")
    # A family stored under a name no family file could have.
    with store._write() as db:
        db.execute("UPDATE families SET name = ? WHERE id = (SELECT family_id FROM runs "
                   "WHERE id = ?)", [f"planted {evil(0)}", second])
        db.execute("UPDATE runs SET family_name = ? WHERE id = ?", [f"planted {evil(0)}", second])
    assert scores is not None
    return first, second


async def wait_until(pilot, condition, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("condition not met in time")


class Drawn:
    """What each screen drew, checked for raw characters; marks prove the hostile text
    was on screen rather than left out."""

    def __init__(self, app):
        self.app = app
        self.marked: list[str] = []

    async def check(self, pilot, where: str) -> None:
        await pilot.pause(0.2)
        svg = self.app.export_screenshot()
        found = RAW.findall(svg)
        assert not found, f"{where}: raw {sorted(set(map(hex, map(ord, found))))} drawn"
        if any(mark in svg for mark in MARKS):
            self.marked.append(where)


def test_no_screen_draws_a_raw_control_or_bidi_character(isolated):
    models = isolated / "models"
    models.mkdir()
    (models / f"x{OSC_TITLE}{evil(3)}.gguf").write_bytes(b"GGUF" + bytes(64))
    # A family file whose name and contents are hostile and do not load: its error row.
    (isolated / "families" / f"bad{OSC_CLIPBOARD}.toml").write_text(
        f'direct = "x"\nframings = ["a", "a"]\n', encoding="utf-8")
    backend = FakeBackend(answer, delay=0.01)
    app = make_app(db_path=isolated / "probe.db",
                   backend_factory=lambda spec: (backend, f"live {evil(0)}"))
    first, second = fill_database(app.store, isolated)

    async def go():
        async with app.run_test(size=(150, 45)) as pilot:
            drawn = Drawn(app)
            await wait_until(pilot, lambda: app.model_state == "ready")
            await drawn.check(pilot, "home")
            table = app.screen.query_one("#families", DataTable)
            for row in range(table.row_count):      # each row's hint, the error row's too
                table.move_cursor(row=row)
                await drawn.check(pilot, f"home row {row}")
            table.move_cursor(row=[str(table.get_row_at(i)[0])
                                   for i in range(table.row_count)].index("evil"))
            await pilot.press("s")
            await drawn.check(pilot, "settings dialog")
            await pilot.press("escape")
            # --- a live run of the hostile family, its answers and a merge dialog
            await pilot.press("r")
            run_screen = app.screen
            await wait_until(pilot, lambda: run_screen.state.startswith("finished"))
            await drawn.check(pilot, "run view")
            await pilot.press("enter")
            await drawn.check(pilot, "reframing detail")
            await pilot.press("escape", "a")
            await drawn.check(pilot, "answers")
            await pilot.press("space", "down", "m")
            await drawn.check(pilot, "merge dialog")
            await pilot.press("escape", "escape", "escape")
            # --- history, a past run, its reframing detail, compare
            await pilot.press("h")
            await drawn.check(pilot, "history")
            runs = app.screen.query_one("#runs", DataTable)
            for row in range(runs.row_count):
                runs.move_cursor(row=row)
            runs.move_cursor(row=0)
            await pilot.press("space", "down", "space", "c")
            await drawn.check(pilot, "history compare")
            keys = [runs.coordinate_to_cell_key((i, 0)).row_key.value
                    for i in range(runs.row_count)]
            runs.move_cursor(row=keys.index(str(first)))
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.screen.__class__.__name__ == "RunScreen")
            await drawn.check(pilot, "past run")
            await pilot.press("enter")
            await drawn.check(pilot, "past reframing detail")
            await pilot.press("escape", "escape", "escape")
            # --- charts, the editor, the model picker
            await pilot.press("g")
            await drawn.check(pilot, "charts")
            await pilot.press("m")
            await drawn.check(pilot, "charts, one model")
            await pilot.press("escape", "e")
            await drawn.check(pilot, "editor")
            await pilot.press("escape")
            if app.screen.__class__.__name__ == "Choice":
                await pilot.press("escape")
            await pilot.press("m")
            await drawn.check(pilot, "model picker")
            await pilot.press("escape")
            # --- a model that fails to load with a hostile message: the notification
            app.backend_factory = lambda spec: (_ for _ in ()).throw(
                BadInput(f"cannot load {OSC_TITLE}{evil(3)}"))
            app.load_model(f"bad {evil(0)}")
            await wait_until(pilot, lambda: app.model_state == "failed")
            await drawn.check(pilot, "load failure")
            await pilot.press("q")
            for screen in ("home", "run view", "history", "past run", "charts",
                           "editor", "model picker", "load failure"):
                assert screen in drawn.marked, f"the hostile text never showed on {screen}"

    asyncio.run(go())
