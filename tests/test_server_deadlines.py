"""A server cannot hold probe (issue 18, cause 1): the request deadline holds for every
byte of every reply, Ctrl-C and SIGTERM end the process within seconds whatever the server
does, and a server address is one sentence when malformed and never carries a key into
the database."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from servers import (MODELS, _reply, models_then, trickle_chunked, trickle_headers,
                     trickle_to_close)

PROBE = [sys.executable, "-m", "probe"]
TRICKLES = {"no-length": trickle_to_close, "chunked": trickle_chunked,
            "headers": trickle_headers}


def test_a_run_on_a_trickling_server_fails_at_the_deadline(serve, isolated, butterfly_path):
    server = serve(models_then(trickle_to_close))
    start = time.monotonic()
    out = subprocess.run([*PROBE, "run", "butterfly", "--backend", "openai", "--base-url",
                          server.url, "--model", "m", "--base", "--timeout", "2"],
                         capture_output=True, text=True, timeout=120)
    assert time.monotonic() - start < 20, "the deadline did not cut the reply"
    assert out.returncode == 1 and "within 2 s" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("how", ["no-length", "headers"])
def test_a_trickled_models_listing_at_start_ends_at_the_deadline(serve, butterfly_path, how):
    server = serve(lambda path, seen: TRICKLES[how])
    start = time.monotonic()
    out = subprocess.run([*PROBE, "run", "butterfly", "--backend", "openai", "--base-url",
                          server.url, "--model", "m", "--timeout", "3"],
                         capture_output=True, text=True, timeout=120)
    assert time.monotonic() - start < 20, "probe waited for the server after its deadline"
    assert out.returncode == 2 and "did not answer /v1/models within 3 s" in out.stderr
    assert "Traceback" not in out.stderr


def _signal_while_waiting(server, args: list[str], path_end: str, sig) -> tuple:
    """Start probe, wait until it is well into a request to ``path_end``, send ``sig``:
    (seconds until it ended, exit code, stderr)."""
    proc = subprocess.Popen([*PROBE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 60
    while not any(p.endswith(path_end) for p, _ in server.seen):
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
        time.sleep(0.05)
    time.sleep(1.0)         # well into the trickle
    proc.send_signal(sig)
    start = time.monotonic()
    _, err = proc.communicate(timeout=60)
    return time.monotonic() - start, proc.returncode, err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("command", ["run", "batch"])
def test_a_signal_ends_probe_within_seconds_during_a_trickled_reply(serve, isolated,
                                                                   butterfly_path, sig,
                                                                   command):
    server = serve(models_then(trickle_to_close))
    took, code, err = _signal_while_waiting(
        server, [command, "butterfly", "--backend", "openai", "--base-url", server.url,
                 "--model", "m", "--base"], "/completions", sig)
    assert took < 5, "probe outlived the signal"
    assert code == 130 and "Traceback" not in err, err
    with sqlite3.connect(isolated / "probe.db") as db:
        assert db.execute("SELECT status FROM runs").fetchall() == [("cancelled",)]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_probe_while_the_models_listing_trickles(serve, butterfly_path, sig):
    server = serve(lambda path, seen: trickle_to_close)
    took, code, err = _signal_while_waiting(
        server, ["run", "butterfly", "--backend", "openai", "--base-url", server.url,
                 "--model", "m"], "/models", sig)
    assert took < 5, "probe outlived the signal"
    assert code != 0 and "Traceback" not in err, err


@pytest.mark.parametrize("url", ["http://[::1", "http://[::1]:99999", "http://[fe80::1%eth0",
                                 "http://127.0.0.1:8000:9", "http://[::1]x:80",
                                 "https://", "http://exa mple.com"])
def test_a_malformed_base_url_is_one_sentence(url, butterfly_path):
    out = subprocess.run([*PROBE, "run", "butterfly", "--backend", "openai", "--base-url", url,
                          "--model", "m"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("probe: ") and "--base-url" in lines[0]
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("path", ["/sk-proj-abcdef1234567890/v1", "/%73k-abcdef1234567890/v1",
                                  "/v1;api_key=abc123", "/key=abc123/v1",
                                  "/Xy7QpZr2Lm9Tv4Bn8Kc3Wd5Qa/v1", "/hf_abcdefghijklmnop/v1",
                                  "/gsk_abcdefghijklmnop/v1"])
@pytest.mark.parametrize("command", ["run", "batch"])
def test_a_key_in_the_base_url_path_is_refused_and_never_stored(serve, isolated,
                                                               butterfly_path, path, command):
    server = serve(lambda p, seen: _reply(200, MODELS))
    out = subprocess.run([*PROBE, command, "butterfly", "--backend", "openai", "--base-url",
                          server.url + path, "--model", "m"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "--api-key-env" in out.stderr, out.stderr
    secret = path.strip("/").split("/")[0].split("=")[-1]
    assert secret not in out.stderr + out.stdout
    assert server.seen == []                       # refused before anything was sent
    for name in ("probe.db", "probe.db-wal"):
        f = isolated / name
        assert not f.exists() or secret.encode() not in f.read_bytes()


def test_a_model_name_in_the_base_url_path_is_not_taken_for_a_key(serve, isolated,
                                                                 butterfly_path):
    server = serve(lambda p, seen: _reply(200, MODELS))
    url = server.url + "/models/meta-llama/Meta-Llama-3-8B-Instruct/v1"
    out = subprocess.run([*PROBE, "run", "butterfly", "--backend", "openai", "--base-url", url,
                          "--model", "m", "--base", "--samples", "1", "--timeout", "2"],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ})
    assert "--api-key-env" not in out.stderr, out.stderr
    assert any("/Meta-Llama-3-8B-Instruct/v1/models" in p for p, _ in server.seen)


STUCK = """
import time
from probe.cli_run import graceful_interrupt
with graceful_interrupt(lambda: None, lambda: False, grace=1.0):
    print("ready", flush=True)
    while True:                 # an engine that never notices the cancel
        time.sleep(0.05)
"""


def test_a_stop_that_does_not_finish_in_time_ends_the_process_anyway():
    proc = subprocess.Popen([sys.executable, "-c", STUCK], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGTERM)
    start = time.monotonic()
    _, err = proc.communicate(timeout=30)
    assert time.monotonic() - start < 5
    assert proc.returncode == 130 and "did not stop within 1 s; exiting" in err, err
