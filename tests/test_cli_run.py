"""`probe run` end to end through the real command, on the real default model."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from probe.scoring import Response, rescore
from probe.store import Store

PROBE = [sys.executable, "-m", "probe"]


def probe(*args, **kw):
    return subprocess.run([*PROBE, *args], capture_output=True, text=True, timeout=600, **kw)


def count_samples(db):
    if not db.exists():
        return 0
    try:
        return Store(db).query("SELECT COUNT(*) AS n FROM samples")[0]["n"]
    except Exception:
        return 0


def wait_for_samples(db, n, proc, timeout=120):
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        if count_samples(db) >= n:
            return
        time.sleep(0.2)
    raise AssertionError(f"never reached {n} samples")


def test_run_default_model_json_record_follows_from_stored_samples(butterfly_path, tmp_path):
    # Seed 2 gives the default model a few direct picks here (most of its answers are the echo
    # "Butterfly"); a CPU built differently may draw otherwise, so no pick at all is checked too.
    out = probe("run", str(butterfly_path), "--json", "--samples", "12", "--seed", "2")
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)          # stdout holds only the JSON record
    assert rec["model"].startswith("gemma-3-270m") and rec["run_id"] == 1
    assert rec["direct"]["n_samples"] + rec["framed"]["n_samples"] <= 42
    store = Store(tmp_path / "probe.db")
    samples = store.samples(1)
    assert sorted((s.kind, s.idx) for s in samples) == sorted(
        [("direct", i) for i in range(12)] + [("framed", i) for i in range(30)])
    fam = store.family(store.run(1).family_id)
    again = rescore(fam, [Response(s.kind, s.idx, s.response) for s in samples]).scores
    assert rec["direct"]["dr"] == round(again.dr, 4)
    assert rec["framed"]["fr"] == round(again.fr, 4)
    assert rec["bias_type"] == again.label
    top = rec["direct"]["top_answer"]
    direct = [s for s in samples if s.kind == "direct" and s.canonical and not s.refusal]
    if direct:
        assert rec["direct"]["dr"] == round(sum(s.canonical == top for s in direct) / len(direct), 4)
    else:                                 # every direct answer a non-pick: no top answer, DR 0
        assert top is None and rec["direct"]["dr"] == 0 and rec["bias_type"] == "non_bias"
    run = store.run(1)
    assert run.status == "finished" and run.model_hash.startswith("sha256:")
    assert run.settings["style"]["mode"] == "base" and len(run.settings["style"]["shots"]) == 5
    assert run.probe_version and run.seed is not None and run.settings["seed"] == run.seed
    assert rec["seed"] == run.seed == 2 and run.ending == "finished" and run.samples_used == 42


def test_same_seed_same_run_on_cpu(butterfly_path):
    a = json.loads(probe("run", "butterfly", "--json", "--samples", "5", "--seed", "3").stdout)
    b = json.loads(probe("run", "butterfly", "--json", "--samples", "5", "--seed", "3").stdout)
    strip = lambda r: {k: v for k, v in r.items() if k != "run_id"}
    assert strip(a) == strip(b)


def test_sigkill_then_resume_ends_with_exactly_one_sample_each(butterfly_path, tmp_path):
    db = tmp_path / "probe.db"
    proc = subprocess.Popen([*PROBE, "run", "butterfly"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    wait_for_samples(db, 15, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    store = Store(db)
    before = {(s.kind, s.idx): s.response for s in store.samples(1)}
    assert 15 <= len(before) < 60
    assert store.run(1).status == "running"
    assert store.query("PRAGMA integrity_check")[0]["integrity_check"] == "ok"
    out = probe("run", "--resume", "1", "--json")
    assert out.returncode == 0, out.stderr
    samples = Store(db).samples(1)
    keys = [(s.kind, s.idx) for s in samples]
    assert len(keys) == len(set(keys)) == 60
    assert sum(k[0] == "direct" for k in keys) == 30
    assert all(before[(s.kind, s.idx)] == s.response for s in samples
               if (s.kind, s.idx) in before)
    assert Store(db).run(1).status == "finished"
    again = probe("run", "--resume", "1")
    assert again.returncode == 2 and "already finished" in again.stderr


def test_ctrl_c_cancels_cleanly_with_partial_metrics(butterfly_path, tmp_path):
    db = tmp_path / "probe.db"
    proc = subprocess.Popen([*PROBE, "run", "butterfly"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    wait_for_samples(db, 6, proc)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "DR" in stdout and "label" in stdout
    assert "cancelled" in stderr and "--resume 1" in stderr and "Traceback" not in stderr
    assert Store(db).run(1).status == "cancelled"


def test_transformers_backend_on_a_locally_built_model(butterfly_path, tiny_model, tmp_path):
    out = probe("run", "butterfly", "--backend", "transformers", "--model", str(tiny_model),
                "--samples", "6", "--max-tokens", "6", "--json")
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert rec["model"] == "tiny-llama"
    assert len(Store(tmp_path / "probe.db").samples(rec["run_id"])) == 36


@pytest.mark.parametrize("args, fragment", [
    (["--model", "nonexistent-model"], "unknown model"),
    (["--model", "missing.gguf"], "does not exist"),
    (["--samples", "0"], "--samples must be at least 1"),
    (["--system", "nope.txt"], "system prompt file"),
])
def test_bad_run_input_is_one_sentence_and_exit_2(butterfly_path, args, fragment):
    out = probe("run", "butterfly", *args)
    assert out.returncode == 2
    assert fragment in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_models_lists_the_default_and_local_models(tiny_model, tmp_path):
    (tmp_path / "models").mkdir()
    os.symlink(tiny_model, tmp_path / "models" / "tiny")
    out = probe("models", "--json")
    models = json.loads(out.stdout)
    assert models[0]["spec"] == "default" and models[0]["engine"] == "llama"
    assert any(m["engine"] == "transformers" and m["name"] == "tiny" for m in models)
