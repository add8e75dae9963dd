"""Runs a family on a backend: schedules samples, commits each, streams events.

Direct and framed samples interleave so both rates mean something early. Every
sample is committed as it arrives; a run resumes by drawing only the (kind, idx)
pairs it lacks. The CLI and the app both consume the same events.
"""

from __future__ import annotations

import math
import threading
from dataclasses import asdict, dataclass, field, replace
from typing import Callable, Iterator

from probe.backends.base import Backend, Sampling
from probe.errors import BadInput, ProbeError, RunFailed, describe
from probe import leases
from probe.family import Family
from probe.limits import MAX_RESPONSE_CHARS
from probe.matching import Match
from probe.metrics import DR_THRESHOLD, PI_THRESHOLD, Scores
from probe.prompting import PromptStyle, style_for
from probe.reading import clean_text, shown
from probe.reference import live_scorer, rescore_with
from probe.scoring import Response
from probe.store import SampleRow, Store

QUICK_MIN = 10          # at least this many direct and framed samples before a quick stop
QUICK_CONFIDENCE = 0.95
RULES = ("probe", "reference")


def fresh_seed() -> int:
    """A new random seed: each run adds evidence instead of repeating the last one."""
    import secrets

    return secrets.randbelow(2 ** 31 - 1)


@dataclass
class RunSettings:
    samples: int = 30
    temperature: float = 0.6
    max_tokens: int = 25
    seed: int | None = None           # None: a fresh seed is drawn for each run
    base: bool = False
    shots: int = 3
    system: str | None = None
    quick: bool = False
    dr_threshold: float = DR_THRESHOLD
    pi_threshold: float = PI_THRESHOLD
    # How a run is scored: "probe" (DESIGN.md's rule) or "reference" (the released code's).
    rule: str = "probe"

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
        return self

    def with_seed(self) -> "RunSettings":
        """These settings with the seed fixed: a fresh one unless the user chose one."""
        return replace(self, seed=fresh_seed() if self.seed is None else self.seed)

    @classmethod
    def from_dict(cls, d: dict) -> "RunSettings":
        """Settings read back from the database; a damaged value is one sentence."""
        known = {}
        for name, f in cls.__dataclass_fields__.items():
            if name not in d:
                continue
            value = d[name]
            if not any(_is_kind(value, kind.strip()) for kind in str(f.type).split("|")):
                raise BadInput(f"stored run settings are damaged ('{name}' is "
                               f"{shown(repr(value))}).")
            known[name] = value
        return cls(**known)


def _is_kind(value, kind: str) -> bool:
    """Does a stored value fit a settings field's annotated type (``int | None``…)?"""
    if kind == "None":
        return value is None
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool) \
            and math.isfinite(value)
    if kind == "str":
        return isinstance(value, str)
    return True


# ---------------------------------------------------------------- events

@dataclass
class SampleDrawn:
    run_id: int
    kind: str
    idx: int
    response: str
    match: Match
    scores: Scores
    done: int
    total: int


@dataclass
class RunFinished:
    run_id: int
    scores: Scores
    samples_used: int
    samples_planned: int
    stopped_early: bool = False


@dataclass
class RunCancelled:
    run_id: int
    scores: Scores | None
    samples_used: int


@dataclass
class RunFailedEvent:
    run_id: int
    error: str


Event = SampleDrawn | RunFinished | RunCancelled | RunFailedEvent


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


def sample_seed(seed: int, kind: str, idx: int) -> int:
    """One seed per (kind, idx), so a resumed sample is drawn as it would have been."""
    return (seed * 1_000_003 + (0 if kind == "direct" else 500_009) + idx) % (2 ** 31 - 1)


