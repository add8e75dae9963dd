"""The one small interface every engine implements, with capability flags."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

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


def _always() -> bool:
    return True


@dataclass(eq=False)
class Draw:
    """One request of the sampling pipeline to an engine.

    ``direct``: ``len(seeds)`` independent completions of ``prompts[0]``; ``framed``: one
    completion of each prompt. Each sample has its own seed. ``group`` names the run the
    draw belongs to: an engine may reorder draws of different groups (to pool them) but
    keeps one group's draws in order. ``wanted()`` turns false once the run needs no more
    (its quick check settled, it failed); engines check it between samples.
    """

    kind: str
    prompts: list[str]
    seeds: list[int]
    style: PromptStyle
    sampling: Sampling
    group: Any = None
    tag: Any = None                 # the pipeline's own bookkeeping
    wanted: Callable[[], bool] = field(default=_always, repr=False)

    @property
    def size(self) -> int:
        return len(self.seeds)

    def prompt(self, i: int) -> str:
        return self.prompts[0] if self.kind == "direct" else self.prompts[i]


@dataclass(eq=False)
class Drawn:
    """One sample of a draw (``index`` into its seeds), or the error that ended the draw
    (``index`` -1: the draw's samples not yet delivered are lost, not wrong)."""

    draw: Draw
    index: int
    completion: Completion | None
    error: BaseException | None = None


class Backend(ABC):
    """Load a model; sample k completions of one prompt or one each of many prompts.

    Sampling methods are generators that yield completions as they finish, so the
    runner can commit each one at once. ``cancel()`` stops generation between steps
    (and, where the engine allows, mid-generation).
    """

    name = "abstract"
    # Capabilities the sampling pipeline reads (probe/pipeline.py):
    SUPPORTS_BATCH = False        # several prompts per forward pass: framings of several
                                  # families share one call (``sample_texts``)
    SUPPORTS_N = False            # k completions of one prompt in one call
    CONCURRENT = False            # many calls in flight at once (a server): ``draw`` keeps
                                  # up to ``window`` of them going
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

    def sample_texts(self, texts: Sequence[str], mode: str, sampling: Sampling,
                     seeds: Sequence[int]) -> list[Completion]:
        """One completion of each already-rendered text, in one call (SUPPORTS_BATCH)."""
        raise NotImplementedError(f"the {self.name} engine does not batch prompts")

    def draw(self, draws: Iterator[Draw], window: int = 1) -> Iterator[list[Drawn]]:
        """The pipeline's one entry point: work through ``draws`` (pulled lazily, so the
        pipeline decides each next one with what it knows by then) and yield samples as
        they are ready, in lists that may be committed together. An engine error ends its
        draw only. Returns early once cancelled. This default samples one draw at a time
        with ``sample_many``/``sample_each``; ``window`` is for concurrent engines."""
        for d in draws:
            if self.cancelled.is_set():
                return
            made = 0
            samples = None
            try:
                if d.kind == "direct":
                    samples = self.sample_many(d.prompts[0], d.size, d.style, d.sampling,
                                               d.seeds)
                else:
                    samples = self.sample_each(d.prompts, d.style, d.sampling, d.seeds)
                for completion in samples:
                    if self.cancelled.is_set():
                        return           # it may have been cut short: never delivered
                    yield [Drawn(d, made, completion)]
                    made += 1
                    if not d.wanted():
                        break
            except Exception as exc:   # the draw's run fails; the others go on
                if self.cancelled.is_set():
                    return
                yield [Drawn(d, -1, None, exc)]
            finally:
                if hasattr(samples, "close"):
                    samples.close()

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
