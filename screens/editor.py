"""The family editor: direct prompt, reframings (one per line), answers and aliases,
validated live with the same rules as the family loader."""

from __future__ import annotations

from screens.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Header, Input, Label, Static, TextArea

from probe.report import counted
from probe import family as fam_mod
from probe.drafting import CategoryNotFound, contains_direct
from probe.errors import BadInput, ProbeError
from probe.family import Family
from probe.paths import families_dir
from probe.provenance import join_drafts
from screens.dialogs import Choice
from screens.messages import DraftsReady

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


class ConfirmLeave(ModalScreen[str | None]):
    """Unsaved changes: save and leave (s), discard (d), or keep editing (escape)."""

    BINDINGS = [Binding("s", "dismiss('save')", "Save and leave"),
                Binding("d,y", "dismiss('discard')", "Discard"),
                Binding("n,escape", "dismiss(None)", "Keep editing")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("[b]Unsaved changes.[/b] Save them before leaving?")
            with Horizontal(classes="buttons"):
                yield Button("s: save and leave", id="save", variant="primary")
                yield Button("d: discard", id="discard", variant="error")
                yield Button("escape: keep editing", id="keep")

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None if event.button.id == "keep" else event.button.id)


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
        # Which framings templates drafted: a record and the texts it was made for; a
        # framing keeps its template while its text is unchanged (Drafted.realigned).
        self.provenance = (family.drafted, list(family.framings)) \
            if family is not None and family.drafted is not None else None

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

    def framing_lines(self) -> list[tuple[int, str]]:
        """(editor line number, text) of each reframing: blank lines are no reframing, but
        the numbers are the ones the editor shows beside the text."""
        text = self.query_one("#framings", TextArea).text
        return [(n, ln) for n, ln in enumerate(text.split("\n"), start=1) if ln.strip()]

    def build(self) -> Family:
        name, direct, _, answers = self.snapshot()
        lines = self.framing_lines()
        data = {"name": name, "direct": direct, "framings": [ln for _, ln in lines],
                "answers": parse_answers(answers)}
        if self.provenance is not None:
            drafted = self.provenance[0].realigned(self.provenance[1],
                                                   [ln.strip() for _, ln in lines])
            if drafted is not None:
                data["drafted"] = drafted.to_dict()
        if not name.strip():
            raise BadInput("give the family a name.")
        return fam_mod.validate(data, "family", framing_names=[f"line {n}" for n, _ in lines])

    @on(Input.Changed)
    @on(TextArea.Changed)
    def validate(self) -> bool:
        lines = self.framing_lines()
        seen: dict[str, int] = {}
        dups = []
        for n, ln in lines:
            key = fam_mod.framing_key(ln)
            if key in seen:
                dups.append(f"line {n} repeats line {seen[key]}")
            seen.setdefault(key, n)
        count = counted(len(lines), "reframing")
        if len(lines) < 20:
            count += " [dim](the paper uses about 30)[/dim]"
        if dups:
            count += f"  [yellow]duplicates: {', '.join(dups[:3])}" + \
                (f" and {len(dups) - 3} more" if len(dups) > 3 else "") + "[/yellow]"
        direct = self.query_one("#direct", Input).value
        echoes = [f"line {n}" for n, ln in lines if contains_direct(direct, ln)]
        if echoes:
            verb = "contains" if len(echoes) == 1 else "contain"
            count += (f"  [yellow]{', '.join(echoes[:3])} {verb} the direct question word "
                      "for word[/yellow]")
        self.query_one("#framing-count", Static).update(count)
        status = self.query_one("#validation", Static)
        try:
            self.build()
        except BadInput as exc:
            status.update(f"[red]✗ {escape(str(exc))}[/red]")
            return False
        status.update("[green]✓ valid[/green]" + ("  [dim](unsaved)[/dim]" if self.dirty else ""))
        return True

    def action_save(self) -> bool:
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
            return False
        except OSError as exc:
            self.notify(f"Could not write the family file: {exc}", severity="error")
            return False
        self.original = fam
        self.saved_text = self.snapshot()
        self.validate()
        self.notify(f"Saved {target}.")
        return True

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

        def answer(choice: str | None) -> None:
            # A save that fails (an invalid family, a taken name) keeps the editor open,
            # with the reason on screen.
            if choice == "discard" or (choice == "save" and self.action_save()):
                self.app.pop_screen()

        self.app.push_screen(ConfirmLeave(), answer)

    # ------------------------------------------------------------ drafting

    def action_draft(self) -> None:
        """Templates (offline) always; the model too when a chat model is loaded — then
        the user picks."""
        backend = self.app.backend  # type: ignore[attr-defined]
        direct = self.query_one("#direct", Input).value.strip()
        if not direct:
            self.notify("Write the direct question first.", severity="warning")
            return
        if backend is None or not backend.has_chat_template:
            self.draft_templates(direct, None, self._have())
            return

        def chosen(choice: str | None) -> None:
            if choice == "t":
                self.draft_templates(direct, None, self._have())
            elif choice == "m":
                self.notify("Asking the model for reframings…")
                self.draft(direct)

        self.app.push_screen(Choice("[b]Draft reframings[/b] from everyday-scenario "
                                    "templates (offline, instant) or by asking the chat "
                                    "model?", [("t", "templates"), ("m", "the model")]),
                             chosen)

    def _have(self) -> list[str]:
        return [ln.strip() for ln in self.query_one("#framings", TextArea).text.splitlines()
                if ln.strip()]

    @work(thread=True, exclusive=True, exit_on_error=False, group="draft")
    def draft_templates(self, direct: str, category: str | None, have: list[str]) -> None:
        """Up to about 30 reframings in all (at least 10 more), none already there."""
        from probe.drafting import draft_more

        try:
            fam = draft_more(direct, have, category).family
        except CategoryNotFound as exc:
            self.post_message(DraftsReady([], str(exc), needs_category=True))
            return
        except ProbeError as exc:
            self.post_message(DraftsReady([], str(exc)))
            return
        self.post_message(DraftsReady(fam.framings, drafted=fam.drafted))

    @work(thread=True, exclusive=True, exit_on_error=False, group="draft")
    def draft(self, direct: str) -> None:
        from probe.services import draft_reframings

        try:
            self.post_message(DraftsReady(draft_reframings(self.app.backend, direct)))
        except Exception as exc:       # an engine's own error: one message, no crash
            self.post_message(DraftsReady([], f"{type(exc).__name__}: {exc}"))

    def on_drafts_ready(self, msg: DraftsReady) -> None:
        if msg.needs_category:
            from screens.quick import AskCategory

            direct = self.query_one("#direct", Input).value.strip()

            def named(category: str | None) -> None:
                if category:
                    self.draft_templates(direct, category, self._have())

            self.app.push_screen(AskCategory(), named)
            return
        if msg.error or not msg.drafts:
            self.notify(msg.error or "The model gave no usable reframings.", severity="error")
            return

        def keep(text: str | None) -> None:
            if text:
                area = self.query_one("#framings", TextArea)
                if msg.drafted is not None:
                    self.provenance = join_drafts(self.provenance, msg.drafted, msg.drafts)
                area.text = (area.text.rstrip("\n") + "\n" + text).lstrip("\n")

        title = ("Drafted from templates" if msg.drafted is not None
                 else "Drafted by the model")
        self.app.push_screen(DraftReview(msg.drafts, title), keep)


class DraftReview(ModalScreen[str | None]):
    """Drafts land here to keep, edit or discard; nothing is saved without the user."""

    BINDINGS = [Binding("ctrl+s", "keep", "Keep these"), Binding("escape", "dismiss(None)",
                                                                 "Discard")]

    def __init__(self, drafts: list[str], title: str = "Drafted reframings"):
        super().__init__()
        self.drafts = drafts
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(id="answers-box"):
            yield Static(f"[b]{self.title_text}[/b] — edit freely; ctrl+s adds them to the "
                         "family, escape discards")
            yield TextArea("\n".join(self.drafts), id="drafts")

    def action_keep(self) -> None:
        self.dismiss(self.query_one("#drafts", TextArea).text)
