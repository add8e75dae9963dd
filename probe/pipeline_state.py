"""One run inside the sampling pipeline: what it still lacks, its draws, its live scores."""

from __future__ import annotations

from typing import Iterator

from probe.backends.base import Draw, Sampling
from probe.family import Family
from probe.matching import Match
from probe.prompting import PromptStyle
from probe.reference import live_scorer
from probe.run_settings import RunSettings, sample_seed
from probe.scoring import Response


class RunState:
    """A run being sampled. Direct and framed samples interleave in proportion to what each
    still needs, so both rates mean something early; a resumed run draws only the
    (kind, idx) pairs it lacks, each with the seed it would have had."""

    def __init__(self, run, family: Family, settings: RunSettings, stored: list):
        self.run_id = run.id
        self.status = run.status
        self.family = family
        self.settings = settings
        self.style = PromptStyle.from_dict(run.settings.get("style", {}))
        self.sampling = Sampling(settings.temperature, settings.max_tokens)
        self.planned = settings.samples + len(family.framings)
        self.open = True              # still wants samples
        self.running = False          # its first draw has gone out
        self.stopped_early = False
        self.reload(stored)

    def reload(self, stored: list) -> None:
        """Start from the samples the store holds (matched again as one live set)."""
        self.live = live_scorer(self.family, self.settings.rule, self.settings.dr_threshold,
                                self.settings.pi_threshold, self.settings.answer_format)
        self.have: set[tuple[str, int]] = set()
        for s in stored:
            if (s.kind, s.idx) not in self.have:
                self.have.add((s.kind, s.idx))
                self.live.add(Response(s.kind, s.idx, s.response))

    @property
    def done(self) -> int:
        return len(self.have)

    @property
    def complete(self) -> bool:
        return self.done >= self.planned

    def quick(self, forced: bool) -> bool:
        return self.settings.quick or forced

    def add(self, kind: str, idx: int, text: str) -> Match:
        """Match a new response once; the match goes to the store and the events."""
        self.have.add((kind, idx))
        return self.live.add(Response(kind, idx, text))

    def wanted(self) -> bool:
        return self.open

    def draws(self, chunk: int) -> Iterator[Draw]:
        """Alternate direct and framed chunks, in proportion to what each still needs."""
        direct = [i for i in range(self.settings.samples) if ("direct", i) not in self.have]
        framed = [i for i in range(len(self.family.framings)) if ("framed", i) not in self.have]
        d = f = 0
        while d < len(direct) or f < len(framed):
            if d < len(direct) and (f >= len(framed) or d / len(direct) <= f / len(framed)):
                yield self._draw("direct", direct[d:d + chunk])
                d += chunk
            else:
                yield self._draw("framed", framed[f:f + chunk])
                f += chunk

    def _draw(self, kind: str, indices: list[int]) -> Draw:
        seed = self.settings.seed or 0
        prompts = [self.family.direct] if kind == "direct" else \
            [self.family.framings[i] for i in indices]
        # The tag says where each of the draw's samples goes: this run, at these indices.
        return Draw(kind, prompts, [sample_seed(seed, kind, i) for i in indices], self.style,
                    self.sampling, group=self.run_id, tag=(self, indices),
                    wanted=self.wanted)
