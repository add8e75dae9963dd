"""The one sampling pipeline: `probe run`, `probe batch` and the app all sample through it.

It schedules the samples a set of runs still lacks (one family or thousands), hands them
to the engine as draws (``Backend.draw``: one at a time on a local model, pooled across
families on transformers, many in flight on a server), and commits each sample under its
own run's settings as it lands: cleaned and matched once, the match passed along to the
store and the events. Samples that arrive together are committed in one small
transaction, before the pipeline waits for more, so a kill -9 loses only requests still in
flight and a resume draws exactly the (kind, idx) pairs that are missing. Each run is
finished (its order-free scores kept) the moment its last sample lands.
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Iterable, Iterator

from probe.backends.base import Backend, Draw, Drawn
from probe.errors import BadInput, ProbeError
from probe.events import (Event, Outcome, Progress, RunCancelled, RunFailedEvent, RunFinished,
                          SampleDrawn)
from probe.limits import COMMIT_EVERY, MAX_RESPONSE_CHARS
from probe.pipeline_state import RunState
from probe.reading import clean_text
from probe.run_settings import RunSettings
from probe.verdict import frozen
from probe.store import SampleRow, Store

QUICK_MIN = 10          # at least this many direct and framed samples before a quick stop
QUICK_CONFIDENCE = 0.95
PROGRESS_EVERY_S = 0.25


class Pipeline:
    """Samples runs through one backend. ``cancel()`` may be called from any thread."""

    def __init__(self, store: Store, backend: Backend,
                 on_event: Callable[[Event], None] | None = None,
                 on_outcome: Callable[[Outcome], None] | None = None,
                 live_scores: bool = False, progress: bool = False):
        self.store = store
        self.backend = backend
        self.on_event = on_event or (lambda e: None)
        self.on_outcome = on_outcome or (lambda o: None)
        # Score the run after every sample (the app, `probe run` on a terminal); a batch
        # scores each family once, when it is done.
        self.live_scores = live_scores
        self.progress = progress      # Progress events for the whole job (a batch)
        self.force_quick = False      # the app's quick-check key can turn it on mid-run
        self._cancel = threading.Event()
        self._outcomes: dict[int, Outcome] = {}
        self._samples_done = self._samples_new = 0
        self._states: list[RunState] = []
        self._last_progress = 0.0
        self._started = 0.0

    def cancel(self) -> None:
        self._cancel.set()
        self.backend.cancel()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    # ------------------------------------------------------------ execution

    def execute(self, run_ids: Iterable[int], concurrency: int | None = None) -> list[Outcome]:
        """Sample every run until it is complete (or settled, with the quick check), failed
        or cancelled; one Outcome per run, in the order given."""
        states = [self._load(run_id) for run_id in run_ids]
        self._states = states
        window = concurrency or min((s.settings.concurrency for s in states), default=1)
        self._started = time.monotonic()
        self._samples_done = sum(s.done for s in states)
        self._samples_new = 0
        self.backend.reset_cancel()
        try:
            for st in states:
                if st.complete:         # killed after its last commit, before the result
                    self._finish(st)
            for ready in self.backend.draw(self._schedule(states), window):
                self._commit(ready)
                if self.cancelled:
                    break
        except KeyboardInterrupt:
            self._cancel.set()
        except Exception as exc:     # an engine or database failure must not leave runs open
            if not self.cancelled:   # an engine interrupted by cancel() is just cancelled
                error = str(exc) if isinstance(exc, ProbeError) else \
                    f"{type(exc).__name__}: {exc}"
                for st in states:
                    if st.open:
                        self._fail(st, error)
        for st in states:
            if st.open:
                self._end(st)
        self._progress(force=True)
        return [self._outcomes[s.run_id] for s in states]

    def _load(self, run_id: int) -> RunState:
        run = self.store.run(run_id)
        family = self.store.family(run.family_id)
        try:
            settings = RunSettings.from_dict(run.settings).validate()
        except BadInput as exc:
            raise BadInput(f"run {run_id} cannot be sampled: {exc}") from None
        return RunState(run, family, settings, self.store.samples(run_id))

    def _schedule(self, states: list[RunState]) -> Iterator[Draw]:
        """Draws in order: each run's own interleaving of direct and framed, runs one after
        another; a concurrent engine pulls far enough ahead to keep many families in
        flight. Pulled lazily, so a run that failed or settled is skipped at once."""
        chunk = max(1, self.backend.preferred_chunk())
        for st in states:
            if not st.open:
                continue
            quick = st.settings.quick or self.force_quick
            size = min(chunk, 5) if st.settings.quick else min(chunk, 10) if quick else chunk
            for draw in st.draws(size):
                if self.cancelled:
                    return
                if not st.open:
                    break
                if not st.running:
                    # The model's chat template renders the run's prompts in its box first:
                    # one that fails, loops or grows fails this run, not the process.
                    try:
                        self.backend.prepare([st.family.direct, *st.family.framings],
                                             st.style)
                    except ProbeError as exc:
                        self._fail(st, str(exc))
                        break
                    st.running = True
                    if st.status != "running":
                        self.store.set_status(st.run_id, "running")
                yield draw

    # --------------------------------------------------------------- commit

    def _commit(self, ready: list[Drawn]) -> None:
        if self.cancelled:
            # Stopped mid-generation: a text may be cut short. Resume redraws it with the
            # same seed.
            return
        rows: list[SampleRow] = []
        events: list[SampleDrawn] = []
        done: list[RunState] = []
        for item in ready:
            st, indices = item.draw.tag
            if not st.open:
                continue             # the run ended (failed, settled) while this was out
            if item.error is not None:
                if not self.cancelled:
                    self._fail(st, _sentence(item.error))
                continue
            kind, idx = item.draw.kind, indices[item.index]
            if (kind, idx) in st.have:
                continue
            completion = item.completion
            # A runaway or malformed answer is cut and cleaned before matching, so what is
            # matched is exactly what is stored; the store does not clean it again.
            text = clean_text(completion.text, MAX_RESPONSE_CHARS)
            match = st.add(kind, idx, text)
            rows.append(SampleRow(st.run_id, kind, idx, clean_text(completion.prompt), text,
                                  match.answer, match.canonical, match.reason, match.refusal,
                                  completion.tokens, completion.latency_ms, match.nonpick))
            scored = st.live.scored() if self.live_scores or st.quick(self.force_quick) \
                else None
            # A copy: the live scorer refreshes its matches in place, and a screen on
            # another thread must see this moment's result.
            events.append(SampleDrawn(st.run_id, kind, idx, text, match, st.done, st.planned,
                                      frozen(scored) if scored is not None else None))
            if st.quick(self.force_quick) and _settled(scored.scores):
                st.stopped_early = True
                st.open = False
                done.append(st)
            elif st.complete:
                st.open = False
                done.append(st)
        self._store(rows, done)
        self._samples_done += len(rows)
        self._samples_new += len(rows)
        for event in events:
            if event.run_id not in self._outcomes:      # not failed storing it
                self.on_event(event)
        for st in done:
            if st.run_id not in self._outcomes:
                self._finish(st)
        self._progress()

    def _store(self, rows: list[SampleRow], done: list[RunState]) -> None:
        """Commit what arrived together in one transaction (at most COMMIT_EVERY rows). A
        failed commit is retried row by row, so only the runs whose rows cannot be stored
        fail (a row another process stored first, a full disk)."""
        stored = 0
        try:
            for start in range(0, len(rows), COMMIT_EVERY):
                self.store.add_samples(rows[start:start + COMMIT_EVERY])
                stored = start + COMMIT_EVERY
            return
        except ProbeError:
            pass
        by_run = {st.run_id: st for st in self._states}
        for row in rows[stored:]:
            try:
                self.store.add_samples([row])
            except ProbeError as exc:
                st = by_run[row.run_id]
                st.open = False
                if st in done:
                    done.remove(st)
                if st.run_id not in self._outcomes:
                    self._fail(st, str(exc))

    # ------------------------------------------------------------- endings

    def _finish(self, st: RunState) -> None:
        """The run has every sample (or its quick check settled): keep its scores from one
        order-free pass over every response, and say so."""
        st.open = False
        try:
            scored = st.live.final()
            with self.store.transaction():     # the scores and the matches they count, as one
                self.store.update_matches(st.run_id, scored.matches)
                self.store.save_result(st.run_id, scored.scores)
            self.store.set_status(st.run_id, "finished", samples_used=st.done,
                                  ending="quick check" if st.stopped_early else "finished")
        except ProbeError as exc:
            self._fail(st, str(exc))
            return
        self.on_event(RunFinished(st.run_id, scored.scores, st.done, st.planned,
                                  st.stopped_early, scored))
        self._outcome(Outcome(st.run_id, "finished", scored.scores, st.family, st.done,
                              st.planned, st.stopped_early, settings=st.settings))

    def _end(self, st: RunState) -> None:
        """The pipeline stopped with the run open: complete runs finish; the rest are
        cancelled (resumable), their partial scores kept as a result version."""
        if st.complete:
            self._finish(st)
            return
        st.open = False
        if not self.cancelled:
            self._fail(st, f"the {self.backend.name} engine stopped with {st.done} of "
                           f"{st.planned} samples drawn.")
            return
        scores = scored = None
        try:
            if st.done:
                scored = st.live.final()
                scores = scored.scores
                with self.store.transaction():
                    self.store.update_matches(st.run_id, scored.matches)
                    self.store.save_result(st.run_id, scores)
            self.store.set_status(st.run_id, "cancelled", samples_used=st.done)
        except ProbeError:
            pass       # the database may be what failed; the samples so far are kept
        self.on_event(RunCancelled(st.run_id, scores, st.done, scored))
        self._outcome(Outcome(st.run_id, "cancelled", scores, st.family, st.done, st.planned,
                              settings=st.settings))

    def _fail(self, st: RunState, error: str) -> None:
        st.open = False
        try:
            stored = self.store.samples(st.run_id)
            if len({(s.kind, s.idx) for s in stored}) >= st.planned:
                # Every sample is stored: the run is complete, whatever failed afterwards.
                st.reload(stored)
                self._finish(st)
                return
            self.store.set_status(st.run_id, "failed", error, samples_used=st.done)
        except ProbeError:
            pass
        self.on_event(RunFailedEvent(st.run_id, error))
        self._outcome(Outcome(st.run_id, "failed", None, st.family, st.done, st.planned,
                              error=error, settings=st.settings))

    def _outcome(self, outcome: Outcome) -> None:
        self._outcomes[outcome.run_id] = outcome
        self.on_outcome(outcome)

    def _progress(self, force: bool = False) -> None:
        if not self.progress:
            return
        now = time.monotonic()
        if not force and now - self._last_progress < PROGRESS_EVERY_S:
            return
        self._last_progress = now
        states = self._states
        finished = sum(1 for o in self._outcomes.values() if o.status == "finished")
        failed = sum(1 for o in self._outcomes.values() if o.status == "failed")
        active = [(st.family.name, st.done, st.planned) for st in states
                  if st.open and st.running][:8]
        elapsed = max(now - self._started, 1e-6)
        self.on_event(Progress(finished, failed, len(states), self._samples_done,
                               sum(st.planned for st in states),
                               getattr(self.backend, "in_flight", 0),
                               self._samples_new / elapsed, active))


def _settled(scores) -> bool:
    return (scores.n_direct >= QUICK_MIN and scores.n_framed >= QUICK_MIN
            and scores.p_label >= QUICK_CONFIDENCE)


def _sentence(error: BaseException) -> str:
    return str(error) if isinstance(error, ProbeError) else f"{type(error).__name__}: {error}"
