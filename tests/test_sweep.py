"""The sweep at the engine's speed (issue 16): many families in flight on one server pool,
a server that is busy or ignores ``n``, kill -9 at random points and an exact resume, and
one pipeline that samples each run with its own settings. Against the simulated server
(benchmarks/simserver.py), in a thread of the test or behind the real CLI."""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from simserver import SimServer  # noqa: E402
from sweep import write_families  # noqa: E402

from probe.backends.fake import FakeBackend  # noqa: E402
from probe.family import Family  # noqa: E402
from probe.pipeline import Pipeline  # noqa: E402
from probe.runner import Runner, RunSettings, sample_seed  # noqa: E402
from probe.scoring import Response, rescore  # noqa: E402
from probe.store import Store  # noqa: E402

PROBE = [sys.executable, "-m", "probe"]


@pytest.fixture
def sim():
    made = []

    def start(**settings):
        made.append(SimServer(max_seconds=300, **settings))
        return made[-1]

    yield start
    for s in made:
        s.close()


def batch(url: str, families: Path, *extra: str, db: Path | None = None,
          timeout: float = 300) -> subprocess.CompletedProcess:
    args = [*PROBE, "batch", str(families), "--backend", "openai", "--base-url", url,
            "--model", "sim", "--json", *extra]
    if db:
        args += ["--db", str(db)]
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout)


def stored(db: Path) -> tuple[list[tuple], dict]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT run_id, kind, idx, response FROM samples").fetchall()
        statuses = dict(conn.execute("SELECT status, COUNT(*) FROM runs GROUP BY status"))
    return rows, statuses


def test_requests_of_many_families_fill_the_concurrency_and_never_exceed_it(isolated, sim):
    server = sim(latency=0.3)
    fams = write_families(isolated / "fams", 12, framings=10)
    out = batch(server.url, fams, "--samples", "10", "--concurrency", "16")
    assert out.returncode == 0, out.stderr
    assert server.stats().peak_in_flight == 16      # several families at once, no more
    rows, statuses = stored(isolated / "probe.db")
    assert statuses == {"finished": 12}
    assert len(rows) == len({r[:3] for r in rows}) == 12 * 20
    summary = json.loads(out.stdout.splitlines()[-1])
    assert summary["summary"]["n"] == 12 and summary["unfinished"] == 0


def test_a_server_capped_below_the_concurrency_loses_nothing(isolated, sim):
    server = sim(latency=0.05, cap=3)
    fams = write_families(isolated / "fams", 6, framings=12)
    out = batch(server.url, fams, "--samples", "12", "--concurrency", "32")
    assert out.returncode == 0, out.stderr
    stats = server.stats()
    assert stats.refused > 0 and stats.peak_in_flight <= 3       # it said "busy", often
    rows, statuses = stored(isolated / "probe.db")
    assert statuses == {"finished": 6}
    assert len(rows) == len({r[:3] for r in rows}) == 6 * 24


def test_a_server_that_ignores_n_still_gets_every_sample_once(isolated, sim):
    server = sim(honour_n=False)
    fams = write_families(isolated / "fams", 3, framings=5)
    out = batch(server.url, fams, "--samples", "7")
    assert out.returncode == 0, out.stderr
    assert server.stats().requests == 3 * (1 + 6 + 5)   # one try with n, then one by one
    rows, _ = stored(isolated / "probe.db")
    assert len(rows) == len({r[:3] for r in rows}) == 3 * 12


