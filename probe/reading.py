"""Reading user files safely: regular files only (never a FIFO, a device or /dev/zero),
checked before the first byte is read, with a size cap; text as UTF-8 with an optional
BOM; values echoed in error messages cut to a readable length."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from probe.errors import BadInput
from probe.limits import MAX_KEY_ECHO_CHARS
from probe.paths import loop_error


def shown(value: object, limit: int = MAX_KEY_ECHO_CHARS) -> str:
    """``value`` as echoed in an error: at most ``limit`` characters, marked when cut."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def check_regular(path: Path, what: str = "file") -> None:
    """BadInput unless ``path`` is an existing regular file (links to one are fine)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise BadInput(f"{path}: no such {what}.") from None
    except NotADirectoryError:
        raise BadInput(f"{path}: no such {what} (a part of the path is a file).") from None
    except OSError as exc:
        raise (loop_error(path) or BadInput(f"{path}: cannot be read ({exc.strerror}).")
               ) from None
    if stat.S_ISDIR(st.st_mode):
        raise BadInput(f"{path}: is a folder, not a {what}.")
    if not stat.S_ISREG(st.st_mode):
        raise BadInput(f"{path}: is not a regular file (a device, pipe or socket); "
                       f"give a {what}.")


def open_regular(path: Path, what: str = "file"):
    """A binary file object for ``path``, refusing anything but a regular file. The
    check happens on the opened descriptor too, so a swap after the first look is caught;
    O_NONBLOCK keeps a FIFO from blocking the open itself."""
    check_regular(path, what)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise BadInput(f"{path}: cannot be read ({exc.strerror}).") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise BadInput(f"{path}: is not a regular file; give a {what}.")
    return os.fdopen(fd, "rb")


def read_bytes(path: Path, limit: int, what: str = "file") -> bytes:
    """The whole file, or BadInput when it is larger than ``limit`` bytes."""
    with open_regular(path, what) as fh:
        try:
            raw = fh.read(limit + 1)
        except OSError as exc:
            raise BadInput(f"{path}: cannot be read ({exc.strerror}).") from None
    if len(raw) > limit:
        raise BadInput(f"{path}: is larger than the limit of {limit:,} bytes for a {what}.")
    return raw


def read_text(path: Path, limit: int, what: str = "file") -> str:
    """UTF-8 text (a leading BOM is dropped), or one sentence saying why not."""
    raw = read_bytes(path, limit, what)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BadInput(f"{path}: is not UTF-8 text (is it a binary file?).") from None


def clean_text(text: str, limit: int | None = None) -> str:
    """Text fit to store: lone surrogates (from JSON ``\\ud800`` escapes or a broken
    server) become U+FFFD, since SQLite and UTF-8 output cannot hold them; cut to
    ``limit`` characters."""
    if limit is not None and len(text) > limit:
        text = text[:limit]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text
