"""The probe app (Textual)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Static


class ProbeApp(App):
    TITLE = "probe"

    def __init__(self, model: str | None = None, db_path: str = "probe.db"):
        super().__init__()
        self.model_spec = model
        self.db_path = db_path

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("probe")
        yield Footer()


def run_app(model: str | None = None, db_path: str = "probe.db") -> None:
    ProbeApp(model=model, db_path=db_path).run()
