"""Faults: SIGKILL at random points, a full disk, concurrent writers, models that fail."""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time

from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FAMILIES, write_jsonl
from probe.backends.fake import FakeBackend
from probe.cli import cli
from probe.errors import BadInput, RunFailed
from probe.family import Family
from probe.runner import Runner, RunSettings
from probe.store import Store

# A child process that runs a family on the scripted backend and prints each sample as
# soon as the runner has committed it.
CHILD = r"""
import sys
from probe.backends.fake import FakeBackend
from probe.family import load
from probe.runner import Runner, RunSettings, SampleDrawn
from probe.store import Store

db, fam_path, resume = sys.argv[1], sys.argv[2], sys.argv[3]
store = Store(db)
backend = FakeBackend(lambda p: "Monarch" if p.startswith("Choose") else "Viceroy",
                      delay=0.004)
backend.load()
def on_event(e):
    if isinstance(e, SampleDrawn):
        print(e.kind, e.idx, flush=True)
runner = Runner(store, backend, on_event=on_event)
if resume == "new":
    run_id = runner.create(load(fam_path), RunSettings(samples=30), "fake")
else:
    run_id = int(resume)
runner.execute(run_id)
"""


def test_sigkill_at_random_points_in_twenty_runs(isolated):
    fam_path = isolated / "families" / "butterfly.toml"
    fam_path.write_text((FAMILIES / "butterfly.toml").read_text())
    rng = random.Random(7)
    for trial in range(20):
        db = isolated / f"kill{trial}.db"
        proc = subprocess.Popen([sys.executable, "-c", CHILD, str(db), str(fam_path), "new"],
                                stdout=subprocess.PIPE, text=True)
        # Kill at a random point once sampling has begun (start-up time varies with load).
        first = proc.stdout.readline()
        time.sleep(rng.uniform(0.0, 0.6))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        out = first + out
        reported = {tuple(line.split()) for line in out.splitlines()}
        store = Store(db)
        assert store.query("PRAGMA integrity_check")[0]["integrity_check"] == "ok"
        if not store.query("SELECT id FROM runs"):
            # Killed before the run was even created (a loaded machine starts slowly):
            # nothing was reported, so nothing can have been lost.
            assert not reported
            store.close()
            continue
        stored = {(s.kind, str(s.idx)): s.response for s in store.samples(1)}
        assert reported <= set(stored), f"trial {trial}: a committed sample was lost"
        store.close()
        resumed = subprocess.run([sys.executable, "-c", CHILD, str(db), str(fam_path), "1"],
                                 capture_output=True, text=True, timeout=60)
        assert resumed.returncode == 0, resumed.stderr
        store = Store(db)
        after = store.samples(1)
        keys = [(s.kind, s.idx) for s in after]
        assert len(keys) == len(set(keys)) == 60, f"trial {trial}"
        assert all(stored[(s.kind, str(s.idx))] == s.response for s in after
                   if (s.kind, str(s.idx)) in stored)
        assert store.run(1).status == "finished"
        assert store.query("PRAGMA integrity_check")[0]["integrity_check"] == "ok"
        store.close()


def test_disk_full_mid_run_is_a_clear_error_and_the_database_stays_intact(isolated):
    store = Store(isolated / "probe.db")
    fam = Family("butterfly", "Choose a random popular butterfly.",
                 [f"Scenario {i} " + "x" * 400 for i in range(30)])
    backend = FakeBackend("A long answer " * 20)
    backend.load()
    runner = Runner(store, backend)
    run_id = runner.create(fam, RunSettings(samples=30), "fake")
    pages = store.query("PRAGMA page_count")[0]["page_count"]
    # SQLite's page limit stands in for a filling disk: writes fail with SQLITE_FULL.
    store.db.execute(f"PRAGMA max_page_count = {pages + 3}")
    out = runner.execute(run_id)
    assert out.status == "failed"
    assert "database or disk is full" in out.error and "no data was lost" in out.error
    kept = len(store.samples(run_id))
    assert 0 < kept < 60
    store.close()
    fresh = Store(isolated / "probe.db")
    assert fresh.query("PRAGMA integrity_check")[0]["integrity_check"] == "ok"
    assert len(fresh.samples(run_id)) == kept


