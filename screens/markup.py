"""Text from a family file, a model, a server or the database inside the app's markup,
shown exactly as it is and never read as markup.

Textual reads markup with its own parser (``Static``, ``Label``, ``OptionList`` options,
toasts), not Rich's: every ``[`` not after a backslash opens a tag, whatever follows it.
``rich.markup.escape`` escapes only what Rich reads as a tag, so a question holding an
escape sequence (``ESC[2J``) or cut inside a tag (``[/lin…``) broke the line, or the app.
Control characters become their one-cell marks here (␇ for BEL), as the terminal-safe
filter draws them: Rich would drop some (BEL, backspace) before the filter saw them.
"""

from __future__ import annotations

from textual.content import Content

from probe.terminal import marked

# Textual has no escape for a backslash: one that ends the text would escape the tag the
# screen puts after it ("\" + "[/dim]" shows "[/dim]"). A combining grapheme joiner after
# it is zero cells wide, has no glyph, and stands between the two.
_GUARD = "\u034f"


def escape(text: str) -> str:
    """``text`` inside Textual markup, read back as exactly ``text`` (its controls as
    marks; lines and tabs kept)."""
    text = marked(text, keep_lines=True).replace("[", "\\[")
    return text + _GUARD if text.endswith("\\") else text


def cells(markup: str) -> int:
    """The width of ``markup`` as Textual draws it, in terminal cells."""
    return Content.from_markup(markup).cell_length
