"""One run of one family: create it, sample it through the pipeline, resume it.

The sampling itself (scheduling, commits, endings, events) is probe/pipeline.py, shared
with batches; this module adds what belongs to a single run: its record, its lease, and
live scores after every sample for whoever watches it (the app, a terminal).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Callable

from probe import leases
from probe.backends.base import Backend
from probe.errors import BadInput, ProbeError, RunFailed
from probe.events import (Event, Outcome, Progress, RunCancelled, RunFailedEvent,  # noqa: F401
                          RunFinished, SampleDrawn)
from probe.family import Family
from probe.pipeline import QUICK_CONFIDENCE, QUICK_MIN, Pipeline  # noqa: F401
from probe.prompting import style_for
from probe.run_settings import (RULES, RunSettings, fresh_seed, sample_seed)  # noqa: F401
from probe.store import Store


class Runner:
    """Drives one run. ``cancel()`` may be called from any thread."""

    def __init__(self, store: Store, backend: Backend,
                 on_event: Callable[[Event], None] | None = None, owner: str | None = None,
                 live_scores: bool = True):
        self.store = store
        self.owner = owner or leases.new_owner()
        self.backend = backend
        self.pipeline = Pipeline(store, backend, on_event=lambda e: self.on_event(e),
                                 live_scores=live_scores)
        self.on_event = on_event or (lambda e: None)

    def cancel(self) -> None:
        self.pipeline.cancel()

    @property
    def cancelled(self) -> bool:
        return self.pipeline.cancelled

    @property
    def force_quick(self) -> bool:
        return self.pipeline.force_quick

    @force_quick.setter
    def force_quick(self, on: bool) -> None:
        self.pipeline.force_quick = on

    def create(self, family: Family, settings: RunSettings, model_name: str,
               model_spec: str = "", model_hash: str | None = None,
               extra: dict | None = None, batch_id: int | None = None) -> int:
        """Record a new run (the backend must be loaded: its template decides the mode).
        With no seed set, the run draws a fresh one; either way it is stored."""
        settings = settings.with_seed().validate()
        style = style_for(family.direct, self.backend.has_chat_template, settings.base,
                          settings.shots, settings.system, settings.answer_format)
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

    def execute(self, run_id: int, concurrency: int | None = None) -> Outcome:
        """Sample the run until it is complete, settled, failed or cancelled.
        ``concurrency`` overrides the stored one (it changes no sample)."""
        self.store.run(run_id)          # no such run: one sentence before the lease
        leases.acquire(self.store, run_id, self.owner)
        try:
            with leases.Heartbeat(self.store, self.owner):
                return self.pipeline.execute([run_id], concurrency)[0]
        finally:
            try:
                leases.release(self.store, run_id, self.owner)
            except ProbeError:
                pass     # a stale lease is taken over by the next resume


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
           "RunFailedEvent", "Progress", "resumable", "RunFailed"]
