"""Command-line wording and batch reporting (issue 10, item 17), on the real default model."""

from __future__ import annotations

import json
import signal
import subprocess
import time

from probe import family as fam_mod
from probe.store import Store
from test_cli_run import PROBE, probe


def small_families(folder, n=3, framings=3):
    for i in range(n):
        fam_mod.save(fam_mod.Family(f"f{i}", "Choose a random popular butterfly.",
                                    [f"Which butterfly for card {j}?" for j in range(framings)]),
                     folder / f"f{i}.toml")


def test_errors_do_not_say_probe_twice():
    for args in (["match", "a"], ["run"]):
        out = probe(*args)
        assert out.returncode == 2
        assert out.stderr.startswith("probe: ") and "probe: probe" not in out.stderr


def test_runs_draw_fresh_seeds_and_record_them(butterfly_path, tmp_path):
    seeds = []
    for _ in range(2):
        out = probe("run", "butterfly", "--json", "--samples", "2")
        assert out.returncode == 0, out.stderr
        seeds.append(json.loads(out.stdout)["seed"])
    assert seeds[0] != seeds[1]
    store = Store(tmp_path / "probe.db")
    assert [store.run(i).seed for i in (1, 2)] == seeds


def test_batch_json_names_the_batch_to_resume(isolated):
    small_families(isolated / "families", n=2)
    out = probe("batch", "families", "--samples", "2", "--json")
    assert out.returncode == 0, out.stderr
    last = json.loads(out.stdout.splitlines()[-1])
    assert last["batch_id"] == 1 and last["summary"]["n"] == 2
    assert "batch 1" in out.stderr


def _interrupt_after(isolated, finished: int) -> subprocess.CompletedProcess:
    db = isolated / "probe.db"
    proc = subprocess.Popen([*PROBE, "batch", "families", "--samples", "20"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    end = time.time() + 180
    while time.time() < end:
        try:
            store = Store(db)
            rows = store.query("SELECT status, COUNT(*) AS n FROM runs GROUP BY status")
            store.close()
        except Exception:
            rows = []
        counts = {r["status"]: r["n"] for r in rows}
        if counts.get("finished", 0) >= finished and counts.get("running", 0):
            break
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def test_an_interrupted_batch_prints_what_it_has(isolated):
    small_families(isolated / "families", n=3, framings=10)
    out = _interrupt_after(isolated, finished=1)
    assert out.returncode == 130, out.stderr
    assert "f0" in out.stdout and "100.0%" in out.stdout
    assert out.stdout.count(" 0.0%") == 2          # Shallow and Non-bias, once each
    assert "--resume 1" in out.stderr


def test_a_batch_interrupted_before_any_family_prints_no_empty_table(isolated):
    small_families(isolated / "families", n=2, framings=10)
    out = _interrupt_after(isolated, finished=0)
    assert out.returncode == 130, out.stderr
    assert "%" not in out.stdout and "family" not in out.stdout
    assert "no family finished yet" in out.stderr
