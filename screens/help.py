"""The help dialog (? anywhere): each screen's keys, a row per screen."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

HELP = [  # (where, its keys): a row each, the keys wrapping under themselves
    ("Home", "r run · n new family · e edit · h history · m model · g charts · "
             "s run settings · Home/End first/last"),
    ("Editor", "ctrl+s save · ctrl+g draft reframings (chat models) · alt+↑/↓ move a line"),
    ("Run", "s stop · u resume · k quick check · a answers · enter one reframing's sample"),
    ("Answers", "space mark · m merge the marked into the row under the cursor · x split · "
                "g suggest merges"),
    ("History", "enter open · space mark · c compare two marked · / filter"),
    ("Charts", "←↑↓→ or a click: move between points · enter open its run · m model"),
    ("Anywhere", "? this help · ctrl+p palette · escape back · q quit (a run that is "
                 "sampling asks first)"),
]


def help_table() -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    for where, keys in HELP:
        grid.add_row(where, keys)
    return grid


class HelpScreen(ModalScreen):
    BINDINGS = [Binding("escape,q,question_mark", "app.pop_screen", "Close")]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static("[b]probe[/b]: is a model's favourite answer a Deep or a Shallow "
                         "bias?\n")
            yield Static(help_table(), id="help-text")
            yield Static("[dim]escape to close[/dim]")
