"""The OpenAI-compatible backend against a real server on 127.0.0.1: llama-cpp-python's
own server (`python -m llama_cpp.server`) with the default model."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from probe.backends.base import Sampling
from probe.backends.openai import OpenAIBackend
from probe.errors import BadInput, RunFailed
from probe.prompting import style_for
from probe.store import Store

PROBE = [sys.executable, "-m", "probe"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(default_gguf, tmp_path_factory):
    port = free_port()
    log = open(tmp_path_factory.mktemp("server") / "server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model",
                             str(default_gguf), "--host", "127.0.0.1", "--port", str(port),
                             "--model_alias", "gemma", "--n_ctx", "2048"],
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url + "/v1/models", timeout=2).read()
            break
        except OSError:
            if proc.poll() is not None:
                pytest.fail("llama_cpp.server exited; see its log")
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("llama_cpp.server did not start in 120 s")
    yield url
    proc.terminate()
    proc.wait(timeout=30)
    log.close()


def test_completions_endpoint_for_base_mode(server):
    b = OpenAIBackend(server, "gemma", chat=False, concurrency=2)
    b.load()
    style = style_for("Choose a random popular butterfly.", b.has_chat_template, True, 3, None)
    assert style.mode == "base"
    many = list(b.sample_many("Choose a random popular butterfly.", 3, style, Sampling(),
                              [1, 2, 3]))
    assert len(many) == 3 and all("\n" not in c.text for c in many)
    each = list(b.sample_each(["Which butterfly for a card?", "Which for a tattoo?"], style,
                              Sampling(), [4, 5]))
    assert len(each) == 2


def test_run_through_the_server_stores_every_sample_and_never_the_key(server, butterfly_path,
                                                                      isolated, monkeypatch):
    monkeypatch.setenv("PROBE_TEST_API_KEY", "sk-very-secret-123")
    out = subprocess.run([*PROBE, "run", "butterfly", "--backend", "openai", "--base-url", server,
                          "--model", "gemma", "--base", "--samples", "6", "--json",
                          "--api-key-env", "PROBE_TEST_API_KEY"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    store = Store(isolated / "probe.db")
    samples = store.samples(rec["run_id"])
    assert len(samples) == 36
    assert store.run(rec["run_id"]).backend == "openai"
    assert b"sk-very-secret-123" not in (isolated / "probe.db").read_bytes()
    wal = isolated / "probe.db-wal"
    assert not wal.exists() or b"sk-very-secret-123" not in wal.read_bytes()
    assert "sk-very-secret-123" not in out.stdout + out.stderr
    export = subprocess.run([*PROBE, "export"], capture_output=True, text=True, timeout=60)
    assert "sk-very-secret-123" not in export.stdout


def test_unreachable_server_is_one_clear_sentence(butterfly_path):
    port = free_port()
    out = subprocess.run([*PROBE, "run", "butterfly", "--backend", "openai", "--base-url",
                          f"http://127.0.0.1:{port}", "--model", "m"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "cannot reach the server" in out.stderr and "Traceback" not in out.stderr


def test_missing_api_key_variable_is_reported(server):
    b = OpenAIBackend(server, "gemma", api_key_env="PROBE_NO_SUCH_VAR")
    with pytest.raises(BadInput, match="PROBE_NO_SUCH_VAR"):
        b.load()


def test_server_errors_are_retried_then_reported(monkeypatch):
    b = OpenAIBackend("http://127.0.0.1:1", "m", retries=2)
    monkeypatch.setattr(time, "sleep", lambda s: None)
    with pytest.raises(RunFailed, match="cannot reach"):
        b._request("/v1/completions", {"prompt": "x"})
