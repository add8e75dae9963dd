"""Snapshot tests of the main screens (pytest-textual-snapshot). The SVGs live in
tests/__snapshots__/; regenerate with `pytest tests/test_snapshots.py --snapshot-update`
after checking the change by eye."""

from __future__ import annotations

import shutil

from conftest import FAMILIES
from probe.backends.fake import FakeBackend
from screens.app import make_app
from test_app import wait_until

SIZE = (100, 32)


def app_with_families(isolated, names=("butterfly", "number", "tea")):
    for name in names:
        shutil.copy(FAMILIES / f"{name}.toml", isolated / "families" / f"{name}.toml")
    backend = FakeBackend(lambda p: "Monarch" if p.startswith("Choose") else
                          ("Monarch" if len(p) % 3 else "Blue Morpho"))
    return make_app(db_path=isolated / "probe.db",
                    backend_factory=lambda spec: (backend, "fake-model"))


def test_home_screen(snap_compare, isolated):
    app = app_with_families(isolated)

    async def ready(pilot):
        await wait_until(pilot, lambda: app.model_state == "ready")
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_run_screen_finished(snap_compare, isolated):
    app = app_with_families(isolated, ("butterfly",))

    async def finished(pilot):
        await wait_until(pilot, lambda: app.model_state == "ready")
        app.clear_notifications()
        await pilot.press("r")
        await wait_until(pilot, lambda: app.screen.state.startswith("finished"))
        await pilot.pause(0.4)

    assert snap_compare(app, terminal_size=SIZE, run_before=finished)


def test_editor_screen(snap_compare, isolated):
    app = app_with_families(isolated, ("tea",))

    async def editing(pilot):
        await wait_until(pilot, lambda: app.model_state == "ready")
        app.clear_notifications()
        await pilot.press("e")
        await pilot.pause(0.2)

    assert snap_compare(app, terminal_size=SIZE, run_before=editing)


def test_help_screen_in_80x24(snap_compare, isolated):
    app = app_with_families(isolated, ("tea",))

    async def help_open(pilot):
        await wait_until(pilot, lambda: app.model_state == "ready")
        app.clear_notifications()
        await pilot.press("question_mark")

    assert snap_compare(app, terminal_size=(80, 24), run_before=help_open)
