"""A simulated OpenAI-compatible server on 127.0.0.1, for benchmarks and tests.

It answers like vLLM far from saturation: every request takes ``latency`` seconds however
many are in flight, and ``n`` is honoured. It counts requests in flight (now and at the
peak), can refuse anything past a concurrency cap with HTTP 429, and is bounded: it stops
by itself after ``max_requests`` requests or ``max_seconds`` seconds, whichever comes
first. Answers are drawn from a small skewed vocabulary keyed by (seed, prompt, choice),
so a family's scores are stable for a given seed.

    python benchmarks/simserver.py --latency 0.25 [--cap 8] [--max-seconds 600]

prints ``port N`` and serves; ``GET /stats`` returns the counters as JSON. In a test or
benchmark, ``SimServer(...)`` runs it on a thread of the calling process, and
``spawn(...)`` in a process of its own (so its CPU is not the client's).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import threading
import time
import urllib.request
import zlib
from dataclasses import asdict, dataclass, field

VOCABULARY = ["Monarch", "Monarch", "Monarch", "Blue Morpho", "Blue Morpho", "Painted Lady",
              "Swallowtail", "Red Admiral", "Viceroy", "I can't choose."]
MAX_N = 128


@dataclass
class Settings:
    latency: float = 0.0            # seconds per request, whatever the load
    cap: int | None = None          # most requests in flight; past it, HTTP 429
    retry_after: float | None = None  # sent with every 429 when set
    honour_n: bool = True
    fail_rate: float = 0.0          # share of requests answered 429 at random (by count)
    max_requests: int = 1_000_000
    max_seconds: float = 600.0


@dataclass
class Stats:
    requests: int = 0               # completions requests received
    answered: int = 0               # answered 200
    samples: int = 0                # choices sent
    refused: int = 0                # answered 429
    in_flight: int = 0
    peak_in_flight: int = 0
    connections: int = 0
    in_flight_trace: list = field(default_factory=list)  # (seconds since start, in flight)


def answer(seed: int, prompt: str, i: int) -> str:
    return VOCABULARY[zlib.crc32(f"{seed}|{i}|{prompt}".encode()) % len(VOCABULARY)]


class _Server:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.stats = Stats()
        self.started = time.monotonic()
        self.done: asyncio.Event | None = None
        self.rng = random.Random(0)

    def _reply(self, status: int, body: dict, extra: str = "") -> bytes:
        raw = json.dumps(body).encode()
        return (f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(raw)}\r\n{extra}\r\n").encode() + raw

    def _completion(self, path: str, body: dict) -> dict:
        n = body.get("n", 1) if self.settings.honour_n else 1
        n = max(1, min(int(n), MAX_N))
        seed = int(body.get("seed") or 0)
        chat = path.endswith("/chat/completions")
        prompt = (json.dumps(body.get("messages")) if chat else str(body.get("prompt")))
        choices = []
        for i in range(n):
            text = answer(seed, prompt, i)
            choices.append({"index": i, "finish_reason": "stop",
                            **({"message": {"role": "assistant", "content": text}} if chat
                               else {"text": " " + text})})
        self.stats.samples += n
        return {"id": "sim", "object": "chat.completion" if chat else "text_completion",
                "model": body.get("model"), "choices": choices,
                "usage": {"prompt_tokens": 20, "completion_tokens": 3 * n,
                          "total_tokens": 20 + 3 * n}}

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.stats.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path = lines[0].split(" ")[:2]
                length = 0
                close = False
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    name = name.strip().lower()
                    if name == "content-length":
                        length = int(value)
                    elif name == "connection" and value.strip().lower() == "close":
                        close = True
                raw = await reader.readexactly(length) if length else b""
                writer.write(await self.route(method, path, raw))
                await writer.drain()
                if close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError,
                ValueError):
            pass
        finally:
            writer.close()

    async def route(self, method: str, path: str, raw: bytes) -> bytes:
        s, st = self.settings, self.stats
        if path.endswith("/models"):
            return self._reply(200, {"object": "list", "data": [{"id": "sim"}]})
        if path == "/stats":
            return self._reply(200, asdict(st))
        if not path.endswith("/completions") or method != "POST":
            return self._reply(404, {"error": "no such path"})
        st.requests += 1
        if st.requests >= s.max_requests:
            self.done.set()
            return self._reply(503, {"error": "the simulated server's request budget is spent"})
        retry = f"Retry-After: {s.retry_after:g}\r\n" if s.retry_after is not None else ""
        if (s.cap is not None and st.in_flight >= s.cap) or \
                (s.fail_rate and self.rng.random() < s.fail_rate):
            st.refused += 1
            return self._reply(429, {"error": "too many requests"}, retry)
        st.in_flight += 1
        st.peak_in_flight = max(st.peak_in_flight, st.in_flight)
        try:
            if s.latency:
                await asyncio.sleep(s.latency)
            body = self._completion(path, json.loads(raw))
        finally:
            st.in_flight -= 1
        st.answered += 1
        return self._reply(200, body)

    async def _trace(self):
        while True:
            await asyncio.sleep(0.05)
            self.stats.in_flight_trace.append((round(time.monotonic() - self.started, 2),
                                               self.stats.in_flight))
            del self.stats.in_flight_trace[:-2000]

    async def serve(self, ready) -> None:
        self.done = asyncio.Event()
        server = await asyncio.start_server(self.handle, "127.0.0.1", 0, backlog=1024)
        ready(server.sockets[0].getsockname()[1], self)
        tracer = asyncio.ensure_future(self._trace())
        try:
            await asyncio.wait_for(self.done.wait(), self.settings.max_seconds)
        except asyncio.TimeoutError:
            pass
        tracer.cancel()
        server.close()


class SimServer:
    """The simulated server on a daemon thread of this process; ``url``, ``stats()``,
    ``close()``. Settings as keyword arguments (``latency=0.25, cap=8``…)."""

    def __init__(self, **settings):
        self.settings = Settings(**settings)
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: _Server | None = None
        threading.Thread(target=self._run, daemon=True, name="simserver").start()
        if not self._ready.wait(10):
            raise RuntimeError("the simulated server did not start")

    def _run(self) -> None:
        self._loop = asyncio.new_event_loop()

        def ready(port, server):
            self.url = f"http://127.0.0.1:{port}"
            self._server = server
            self._ready.set()

        self._loop.run_until_complete(_Server(self.settings).serve(ready))

    def stats(self) -> Stats:
        return self._server.stats

    def close(self) -> None:
        if self._loop and self._server and self._server.done:
            self._loop.call_soon_threadsafe(self._server.done.set)


class SpawnedServer:
    """The simulated server in a process of its own; ``url``, ``stats()``, ``close()``."""

    def __init__(self, **settings):
        args = [sys.executable, __file__]
        for name, value in settings.items():
            flag = "--" + name.replace("_", "-")
            if name == "honour_n":
                args += [] if value else ["--ignore-n"]
            elif value is not None:
                args += [flag, str(value)]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("port "):
            self.proc.kill()
            raise RuntimeError("the simulated server did not start")
        self.url = f"http://127.0.0.1:{int(line.split()[1])}"

    def stats(self) -> dict:
        with urllib.request.urlopen(self.url + "/stats", timeout=10) as r:
            return json.loads(r.read())

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def spawn(**settings) -> SpawnedServer:
    return SpawnedServer(**settings)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--latency", type=float, default=0.0)
    ap.add_argument("--cap", type=int, default=None)
    ap.add_argument("--retry-after", type=float, default=None)
    ap.add_argument("--ignore-n", dest="honour_n", action="store_false")
    ap.add_argument("--fail-rate", type=float, default=0.0)
    ap.add_argument("--max-requests", type=int, default=1_000_000)
    ap.add_argument("--max-seconds", type=float, default=600.0)
    args = ap.parse_args()

    def ready(port, server):
        print(f"port {port}", flush=True)

    asyncio.run(_Server(Settings(**vars(args))).serve(ready))


if __name__ == "__main__":
    main()
