"""The family editor: direct prompt, reframings (one per line), answers and aliases,
validated live with the same rules as the family loader."""

from __future__ import annotations

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Header, Input, Label, Static, TextArea

from probe import family as fam_mod
from probe.errors import BadInput
from probe.family import Family
from probe.paths import families_dir
from screens.messages import DraftsReady

DRAFT_REQUEST = (
    "Rewrite this question as {n} different everyday scenarios, each a short request that "
    "asks for exactly the same kind of answer without hinting at any particular answer. "
    "Vary the person, the activity and the sentence shape. One scenario per line, no "
    "numbering.\n\nQuestion: {direct}"
)


def parse_answers(text: str) -> dict[str, list[str]]:
    """``Canonical = alias, alias`` per line."""
    out: dict[str, list[str]] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        name, _, rest = line.partition("=")
        if not name.strip():
            raise BadInput(f"answers, line {lineno}: the canonical answer before '=' is empty.")
        out[name.strip()] = [a.strip() for a in rest.split(",") if a.strip()]
    return out


def format_answers(answers: dict[str, list[str]]) -> str:
    return "\n".join(f"{k} = {', '.join(v)}" for k, v in answers.items())


class ConfirmLeave(ModalScreen[bool]):
    BINDINGS = [Binding("y", "dismiss(True)", "Discard"), Binding("n,escape", "dismiss(False)",
                                                                   "Keep editing")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("[b]Unsaved changes.[/b] Discard them? (y / n)")
            with Horizontal(classes="buttons"):
                yield Button("Discard", id="yes", variant="error")
                yield Button("Keep editing", id="no", variant="primary")

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class EditorScreen(Screen):
    BINDINGS = [
        Binding("ctrl+s", "save", "Save"),
        Binding("ctrl+g", "draft", "Draft reframings"),
        Binding("alt+up", "move(-1)", "Move up", show=False),
        Binding("alt+down", "move(1)", "Move down", show=False),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, family: Family | None):
        super().__init__()
        self.original = family
        self.saved_text = None

    def compose(self) -> ComposeResult:
        f = self.original
        yield Header()
        # Scrolls: at 80×24 the answers box and the validation line are below the fold,
        # and focus moving there scrolls them into view.
        with VerticalScroll(id="editor"):
            yield Label("Name")
            yield Input(f.name if f else "", placeholder="e.g. butterfly", id="name")
            yield Label("Direct question")
            yield Input(f.direct if f else "", placeholder="Choose a random popular butterfly.",
                        id="direct")
            yield Label("Reframings — one per line (paste many at once; alt+↑/↓ moves a line)")
            # Line numbers: a long reframing wraps, and the number shows it is still one.
            yield TextArea("\n".join(f.framings) if f else "", id="framings",
                           show_line_numbers=True)
            yield Static("", id="framing-count")
            yield Label("Answers — `Canonical = alias, alias` per line (optional)")
            # No soft wrap: one `Canonical = aliases` entry stays one line.
            yield TextArea(format_answers(f.answers) if f else "", id="answers",
                           soft_wrap=False, show_line_numbers=True)
        yield Static("", id="validation")
        yield Footer()

    def on_mount(self) -> None:
        self.saved_text = self.snapshot()
        self.validate()
        self.query_one("#name" if self.original is None else "#framings").focus()

    def snapshot(self) -> tuple:
        return (self.query_one("#name", Input).value, self.query_one("#direct", Input).value,
                self.query_one("#framings", TextArea).text,
                self.query_one("#answers", TextArea).text)

    @property
    def dirty(self) -> bool:
        return self.snapshot() != self.saved_text

    def build(self) -> Family:
        name, direct, framings, answers = self.snapshot()
        data = {"name": name, "direct": direct,
                "framings": [ln for ln in framings.splitlines() if ln.strip()],
                "answers": parse_answers(answers)}
        if not name.strip():
            raise BadInput("give the family a name.")
        return fam_mod.validate(data, "family")

    @on(Input.Changed)
    @on(TextArea.Changed)
    def validate(self) -> bool:
        lines = [ln.strip() for ln in self.query_one("#framings", TextArea).text.splitlines()
                 if ln.strip()]
        seen: dict[str, int] = {}
        dups = []
        for i, ln in enumerate(lines, start=1):
            key = fam_mod.framing_key(ln)
            if key in seen:
                dups.append(f"{i} repeats {seen[key]}")
            seen.setdefault(key, i)
        count = f"{len(lines)} reframings"
        if len(lines) < 20:
            count += " [dim](the paper uses about 30)[/dim]"
        if dups:
            count += f"  [yellow]duplicates: {', '.join(dups[:5])}[/yellow]"
        self.query_one("#framing-count", Static).update(count)
        status = self.query_one("#validation", Static)
        try:
            self.build()
        except BadInput as exc:
            status.update(f"[red]✗ {escape(str(exc))}[/red]")
            return False
        status.update("[green]✓ valid[/green]" + ("  [dim](unsaved)[/dim]" if self.dirty else ""))
        return True

    def action_save(self) -> None:
        try:
            fam = self.build()
            target = (self.original.path if self.original and self.original.path
                      and self.original.name == fam.name
                      else fam_mod.path_for(fam.name, families_dir()))
            if (self.original is None or self.original.name != fam.name) and target.exists():
                raise BadInput(f"{target} already exists; choose another name.")
            fam_mod.save(fam, target)
        except BadInput as exc:
            self.notify(str(exc), title="Not saved", severity="error")
            return
        except OSError as exc:
            self.notify(f"Could not write the family file: {exc}", severity="error")
            return
        self.original = fam
        self.saved_text = self.snapshot()
        self.validate()
        self.notify(f"Saved {target}.")

    def action_move(self, delta: int) -> None:
        area = self.query_one("#framings", TextArea)
        lines = area.text.split("\n")
        row = area.cursor_location[0]
        other = row + delta
        if not (0 <= row < len(lines) and 0 <= other < len(lines)):
            return
        lines[row], lines[other] = lines[other], lines[row]
        area.text = "\n".join(lines)
        area.move_cursor((other, 0))

    def action_back(self) -> None:
        if not self.dirty:
            self.app.pop_screen()
            return

        def answer(discard: bool | None) -> None:
            if discard:
                self.app.pop_screen()

        self.app.push_screen(ConfirmLeave(), answer)

    # ------------------------------------------------------------ drafting

    def action_draft(self) -> None:
        backend = self.app.backend  # type: ignore[attr-defined]
        direct = self.query_one("#direct", Input).value.strip()
        if backend is None:
            self.notify("Load a model first (m on the home screen).", severity="warning")
            return
        if not backend.has_chat_template:
            self.notify("Drafting needs a chat model: this model has no chat template, and a "
                        "base model continues text rather than following a request.",
                        severity="warning", timeout=8)
            return
        if not direct:
            self.notify("Write the direct question first.", severity="warning")
            return
        self.notify("Asking the model for reframings…")
        self.draft(direct)

    @work(thread=True, exclusive=True, exit_on_error=False, group="draft")
    def draft(self, direct: str) -> None:
        from probe.backends.base import Sampling
        from probe.prompting import PromptStyle

        backend = self.app.backend  # type: ignore[attr-defined]
        style = PromptStyle(mode="chat", instruction="")
        try:
            out = next(iter(backend.sample_many(DRAFT_REQUEST.format(n=10, direct=direct), 1,
                                                style, Sampling(0.8, 600), [0])))
            drafts = [ln.strip(" -•*0123456789.)\t") for ln in out.text.splitlines()]
            self.post_message(DraftsReady([d for d in drafts if len(d) > 10]))
        except Exception as exc:
            self.post_message(DraftsReady([], f"{type(exc).__name__}: {exc}"))

    def on_drafts_ready(self, msg: DraftsReady) -> None:
        if msg.error or not msg.drafts:
            self.notify(msg.error or "The model gave no usable reframings.", severity="error")
            return

        def keep(text: str | None) -> None:
            if text:
                area = self.query_one("#framings", TextArea)
                area.text = (area.text.rstrip("\n") + "\n" + text).lstrip("\n")

        self.app.push_screen(DraftReview(msg.drafts), keep)


class DraftReview(ModalScreen[str | None]):
    """Drafts land here to keep, edit or discard; nothing is saved without the user."""

    BINDINGS = [Binding("ctrl+s", "keep", "Keep these"), Binding("escape", "dismiss(None)",
                                                                 "Discard")]

    def __init__(self, drafts: list[str]):
        super().__init__()
        self.drafts = drafts

    def compose(self) -> ComposeResult:
        with Vertical(id="answers-box"):
            yield Static("[b]Drafted reframings[/b] — edit freely; ctrl+s adds them to the "
                         "family, escape discards")
            yield TextArea("\n".join(self.drafts), id="drafts")

    def action_keep(self) -> None:
        self.dismiss(self.query_one("#drafts", TextArea).text)
