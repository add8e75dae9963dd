"""The one terminal-safe filter: text from a file, a model, a server or the database never
reaches a terminal with its control characters working.

A terminal obeys C0 and C1 control characters (ESC starts sequences that retitle the
window, write the clipboard with OSC 52 or clear the screen) and reorders text around
bidi and format characters (an RLO makes "exe.txt" read as "txt.exe"; a zero-width space
hides a difference). ``safe`` shows each as a visible escape; the escape is JSON's
``\\uXXXX``, so JSON printed through the filter is still JSON with the same values.
The command line applies it to everything it prints (``SafeStream``); the app replaces
each such character with a one-cell mark (``marked``) in every line it draws.
"""

from __future__ import annotations

import re
import sys
from contextlib import contextmanager

# Format characters (Unicode category Cf, plus the line and paragraph separators):
# invisible, or reordering what follows them. The list is Unicode 15's; a test checks
# it against the running Python's unicodedata.
_FORMAT = ("\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
           "\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
           "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
           "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f")
# C0, DEL, C1, and lone surrogates (no terminal or file can hold them).
_CONTROL = "\x00-\x1f\x7f-\x9f\ud800-\udfff"
UNSAFE = re.compile(f"[{_CONTROL}{_FORMAT}]")
# The same without newline and tab, which text printed line by line keeps.
_UNSAFE_IN_TEXT = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff{_FORMAT}]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    if code > 0xFFFF:            # JSON spells an astral character as a surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def safe(text: str, one_line: bool = False) -> str:
    """``text`` with every control, bidi and format character shown as ``\\uXXXX``.
    Newlines and tabs stay, unless ``one_line`` (a table cell, a name)."""
    pattern = UNSAFE if one_line else _UNSAFE_IN_TEXT
    return pattern.sub(_escape, text) if pattern.search(text) else text


def _mark(match: re.Match) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)      # the Control Pictures: ␛ for ESC, ␇ for BEL
    if code == 0x7F:
        return "\u2421"                # ␡
    return "\ufffd"


def marked(text: str, keep_lines: bool = False) -> str:
    """``text`` with each unsafe character (newlines and tabs too, unless ``keep_lines``)
    as a one-cell mark: what the app draws, where a six-character escape would break the
    layout. One character for one, so styles laid over the text still fit it."""
    pattern = _UNSAFE_IN_TEXT if keep_lines else UNSAFE
    return pattern.sub(_mark, text) if pattern.search(text) else text


def has_unsafe(text: str) -> bool:
    """Any control (newline and tab too), bidi or format character?"""
    return UNSAFE.search(text) is not None


def first_unsafe(text: str) -> tuple[int, str] | None:
    """(position, escape) of the first control, bidi or format character, or None."""
    m = UNSAFE.search(text)
    return (m.start(), _escape(m)) if m else None


class SafeStream:
    """A text stream that filters every write through ``safe``: what the command line
    prints (tables, errors, progress, warnings of the libraries it calls) cannot drive
    the terminal. ``write_raw`` is for probe's own control output (the progress line's
    carriage return). No ``buffer`` attribute, so nothing finds a way around the filter.
    """

    def __init__(self, stream) -> None:
        self._stream = stream

    @property
    def wrapped(self):
        return self._stream

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._stream.write(safe(text))
        return len(text)

    def write_raw(self, text: str) -> int:
        return self._stream.write(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        try:
            return self._stream.isatty()
        except (AttributeError, ValueError, OSError):
            return False

    def fileno(self) -> int:
        return self._stream.fileno()

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    @property
    def encoding(self) -> str:
        return getattr(self._stream, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str:
        return getattr(self._stream, "errors", None) or "strict"

    @property
    def closed(self) -> bool:
        return getattr(self._stream, "closed", False)

    def __getattr__(self, name: str):
        # What else a library asks of the stream (its name, line_buffering…) is the
        # wrapped stream's; never its binary buffer, which would write past the filter.
        if name in ("buffer", "_stream"):
            raise AttributeError(name)
        return getattr(self._stream, name)


def write_raw(stream, text: str) -> None:
    """Write probe's own control characters (``\\r``) past the filter, when there is one."""
    getattr(stream, "write_raw", stream.write)(text)


class StatusLine:
    """One line on standard error redrawn in place (progress), only when it is a
    terminal: a log file gets no carriage returns."""

    def __init__(self, enabled: bool | None = None) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.drawn = False

    def show(self, text: str) -> None:
        if not self.enabled:
            return
        write_raw(sys.stderr, "\r")
        sys.stderr.write(safe(text, one_line=True).ljust(96)[:120])
        sys.stderr.flush()
        self.drawn = True

    def done(self, keep: bool = True) -> None:
        """End the line: kept (a run's last state), or wiped (a passing note)."""
        if self.drawn:
            if keep:
                sys.stderr.write("\n")
            else:
                write_raw(sys.stderr, "\r" + " " * 120 + "\r")
            sys.stderr.flush()
            self.drawn = False


@contextmanager
def filtered_output():
    """Standard output and error through ``SafeStream`` for the duration (once: nested
    uses share the outer filter)."""
    saved = sys.stdout, sys.stderr
    if sys.stdout is not None and not isinstance(sys.stdout, SafeStream):
        sys.stdout = SafeStream(sys.stdout)
    if sys.stderr is not None and not isinstance(sys.stderr, SafeStream):
        sys.stderr = SafeStream(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
