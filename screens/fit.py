"""One line that fits its width: the least important items go first, never mid-word."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size

from probe.terminal import marked
from screens.markup import cells, escape


def shorten(text: str, room: int) -> str:
    """Plain ``text`` in at most ``room`` cells, ending in … when cut. Control and
    invisible characters are counted as the one-cell marks the app draws them as (␛, �),
    and a wide character as two cells, so the cut falls where the line really ends."""
    text = marked(text)
    if cell_len(text) <= room:
        return text
    return set_cell_size(text, max(room - 1, 1)).rstrip(" ") + "…"


def fit_parts(parts: list[tuple[int, str]], width: int, sep: str = "   "
              ) -> list[tuple[int, str]]:
    """The ``(priority, markup)`` parts that fit in ``width`` cells joined by ``sep``: the
    lowest priority (the later one among equals) goes first; the order is kept."""
    kept = list(range(len(parts)))

    def length() -> int:
        return sum(cells(parts[i][1]) for i in kept) + len(sep) * max(0, len(kept) - 1)

    while len(kept) > 1 and length() > width:
        drop = min(kept, key=lambda i: (parts[i][0], -i))
        kept.remove(drop)
    return [parts[i] for i in kept]


def fit_line(parts: list[tuple[int, str]], width: int, sep: str = "   ") -> str:
    """``fit_parts`` joined into one line."""
    return sep.join(text for _, text in fit_parts(parts, width, sep))


def plain(text: str) -> str:
    """Text from a model or a file, safe inside markup."""
    return escape(text)


__all__ = ["cells", "fit_line", "fit_parts", "plain", "shorten"]
