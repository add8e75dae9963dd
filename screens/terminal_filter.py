"""The app's side of the terminal-safe filter (probe.terminal): a line filter Textual
applies to every line of every widget, so no text from a family file, a model or the
database drives the terminal, whichever screen or widget shows it."""

from __future__ import annotations

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from probe.terminal import UNSAFE, marked


class TerminalSafe(LineFilter):
    """Each control, bidi or format character becomes a one-cell mark (␛, ␇, �). They are
    zero cells wide to the layout, so the line is cut back to the width it was laid out
    at: a mark costs a trailing cell, never a broken screen."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not any(not control and UNSAFE.search(text) for text, _, control in segments):
            return segments
        width = Segment.get_line_length(segments)
        shown = [Segment(marked(text), style, control) if not control else
                 Segment(text, style, control) for text, style, control in segments]
        return list(Segment.adjust_line_length(shown, width))


TERMINAL_SAFE = TerminalSafe()
