"""Security regressions (issue 11): pickle weights behind a decoy, writes through
planted links, model listing through link loops. Every case runs the real code path a
user hits: the transformers loader, the family writer, `probe report`, `probe models`."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import FAMILIES
from probe.backends import make_backend, resolve
from probe.backends.hf import check_weights
from probe.errors import BadInput
from probe.family import Family, load, path_for, save

PROBE = [sys.executable, "-m", "probe"]


class _Boom:
    def __reduce__(self):
        return (os.system, ("touch PWNED",))


def _safetensors(path: Path, tensors: int = 1) -> None:
    """A valid safetensors file holding ``tensors`` one-element tensors (0: header only)."""
    header = {f"t{i}": {"dtype": "F32", "shape": [1], "data_offsets": [4 * i, 4 * i + 4]}
              for i in range(tensors)}
    raw = json.dumps(header or {"__metadata__": {}}).encode()
    path.write_bytes(len(raw).to_bytes(8, "little") + raw + b"\0" * 4 * tensors)


def _folder(tiny_model: Path, where: Path) -> Path:
    where.mkdir()
    for f in ("config.json", "tokenizer.json", "tokenizer_config.json"):
        shutil.copy(tiny_model / f, where / f)
    return where


def _index(folder: Path, name: str, target: str) -> None:
    (folder / name).write_text(json.dumps({"metadata": {}, "weight_map": {
        "model.embed_tokens.weight": target, "lm_head.weight": target}}))


# Each builds a model folder whose weights the loader would unpickle.
PICKLE_FOLDERS = {
    "empty-decoy-and-index-to-bin": lambda d: (
        (d / "decoy.safetensors").write_bytes(b""),
        _index(d, "model.safetensors.index.json", "weights.bin"),
        (d / "weights.bin").write_bytes(pickle.dumps(_Boom()))),
    "real-decoy-and-index-to-bin": lambda d: (
        _safetensors(d / "decoy.safetensors"),
        _index(d, "model.safetensors.index.json", "weights.bin"),
        (d / "weights.bin").write_bytes(pickle.dumps(_Boom()))),
    "bin-index-beside-empty-safetensors": lambda d: (
        (d / "model.safetensors").write_bytes(b""),
        _index(d, "pytorch_model.bin.index.json", "pytorch_model-00001.bin"),
        (d / "pytorch_model-00001.bin").write_bytes(pickle.dumps(_Boom()))),
    "header-only-safetensors-beside-bin": lambda d: (
        _safetensors(d / "model.safetensors", tensors=0),
        (d / "pytorch_model.bin").write_bytes(pickle.dumps(_Boom()))),
    "index-to-pt-file": lambda d: (
        _safetensors(d / "decoy.safetensors"),
        _index(d, "model.safetensors.index.json", "model.pt"),
        (d / "model.pt").write_bytes(pickle.dumps(_Boom()))),
    "only-ckpt": lambda d: (d / "model.ckpt").write_bytes(pickle.dumps(_Boom())),
}


@pytest.mark.parametrize("case", sorted(PICKLE_FOLDERS))
def test_pickle_weights_behind_a_decoy_are_refused(case, tiny_model, isolated):
    evil = _folder(tiny_model, isolated / "evil")
    PICKLE_FOLDERS[case](evil)
    with pytest.raises(BadInput, match="pickle|safetensors"):
        make_backend(resolve(str(evil))).load()
    assert not (isolated / "PWNED").exists()


def test_an_index_pointing_outside_the_folder_or_at_a_missing_shard_is_refused(
        tiny_model, isolated):
    evil = _folder(tiny_model, isolated / "evil")
    _safetensors(isolated / "elsewhere.safetensors")
    _index(evil, "model.safetensors.index.json", "../elsewhere.safetensors")
    with pytest.raises(BadInput, match="outside the folder"):
        check_weights(evil, allow_pickle=False)
    _index(evil, "model.safetensors.index.json", "model-00001-of-00002.safetensors")
    with pytest.raises(BadInput, match="missing or not a safetensors"):
        check_weights(evil, allow_pickle=False)


def test_pickle_weights_pass_the_check_only_with_allow_pickle(tiny_model, isolated):
    evil = _folder(tiny_model, isolated / "evil")
    PICKLE_FOLDERS["real-decoy-and-index-to-bin"](evil)
    check_weights(evil, allow_pickle=True)          # the user said they trust it
    check_weights(tiny_model, allow_pickle=False)   # real safetensors weights pass


# -------------------------------------------------------------- writes and links

def test_a_link_at_the_old_temporary_name_cannot_redirect_a_family_save(isolated):
    victim = isolated / "victim.txt"
    victim.write_text("precious")
    folder = isolated / "families"
    (folder / "x.toml.tmp").symlink_to(victim)
    target = path_for("x", folder)
    save(Family("x", "Choose one.", ["a", "b"]), target)
    assert victim.read_text() == "precious"
    assert load(target).framings == ["a", "b"]
    assert [p.name for p in folder.iterdir() if p.name.endswith(".tmp")] == ["x.toml.tmp"]


def test_a_family_file_that_is_a_link_is_not_written_through(isolated):
    victim = isolated / "victim.toml"
    victim.write_text("precious")
    link = isolated / "families" / "x.toml"
    link.symlink_to(victim)
    with pytest.raises(BadInput, match="symbolic link"):
        save(Family("x", "Choose one.", ["a"]), link)
    assert victim.read_text() == "precious"


def test_report_never_writes_through_a_planted_link(isolated, butterfly_path):
    from conftest import write_jsonl

    resp = write_jsonl(isolated / "r.jsonl", [{"response": "Monarch"}])
    subprocess.run([*PROBE, "score", "butterfly", "--responses", str(resp)], check=True,
                   capture_output=True, timeout=60)
    out = isolated / "rep"
    out.mkdir()
    victim = isolated / "victim.txt"
    victim.write_text("precious")
    (out / "breakdown.svg").symlink_to(victim)
    res = subprocess.run([*PROBE, "report", "--out", str(out)], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 2 and "symbolic link" in res.stderr, res.stderr
    assert victim.read_text() == "precious"


def test_model_hash_cache_is_not_written_through_a_link(isolated, default_gguf):
    from probe.backends import _file_sha256

    victim = isolated / "victim.txt"
    victim.write_text("precious")
    cache = isolated / "cache"
    cache.mkdir()
    (cache / "hashes.json").symlink_to(victim)
    small = isolated / "m.gguf"
    small.write_bytes(b"GGUF" + b"\0" * 100)
    assert len(_file_sha256(small)) == 64
    assert victim.read_text() == "precious"


# ------------------------------------------------------------------- model listing

def test_models_listing_survives_link_loops_and_lists_each_file_once(isolated):
    models = isolated / "models"
    (models / "a" / "b").mkdir(parents=True)
    (models / "a" / "b" / "m.gguf").write_bytes(b"GGUF" + b"\0" * 64)
    (models / "a" / "b" / "up").symlink_to(models)            # a loop back to the top
    (models / "a" / "self").symlink_to(models / "a")          # a loop onto itself
    (models / "again").symlink_to(models / "a")               # the same folder twice
    (models / "also.gguf").symlink_to(models / "a" / "b" / "m.gguf")
    start = time.monotonic()
    out = subprocess.run([*PROBE, "models", "--json"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert time.monotonic() - start < 30
    ggufs = [m for m in json.loads(out.stdout) if m["path"].startswith(str(models))]
    assert len(ggufs) == 1, ggufs


def test_a_pipe_in_a_model_folder_or_as_a_gguf_is_refused_before_reading(tiny_model,
                                                                         isolated):
    folder = _folder(tiny_model, isolated / "m")
    shutil.copy(tiny_model / "model.safetensors", folder / "model.safetensors")
    (folder / "tokenizer.json").unlink()
    os.mkfifo(folder / "tokenizer.json")
    with pytest.raises(BadInput, match="tokenizer.json is not a regular file"):
        make_backend(resolve(str(folder))).load()
    os.mkfifo(isolated / "pipe.gguf")
    with pytest.raises(BadInput, match="not a regular file"):
        resolve(str(isolated / "pipe.gguf"))


# ------------------------------------------------------------------ hostile-input check

EMPTY_REPLIES = {
    "no-choices": {"choices": [], "usage": {"completion_tokens": 0}},
    "text-null": {"choices": [{"text": None}], "usage": {}},
    "no-text": {"choices": [{"index": 0}], "usage": {}},
}


@pytest.mark.parametrize("case", sorted(EMPTY_REPLIES))
def test_a_reply_without_a_completion_fails_the_run_naming_the_server(serve, isolated,
                                                                      butterfly_path, case):
    from servers import _reply, models_then

    from probe.store import Store

    server = serve(models_then(_reply(200, EMPTY_REPLIES[case])))
    out = subprocess.run([*PROBE, "run", "butterfly", "--backend", "openai", "--base-url",
                          server.url, "--model", "m", "--base", "--samples", "2"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, out.stderr
    assert server.url in out.stderr and "Traceback" not in out.stderr
    run = Store(isolated / "probe.db").run(1)
    assert run.status == "failed"


def test_sigterm_during_a_batch_leaves_every_unfinished_run_cancelled(serve, isolated):
    import signal

    from servers import models_then, slowly

    from probe.store import Store

    text = (FAMILIES / "butterfly.toml").read_text(encoding="utf-8")
    folder = isolated / "fams"
    folder.mkdir()
    for name in ("alpha", "beta", "gamma"):
        (folder / f"{name}.toml").write_text(text.replace('name = "butterfly"',
                                                          f'name = "{name}"'),
                                             encoding="utf-8")
    server = serve(models_then(slowly(0.1)))
    proc = subprocess.Popen([*PROBE, "batch", str(folder), "--backend", "openai",
                             "--base-url", server.url, "--model", "m", "--base",
                             "--samples", "4"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while sum(p.endswith("/completions") for p, _ in server.seen) < 6:
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    store = Store(isolated / "probe.db")
    runs = store.batch_runs(1)
    assert len(runs) == 3
    assert all(r["status"] == "cancelled" for r in runs), runs
    assert all(store.run(r["id"]).ending == "cancelled" for r in runs)


def test_resuming_a_server_run_never_sends_the_key_to_a_stored_address(serve, isolated,
                                                                       butterfly_path,
                                                                       monkeypatch):
    import sqlite3

    from servers import SECRET, _reply, models_then

    good = serve(models_then(_reply(500, {"error": "down"})))
    planted = serve(models_then(_reply(500, {"error": "down"})))
    monkeypatch.setenv("MY_KEY", SECRET)
    base = ["--backend", "openai", "--model", "m", "--base", "--api-key-env", "MY_KEY"]
    first = subprocess.run([*PROBE, "run", "butterfly", "--base-url", good.url, *base,
                            "--samples", "2", "--timeout", "2"],
                           capture_output=True, text=True, timeout=120)
    assert first.returncode == 1, first.stderr
    with sqlite3.connect(isolated / "probe.db") as conn:     # a planted address
        settings = json.loads(conn.execute("SELECT settings FROM runs").fetchone()[0])
        settings["base_url"] = planted.url
        conn.execute("UPDATE runs SET settings = ?", [json.dumps(settings)])
    seen = len(good.seen)
    for extra, fragment in (([], "give --base-url again"),
                            (["--base-url", good.url], f"not {good.url}")):
        out = subprocess.run([*PROBE, "run", "--resume", "1", "--api-key-env", "MY_KEY",
                              *extra], capture_output=True, text=True, timeout=120)
        assert out.returncode == 2 and fragment in out.stderr, out.stderr
        assert len(out.stderr.splitlines()) == 1
    assert planted.seen == [] and len(good.seen) == seen


@pytest.mark.parametrize("body,fragment", [("[" * 100_000 + "]" * 100_000, "nested too deeply"),
                                           ("{oops", "not valid JSON"),
                                           ("[1, 2]", "not a JSON object")],
                         ids=["deep", "invalid", "array"])
def test_a_hostile_config_json_is_one_sentence_before_transformers_reads_it(
        tiny_model, isolated, butterfly_path, body, fragment):
    folder = _folder(tiny_model, isolated / "m")
    (folder / "config.json").write_text(body, encoding="utf-8")
    out = subprocess.run([*PROBE, "run", "butterfly", "--model", str(folder), "--samples", "1"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 2, out.stderr
    assert f"config.json is {fragment}" in out.stderr and "Traceback" not in out.stderr
