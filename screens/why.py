"""The "why this label" dialog: each value against its threshold with its interval, where
the doubt is, and what would settle it (from ``probe.explain``)."""

from __future__ import annotations

from screens.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

RULE_WORDS = {
    "probe": "probe's rule (the paper's text): Deep needs DR above its threshold and π above "
             "its own; non-picks count for neither rate.",
    "reference": "the reference rule (the paper's released code): Deep on π alone; its own "
                 "clustering; every non-empty answer counts.",
}


class WhyScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,enter,q,w", "dismiss(None)", "Close"),
                Binding("question_mark", "glossary", "Glossary")]

    def __init__(self, family: str, explanation) -> None:
        super().__init__()
        self.family = family
        self.explanation = explanation

    def compose(self) -> ComposeResult:
        e = self.explanation
        lines = e.lines()
        with VerticalScroll(classes="dialog", id="why-box"):
            yield Static(f"[b]Why {escape(lines[0])}[/b] — {escape(self.family)}")
            yield Static(escape("\n".join(lines[1:])), id="why-text")
            yield Static(f"\n[dim]Scored with {escape(RULE_WORDS.get(e.rule, e.rule))} "
                         "Intervals are 95% Wilson intervals; π's range is the product of "
                         "their ends. ? shows the glossary · escape closes[/dim]")

    def action_glossary(self) -> None:
        """Help, opened at its glossary: what DR, FR, π, ⊘ and "sure" mean."""
        self.app.action_help()  # type: ignore[attr-defined]
        shown = self.app.screen
        if hasattr(shown, "show_glossary"):
            shown.call_after_refresh(shown.show_glossary)