def test_concurrent_cli_processes_and_the_app_runner_share_one_database(isolated):
    fam_path = isolated / "families" / "butterfly.toml"
    fam_path.write_text((FAMILIES / "butterfly.toml").read_text())
    rows = [{"response": "Monarch"}] * 30 + [{"framing_idx": i, "response": "Monarch"}
                                              for i in range(30)]
    resp = write_jsonl(isolated / "r.jsonl", rows)
    procs = [subprocess.Popen([sys.executable, "-m", "probe", "score", "butterfly",
                               "--responses", str(resp), "--json"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(5)]
    # Meanwhile, in this process, the app's runner writes too.
    store = Store(isolated / "probe.db")
    backend = FakeBackend("Monarch", delay=0.002)
    backend.load()
    runner = Runner(store, backend)
    thread = threading.Thread(target=lambda: runner.execute(
        runner.create(Family("moth", "Choose a random moth.", [f"s{i}" for i in range(30)]),
                      RunSettings(samples=30), "fake")))
    thread.start()
    results = [p.communicate(timeout=120) for p in procs]
    thread.join(timeout=120)
    for p, (out, err) in zip(procs, results):
        assert p.returncode == 0, err
        assert "locked" not in err
        assert json.loads(out)["bias_type"] == "deep"
    assert store.query("SELECT COUNT(*) AS n FROM samples")[0]["n"] == 6 * 60
    assert {r["status"] for r in store.runs()} == {"finished"}


@pytest.mark.parametrize("make_db, fragment", [
    (lambda p: p.write_bytes(b"\x00" * 4096), "not an SQLite file"),
    (lambda p: sqlite3.connect(p).execute("CREATE TABLE t (x)").connection.commit(),
     "not a probe database"),
])
def test_corrupt_or_foreign_database_through_the_cli(isolated, make_db, fragment):
    db = isolated / "other.db"
    make_db(db)
    before = db.read_bytes()
    fam = isolated / "families" / "butterfly.toml"
    fam.write_text((FAMILIES / "butterfly.toml").read_text())
    resp = write_jsonl(isolated / "r.jsonl", [{"response": "Monarch"}])
    out = subprocess.run([sys.executable, "-m", "probe", "score", "butterfly", "--responses",
                          str(resp), "--db", str(db)], capture_output=True, text=True)
    assert out.returncode == 2 and fragment in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert db.read_bytes() == before


@pytest.mark.parametrize("model, fragment", [
    ("missing.gguf", "does not exist"),
    ("notes.gguf", "not a GGUF file"),
    ("folder-without-config", "has no config.json"),
])
def test_models_that_fail_to_load_are_one_sentence(isolated, model, fragment):
    (isolated / "notes.gguf").write_text("these are not weights")
    (isolated / "folder-without-config").mkdir()
    fam = isolated / "families" / "butterfly.toml"
    fam.write_text((FAMILIES / "butterfly.toml").read_text())
    out = subprocess.run([sys.executable, "-m", "probe", "run", "butterfly", "--model", model],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    assert fragment in out.stderr and "Traceback" not in out.stderr


def test_out_of_memory_while_loading_is_one_sentence(tiny_model, monkeypatch):
    import transformers

    from probe.backends.hf import TransformersBackend

    def oom(*args, **kwargs):
        raise RuntimeError("CUDA out of memory. Tried to allocate 80.00 GiB")

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", oom)
    with pytest.raises(RunFailed, match="does not fit in"):
        TransformersBackend(tiny_model).load()


def test_bad_family_in_a_batch_stops_before_any_sample(isolated):
    (isolated / "families" / "good.toml").write_text(
        'direct = "Choose a random x."\nframings = ["a"]\n')
    (isolated / "families" / "bad.toml").write_text('direct = ""\nframings = ["a"]\n')
    result = CliRunner().invoke(cli, ["batch", "families"])
    assert result.exit_code == 2 and "bad.toml" in result.output
    assert not (isolated / "probe.db").exists() or not Store(isolated / "probe.db").runs()


# ------------------------------------------ leases, signals, damaged databases (issue 11)

import os
import shutil

from probe import leases
from servers import models_then, slowly

PROBE = [sys.executable, "-m", "probe"]


def _start_child(isolated, resume="new", delay=0.05):
    fam_path = isolated / "families" / "butterfly.toml"
    if not fam_path.exists():
        shutil.copy(FAMILIES / "butterfly.toml", fam_path)
    code = CHILD.replace("delay=0.004", f"delay={delay}")
    return subprocess.Popen([sys.executable, "-c", code, str(isolated / "probe.db"),
                             str(fam_path), resume], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _wait_for_samples(proc, n=3):
    for _ in range(n):
        assert proc.stdout.readline(), proc.stderr.read()


def test_a_second_resume_of_a_run_being_sampled_is_refused_up_front(isolated):
    first = _start_child(isolated)
    _wait_for_samples(first)
    cli = subprocess.run([*PROBE, "run", "--resume", "1"], capture_output=True, text=True,
                         timeout=60)
    assert cli.returncode == 2 and "being sampled by another probe process" in cli.stderr, \
        cli.stderr
    assert len(cli.stderr.strip().splitlines()) == 1
    second = _start_child(isolated, resume="1")       # the runner itself refuses too
    _, err = second.communicate(timeout=60)
    assert second.returncode != 0 and "being sampled by another probe process" in err
    first.communicate(timeout=120)
    assert first.returncode == 0
    store = Store(isolated / "probe.db")
    keys = [(s.kind, s.idx) for s in store.samples(1)]
    assert len(keys) == len(set(keys)) == 60
    assert store.run(1).status == "finished"
    assert store.query("SELECT COUNT(*) AS n FROM run_leases")[0]["n"] == 0


def test_a_stale_lease_is_taken_over(isolated):
    store = Store(isolated / "probe.db")
    backend = FakeBackend("Monarch")
    backend.load()
    runner = Runner(store, backend)
    run_id = runner.create(Family("b", "Choose one.", ["a", "b"]), RunSettings(samples=3), "f")
    now = time.time()
    # Another machine's lease, fresh: refused. Then its heartbeat stops: taken over.
    with store._write() as db:
        db.execute("INSERT INTO run_leases VALUES (?, 'elsewhere:1:x', 1, 'elsewhere', ?)",
                   [run_id, now])
    with pytest.raises(BadInput, match="host elsewhere"):
        Runner(store, backend).execute(run_id)
    with store._write() as db:
        db.execute("UPDATE run_leases SET heartbeat = ?", [now - 10 * leases.LEASE_TTL_S])
    assert Runner(store, backend).execute(run_id).status == "finished"
    # A dead process on this machine: taken over at once.
    run2 = runner.create(Family("c", "Choose two.", ["a"]), RunSettings(samples=2), "f")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    with store._write() as db:
        db.execute("INSERT INTO run_leases VALUES (?, 'x', ?, ?, ?)",
                   [run2, int(dead), leases.HOST, now])
    assert Runner(store, backend).execute(run2).status == "finished"


class _LosesTheLastSample(FakeBackend):
    """Another process stores the last framed sample first (the race two resumes ran):
    this runner's own insert of it then fails."""

    store: Store | None = None

    def sample_each(self, prompts, style, sampling, seeds):
        from probe.store import SampleRow

        for completion in super().sample_each(prompts, style, sampling, seeds):
            if prompts[-1] == "last":
                self.store.add_sample(SampleRow(1, "framed", 1, "last", "Monarch", "Monarch",
                                                "Monarch", "new", False, 1, 1.0))
            yield completion


def test_a_run_whose_every_sample_is_stored_is_never_marked_failed(isolated):
    store = Store(isolated / "probe.db")
    backend = _LosesTheLastSample("Monarch")
    backend.store = store
    backend.load()
    runner = Runner(store, backend)
    run_id = runner.create(Family("b", "Choose one.", ["first", "last"]),
                           RunSettings(samples=2), "f")
    out = runner.execute(run_id)
    assert len(store.samples(run_id)) == 4
    assert out.status == "finished" and store.run(run_id).status == "finished"
    assert store.result(run_id)["top_answer"] == "Monarch"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
@pytest.mark.parametrize("command", ["run", "batch"])
def test_sigterm_and_sighup_cancel_like_ctrl_c(isolated, serve, butterfly_path, sig,
                                               command):
    server = serve(models_then(slowly(0.15)))
    args = [*PROBE, command, "butterfly", "--backend", "openai", "--base-url", server.url,
            "--model", "m", "--base", "--concurrency", "4"]
    # At most 4 in flight: the 12th request means 8 have landed, so there is a partial
    # result to keep.
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while sum(p.endswith("/completions") for p, _ in server.seen) < 12:
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
        time.sleep(0.05)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    store = Store(isolated / "probe.db")
    run = store.run(1)
    assert run.status == "cancelled", err
    assert store.result(1) is not None                 # the partial result is saved
    kept = len(store.samples(1))
    assert 0 < kept < 60
    store.close()
    resume = ([*PROBE, "run", "--resume", "1"] if command == "run"
              else [*PROBE, "batch", "--resume", "1"]) + ["--base-url", server.url]
    fast = serve(models_then(slowly(0)))
    # The stored server address is the slow one; it still answers, just slowly.
    done = subprocess.run(resume, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert Store(isolated / "probe.db").run(1).status == "finished"
    del fast


def _scored_db(isolated) -> Path:
    resp = write_jsonl(isolated / "r.jsonl", [{"response": "Monarch"}] * 3
                       + [{"framing_idx": 0, "response": "Monarch"}])
    fam = isolated / "families" / "butterfly.toml"
    fam.write_text((FAMILIES / "butterfly.toml").read_text())
    subprocess.run([*PROBE, "score", "butterfly", "--responses", str(resp)], check=True,
                   capture_output=True, timeout=60)
    db = isolated / "probe.db"
    sqlite3.connect(db).execute("PRAGMA wal_checkpoint(TRUNCATE)").connection.close()
    return db


DAMAGE = {
    "results-dropped": ("DROP TABLE results", "table 'results' is missing"),
    "samples-dropped": ("DROP TABLE samples", "table 'samples' is missing"),
    "column-renamed": ("ALTER TABLE samples RENAME COLUMN response TO resp",
                       "has no column 'response'"),
    "column-dropped": ("ALTER TABLE runs DROP COLUMN error", "has no column 'error'"),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_a_damaged_schema_is_reported_and_nothing_is_written(isolated, case):
    db = _scored_db(isolated)
    sql, fragment = DAMAGE[case]
    conn = sqlite3.connect(db)
    conn.execute(sql)
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    before = db.read_bytes()
    for args in (["score", "butterfly", "--responses", str(isolated / "r.jsonl")],
                 ["thresholds"], ["export"], ["run", "--resume", "1"]):
        out = subprocess.run([*PROBE, *args], capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and fragment in out.stderr, (args, out.stderr)
        assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    assert db.read_bytes() == before
    wal = isolated / "probe.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0


STORED = {
    "settings-garbage": ("UPDATE runs SET settings = '{not json'", "damaged"),
    "settings-a-list": ("UPDATE runs SET settings = '[1, 2]'", "damaged"),
    "samples-a-billion": ("UPDATE runs SET settings = json_set(settings, '$.samples', "
                          "1000000000)", "more than the limit"),
    "samples-a-string": ("UPDATE runs SET settings = json_set(settings, '$.samples', 'x')",
                         "damaged"),
    "framings-garbage": ("UPDATE families SET framings = 'nope'", "damaged"),
}


@pytest.mark.parametrize("case", sorted(STORED))
def test_absurd_stored_values_are_one_sentence(isolated, serve, case):
    server = serve(models_then(slowly(0)))
    store = Store(isolated / "probe.db")
    backend = FakeBackend("Monarch")
    backend.load()
    runner = Runner(store, backend)
    fam = Family("b", "Choose one.", ["a", "b"])
    run_id = runner.create(fam, RunSettings(samples=2), "m @ server", "m",
                           extra={"base_url": server.url})
    store.set_status(run_id, "cancelled")
    with store._write() as db:
        db.execute("UPDATE runs SET settings = json_set(settings, '$.engine', 'openai')")
        db.execute(STORED[case][0])
    store.close()
    start = time.monotonic()
    out = subprocess.run([*PROBE, "run", "--resume", str(run_id)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and STORED[case][1] in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    assert time.monotonic() - start < 20
    # Read past probe: a damaged database is refused when it opens.
    conn = sqlite3.connect(isolated / "probe.db")
    status = conn.execute("SELECT status FROM runs WHERE id = ?", [run_id]).fetchall()
    conn.close()
    assert status == [("cancelled",)]


def test_absurd_ids_are_one_sentence(isolated):
    _scored_db(isolated)
    for args in (["run", "--resume", str(10 ** 20)], ["export", "--run", str(10 ** 20)],
                 ["batch", "--resume", str(10 ** 20)], ["run", "--resume", "-5"]):
        out = subprocess.run([*PROBE, *args], capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and "no " in out.stderr, (args, out.stderr)
        assert "Traceback" not in out.stderr


def test_a_writer_holding_the_lock_past_30_s_is_one_sentence(isolated):
    db = _scored_db(isolated)
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sqlite3, sys, time\n"
        f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
        "c.execute('BEGIN IMMEDIATE'); print('held', flush=True); time.sleep(45)\n")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        out = subprocess.run([*PROBE, "score", "butterfly", "--responses",
                              str(isolated / "r.jsonl")], capture_output=True, text=True,
                             timeout=90)
    finally:
        holder.kill()
        holder.wait()
    assert out.returncode == 1 and "locked by another process" in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    assert {r["status"] for r in Store(db).runs()} == {"finished"}


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files anyway")
def test_a_read_only_database_is_read_but_never_written(isolated):
    db = _scored_db(isolated)
    for f in isolated.glob("probe.db*"):
        f.chmod(0o444)
    before = db.read_bytes()
    ok = subprocess.run([*PROBE, "thresholds"], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    out = subprocess.run([*PROBE, "score", "butterfly", "--responses",
                          str(isolated / "r.jsonl")], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 2 and "read-only" in out.stderr, out.stderr
    assert db.read_bytes() == before


@pytest.mark.parametrize("sql, fragment", [
    ("UPDATE results SET dr = 'x'", "dr = 'x'"),
    ("UPDATE results SET pi = 7.5", "pi = 7.5"),
    ("UPDATE results SET label = 'maybe'", "label = 'maybe'"),
    ("UPDATE results SET n_direct = 1e300", "n_direct"),
])
def test_damaged_stored_results_are_one_sentence_in_every_analysis(isolated, sql, fragment):
    db = _scored_db(isolated)
    conn = sqlite3.connect(db)
    conn.execute(sql)
    conn.commit()
    conn.close()
    for args in (["thresholds"], ["compare", "--a", "external", "--b", "external"],
                 ["report", "--out", str(isolated / "rep")]):
        out = subprocess.run([*PROBE, *args], capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and fragment in out.stderr, (args, out.stderr)
        assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr


def test_a_trigger_refusing_writes_fails_the_score_and_leaves_no_running_run(isolated):
    db = _scored_db(isolated)
    conn = sqlite3.connect(db)
    conn.execute("CREATE TRIGGER no_samples BEFORE INSERT ON samples "
                 "BEGIN SELECT RAISE(ABORT, 'samples are frozen'); END")
    conn.commit()
    conn.close()
    out = subprocess.run([*PROBE, "score", "butterfly", "--responses",
                          str(isolated / "r.jsonl")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "samples are frozen" in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    # A score is stored in one transaction: refused, it leaves nothing (the run scored
    # before is all there is), never a run 'running' forever.
    statuses = [r["status"] for r in Store(db).runs()]
    assert statuses == ["finished"]
