"""`--answer-format braces` end to end on the server path: the prompt asks for braces, the
request carries vLLM's guided_regex until a server refuses it, and the run keeps the format."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from probe.backends.base import Sampling
from probe.backends.openai import OpenAIBackend
from probe.prompting import BRACES_REGEX, style_for
from probe.run_settings import RunSettings
from probe.errors import BadInput


class _Server:
    """A tiny OpenAI-compatible server that records request bodies; ``guided`` says
    whether it accepts vLLM's guided_regex field."""

    def __init__(self, guided: bool):
        self.bodies: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status: int, body: dict) -> None:
                raw = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_GET(self):
                self._send(200, {"object": "list", "data": [{"id": "m"}]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.bodies.append(body)
                if "guided_regex" in body and not guided:
                    self._send(400, {"error": {"message": "Unrecognized request argument "
                                                          "supplied: guided_regex"}})
                    return
                n = body.get("n", 1)
                choice = ({"message": {"role": "assistant", "content": "{Monarch}"}}
                          if "messages" in body else {"text": "{Monarch}"})
                self._send(200, {"choices": [{"index": i, **choice} for i in range(n)],
                                 "usage": {"completion_tokens": 3}})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()


@pytest.mark.parametrize("guided", [True, False])
def test_braces_ask_for_guided_decoding_until_a_server_refuses_it(guided):
    server = _Server(guided)
    try:
        backend = OpenAIBackend(server.url, "m", chat=False, concurrency=1)
        backend.load()
        style = style_for("Choose a random butterfly.", False, True, 3, None, "braces")
        texts = [c.text for c in backend.sample_each(
            ["Which butterfly for a card?", "Which for a tattoo?", "Which for a poem?"],
            style, Sampling(), [1, 2, 3])]
        assert texts == ["{Monarch}"] * 3
        assert "curly braces" in server.bodies[0]["prompt"]
        assert server.bodies[0]["guided_regex"] == BRACES_REGEX
        if guided:
            assert all("guided_regex" in b for b in server.bodies)
        else:
            # Refused: each request already queued is asked once more without it, and no
            # request built afterwards carries it.
            assert backend.guided is False
            assert len(server.bodies) <= 6
            assert all("guided_regex" not in b for b in server.bodies[1::2])
            more = len(server.bodies)
            list(backend.sample_each(["Which for a mural?"], style, Sampling(), [4]))
            assert len(server.bodies) == more + 1 and "guided_regex" not in server.bodies[-1]
    finally:
        server.close()


def test_words_never_send_guided_decoding():
    server = _Server(True)
    try:
        backend = OpenAIBackend(server.url, "m", chat=True, concurrency=1)
        backend.load()
        style = style_for("Choose a random butterfly.", True, False, 0, None)
        list(backend.sample_each(["Which butterfly?"], style, Sampling(), [1]))
        assert "guided_regex" not in server.bodies[0]
        assert "curly braces" not in server.bodies[0]["messages"][-1]["content"]
    finally:
        server.close()


def test_an_unknown_answer_format_is_one_sentence():
    with pytest.raises(BadInput, match="--answer-format must be one of words, braces"):
        RunSettings(answer_format="xml").validate()
    assert RunSettings.from_dict({"answer_format": "braces"}).answer_format == "braces"
