"""A folder of family files as the app's Home shows it: read once, then only the files that
changed, and watched without rescanning.

Parsing thousands of TOML files takes seconds, so a file is parsed again only when its
size, time or inode changed. Whether anything changed at all is asked of the kernel
(inotify, one non-blocking read) where there is one; elsewhere the folder's own time
(files added, removed or renamed: an atomic save is a rename) and a few of its files'
times per look (an edit in place) answer it, so an idle Home costs next to nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from pathlib import Path
from typing import Callable

from probe.errors import BadInput
from probe.family import Family, load

_IN_NONBLOCK = os.O_NONBLOCK
_IN_CLOEXEC = os.O_CLOEXEC
# Modify, attrib, close-write, moved from/to, create, delete, delete-self, move-self.
_IN_EVENTS = 0x2 | 0x4 | 0x8 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800
_STAT_SLICE = 64          # files stat-ed per look without inotify


def _libc():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        libc.inotify_init1  # noqa: B018 - raises AttributeError where there is none
        return libc
    except (OSError, AttributeError):
        return None


class FolderWatch:
    """``changed()``: has anything in the folder changed since the last call?"""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._fd: int | None = None
        self._dir_time: int | None = None
        self._identity: tuple | None = None
        self._times: dict[str, int] = {}
        self._turn = 0
        self._libc = _libc()
        self._start()

    def _start(self) -> None:
        self._close_fd()
        self._dir_time = self._folder_time()
        self._identity = self._folder_identity()
        if self._libc is None or self._dir_time is None:
            self._times = self._stamps(self._names())     # the baseline edits are seen against
            return
        fd = self._libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            return
        if self._libc.inotify_add_watch(fd, os.fsencode(self.folder), _IN_EVENTS) < 0:
            os.close(fd)
            return
        self._fd = fd

    def _folder_identity(self) -> tuple | None:
        try:
            st = os.stat(self.folder)
        except OSError:
            return None
        return st.st_dev, st.st_ino

    def _folder_time(self) -> int | None:
        try:
            st = os.stat(self.folder)
        except OSError:
            return None
        return st.st_mtime_ns ^ st.st_ino

    def changed(self) -> bool:
        if self._fd is not None:
            events = self._drain()
            if self._folder_identity() != self._identity:
                self._start()          # the folder itself was replaced or removed
                return True
            return events
        now = self._folder_time()
        if now != self._dir_time:
            self._start()
            return True
        return self._slice_changed()

    def _drain(self) -> bool:
        seen = False
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return seen
            except OSError:
                self._start()
                return True
            if not data:
                return seen
            seen = True

    def _names(self) -> list[str]:
        try:
            return sorted(n for n in os.listdir(self.folder) if n.endswith(".toml"))
        except OSError:
            return []

    def _stamps(self, names: list[str]) -> dict[str, int]:
        out = {}
        for name in names:
            try:
                st = os.stat(self.folder / name)
            except OSError:
                continue
            out[name] = st.st_mtime_ns ^ st.st_size ^ st.st_ino
        return out

    def _slice_changed(self) -> bool:
        """Without inotify: a few files' times per look, round the folder in turn."""
        names = self._names()
        if not names:
            return False
        start = self._turn % len(names)
        part = (names + names)[start:start + min(_STAT_SLICE, len(names))]
        self._turn += _STAT_SLICE
        now = self._stamps(part)
        changed = any(self._times.get(name) != stamp for name, stamp in now.items())
        self._times.update(now)
        return changed

    def _close_fd(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def close(self) -> None:
        self._close_fd()

    def __del__(self) -> None:
        # An inotify instance is a scarce per-user resource (128 by default): a watch that
        # is dropped gives its instance back even when nobody called close().
        try:
            self._close_fd()
        except OSError:
            pass


class FamilyFolder:
    """Every ``*.toml`` in a folder, loaded, or the error that stopped it; a file is
    parsed again only when it changed on disk. The families are kept between scans:
    what shows them must not change them (a run or an edit loads its file afresh)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._known: dict[Path, tuple[tuple, Family | BadInput]] = {}
        self.read_once = False
        self._last: list[tuple[Path, Family | BadInput]] = []
        self.watch = FolderWatch(self.folder)

    def paths(self) -> list[Path]:
        return sorted(self.folder.glob("*.toml")) if self.folder.is_dir() else []

    def scan(self, progress: Callable[[int, int], None] | None = None
             ) -> list[tuple[Path, Family | BadInput]]:
        paths = self.paths()
        out: list[tuple[Path, Family | BadInput]] = []
        known: dict[Path, tuple[tuple, Family | BadInput]] = {}
        for n, path in enumerate(paths):
            try:
                st = path.stat()
                stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
            except OSError:
                stamp = ()
            held = self._known.get(path)
            if held is not None and held[0] == stamp and stamp:
                result = held[1]
            else:
                try:
                    result = load(path)
                except BadInput as exc:
                    result = exc
            known[path] = (stamp, result)
            out.append((path, result))
            if progress and n % 250 == 249:
                progress(n + 1, len(paths))
        self._known = known
        self.read_once = True
        self._last = out
        return out

    def current(self) -> list[tuple[Path, Family | BadInput]]:
        """The families as they are now: the last scan again when nothing in the folder
        changed since (asked of the watch), else a scan of what did."""
        if self.read_once and not self.watch.changed():
            return list(self._last)
        return self.scan()

    def changed(self) -> bool:
        return self.watch.changed()

    def close(self) -> None:
        self.watch.close()
