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
        self._rendered: dict[tuple, str] = {}     # chat prompts rendered before sampling

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

    def chat_template(self):
        """The model's own chat template (``probe.template_box.ChatTemplate``), or None
        where the engine has none or a server applies it."""
        return None

    def render_all(self, prompts: Sequence[str], style: PromptStyle) -> list[str]:
        """The texts the model sees. A chat template is the model's code: it runs in the
        box (probe.template_box), under a time, memory and size limit."""
        if style.mode == "base":
            return [style.base_prompt(p) for p in prompts]
        template = self.chat_template()
        if template is None:
            return ["\n\n".join(m["content"] for m in style.messages(p)) for p in prompts]
        from probe import template_box

        return template_box.render(template, [style.messages(p) for p in prompts],
                                   self.cancelled)

    def prepare(self, prompts: Sequence[str], style: PromptStyle) -> None:
        """Render every prompt a run will send before its first sample: a template that
        fails, loops or grows is one sentence before anything is sampled."""
        if style.mode == "base":
            return
        key = _style_key(style)
        todo = [p for p in dict.fromkeys(prompts) if (key, p) not in self._rendered]
        if not todo:
            return
        if len(self._rendered) + len(todo) > 20_000:    # a long app session: keep it bounded
            self._rendered.clear()
        self._rendered.update(zip(((key, p) for p in todo), self.render_all(todo, style)))

    def render(self, prompt: str, style: PromptStyle) -> str:
        """The text the model sees for one prompt (prepared, or rendered now)."""
        if style.mode == "base":
            return style.base_prompt(prompt)
        text = self._rendered.get((_style_key(style), prompt))
        return text if text is not None else self.render_all([prompt], style)[0]

    def preferred_chunk(self) -> int:
        """How many samples to ask for at once (batch engines want more)."""
        return 1

    def cancel(self) -> None:
        self.cancelled.set()

    def reset_cancel(self) -> None:
        self.cancelled.clear()

    def close(self) -> None:  # pragma: no cover - engines free memory on GC too
        pass


def _style_key(style: PromptStyle) -> tuple:
    """What a chat prompt's messages depend on besides the prompt itself."""
    return style.mode, style.instruction, style.system
