"""The help dialog (? anywhere): each screen's keys, a row per screen, then a short
glossary of what the screens show."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

HELP = [  # (where, its keys): a row each, the keys wrapping under themselves
    ("Home", "r run · f quick family (a question → drafted reframings → its run) · "
             "n new family · e edit · h history · m model · g charts · s run settings · "
             "Home/End first/last"),
    ("Editor", "ctrl+s save · ctrl+g draft reframings (from templates on any model; a "
               "loaded chat model can draft them too) · alt+↑/↓ move a line"),
    ("Run", "s stop · u resume · k quick check · a answers · w why this label · enter one "
            "reframing's sample · ctrl+p copy the result (Markdown, LaTeX, JSON) or export"),
    ("Answers", "space mark · m merge the marked into the row under the cursor · x split · "
                "g suggest merges"),
    ("History", "enter open · space mark · c compare two marked · p pooled repeats · "
                "/ filter"),
    ("Pooled", "enter each reframing across the runs · o sort · x export CSV and JSON"),
    ("Charts", "←↑↓→ or a click: move between points · enter open its run · m model"),
    ("Anywhere", "? this help · ctrl+p palette · escape back · q quit (a run that is "
                 "sampling asks first)"),
]


GLOSSARY = [
    ("DR", "direct rate: the share of the direct question's picks that are its top answer"),
    ("FR", "framed rate: the share of the reframings' picks that are that same direct top "
           "answer"),
    ("π", "bias depth, DR × FR"),
    ("labels", "Deep: DR > 0.65 and π > 0.40 · Shallow: DR > 0.65, π ≤ 0.40 · Non-bias: "
               "DR ≤ 0.65 (the thresholds are run settings)"),
    ("pick, ⊘", "a pick is an answer that chooses; ⊘ marks a non-pick (empty, refusal, hedge, "
                "list, echo of the question), counted for neither rate"),
    ("✓ ✗", "a reframing's answer counts toward FR (✓) or against it (✗)"),
    ("95% CI", "the Wilson interval of a rate; π's range is the product of their ends"),
    ("sure", "the posterior probability of the label; settled at 95%, else settling "
             "(sampling) or unsettled; w says what would settle it"),
    ("rule", "probe: the paper's text · reference: its released code (own clustering, "
             "every non-empty answer counts, Deep on π alone)"),
    ("pooled", "finished runs of one family and model measured the same way (any seed), "
               "scored as one set"),
    ("⚠ reading", "reading-sensitive: replies taken as no pick or as an answer given once "
                  "name one of the family's answers, and counting them as that answer "
                  "changes the label; check them (⚠ in the table, w for examples)"),
]


def two_columns(rows: list[tuple[str, str]]) -> Table:
    """A bold word and what it says, the text wrapping under itself."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    for word, text in rows:
        grid.add_row(word, text)
    return grid


def help_table() -> Table:
    return two_columns(HELP)


class HelpScreen(ModalScreen):
    BINDINGS = [Binding("escape,q,question_mark", "app.pop_screen", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static("[b]probe[/b]: is a model's favourite answer a Deep or a Shallow "
                         "bias?  [dim](escape to close; the glossary is below)[/dim]\n")
            yield Static(help_table(), id="help-text")
            yield Static("\n[b]Glossary[/b]", id="glossary-title")
            yield Static(two_columns(GLOSSARY), id="glossary")

    def on_screen_resume(self) -> None:
        # One installed instance: each opening starts at the top (the why panel's ? then
        # scrolls it to the glossary).
        self.query_one("#help-box", VerticalScroll).scroll_home(animate=False)

    def show_glossary(self) -> None:
        self.query_one("#help-box", VerticalScroll).scroll_to_widget(
            self.query_one("#glossary-title"), animate=False, top=True)
