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


# ------------------------------------------------- hostile servers (issue 11, items 2, 3, 15)

import os
import signal
import threading

from probe.backends.http import redact
from servers import GOOD, MODELS, SECRET, _reply, models_then, silent, trickle

def backend_for(url, **kw):
    b = OpenAIBackend(url, "m", chat=False, **kw)
    b.load()
    return b


def complete(b):
    style = style_for("Choose a random popular butterfly.", False, True, 0, None)
    return b._one("Choose a random popular butterfly.", style, Sampling(), 1)


def test_a_redirect_to_another_host_never_receives_the_key(serve, monkeypatch):
    other = serve(lambda path, seen: _reply(200, MODELS))
    first = serve(lambda path, seen: _reply(302, b"", {"Location": other.url + path}))
    monkeypatch.setenv("PROBE_TEST_KEY", SECRET)
    b = OpenAIBackend(first.url, "m", api_key_env="PROBE_TEST_KEY")
    with pytest.raises(BadInput, match="redirect") as err:
        b.load()
    assert SECRET not in str(err.value)
    assert all("authorization" not in h for _, h in other.seen)
    assert first.seen[0][1]["authorization"] == f"Bearer {SECRET}"   # its own origin only


@pytest.mark.parametrize("key", [SECRET + "\n", SECRET + "\r\n", "sk-a\r\nX-Evil: 1",
                                 " " + SECRET])