class Runner:
    """Drives one run. ``cancel()`` may be called from any thread."""

    def __init__(self, store: Store, backend: Backend,
                 on_event: Callable[[Event], None] | None = None, owner: str | None = None):
        self.store = store
        # Who holds this run's lease while it samples (a batch shares one owner).
        self.owner = owner or leases.new_owner()
        self.backend = backend
        self.on_event = on_event or (lambda e: None)
        self._cancel = threading.Event()
        self.force_quick = False      # the app's quick-check key can turn it on mid-run

    def cancel(self) -> None:
        self._cancel.set()
        self.backend.cancel()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    # ------------------------------------------------------------ creation

    def create(self, family: Family, settings: RunSettings, model_name: str,
               model_spec: str = "", model_hash: str | None = None,
               extra: dict | None = None, batch_id: int | None = None) -> int:
        """Record a new run (the backend must be loaded: its template decides the mode).
        With no seed set, the run draws a fresh one; either way it is stored."""
        settings = settings.with_seed().validate()
        style = style_for(family.direct, self.backend.has_chat_template, settings.base,
                          settings.shots, settings.system)
        # The model's chat template renders every prompt now, before anything is stored:
        # a template that fails, loops or grows is one sentence and no run. (A stop meant
        # for an earlier run does not stop this one.)
        if not self.cancelled:
            self.backend.reset_cancel()
        self.backend.prepare([family.direct, *family.framings], style)
        # ``extra`` holds engine details such as a server URL; API keys never come here,
        # only the name of the variable that holds one.
        stored = {**asdict(settings), "style": style.to_dict(), "model_spec": model_spec,
                  "engine": self.backend.name, **(extra or {})}
        return self.store.create_run(family, model_name, self.backend.name, stored,
                                     settings.seed, model_hash, batch_id)

    # ----------------------------------------------------------- execution

    def execute(self, run_id: int) -> Outcome:
        run = self.store.run(run_id)
        family = self.store.family(run.family_id)
        try:
            settings = RunSettings.from_dict(run.settings).validate()
        except BadInput as exc:
            raise BadInput(f"run {run_id} cannot be sampled: {exc}") from None
        leases.acquire(self.store, run_id, self.owner)
        try:
            with leases.Heartbeat(self.store, self.owner):
                return self._execute(run, family, settings)
        finally:
            try:
                leases.release(self.store, run_id, self.owner)
            except ProbeError:
                pass     # a stale lease is taken over by the next resume

    def _execute(self, run, family: Family, settings: RunSettings) -> Outcome:
        run_id = run.id
        style = PromptStyle.from_dict(run.settings.get("style", {}))
        sampling = Sampling(settings.temperature, settings.max_tokens)
        existing = self.store.samples(run_id)
        responses = [Response(s.kind, s.idx, s.response) for s in existing]
        have = {(s.kind, s.idx) for s in existing}
        direct_todo = [i for i in range(settings.samples) if ("direct", i) not in have]
        framed_todo = [i for i in range(len(family.framings)) if ("framed", i) not in have]
        planned = settings.samples + len(family.framings)
        if run.status != "running":
            self.store.set_status(run_id, "running")
        self.backend.reset_cancel()
        live = live_scorer(family, settings.rule, settings.dr_threshold,
                           settings.pi_threshold)
        for r in responses:
            live.add(r)
        scores: Scores | None = live.scored().scores if responses else None
        stopped_early = False
        try:
            self.backend.prepare(([family.direct] if direct_todo else [])
                                 + [family.framings[i] for i in framed_todo], style)
            for kind, indices in self._plan(direct_todo, framed_todo, settings.quick):
                if self.cancelled:
                    break
                for idx, completion in zip(indices, self._draw(family, kind, indices, style,
                                                               sampling, settings.seed or 0)):
                    if self.cancelled:
                        # Stopped mid-generation: the text may be cut short. Resume redraws
                        # it with the same seed.
                        break
                    # A runaway or malformed answer is cut and cleaned before matching, so
                    # what is matched is exactly what is stored.
                    text = clean_text(completion.text, MAX_RESPONSE_CHARS)
                    response = Response(kind, idx, text)
                    responses.append(response)
                    match = live.add(response)
                    scores = live.scored().scores
                    self.store.add_sample(SampleRow(
                        run_id, kind, idx, clean_text(completion.prompt), text, match.answer,
                        match.canonical, match.reason, match.refusal, completion.tokens,
                        completion.latency_ms))
                    self.on_event(SampleDrawn(run_id, kind, idx, text, match,
                                              scores, len(responses), planned))
                    if (settings.quick or self.force_quick) and self._settled(scores):
                        stopped_early = True
                        break
                    if self.cancelled:
                        break
                if stopped_early:
                    break
        except KeyboardInterrupt:
            self._cancel.set()
        except Exception as exc:  # an engine crash must not leave the run "running"
            if not self.cancelled:   # an engine interrupted by cancel() is just cancelled
                error = str(exc) if isinstance(exc, ProbeError) else describe(exc)
                return self._fail(run_id, family, settings, error, len(responses), planned)
        if responses:
            # The kept scores come from one order-free pass over every response.
            scored = live.final()
            scores = scored.scores
            self.store.update_canonicals(run_id, [(r.kind, r.idx, m.canonical, m.reason)
                                                  for r, m in scored.matches])
            self.store.save_result(run_id, scores)
        complete = len(responses) == planned or stopped_early
        if self.cancelled and not complete:
            self.store.set_status(run_id, "cancelled", samples_used=len(responses))
            self.on_event(RunCancelled(run_id, scores, len(responses)))
            return Outcome(run_id, "cancelled", scores, family, len(responses), planned,
                           settings=settings)
        self.store.set_status(run_id, "finished",
                              ending="quick check" if stopped_early else "finished",
                              samples_used=len(responses))
        self.on_event(RunFinished(run_id, scores, len(responses), planned, stopped_early))
        return Outcome(run_id, "finished", scores, family, len(responses), planned,
                       stopped_early, settings=settings)

    def _fail(self, run_id: int, family: Family, settings: RunSettings, error: str,
              used: int, planned: int) -> Outcome:
        try:
            samples = self.store.samples(run_id)
            if len({(s.kind, s.idx) for s in samples}) >= planned:
                # Every sample is stored: the run is complete, whatever failed afterwards.
                scores = rescore_with(family, [Response(s.kind, s.idx, s.response)
                                               for s in samples], settings.rule,
                                      settings.dr_threshold, settings.pi_threshold).scores
                self.store.save_result(run_id, scores)
                self.store.set_status(run_id, "finished", samples_used=len(samples))
                self.on_event(RunFinished(run_id, scores, len(samples), planned))
                return Outcome(run_id, "finished", scores, family, len(samples), planned,
                               settings=settings)
            self.store.set_status(run_id, "failed", error, samples_used=used)
        except ProbeError:
            pass   # the database itself may be what failed; the samples so far are kept
        self.on_event(RunFailedEvent(run_id, error))
        return Outcome(run_id, "failed", None, family, used, planned, error=error,
                       settings=settings)

    @staticmethod
    def _settled(scores: Scores) -> bool:
        return (scores.n_direct >= QUICK_MIN and scores.n_framed >= QUICK_MIN
                and scores.p_label >= QUICK_CONFIDENCE)

    def _plan(self, direct: list[int], framed: list[int], quick: bool
              ) -> Iterator[tuple[str, list[int]]]:
        """Alternate direct and framed chunks, in proportion to what each still needs."""
        chunk = max(1, self.backend.preferred_chunk())
        if quick:
            chunk = min(chunk, 5)
        elif self.force_quick:
            chunk = min(chunk, 10)
        d = f = 0
        while d < len(direct) or f < len(framed):
            if d < len(direct) and (f >= len(framed) or d / len(direct) <= f / len(framed)):
                yield "direct", direct[d:d + chunk]
                d += chunk
            else:
                yield "framed", framed[f:f + chunk]
                f += chunk

    def _draw(self, family: Family, kind: str, indices: list[int], style: PromptStyle,
              sampling: Sampling, seed: int):
        seeds = [sample_seed(seed, kind, i) for i in indices]
        if kind == "direct":
            return self.backend.sample_many(family.direct, len(indices), style, sampling, seeds)
        return self.backend.sample_each([family.framings[i] for i in indices], style, sampling,
                                        seeds)


def resumable(store: Store, run_id: int) -> None:
    """Raise unless ``run_id`` can be resumed."""
    run = store.run(run_id)
    if run.status == "finished":
        raise BadInput(f"run {run_id} is already finished; nothing to resume.")
    if run.backend in ("external",):
        raise BadInput(f"run {run_id} was scored from a file and cannot be resumed.")
    from probe.resume_checks import check_stored

    check_stored(store, run_id)             # damaged stored data: said before a model loads
    leases.refuse_if_held(store, run_id)    # before loading a model for nothing


__all__ = ["Runner", "RunSettings", "Outcome", "SampleDrawn", "RunFinished", "RunCancelled",
           "RunFailedEvent", "resumable", "RunFailed"]
