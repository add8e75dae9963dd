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
    """Drafted reframings for the editor; ``drafted`` says which templates wrote them (None
    for a model's drafts); ``needs_category``: the question could not be read."""

    def __init__(self, drafts: list[str], error: str | None = None, drafted=None,
                 needs_category: bool = False) -> None:
        super().__init__()
        self.drafts = drafts
        self.error = error
        self.drafted = drafted
        self.needs_category = needs_category


class CategoryRead(Message):
    """What the finder read from a question typed so far (``phrase`` None: it could not)."""

    def __init__(self, question: str, phrase: str | None, error: str | None = None) -> None:
        super().__init__()
        self.question = question
        self.phrase = phrase
        self.error = error


class FamilyDrafted(Message):
    """A family drafted from templates and saved, or why not (``needs_category``: the
    question could not be read)."""

    def __init__(self, family=None, error: str | None = None,
                 needs_category: bool = False) -> None:
        super().__init__()
        self.family = family
        self.error = error
        self.needs_category = needs_category