def test_a_key_with_a_line_break_is_one_sentence_without_the_key(serve, isolated, key,
                                                                  butterfly_path):
    server = serve(lambda path, seen: _reply(200, MODELS))
    env = {**os.environ, "PROBE_TEST_KEY": key}
    out = subprocess.run([*PROBE, "run", "butterfly", "--backend", "openai", "--base-url",
                          server.url, "--model", "m", "--api-key-env", "PROBE_TEST_KEY"],
                         capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 2, out.stderr
    errors = [line for line in out.stderr.splitlines() if line.startswith("probe:")]
    assert len(errors) == 1 and "PROBE_TEST_KEY" in errors[0], out.stderr
    assert "Traceback" not in out.stderr and key.strip() not in out.stderr + out.stdout
    assert server.seen == []            # nothing was sent with a broken header


def test_a_server_body_quoting_the_key_is_never_shown_or_stored(serve, isolated,
                                                                butterfly_path):
    body = (f"invalid request from Authorization: Bearer {SECRET} (key {SECRET}) "
            + "\x1b[31m" + "x" * 5000).encode()
    server = serve(models_then(_reply(400, body)))
    env = {**os.environ, "PROBE_TEST_KEY": SECRET}
    out = subprocess.run([*PROBE, "run", "butterfly", "--backend", "openai", "--base-url",
                          server.url, "--model", "m", "--base", "--api-key-env",
                          "PROBE_TEST_KEY", "--samples", "2"],
                         capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 1, out.stderr
    assert SECRET not in out.stderr + out.stdout and "\x1b" not in out.stderr
    assert "HTTP 400" in out.stderr and len(out.stderr) < 1000
    store = Store(isolated / "probe.db")
    error = store.run(1).error
    assert store.run(1).status == "failed" and "[redacted]" in error and len(error) < 600
    store.close()
    for name in ("probe.db", "probe.db-wal"):
        f = isolated / name
        assert not f.exists() or SECRET.encode() not in f.read_bytes(), name


def test_server_text_is_redacted_and_trimmed():
    text = redact(f"Bearer {SECRET} sk-other-key-123456 \x1b[2J" + "y" * 9000, [SECRET])
    assert SECRET not in text and "sk-other" not in text and "\x1b" not in text
    assert len(text) < 400


@pytest.mark.parametrize("how", ["length", "no-length", "chunked", "headers"])
def test_a_trickling_server_cannot_extend_the_deadline(serve, how):
    from servers import trickle_chunked, trickle_headers, trickle_to_close

    action = {"length": trickle, "no-length": trickle_to_close, "chunked": trickle_chunked,
              "headers": trickle_headers}[how]
    server = serve(models_then(action))
    b = backend_for(server.url, timeout=2)
    start = time.monotonic()
    with pytest.raises(RunFailed, match="within 2 s"):
        complete(b)
    assert time.monotonic() - start < 6


def test_a_silent_server_fails_within_the_deadline(serve):
    server = serve(models_then(silent))
    b = backend_for(server.url, timeout=2)
    start = time.monotonic()
    with pytest.raises(RunFailed, match="did not answer"):
        complete(b)
    assert time.monotonic() - start < 6


def test_a_silent_server_at_start_is_one_sentence_through_the_cli(serve, butterfly_path):
    server = serve(lambda path, seen: silent)
    start = time.monotonic()
    out = subprocess.run([*PROBE, "run", "butterfly", "--backend", "openai", "--base-url",
                          server.url, "--model", "m", "--timeout", "2"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "did not answer" in out.stderr, out.stderr
    assert time.monotonic() - start < 20 and "Traceback" not in out.stderr


def test_retry_after_is_honoured(serve):
    def script(path, seen):
        if path.endswith("/models"):
            return _reply(200, MODELS)
        tries = sum(1 for p, _ in seen if p.endswith("/completions"))
        return _reply(429, b"slow down", {"Retry-After": "1"}) if tries == 1 else \
            _reply(200, GOOD)
    server = serve(script)
    b = backend_for(server.url)
    start = time.monotonic()
    assert complete(b).text == "Monarch"
    assert time.monotonic() - start >= 0.9


def test_a_retry_after_beyond_the_budget_fails_at_once(serve):
    server = serve(models_then(_reply(429, b"later", {"Retry-After": "300"})))
    b = backend_for(server.url)
    start = time.monotonic()
    with pytest.raises(RunFailed, match="retry after 300 s"):
        complete(b)
    assert time.monotonic() - start < 3


def test_an_oversized_reply_is_cut_off(serve):
    huge = b'{"choices": [{"text": "' + b"a" * (20 << 20) + b'"}]}'
    server = serve(models_then(_reply(200, huge)))
    b = backend_for(server.url)
    with pytest.raises(RunFailed, match="larger than"):
        complete(b)


def test_cancel_aborts_a_request_in_flight(serve):
    server = serve(models_then(silent))
    b = backend_for(server.url, timeout=30)
    threading.Timer(0.5, b.cancel).start()
    start = time.monotonic()
    with pytest.raises(RunFailed, match="cancelled"):
        complete(b)
    assert time.monotonic() - start < 3


def test_ctrl_c_stops_a_cli_run_waiting_on_a_server(serve, isolated, butterfly_path):
    server = serve(models_then(silent))
    proc = subprocess.Popen([*PROBE, "run", "butterfly", "--backend", "openai", "--base-url",
                             server.url, "--model", "m", "--base", "--timeout", "30"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not any(p.endswith("/completions") for p, _ in server.seen):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    start = time.monotonic()
    _, err = proc.communicate(timeout=20)
    assert time.monotonic() - start < 5
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert Store(isolated / "probe.db").run(1).status == "cancelled"


MALFORMED = {
    "models-a-list": ("/models", [1, 2]),
    "models-data-numbers": ("/models", {"data": [1, 2]}),
    "choices-not-list": ("/completions", {"choices": "Monarch"}),
    "choice-not-object": ("/completions", {"choices": [1]}),
    "text-not-string": ("/completions", {"choices": [{"text": ["Monarch"]}]}),
    "usage-not-object": ("/completions", {"choices": [{"text": "a"}], "usage": [3]}),
    "usage-tokens-string": ("/completions", {"choices": [{"text": "a"}],
                                             "usage": {"completion_tokens": "7"}}),
    "not-json": ("/completions", b"<html>hello</html>"),
    "deeply-nested": ("/completions", b"[" * 100_000 + b"]" * 100_000),
    "huge-number": ("/completions", b'{"choices": [], "usage": {"completion_tokens": '
                    + b"9" * 5000 + b"}}"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_replies_are_one_sentence_naming_the_server(serve, case):
    where, body = MALFORMED[case]
    server = serve(lambda path, seen: _reply(200, body) if path.endswith(where)
                   else _reply(200, MODELS))
    b = OpenAIBackend(server.url, "m", chat=False)
    with pytest.raises((BadInput, RunFailed)) as err:
        b.load()
        complete(b)
    assert server.url in str(err.value) and "\n" not in str(err.value)


def test_chat_reply_with_a_malformed_message_is_one_sentence(serve):
    server = serve(models_then(_reply(200, {"choices": [{"message": "Monarch"}]})))
    b = OpenAIBackend(server.url, "m", chat=True)
    b.load()
    style = style_for("Choose a random popular butterfly.", True, False, 0, None)
    with pytest.raises(RunFailed, match="malformed completion"):
        b._one("Choose a random popular butterfly.", style, Sampling(), 1)


def test_lone_surrogates_in_a_reply_are_stored_and_the_run_finishes(serve, isolated,
                                                                    butterfly_path):
    reply = b'{"choices": [{"text": "\\ud800Monarch\\udfff"}], "usage": {}}'
    server = serve(models_then(_reply(200, reply)))
    out = subprocess.run([*PROBE, "run", "butterfly", "--backend", "openai", "--base-url",
                          server.url, "--model", "m", "--base", "--samples", "2", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    store = Store(isolated / "probe.db")
    assert store.run(1).status == "finished"
    assert all(s.response == "\ufffdMonarch\ufffd" for s in store.samples(1))


def test_two_huge_server_bodies_cost_bounded_memory(serve, isolated, butterfly_path):
    from conftest import peak_rss_mib

    def stream(sock, stop):       # 200 MB announced and sent until the client hangs up
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 200000000\r\n\r\n"
                     b'{"choices": [{"text": "')
        block = b"a" * (1 << 20)
        for _ in range(200):
            if stop.is_set():
                return
            sock.sendall(block)
    server = serve(models_then(stream))
    rc, peak, err = peak_rss_mib(["run", "butterfly", "--backend", "openai", "--base-url",
                                  server.url, "--model", "m", "--base", "--samples", "2"])
    assert rc == 1 and "larger than" in err, err
    assert peak < 400, f"peak RSS {peak:.0f} MiB"


@pytest.mark.parametrize("url", ["http://user:sk-secret-1@127.0.0.1:1",
                                 "http://127.0.0.1:1/v1?api_key=sk-secret-1"])
def test_a_base_url_carrying_credentials_is_refused_without_echoing_them(url, butterfly_path):
    out = subprocess.run([*PROBE, "run", "butterfly", "--backend", "openai", "--base-url", url,
                          "--model", "m"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "--api-key-env" in out.stderr, out.stderr
    assert "sk-secret-1" not in out.stderr + out.stdout
