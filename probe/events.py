"""What the sampling pipeline tells its consumers (the CLI, the app), and how a run ended.

Events are plain data, emitted on the pipeline's thread after the samples they describe
are committed; the app posts them to its UI thread as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from probe.family import Family
from probe.matching import Match
from probe.metrics import Scores
from probe.run_settings import RunSettings


@dataclass
class SampleDrawn:
    """One sample committed. ``scored`` (the run's live scores and every match so far) is
    there when the consumer asked for live scores (a single run, the app); a batch leaves
    it out, since scoring every family after every sample would cost more than sampling."""

    run_id: int
    kind: str
    idx: int
    response: str
    match: Match
    done: int
    total: int
    scored: object | None = None        # probe.scoring.Scored

    @property
    def scores(self) -> Scores | None:
        return self.scored.scores if self.scored is not None else None


@dataclass
class RunFinished:
    run_id: int
    scores: Scores
    samples_used: int
    samples_planned: int
    stopped_early: bool = False
    scored: object | None = None        # the kept, order-free scores with their matches


@dataclass
class RunCancelled:
    run_id: int
    scores: Scores | None
    samples_used: int
    scored: object | None = None        # the partial result kept for the run, with its matches


@dataclass
class RunFailedEvent:
    run_id: int
    error: str


@dataclass
class Progress:
    """The whole job at a glance, at most a few times a second: families done and failed,
    samples committed, requests in flight, samples per second, and the families sampling
    now as (name, done, planned)."""

    families_done: int
    families_failed: int
    families_total: int
    samples_done: int
    samples_total: int
    in_flight: int
    rate: float
    active: list[tuple[str, int, int]] = field(default_factory=list)


Event = SampleDrawn | RunFinished | RunCancelled | RunFailedEvent | Progress


@dataclass
class Outcome:
    run_id: int
    status: str                       # finished | cancelled | failed
    scores: Scores | None
    family: Family
    samples_used: int = 0
    samples_planned: int = 0
    stopped_early: bool = False
    error: str | None = None
    settings: RunSettings = field(default_factory=RunSettings)
