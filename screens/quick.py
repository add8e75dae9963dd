"""Quick family: a direct question in, a family drafted from templates out (Home's `f`),
and the one-line dialog that asks for the category when a question cannot be read.

Reading the question loads word lists (seconds the first time on a busy CPU), so it runs
in a worker and the dialog keeps taking keys."""

from __future__ import annotations

from screens.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from probe.drafting import CategoryNotFound, category_for, draft_family, save_new
from probe.errors import ProbeError
from probe.family import Family
from probe.paths import families_dir
from screens.messages import CategoryRead, FamilyDrafted

ASK_CATEGORY = "What kind of answer does it ask for? Type the category below."


class QuickFamily(ModalScreen[Family | None]):
    """Asks for the direct question (and, only when needed, its category), drafts 30
    framings from templates, saves the family beside the others and returns it."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="quick-box"):
            yield Static("[b]Quick family[/b] — the question you noticed a bias on. probe "
                         "drafts 30 everyday reframings from templates, saves the family and "
                         "runs it; edit it later with e.")
            yield Input(placeholder="Choose a random popular butterfly.", id="quick-question")
            yield Static("", id="quick-found")
            yield Input(placeholder="category, e.g. popular butterfly", id="quick-category")
            yield Static("[dim]enter: draft and run · escape: cancel[/dim]")

    def on_mount(self) -> None:
        self.query_one("#quick-category", Input).display = False
        self.query_one("#quick-question", Input).focus()
        self.read("Choose a random butterfly.", None)      # loads the word lists now

    def _values(self) -> tuple[str, str | None]:
        return (self.query_one("#quick-question", Input).value,
                self.query_one("#quick-category", Input).value.strip() or None)

    @on(Input.Changed)
    def changed(self) -> None:
        question, category = self._values()
        if question.strip():
            self.read(question, category)
        else:
            self.query_one("#quick-found", Static).update("")

    @work(thread=True, exclusive=True, exit_on_error=False, group="quick-read")
    def read(self, question: str, category: str | None) -> None:
        try:
            phrase = category_for(question, category).phrase
        except ProbeError as exc:
            self.post_message(CategoryRead(question, None, str(exc) if category else None))
            return
        self.post_message(CategoryRead(question, phrase))

    def on_category_read(self, msg: CategoryRead) -> None:
        question, _ = self._values()
        if msg.question != question or not question.strip():
            return          # an answer to what was typed before, or the warm-up
        found = self.query_one("#quick-found", Static)
        if msg.phrase is None:
            found.update(f"[yellow]{escape(msg.error or ASK_CATEGORY)}[/yellow]")
            self.query_one("#quick-category", Input).display = True
        else:
            found.update(f"[dim]category:[/dim] {escape(msg.phrase)}")

    @on(Input.Submitted)
    def submitted(self) -> None:
        question, category = self._values()
        if not question.strip():
            return
        self.query_one("#quick-found", Static).update("[dim]drafting…[/dim]")
        self.draft(question, category)

    @work(thread=True, exclusive=True, exit_on_error=False, group="quick-draft")
    def draft(self, question: str, category: str | None) -> None:
        try:
            family = draft_family(question, category=category).family
            save_new(family, families_dir())
        except CategoryNotFound as exc:
            self.post_message(FamilyDrafted(error=str(exc) if category else ASK_CATEGORY,
                                            needs_category=True))
        except ProbeError as exc:
            self.post_message(FamilyDrafted(error=str(exc)))
        except OSError as exc:
            self.post_message(FamilyDrafted(error=f"Could not write the family file: {exc}"))
        else:
            self.post_message(FamilyDrafted(family))

    def on_family_drafted(self, msg: FamilyDrafted) -> None:
        if msg.family is not None:
            self.dismiss(msg.family)
            return
        self.query_one("#quick-found", Static).update(
            f"[{'yellow' if msg.needs_category else 'red'}]{escape(msg.error or '')}[/]")
        if msg.needs_category:
            box = self.query_one("#quick-category", Input)
            box.display = True
            box.focus()


class AskCategory(ModalScreen[str | None]):
    """One sentence asking what kind of answer the question wants, and a box for it."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("probe cannot tell what kind of answer this question asks for: type "
                         "the category (for example [b]popular butterfly[/b]).", id="question")
            yield Input(placeholder="popular butterfly", id="category")
            yield Static("[dim]enter: draft from templates · escape: cancel[/dim]")

    def on_mount(self) -> None:
        self.query_one("#category", Input).focus()

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.dismiss(event.value.strip())
