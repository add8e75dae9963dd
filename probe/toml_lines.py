"""Where in a family file a key or an item of its ``framings`` sits: errors name the line
the user has to fix. ``tomllib`` keeps no positions, so the text is scanned for them."""

from __future__ import annotations

import re


def line_of_key(text: str, key: str) -> int | None:
    if len(key) > 200:      # no real key is this long; don't build a huge pattern
        return None
    pattern = re.compile(r"^\s*(\[\s*)?[\"']?" + re.escape(key) + r"[\"']?\s*(=|\])", re.M)
    m = pattern.search(text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def where(source: str, text: str | None, key: str) -> str:
    """``source, line N`` for the line defining ``key``, or ``source`` alone."""
    line = line_of_key(text, key) if text else None
    return f"{source}, line {line}" if line else source


def _string_end(text: str, i: int) -> int:
    """The index just past the TOML string literal starting at ``i``, or -1."""
    for quote in ('"""', "'''"):
        if text.startswith(quote, i):
            j = i + 3
            while True:
                j = text.find(quote, j)
                if j < 0:
                    return -1
                if quote == '"""' and _escaped(text, j):
                    j += 1
                    continue
                j += 3
                while j < len(text) and text[j] == quote[0]:   # """a"""" ends a"
                    j += 1
                return j
    quote = text[i]
    j = i + 1
    while j < len(text) and text[j] != "\n":
        if text[j] == "\\" and quote == '"':
            j += 2
            continue
        if text[j] == quote:
            return j + 1
        j += 1
    return -1


def _escaped(text: str, j: int) -> bool:
    backslashes = 0
    while j - backslashes - 1 >= 0 and text[j - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def array_item_lines(text: str, key: str) -> list[int] | None:
    """The line each string of the array ``key = [...]`` starts on, or None when the
    array cannot be read this simply (the loader has already parsed it; this only
    finds where its items are)."""
    m = re.search(r"^\s*[\"']?" + re.escape(key) + r"[\"']?\s*=\s*\[", text, re.M)
    if not m:
        return None
    lines: list[int] = []
    i, line = m.end(), text.count("\n", 0, m.end()) + 1
    while i < len(text):
        c = text[i]
        if c == "]":
            return lines
        if c == "\n":
            line += 1
        elif c == "#":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        elif c in "\"'":
            end = _string_end(text, i)
            if end < 0:
                return None
            lines.append(line)
            line += text.count("\n", i, end)
            i = end
            continue
        elif c not in " \t\r,":
            return None
        i += 1
    return None
