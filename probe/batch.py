"""Many families on one model: a resumable batch, and the Deep/Shallow/Non-bias breakdown.

On an engine that batches (transformers), the framings of all families are pooled into
shared batches, so one ``generate`` serves several families at once; the direct samples
of each family are already one batched call.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Callable, Sequence

from probe import family as fam_mod
from probe import leases
from probe.backends.base import Backend, Sampling
from probe.errors import BadInput, ProbeError
from probe.family import Family
from probe.limits import MAX_RESPONSE_CHARS
from probe.metrics import DEEP, NON_BIAS, SHALLOW
from probe.prompting import PromptStyle
from probe.reading import clean_text
from probe.reference import rescore_with
from probe.runner import Outcome, Runner, RunSettings, sample_seed
from probe.scoring import Response, rescore
from probe.store import SampleRow, Store


def expand_families(args: Sequence[str], families_dir: Path) -> list[Path]:
    """Family arguments: .toml files, folders of them, or names in the families folder."""
    out: list[Path] = []
    for arg in args:
        p = Path(arg)
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
            raise BadInput(f"no family file '{arg}' (looked for {p} and "
                           f"{families_dir / (arg + '.toml')}).")
    if not out:
        raise BadInput("batch needs at least one family.")
    seen: set[Path] = set()
    unique = []
    for p in out:
        if p.resolve() not in seen:
            seen.add(p.resolve())
            unique.append(p)
    return unique


def breakdown(labels: Sequence[str]) -> dict:
    """The paper's summary: the share of families in each class, in percent."""
    counts = Counter(labels)
    n = len(labels)
    pct = {k: round(100 * counts[k] / n, 1) if n else 0.0 for k in (DEEP, SHALLOW, NON_BIAS)}
    return {**pct, "n": n}


class Batch:
    """Runs families one after another on one loaded backend; resumable by batch id."""

    def __init__(self, store: Store, backend: Backend,
                 on_family: Callable[[int, int, Outcome], None] | None = None,
                 on_event=None):
        self.store = store
        self.backend = backend
        self.on_family = on_family or (lambda i, n, o: None)
        self.on_event = on_event
        self.cancelled = False
        self._runner: Runner | None = None
        self.owner = leases.new_owner()     # one lease holder for all the batch's runs

    def cancel(self) -> None:
        self.cancelled = True
        self.backend.cancel()
        if self._runner is not None:
            self._runner.cancel()

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
                return self._execute(runs)
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

    def _execute(self, runs: list[dict]) -> list[Outcome]:
        if self.backend.SUPPORTS_BATCH:
            self._pool_framings([r["id"] for r in runs if r["status"] != "finished"])
        outcomes = []
        for i, r in enumerate(runs, start=1):
            if self.cancelled:
                break
            runner = Runner(self.store, self.backend, on_event=self.on_event, owner=self.owner)
            self._runner = runner
            if r["status"] == "finished":
                outcome = self.finished(r["id"])
            else:
                outcome = runner.execute(r["id"])
            outcomes.append(outcome)
            self.on_family(i, len(runs), outcome)
            if outcome.status == "cancelled":
                break
        return outcomes

    def finished(self, run_id: int) -> Outcome:
        run = self.store.run(run_id)
        fam = self.store.family(run.family_id)
        samples = self.store.samples(run_id)
        settings = RunSettings.from_dict(run.settings)
        scores = rescore_with(fam, [Response(s.kind, s.idx, s.response) for s in samples],
                              settings.rule, settings.dr_threshold, settings.pi_threshold).scores
        return Outcome(run_id, "finished", scores, fam, len(samples),
                       settings.samples + len(fam.framings), settings=settings)

    def _pool_framings(self, run_ids: list[int]) -> None:
        """Framed samples of every family in shared batches (transformers)."""
        pending: list[tuple[int, Family, PromptStyle, int, str]] = []
        settings_of: dict[int, RunSettings] = {}
        for run_id in run_ids:
            run = self.store.run(run_id)
            fam = self.store.family(run.family_id)
            style = PromptStyle.from_dict(run.settings.get("style", {}))
            settings_of[run_id] = RunSettings.from_dict(run.settings)
            have = {(s.kind, s.idx) for s in self.store.samples(run_id)}
            for idx, prompt in enumerate(fam.framings):
                if ("framed", idx) not in have:
                    pending.append((run_id, fam, style, idx, prompt))
        size = max(1, self.backend.preferred_chunk())
        for start in range(0, len(pending), size):
            if self.cancelled:
                return
            chunk = pending[start:start + size]
            first = settings_of[chunk[0][0]]
            # One box per prompt style in the chunk (a batch's runs share one).
            styles = {(s.mode, s.instruction, s.system): s for _, _, s, _, _ in chunk}
            for key, style in styles.items():
                self.backend.prepare([p for _, _, s, _, p in chunk
                                      if (s.mode, s.instruction, s.system) == key], style)
            texts = [self.backend.render(p, style) for _, _, style, _, p in chunk]
            seed = sample_seed(first.seed, "framed", chunk[0][3])
            results = self.backend.sample_texts(
                texts, chunk[0][2].mode, Sampling(first.temperature, first.max_tokens), seed)
            for (run_id, fam, _style, idx, _p), completion in zip(chunk, results):
                text = clean_text(completion.text, MAX_RESPONSE_CHARS)
                m = rescore(fam, [Response("framed", idx, text)]).matches[0][1]
                self.store.add_sample(SampleRow(run_id, "framed", idx, completion.prompt,
                                                text, m.answer, m.canonical,
                                                m.reason, m.refusal, completion.tokens,
                                                completion.latency_ms))