def _count(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_kill_9_at_random_points_then_resume_is_exact(isolated, sim):
    server = sim(latency=0.02)
    fams = write_families(isolated / "fams", 10, framings=12)
    total = 10 * (12 + 12)
    db = isolated / "kill.db"
    rng = random.Random(16)
    kept: dict[tuple, str] = {}
    common = ["--backend", "openai", "--base-url", server.url, "--model", "sim", "--db",
              str(db), "--json"]
    for attempt in range(6):
        cmd = [*PROBE, "batch", "--resume", "1", *common] if attempt else \
            [*PROBE, "batch", str(fams), "--samples", "12", "--concurrency", "8", *common]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        before = _count(db)
        target = before + rng.randint(1, max(1, (total - before) // 3))
        deadline = time.monotonic() + 120
        while _count(db) < target and proc.poll() is None:
            assert time.monotonic() < deadline, "the batch stalled"
            time.sleep(rng.uniform(0.0, 0.02))
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(30) == -signal.SIGKILL, "the batch ended before it was killed"
        rows, _ = stored(db)
        keys = [r[:3] for r in rows]
        assert len(keys) == len(set(keys))            # never a sample twice
        for r in rows:                                # nothing committed is lost or changed
            assert kept.setdefault(r[:3], r[3]) == r[3]
        assert len(kept) == len(rows)
    out = subprocess.run([*PROBE, "batch", "--resume", "1", "--backend", "openai",
                          "--base-url", server.url, "--model", "sim", "--db", str(db),
                          "--json"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows, statuses = stored(db)
    assert statuses == {"finished": 10}
    assert len(rows) == len({r[:3] for r in rows}) == total
    assert all(kept[r[:3]] == r[3] for r in rows if r[:3] in kept)
    store = Store(db)
    for run in store.batch_runs(1):                   # the kept scores are the samples'
        samples = store.samples(run["id"])
        fam = store.family(store.run(run["id"]).family_id)
        again = rescore(fam, [Response(s.kind, s.idx, s.response) for s in samples]).scores
        assert store.sampled_scores(run["id"]).label == again.label
        assert store.sampled_scores(run["id"]).dr == again.dr


class Recording(FakeBackend):
    """Answers by prompt and records the settings each sample was asked with."""

    def __init__(self):
        super().__init__(lambda p: "Monarch" if "Choose" in p else "Viceroy")
        self.asked: list[tuple[str, float, int]] = []

    def sample_one(self, prompt, style, sampling, seed):
        self.asked.append((prompt, sampling.temperature, seed))
        return super().sample_one(prompt, style, sampling, seed)


def test_one_pipeline_samples_each_run_with_its_own_settings(isolated):
    store = Store(isolated / "probe.db")
    backend = Recording()
    backend.load()
    runner = Runner(store, backend)
    a = Family("a", "Choose a random colour.", [f"Colour {i}: which?" for i in range(3)])
    b = Family("b", "Choose a random city.", [f"City {i}: which?" for i in range(4)])
    run_a = runner.create(a, RunSettings(samples=2, temperature=0.2, seed=11), "fake")
    run_b = runner.create(b, RunSettings(samples=3, temperature=1.3, seed=99), "fake")
    outcomes = Pipeline(store, backend).execute([run_a, run_b])
    assert [o.status for o in outcomes] == ["finished", "finished"]
    want = {(a.direct, 0.2, sample_seed(11, "direct", i)) for i in range(2)}
    want |= {(f, 0.2, sample_seed(11, "framed", i)) for i, f in enumerate(a.framings)}
    want |= {(b.direct, 1.3, sample_seed(99, "direct", i)) for i in range(3)}
    want |= {(f, 1.3, sample_seed(99, "framed", i)) for i, f in enumerate(b.framings)}
    assert sorted(backend.asked) == sorted(want)     # each sample once, its run's settings
    assert len(store.samples(run_a)) == 5 and len(store.samples(run_b)) == 7


def test_a_transformers_batch_pools_framings_but_keeps_each_runs_temperature(isolated,
                                                                            tiny_model):
    from probe.backends.hf import TransformersBackend

    store = Store(isolated / "probe.db")
    backend = TransformersBackend(tiny_model)
    backend.load()
    calls = []
    real = backend.sample_texts

    def spy(texts, mode, sampling, seeds):
        calls.append((len(texts), sampling.temperature))
        return real(texts, mode, sampling, seeds)

    backend.sample_texts = spy
    runner = Runner(store, backend)
    runs = [runner.create(Family(n, f"Choose a random {n}.", [f"Which {n} for a card?",
                                                              f"Which {n} to paint?"]),
                          RunSettings(samples=2, max_tokens=3, temperature=t), "tiny")
            for n, t in (("a", 0.5), ("b", 0.5), ("c", 1.5))]
    outcomes = Pipeline(store, backend).execute(runs)
    assert [o.status for o in outcomes] == ["finished"] * 3
    # a and b share one generate; c, sampled hotter, has its own.
    assert sorted(calls) == [(2, 1.5), (4, 0.5)]
