"""Small dialogs the screens share: a question with lettered choices, one sample's
details, and the run settings."""

from __future__ import annotations

from screens.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static, Switch

from probe.errors import BadInput
from probe.prompting import ANSWER_FORMATS
from probe.runner import RULES, RunSettings


class Choice(ModalScreen[str | None]):
    """A question and a few answers, each on a key; escape answers None (do nothing).
    A question given as a function is asked again twice a second, so what it says about
    something still happening (a run's sample count) stays true."""

    def __init__(self, question, choices: list[tuple[str, str]],
                 escape_label: str = "cancel") -> None:
        super().__init__()
        self.question = question
        self.choices = choices
        self.escape_label = escape_label

    def _text(self) -> str:
        return self.question() if callable(self.question) else self.question

    def on_mount(self) -> None:
        if callable(self.question):
            self.set_interval(0.5, lambda: self.query_one("#question", Static).update(
                self._text()))

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self._text(), id="question")
            with Horizontal(classes="buttons"):
                for i, (key, label) in enumerate(self.choices):
                    yield Button(f"{key}: {label}", id=f"choice-{key}",
                                 variant="primary" if i == 0 else "default")
            yield Static(f"[dim]escape: {self.escape_label}[/dim]")

    def on_key(self, event) -> None:
        if event.key == "escape":
            event.stop()
            self.dismiss(None)
        elif event.key in {k for k, _ in self.choices}:
            event.stop()
            self.dismiss(event.key)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id.removeprefix("choice-"))


class SampleDetail(ModalScreen[None]):
    """One sample as it happened: the prompt sent, the raw response, what was extracted and
    why it matched."""

    BINDINGS = [Binding("escape,enter,q", "dismiss(None)", "Close")]

    def __init__(self, title: str, parts: list[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.parts = parts

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="sample-detail"):
            yield Static(f"[b]{escape(self.title_text)}[/b]")
            for name, value in self.parts:
                yield Static(f"[b]{escape(name)}[/b]", classes="detail-name")
                yield Static(escape(value) if value else "[dim](empty)[/dim]",
                             classes="detail-value")
            yield Static("[dim]escape to close[/dim]")


FIELDS = [  # (field, label, help)
    ("samples", "Direct samples (N)", "times the direct question is sampled"),
    ("temperature", "Temperature", "0 … 5"),
    ("max_tokens", "Max new tokens", "1 … 4096"),
    ("seed", "Seed", "blank: a fresh seed each run"),
    ("dr_threshold", "DR threshold", "a bias needs DR above it"),
    ("pi_threshold", "π threshold", "Deep needs π above it"),
    ("shots", "Shots (base mode)", "solved examples first, 0 … 8"),
    ("concurrency", "Concurrency", "requests in flight to a server, 1 … 1024"),
]


RULE_HELP = {
    "probe": "[dim]probe (the paper's text): probe's matcher folds answers with the family's "
             "aliases; refusals, hedges, lists and echoes are non-picks (⊘) counted in neither "
             "rate; Deep needs DR > its threshold and π > its own.[/dim]",
    "reference": "[dim]reference (the paper's released code): every non-empty response is an "
                 "answer (refusals too), clustered by lemmas, stems, containment and MiniLM "
                 "embeddings, each side on its own; Deep on π alone. Needs the embedding "
                 "model; family aliases are not used.[/dim]",
}


class SettingsScreen(ModalScreen[RunSettings | None]):
    """The settings the next runs use (the command line's run options), kept for the next
    session."""

    BINDINGS = [Binding("ctrl+s", "apply", "Apply"), Binding("escape", "dismiss(None)",
                                                              "Cancel")]

    def __init__(self, settings: RunSettings) -> None:
        super().__init__()
        self.settings = settings

    def compose(self) -> ComposeResult:
        s = self.settings
        with VerticalScroll(classes="dialog", id="settings-box"):
            yield Static("[b]Run settings[/b] — used by the next runs and kept for the "
                         "next session (ctrl+s apply, escape cancel)")
            for name, label, hint in FIELDS:
                value = getattr(s, name)
                with Horizontal(classes="setting"):
                    yield Label(label)
                    yield Input("" if value is None else str(value), id=f"set-{name}")
                    yield Static(f"[dim]{hint}[/dim]", classes="hint")
            with Horizontal(classes="setting"):
                yield Label("Base-model prompting")
                yield Switch(s.base, id="set-base")
                yield Static("[dim]Q:/A: prompts, even for chat models[/dim]",
                             classes="hint")
            with Horizontal(classes="setting"):
                yield Label("Quick check")
                yield Switch(s.quick, id="set-quick")
                yield Static("[dim]stop once the label is settled (95%)[/dim]",
                             classes="hint")
            with Horizontal(classes="setting rule"):
                yield Label("Scoring rule")
                yield Select([(r, r) for r in RULES], value=s.rule, allow_blank=False,
                             id="set-rule")
                yield Static("[dim]probe: the paper's text; reference: its code[/dim]",
                             classes="hint")
            yield Static(RULE_HELP[s.rule], id="rule-help")
            with Horizontal(classes="setting rule"):
                yield Label("Answer format")
                yield Select([(f, f) for f in ANSWER_FORMATS], value=s.answer_format,
                             allow_blank=False, id="set-answer-format")
                yield Static("[dim]words: 1-3 words; braces: {answer}, read exactly[/dim]",
                             classes="hint")
            yield Static("", id="settings-error")
            with Horizontal(classes="buttons"):
                yield Button("Apply (ctrl+s)", id="apply", variant="primary")
                yield Button("Cancel (escape)", id="cancel")

    def on_mount(self) -> None:
        # Typing straight away edits the first field rather than going nowhere.
        self.query_one(f"#set-{FIELDS[0][0]}", Input).focus()

    @on(Select.Changed, "#set-rule")
    def rule_chosen(self, event: Select.Changed) -> None:
        self.query_one("#rule-help", Static).update(RULE_HELP.get(event.value, ""))

    def read(self) -> RunSettings:
        values: dict = {}
        for name, label, _ in FIELDS:
            text = self.query_one(f"#set-{name}", Input).value.strip()
            if name == "seed" and not text:
                values[name] = None
                continue
            kind = float if name in ("temperature", "dr_threshold", "pi_threshold") else int
            try:
                values[name] = kind(text)
            except ValueError:
                raise BadInput(f"{label}: {text!r} is not a number.") from None
        values["base"] = self.query_one("#set-base", Switch).value
        values["quick"] = self.query_one("#set-quick", Switch).value
        values["rule"] = self.query_one("#set-rule", Select).value
        values["answer_format"] = self.query_one("#set-answer-format", Select).value
        try:
            return RunSettings(**{**self.settings.__dict__, **values}).validate()
        except BadInput as exc:
            # The core names the command-line option; here the field's label says more.
            text = str(exc)
            for name, label, _ in FIELDS:
                text = text.replace(f"--{name.replace('_', '-')}", label)
            raise BadInput(text) from None

    def action_apply(self) -> None:
        try:
            settings = self.read()
        except BadInput as exc:
            self.query_one("#settings-error", Static).update(f"[red]✗ {escape(str(exc))}[/red]")
            return
        self.dismiss(settings)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "apply":
            self.action_apply()
        else:
            self.dismiss(None)
