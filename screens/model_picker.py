"""The model picker (m): the models usable here, as `probe models` lists them, and how to
add one."""

from __future__ import annotations

from screens.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from probe.paths import models_dir


class ModelPicker(ModalScreen[str | None]):
    """Models usable here, as `probe models` lists them."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, models: list[dict]) -> None:
        super().__init__()
        self.models = models

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Static("[b]Choose a model[/b]  (enter to load, escape to cancel)")
            options = [Option(f"{m['engine']:<13} {escape(m['name'])}  [dim]"
                              f"{m['size'] / 1e6:,.0f} MB[/dim]", id=str(i))
                       for i, m in enumerate(self.models)]
            yield OptionList(*options, id="model-list")
            yield Static(f"[dim]To add one: put a .gguf file or a model folder (with "
                         f"config.json) in {escape(str(models_dir()))}/ (PROBE_MODELS names "
                         "another folder; PROBE_MODEL_DIRS adds more), or a model in the "
                         "Hugging Face cache; then press m again. probe models lists the "
                         "same.[/dim]", id="picker-hint")

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.models[int(event.option.id)]["spec"])
