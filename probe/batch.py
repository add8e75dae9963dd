"""Many families on one model: a resumable batch, and the Deep/Shallow/Non-bias breakdown.

Every family of the batch samples through one pipeline (probe/pipeline.py): on a server,
requests of many families share one pool of connections; on transformers, framings of
several families share one ``generate``.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Callable, Sequence

from probe import family as fam_mod
from probe import leases
from probe.backends.base import Backend
from probe.errors import BadInput, ProbeError
from probe.events import Outcome
from probe.metrics import DEEP, NON_BIAS, SHALLOW
from probe.paths import check_followable, resolved
from probe.pipeline import Pipeline
from probe.reference import rescore_with
from probe.run_settings import RunSettings
from probe.runner import Runner
from probe.scoring import Response
from probe.store import Store


def expand_families(args: Sequence[str], families_dir: Path) -> list[Path]:
    """Family arguments: .toml files, folders of them, or names in the families folder."""
    out: list[Path] = []
    for arg in args:
        p = check_followable(Path(arg))
        if p.is_dir():
            found = sorted(p.glob("*.toml"))
            if not found:
                raise BadInput(f"folder {p} has no .toml family files.")
            out.extend(found)
        elif p.suffix == ".toml" or p.exists():
            if not p.is_file():
                raise BadInput(f"no such family file {p}.")
            out.append(p)
        elif (families_dir / f"{arg}.toml").is_file():
            out.append(families_dir / f"{arg}.toml")
        else:
            check_followable(families_dir / f"{arg}.toml")
            raise BadInput(f"no family file '{arg}' (looked for {p} and "
                           f"{families_dir / (arg + '.toml')}).")
    if not out:
        raise BadInput("batch needs at least one family.")
    seen: set[Path] = set()
    unique = []
    for p in out:
        if resolved(p) not in seen:
            seen.add(resolved(p))
            unique.append(p)
    return unique


def breakdown(labels: Sequence[str]) -> dict:
    """The paper's summary: the share of families in each class, in percent."""
    counts = Counter(labels)
    n = len(labels)
    pct = {k: round(100 * counts[k] / n, 1) if n else 0.0 for k in (DEEP, SHALLOW, NON_BIAS)}
    return {**pct, "n": n}


class Batch:
    """Samples a batch's families through one pipeline on one loaded backend; resumable by
    batch id. ``on_family(i, n, outcome)`` is called as each family ends, in the order they
    end (families already finished first)."""

    def __init__(self, store: Store, backend: Backend,
                 on_family: Callable[[int, int, Outcome], None] | None = None,
                 on_event=None, concurrency: int | None = None):
        self.store = store
        self.backend = backend
        self.on_family = on_family or (lambda i, n, o: None)
        self.concurrency = concurrency         # None: the batch's stored setting
        self.pipeline = Pipeline(store, backend, on_event=on_event,
                                 on_outcome=self._ended, progress=True)
        self.owner = leases.new_owner()     # one lease holder for all the batch's runs
        self._ended_count = 0
        self._total = 0

    def cancel(self) -> None:
        self.pipeline.cancel()

    @property
    def cancelled(self) -> bool:
        return self.pipeline.cancelled

    def create(self, paths: list[Path], settings: RunSettings, model_name: str,
               model_spec: str, model_hash: str | None, extra: dict | None = None) -> int:
        families = [fam_mod.load(p) for p in paths]     # every file valid before any sample
        names = Counter(f.name for f in families)
        dup = [n for n, c in names.items() if c > 1]
        if dup:
            raise BadInput(f"two family files share the name '{dup[0]}'; names must differ "
                           "within a batch.")
        settings = settings.with_seed().validate()     # one seed for the whole batch
        batch_id = self.store.create_batch(
            model_name, {"run": settings.__dict__, "model_spec": model_spec,
                         "engine": self.backend.name, "model_hash": model_hash,
                         **(extra or {})},
            [str(p) for p in paths])
        runner = Runner(self.store, self.backend)
        for fam in families:
            runner.create(fam, RunSettings(**settings.__dict__), model_name, model_spec,
                          model_hash, extra, batch_id)
        return batch_id

    def execute(self, batch_id: int) -> list[Outcome]:
        runs = self.store.batch_runs(batch_id)
        todo = [r["id"] for r in runs if r["status"] != "finished"]
        for run_id in todo:          # refuse up front if another process samples any run
            leases.refuse_if_held(self.store, run_id, self.owner)
        taken = []
        try:
            for run_id in todo:
                leases.acquire(self.store, run_id, self.owner)
                taken.append(run_id)
            with leases.Heartbeat(self.store, self.owner):
                return self._execute(runs, todo)
        finally:
            self._end_unfinished(taken)
            for run_id in taken:
                with contextlib.suppress(ProbeError):
                    leases.release(self.store, run_id, self.owner)

    def _end_unfinished(self, run_ids: list[int]) -> None:
        """A batch stopped early (a signal, Ctrl-C twice, a database error) leaves no run
        'running' with no ending: each one not reached or not done is cancelled, so the
        listing says so and `--resume` finishes it."""
        for run_id in run_ids:
            with contextlib.suppress(ProbeError, sqlite3.Error):
                if self.store.run(run_id).status == "running":
                    self.store.set_status(run_id, "cancelled",
                                          samples_used=len(self.store.samples(run_id)))

    def _execute(self, runs: list[dict], todo: list[int]) -> list[Outcome]:
        self._total = len(runs)
        self._ended_count = 0
        outcomes = []
        for r in runs:
            if r["status"] == "finished":
                outcome = self.finished(r["id"])
                outcomes.append(outcome)
                self._ended(outcome)
        outcomes += self.pipeline.execute(todo, self.concurrency)
        by_run = {o.run_id: o for o in outcomes}
        return [by_run[r["id"]] for r in runs if r["id"] in by_run]

    def _ended(self, outcome: Outcome) -> None:
        self._ended_count += 1
        self.on_family(self._ended_count, self._total, outcome)

    def finished(self, run_id: int) -> Outcome:
        """A finished run's outcome from its stored result: nothing is matched again."""
        run = self.store.run(run_id)
        fam = self.store.family(run.family_id)
        settings = RunSettings.from_dict(run.settings)
        scores = self.store.sampled_scores(run_id)
        used = run.samples_used
        if scores is None or used is None:      # a database from before scores were kept
            samples = self.store.samples(run_id)
            used = len(samples)
            scores = rescore_with(fam, [Response(s.kind, s.idx, s.response) for s in samples],
                                  settings.rule, settings.dr_threshold,
                                  settings.pi_threshold, settings.answer_format).scores
        return Outcome(run_id, "finished", scores, fam, used,
                       settings.samples + len(fam.framings), settings=settings)
