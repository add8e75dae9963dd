"""Home with thousands of family files: drawn before they are read, filled when they are,
idle without rescanning, and a change is picked up by reading only what changed."""

from __future__ import annotations

import asyncio
import os
import threading
import time

import pytest
from textual.widgets import DataTable, Static

import probe.family_folder as folder_mod
from probe.backends.fake import FakeBackend
from probe.family_folder import FamilyFolder, FolderWatch
from screens.app import make_app

TINY = 'direct = "Choose a random {n}."\nframings = ["Which {n} for the card?"]\n'


def write_families(folder, count: int) -> None:
    for i in range(count):
        (folder / f"f{i:04d}.toml").write_text(TINY.format(n=f"thing {i}"), encoding="utf-8")


def test_home_with_5000_family_files_is_drawn_at_once_and_idles_without_rescanning(
        isolated, monkeypatch):
    families = isolated / "families"
    write_families(families, 5000)
    parsed: list[str] = []
    scans: list[float] = []
    real_load, real_scan = folder_mod.load, FamilyFolder.scan
    # The reader is held at its first file until the screen has been looked at, so "drawn
    # before the files are read" does not depend on how fast this machine reads them.
    release = threading.Event()

    def counting_load(path):
        release.wait(60)
        parsed.append(os.path.basename(path))
        return real_load(path)

    def counting_scan(self, *args, **kwargs):
        scans.append(time.monotonic())
        return real_scan(self, *args, **kwargs)

    monkeypatch.setattr(folder_mod, "load", counting_load)
    monkeypatch.setattr(FamilyFolder, "scan", counting_scan)
    app = make_app(db_path=isolated / "probe.db", autoload=False,
                   backend_factory=lambda spec: (FakeBackend(), "fake"))

    async def go():
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            home = app.screen
            table = home.query_one("#families", DataTable)
            # Drawn before the files are read: the reading is said, not waited for.
            assert len(parsed) < 5000
            assert "Reading family files" in str(home.query_one("#home-hint", Static).render())
            release.set()
            end = time.monotonic() + 120
            while table.row_count < 5000 and time.monotonic() < end:
                await pilot.pause(0.1)
            assert table.row_count == 5000 and len(parsed) == 5000
            # Idle: several polls later, nothing was scanned or parsed again.
            settled = len(scans)
            await pilot.pause(5)
            assert len(scans) == settled and len(parsed) == 5000
            # Back from another screen: the table stays as it is, nothing is reread.
            await pilot.press("question_mark")
            await pilot.press("escape")
            assert len(parsed) == 5000
            # One file changed in place: picked up by reading that file alone.
            (families / "f0042.toml").write_text(TINY.format(n="changed thing"),
                                                 encoding="utf-8")
            end = time.monotonic() + 10
            while len(parsed) == 5000 and time.monotonic() < end:
                await pilot.pause(0.2)
            await pilot.pause(0.3)
            assert parsed[5000:] == ["f0042.toml"]
            row = table.get_row(str(families / "f0042.toml"))
            assert "changed thing" in str(row[2])

    asyncio.run(go())


@pytest.mark.parametrize("inotify", [True, False])
def test_the_watch_sees_files_added_removed_renamed_and_edited(tmp_path, monkeypatch,
                                                              inotify):
    if not inotify:
        monkeypatch.setattr(folder_mod, "_libc", lambda: None)
    write_families(tmp_path, 3)
    watch = FolderWatch(tmp_path)
    assert (watch._fd is not None) == inotify or not inotify
    assert not watch.changed()

    def sees(change) -> bool:
        change()
        if not inotify:
            time.sleep(0.01)        # a new mtime, however coarse the clock
        return any(watch.changed() for _ in range(3)) and not watch.changed()

    assert sees(lambda: (tmp_path / "new.toml").write_text(TINY.format(n="new")))
    assert sees(lambda: (tmp_path / "f0000.toml").unlink())
    assert sees(lambda: os.replace(tmp_path / "new.toml", tmp_path / "f0000.toml"))
    with open(tmp_path / "f0001.toml", "a", encoding="utf-8") as fh:
        assert sees(lambda: (fh.write("# an edit in place\n"), fh.flush()))
    watch.close()


def test_a_dropped_watch_gives_its_inotify_instance_back(tmp_path):
    # An inotify instance is limited per user (128 by default); a Home that leaked one per
    # app left later watches polling instead of watching.
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(200):
        watch = FolderWatch(tmp_path)
        del watch
    assert len(os.listdir("/proc/self/fd")) <= before + 1
    home_folder = FamilyFolder(tmp_path)
    home_folder.close()
    assert home_folder.watch._fd is None
