"""Small scripted HTTP servers on 127.0.0.1 for the OpenAI-compatible backend's tests:
each answers by a script of its own, records what it received, and stops by itself
(every wait is bounded)."""

from __future__ import annotations

import json
import socketserver
import threading

SECRET = "sk-very-secret-4242"
MODELS = {"object": "list", "data": [{"id": "m", "object": "model"}]}
GOOD = {"choices": [{"text": "Monarch", "index": 0}], "usage": {"completion_tokens": 2}}


def _reply(status: int, body, headers: dict | None = None) -> bytes:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    head = [f"HTTP/1.1 {status} X", f"Content-Length: {len(raw)}",
            "Content-Type: application/json", "Connection: close"]
    head += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + raw


class ScriptedServer:
    """``script(path, seen)`` returns bytes to send, or a callable that writes to the
    socket itself (to trickle or stay silent). ``seen`` lists (path, headers) so far."""

    def __init__(self, script):
        self.seen: list[tuple[str, dict]] = []
        self.stop = threading.Event()
        outer = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                f = self.request.makefile("rb")
                line = f.readline().decode("latin-1")
                headers = {}
                while True:
                    h = f.readline().decode("latin-1").strip()
                    if not h:
                        break
                    k, _, v = h.partition(":")
                    headers[k.strip().lower()] = v.strip()
                f.read(int(headers.get("content-length", 0) or 0))
                path = line.split(" ")[1] if " " in line else "/"
                outer.seen.append((path, headers))
                action = script(path, outer.seen)
                try:
                    if callable(action):
                        action(self.request, outer.stop)
                    else:
                        self.request.sendall(action)
                except OSError:
                    pass

        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


def models_then(action):
    """Answer /v1/models properly, and every other path with ``action`` (bytes, or a
    function of the socket)."""
    return lambda path, seen: _reply(200, MODELS) if path.endswith("/models") else action


def trickle(sock, stop):
    sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
    for _ in range(200):                      # one byte every 0.2 s, for at most 40 s
        if stop.wait(0.2):
            return
        sock.sendall(b" ")


def _trickle(head: bytes, piece: bytes, doc: str):
    """A reply that starts with ``head``, then sends ``piece`` every 0.5 s for at most
    120 s (or until the server stops)."""
    def action(sock, stop):
        sock.sendall(head)
        for _ in range(240):
            if stop.wait(0.5):
                return
            sock.sendall(piece)
    action.__doc__ = doc
    return action


trickle_to_close = _trickle(
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n",
    b" ", "A 200 reply with no Content-Length (it ends when the server closes), a byte at a time.")
trickle_chunked = _trickle(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                           b"1\r\n \r\n", "A chunked 200 reply, one one-byte chunk at a time.")
trickle_headers = _trickle(b"HTTP/1.1 200 OK\r\nX-Slow: ", b"a",
                           "A status line, then headers that never end, a byte at a time.")


def silent(sock, stop):
    stop.wait(40)




def slowly(seconds: float, body=GOOD):
    """A reply sent after ``seconds`` (or at once when the server stops)."""
    def action(sock, stop):
        stop.wait(seconds)
        sock.sendall(_reply(200, body))
    return action
