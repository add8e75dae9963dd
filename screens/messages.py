"""Typed messages that worker threads post to the UI (threads never touch widgets)."""

from __future__ import annotations

from textual.message import Message


class ModelLoading(Message):
    def __init__(self, text: str, fraction: float) -> None:
        super().__init__()
        self.text = text
        self.fraction = fraction


class ModelLoaded(Message):
    def __init__(self, display: str) -> None:
        super().__init__()
        self.display = display


class ModelFailed(Message):
    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class RunEvent(Message):
    """Wraps a runner event (SampleDrawn, RunFinished, RunCancelled, RunFailedEvent)."""

    def __init__(self, event) -> None:
        super().__init__()
        self.event = event


class DraftsReady(Message):
    def __init__(self, drafts: list[str], error: str | None = None) -> None:
        super().__init__()
        self.drafts = drafts
        self.error = error
