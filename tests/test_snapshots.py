"""Snapshot tests of the main screens (pytest-textual-snapshot) at 80×24 and 160×45. The
SVGs live in tests/__snapshots__/; regenerate with
`pytest tests/test_snapshots.py --snapshot-update` after checking the change by eye."""

from __future__ import annotations

import shutil

import pytest

from conftest import FAMILIES
from probe.backends.fake import FakeBackend
from probe.runner import RunSettings
from screens.app import make_app
from test_app import wait_until

SIZES = {"80x24": (80, 24), "160x45": (160, 45)}


def app_with_families(isolated, names=("butterfly", "number", "tea")):
    for name in names:
        shutil.copy(FAMILIES / f"{name}.toml", isolated / "families" / f"{name}.toml")
    backend = FakeBackend(lambda p: "Monarch" if p.startswith("Choose") else
                          ("Monarch" if len(p) % 3 else "Blue Morpho"))
    app = make_app(db_path=isolated / "probe.db",
                   backend_factory=lambda spec: (backend, "fake-model"))
    app.run_settings = RunSettings(seed=7)     # a fixed seed: the same picture every time
    return app


async def ready(pilot):
    await wait_until(pilot, lambda: pilot.app.model_state == "ready")
    pilot.app.clear_notifications()
    await pilot.pause()


async def finished_run(pilot):
    await ready(pilot)
    await pilot.press("r")
    await wait_until(pilot, lambda: pilot.app.screen.state.startswith("finished"))
    await pilot.pause(0.4)


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    """Dates on screen would change every minute; the picture must not."""
    import screens.history
    import screens.run_display

    for module in (screens.history, screens.run_display):
        monkeypatch.setattr(module, "when", lambda t: "2026-01-01 12:00")


@pytest.fixture(params=list(SIZES))
def size(request):
    return SIZES[request.param]


def test_home_screen(snap_compare, isolated, size):
    assert snap_compare(app_with_families(isolated), terminal_size=size, run_before=ready)


def test_run_screen_finished(snap_compare, isolated, size):
    app = app_with_families(isolated, ("butterfly",))
    assert snap_compare(app, terminal_size=size, run_before=finished_run)


def test_editor_screen(snap_compare, isolated, size):
    async def editing(pilot):
        await ready(pilot)
        await pilot.press("e")
        from textual.widgets import TextArea

        for area in pilot.app.screen.query(TextArea):
            area.cursor_blink = False          # a blinking cursor makes the picture flaky
        await pilot.pause(0.3)

    assert snap_compare(app_with_families(isolated, ("tea",)), terminal_size=size,
                        run_before=editing)


def test_answers_screen(snap_compare, isolated, size):
    async def answers(pilot):
        await finished_run(pilot)
        await pilot.press("a", "space", "down")
        await pilot.pause(0.2)

    assert snap_compare(app_with_families(isolated, ("butterfly",)), terminal_size=size,
                        run_before=answers)


def test_history_screen(snap_compare, isolated, size):
    async def history(pilot):
        await finished_run(pilot)
        await pilot.press("escape", "h")
        await pilot.pause(0.2)

    assert snap_compare(app_with_families(isolated, ("butterfly",)), terminal_size=size,
                        run_before=history)


def test_settings_dialog(snap_compare, isolated, size):
    async def settings(pilot):
        await ready(pilot)
        await pilot.press("s")
        await pilot.pause(0.2)

    assert snap_compare(app_with_families(isolated, ("tea",)), terminal_size=size,
                        run_before=settings)


def test_help_screen_in_80x24(snap_compare, isolated):
    async def help_open(pilot):
        await ready(pilot)
        await pilot.press("question_mark")

    assert snap_compare(app_with_families(isolated, ("tea",)), terminal_size=(80, 24),
                        run_before=help_open)
