"""The one small interface every engine implements, with capability flags."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

from probe.prompting import PromptStyle


@dataclass
class Completion:
    text: str
    tokens: int = 0
    latency_ms: float = 0.0
    prompt: str = ""            # exactly what was sent (rendered)


@dataclass
class Sampling:
    temperature: float = 0.6
    max_tokens: int = 25


ProgressFn = Callable[[str, float], None]   # (message, fraction 0..1)


class Backend(ABC):
    """Load a model; sample k completions of one prompt or one each of many prompts.

    Sampling methods are generators that yield completions as they finish, so the
    runner can commit each one at once. ``cancel()`` stops generation between steps
    (and, where the engine allows, mid-generation).
    """

    name = "abstract"
    SUPPORTS_BATCH = False        # several sequences per forward pass
    USES_GPU = False
    IMPLEMENTS_CANCEL = True

    def __init__(self) -> None:
        self.cancelled = threading.Event()

    @abstractmethod
    def load(self, progress: ProgressFn | None = None) -> None: ...

    @property
    @abstractmethod
    def has_chat_template(self) -> bool: ...

    def sample_one(self, prompt: str, style: PromptStyle, sampling: Sampling,
                   seed: int) -> Completion:
        """One completion; engines that sample one sequence at a time implement this and
        inherit the two loops below."""
        raise NotImplementedError

    def sample_many(self, prompt: str, k: int, style: PromptStyle, sampling: Sampling,
                    seeds: Sequence[int]) -> Iterator[Completion]:
        """``k`` independent completions of one prompt (the N direct samples)."""
        if len(seeds) < k:
            raise ValueError(f"sample_many needs {k} seeds, got {len(seeds)}")
        yield from self.sample_each([prompt] * k, style, sampling, seeds)

    def sample_each(self, prompts: Sequence[str], style: PromptStyle, sampling: Sampling,
                    seeds: Sequence[int]) -> Iterator[Completion]:
        """One completion of each prompt (the framings)."""
        for prompt, seed in zip(prompts, seeds):
            if self.cancelled.is_set():
                return
            yield self.sample_one(prompt, style, sampling, seed)

    def render(self, prompt: str, style: PromptStyle) -> str:
        """The text the model sees, for storing with the sample."""
        if style.mode == "base":
            return style.base_prompt(prompt)
        return "\n\n".join(m["content"] for m in style.messages(prompt))

    def preferred_chunk(self) -> int:
        """How many samples to ask for at once (batch engines want more)."""
        return 1

    def cancel(self) -> None:
        self.cancelled.set()

    def reset_cancel(self) -> None:
        self.cancelled.clear()

    def close(self) -> None:  # pragma: no cover - engines free memory on GC too
        pass
