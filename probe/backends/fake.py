"""A scripted backend for UI and runner tests: answers come from a queue or a rule."""

from __future__ import annotations

import time
from typing import Callable

from probe.backends.base import Backend, Completion, ProgressFn, Sampling
from probe.prompting import PromptStyle


class FakeBackend(Backend):
    """Replies with ``enqueue``d texts in order, then with ``default(prompt)``; the call
    numbered ``fail_after`` raises."""

    name = "fake"
    SUPPORTS_BATCH = False

    def __init__(self, default: Callable[[str], str] | str = "Monarch", delay: float = 0.0,
                 chat: bool = False, fail_after: int | None = None,
                 load_error: Exception | None = None, template: str | None = None):
        """``template``: a chat template, rendered in the box as a real model's is."""
        super().__init__()
        self.template = template
        self.queue: list[str] = []
        self.default = default
        self.delay = delay
        self.chat = chat
        self.fail_after = fail_after
        self.load_error = load_error
        self.calls = 0
        self.loaded = False

    def enqueue(self, *texts: str) -> "FakeBackend":
        self.queue.extend(texts)
        return self

    def load(self, progress: ProgressFn | None = None) -> None:
        if self.load_error:
            raise self.load_error
        if progress:
            progress("fake model ready", 1.0)
        self.loaded = True

    @property
    def has_chat_template(self) -> bool:
        return self.chat or self.template is not None

    def chat_template(self):
        from probe.template_box import ChatTemplate

        if self.template is None:
            return None
        return ChatTemplate(self.template, "fake-model", {"bos_token": "<s>",
                                                          "eos_token": "</s>"})

    def sample_one(self, prompt: str, style: PromptStyle, sampling: Sampling,
                   seed: int) -> Completion:
        if self.fail_after is not None and self.calls == self.fail_after:
            self.calls += 1         # fails once, like a transient engine error
            raise RuntimeError("scripted failure")
        self.calls += 1
        if self.delay:
            # Sleep in small steps so cancellation is prompt, like a real engine.
            end = time.monotonic() + self.delay
            while time.monotonic() < end and not self.cancelled.is_set():
                time.sleep(min(0.01, self.delay))
        if self.queue:
            text = self.queue.pop(0)
        else:
            text = self.default(prompt) if callable(self.default) else self.default
        return Completion(text=text, tokens=len(text.split()), latency_ms=self.delay * 1000,
                          prompt=self.render(prompt, style))
