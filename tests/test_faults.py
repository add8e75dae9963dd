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

import pytest
from click.testing import CliRunner

from conftest import FAMILIES, write_jsonl
from probe.backends.fake import FakeBackend
from probe.cli import cli
from probe.errors import RunFailed
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
        time.sleep(rng.uniform(0.3, 0.9))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
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
