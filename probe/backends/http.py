"""HTTP for the OpenAI-compatible backend: httpx on an asyncio loop of its own thread.

One pool of keep-alive connections serves every request in flight, from every family.
The guarantees urllib lacks: a total deadline per request that covers every byte
(connect, headers, body; a server that trickles one byte at a time, or ends its reply
only by closing, cannot extend it: the request's task is cancelled at the deadline and its
connection closed), a cap on reply size, no redirects (a ``Location`` on another host must
never receive the API key), every request in flight cut at once on cancel, and server
text redacted and trimmed before anyone sees or stores it. httpx is imported here, when a
server is first used, so `probe --help` does not pay for it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import email.utils
import re
import threading
import time
from dataclasses import dataclass

from probe.backends.endpoint import Endpoint
from probe.errors import RunFailed
from probe.limits import MAX_BODY_BYTES, MAX_ERROR_CHARS

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SECRETS = re.compile(r"(?i)(bearer\s+)\S+|\bsk-[A-Za-z0-9_\-]{6,}")


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes


class Aborted(Exception):
    """The request was cut by its deadline or by cancel(); ``why`` says which."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


def redact(text: str, secrets: list[str] = ()) -> str:
    """Server text fit to show or store: secrets and bearer tokens masked, control
    characters (terminal escapes) dropped, one line, at most MAX_ERROR_CHARS."""
    for s in secrets:
        if s:
            text = text.replace(s, "[redacted]")
    text = _SECRETS.sub(lambda m: (m.group(1) or "") + "[redacted]", text)
    text = " ".join(_CONTROL.sub(" ", text).split())
    return text if len(text) <= MAX_ERROR_CHARS else text[:MAX_ERROR_CHARS] + "…"


def retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(min(int(value[:9]), 10 ** 8))
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


class Transport:
    """One server; its own event loop on a daemon thread (so a process that must exit is
    never held by a socket), started on first use. Thread-safe entry points: ``submit``,
    ``call``, ``abort_all``, ``close``."""

    def __init__(self, endpoint: Endpoint, cancelled: threading.Event):
        self.endpoint = endpoint
        self.origin = endpoint.origin
        self.cancelled = cancelled
        self.loop: asyncio.AbstractEventLoop | None = None
        self._free: asyncio.LifoQueue | None = None
        self._clients: list = []
        self._made = 0
        self._ssl = None
        self._live: set[asyncio.Task] = set()
        self._start_lock = threading.Lock()

    # ------------------------------------------------------------ the loop

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._start_lock:
            if self.loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, daemon=True,
                                 name="probe-http").start()
                self.loop = loop
        return self.loop

    def submit(self, coro) -> concurrent.futures.Future:
        """Run ``coro`` on the loop; its task is cut by ``abort_all``."""
        return asyncio.run_coroutine_threadsafe(self._tracked(coro), self._ensure_loop())

    async def _tracked(self, coro):
        task = asyncio.current_task()
        self._live.add(task)
        try:
            return await coro
        finally:
            self._live.discard(task)

    def call(self, coro):
        """Run ``coro`` on the loop and wait for it here. The wait wakes often, so Ctrl-C
        in this thread interrupts it at once."""
        future = self.submit(coro)
        try:
            while True:
                try:
                    return future.result(timeout=0.2)
                except concurrent.futures.TimeoutError:
                    continue
        except BaseException:
            future.cancel()
            raise

    def abort_all(self) -> None:
        """Cut every request in flight (cancel): each task is cancelled, which closes its
        connection, wherever it was (connecting, sending, reading)."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._cancel_tasks)

    def _cancel_tasks(self) -> None:
        for task in list(self._live):
            task.cancel()

    def close(self) -> None:
        if self.loop is None or self.loop.is_closed():
            return
        loop, clients = self.loop, list(self._clients)

        async def shut():
            for client in clients:
                await client.aclose()
        try:
            asyncio.run_coroutine_threadsafe(shut(), loop).result(timeout=5)
        except (concurrent.futures.TimeoutError, RuntimeError):
            pass
        loop.call_soon_threadsafe(loop.stop)

    # ------------------------------------------------------------ requests

    async def _checkout(self, pool_size: int):
        """A client of one keep-alive connection, taken from the free list (called on the
        loop). One connection per client keeps httpcore's pool bookkeeping O(1) per
        request: a shared pool of 64 re-checks every connection on every request, and that
        cost more CPU than everything else the client does."""
        if self._free is None:
            self._free = asyncio.LifoQueue()
        while self._made < max(pool_size, 1) and self._free.empty():
            self._free.put_nowait(self._new_client())
            self._made += 1
        return await self._free.get()

    def _new_client(self):
        import ssl

        import httpx

        if self._ssl is None:
            self._ssl = ssl.create_default_context()
        # The system's certificate store, as urllib would use; no proxy or .netrc from the
        # environment: the key goes to this server and nowhere else.
        client = httpx.AsyncClient(
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=1,
                                keepalive_expiry=30.0),
            follow_redirects=False, trust_env=False, verify=self._ssl, timeout=None)
        self._clients.append(client)
        return client

    async def request(self, method: str, path: str, body: bytes | None, headers: dict,
                      timeout: float, pool_size: int = 1) -> Reply:
        """One request, no redirects followed, done within ``timeout`` seconds in total
        (connect, send, headers and every byte of the body)."""
        import httpx

        if self.cancelled.is_set():
            raise Aborted("cancelled")
        # The body is read raw: a compressed reply is never inflated past the cap.
        headers = {**headers, "Accept-Encoding": "identity"}
        client = None
        try:
            async with asyncio.timeout(timeout):
                client = await self._checkout(pool_size)
                request = client.build_request(method, self.endpoint.address(path),
                                               content=body, headers=headers)
                response = await client.send(request, stream=True)
                try:
                    chunks, size = [], 0
                    async for piece in response.aiter_raw():
                        size += len(piece)
                        if size > MAX_BODY_BYTES:
                            raise RunFailed(f"server at {self.origin} sent a reply larger "
                                            f"than {MAX_BODY_BYTES >> 20} MiB; probe stopped "
                                            "reading it.")
                        chunks.append(piece)
                finally:
                    await response.aclose()
        except TimeoutError:
            raise Aborted("cancelled" if self.cancelled.is_set() else "timeout") from None
        except asyncio.CancelledError:
            if self.cancelled.is_set():
                raise Aborted("cancelled") from None
            raise
        except (httpx.HTTPError, OSError, ValueError) as exc:
            if self.cancelled.is_set():
                raise Aborted("cancelled") from None
            raise ConnectionError(redact(str(exc) or type(exc).__name__)) from None
        finally:
            if client is not None:
                self._free.put_nowait(client)
        return Reply(response.status_code, {k.lower(): v for k, v in response.headers.items()},
                     b"".join(chunks))
