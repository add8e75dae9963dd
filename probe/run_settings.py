"""A run's settings: what is sampled, how, and how it is scored; stored with the run."""

from __future__ import annotations

import math
import typing
from dataclasses import dataclass, replace

from probe.errors import BadInput
from probe.limits import MAX_CONCURRENCY
from probe.metrics import DR_THRESHOLD, PI_THRESHOLD
from probe.prompting import ANSWER_FORMATS
from probe.reading import shown

RULES = ("probe", "reference")
DEFAULT_CONCURRENCY = 64


def fresh_seed() -> int:
    """A new random seed: each run adds evidence instead of repeating the last one."""
    import secrets

    return secrets.randbelow(2 ** 31 - 1)


def sample_seed(seed: int, kind: str, idx: int) -> int:
    """One seed per (kind, idx), so a resumed sample is drawn as it would have been."""
    return (seed * 1_000_003 + (0 if kind == "direct" else 500_009) + idx) % (2 ** 31 - 1)


@dataclass
class RunSettings:
    samples: int = 30
    temperature: float = 0.6
    max_tokens: int = 25
    seed: int | None = None           # None: a fresh seed is drawn for each run
    base: bool = False
    shots: int = 5
    system: str | None = None
    quick: bool = False
    dr_threshold: float = DR_THRESHOLD
    pi_threshold: float = PI_THRESHOLD
    # How a run is scored: "probe" (DESIGN.md's rule) or "reference" (the released code's).
    rule: str = "probe"
    # Requests in flight at once on a server (--backend openai); engines that sample one
    # sequence at a time ignore it. Changes no sample: each one has its own seed.
    concurrency: int = DEFAULT_CONCURRENCY
    # "words" (the paper's 1-3 words) or "braces": the answer asked for inside {braces},
    # read exactly, and forced by guided decoding on servers that offer it.
    answer_format: str = "words"

    def validate(self) -> "RunSettings":
        if self.samples < 1:
            raise BadInput(f"--samples must be at least 1 (got {self.samples}).")
        if self.samples > 10_000:
            raise BadInput(f"--samples {self.samples} is more than the limit of 10000.")
        if not 0 <= self.temperature <= 5:
            raise BadInput(f"--temperature must be between 0 and 5 (got {self.temperature}).")
        if not 1 <= self.max_tokens <= 4096:
            raise BadInput(f"--max-tokens must be between 1 and 4096 (got {self.max_tokens}).")
        if not 0 <= self.shots <= 8:
            raise BadInput(f"--shots must be between 0 and 8 (got {self.shots}).")
        if self.seed is not None and not 0 <= self.seed < 2 ** 31:
            raise BadInput(f"--seed must be between 0 and {2 ** 31 - 1} (got {self.seed}).")
        for name in ("dr_threshold", "pi_threshold"):
            if not 0 <= getattr(self, name) <= 1:
                raise BadInput(f"--{name.replace('_', '-')} must be between 0 and 1 "
                               f"(got {getattr(self, name)}).")
        if self.rule not in RULES:
            raise BadInput(f"the scoring rule must be one of {', '.join(RULES)} "
                           f"(got {self.rule!r}).")
        if self.answer_format not in ANSWER_FORMATS:
            raise BadInput(f"--answer-format must be one of {', '.join(ANSWER_FORMATS)} "
                           f"(got {shown(str(self.answer_format))}).")
        if not 1 <= self.concurrency <= MAX_CONCURRENCY:
            raise BadInput(f"--concurrency must be between 1 and {MAX_CONCURRENCY} "
                           f"(got {self.concurrency}).")
        return self

    def with_seed(self) -> "RunSettings":
        """These settings with the seed fixed: a fresh one unless the user chose one."""
        return replace(self, seed=fresh_seed() if self.seed is None else self.seed)

    @classmethod
    def from_dict(cls, d: dict) -> "RunSettings":
        """Settings read back from the database; a damaged value is one sentence."""
        known = {}
        for name, kinds in _field_kinds().items():
            if name not in d:
                continue
            value = d[name]
            if not any(_is_kind(value, kind) for kind in kinds):
                raise BadInput(f"stored run settings are damaged ('{name}' is "
                               f"{shown(repr(value))}).")
            known[name] = value
        return cls(**known)


def _field_kinds() -> dict[str, tuple[type, ...]]:
    """Each field's accepted types (``int | None`` → (int, NoneType))."""
    hints = typing.get_type_hints(RunSettings)
    return {name: typing.get_args(hint) or (hint,) for name, hint in hints.items()}


def _is_kind(value, kind: type) -> bool:
    """Does a stored value fit one of a field's types? A bool is not a number here."""
    if kind is type(None):
        return value is None
    if kind is bool:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if kind is int:
        return isinstance(value, int)
    if kind is float:
        return isinstance(value, (int, float)) and math.isfinite(value)
    return isinstance(value, kind)
