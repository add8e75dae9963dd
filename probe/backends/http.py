"""HTTP for the OpenAI-compatible backend, with the guarantees urllib lacks: a total
deadline per request that a byte-trickling server cannot extend, a cap on reply size,
no redirects (a ``Location`` on another host must never receive the API key), every
in-flight request aborted at once on cancel, and server text redacted and trimmed
before anyone sees or stores it."""

from __future__ import annotations

import email.utils
import http.client
import re
import socket
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from probe.errors import BadInput, RunFailed
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
    """One server (scheme, host, port, path prefix); thread-safe."""

    def __init__(self, base_url: str, cancelled: threading.Event):
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise BadInput(f"--base-url must be http:// or https:// and a host "
                           f"(got '{redact(base_url)}').")
        if parts.username or parts.password or parts.query or parts.fragment:
            # Credentials there would be stored with the run and shown in its name.
            raise BadInput("--base-url must not carry a user name, password or query "
                           "(?…); put the key in a variable and pass --api-key-env.")
        self.https = parts.scheme == "https"
        self.host = parts.hostname
        try:
            self.port = parts.port or (443 if self.https else 80)
        except ValueError:
            raise BadInput(f"--base-url has an invalid port (got '{redact(base_url)}').") \
                from None
        prefix = parts.path.rstrip("/")
        self.prefix = prefix[:-3] if prefix.endswith("/v1") else prefix
        self.origin = f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}"
        self.cancelled = cancelled
        self._live: set[http.client.HTTPConnection] = set()
        self._lock = threading.Lock()

    def abort_all(self) -> None:
        """Cut every request in flight (cancel): their reads fail at once."""
        with self._lock:
            live = list(self._live)
        for conn in live:
            _shutdown(conn)

    def request(self, method: str, path: str, body: bytes | None, headers: dict,
                timeout: float) -> Reply:
        """One request, no redirects followed, done within ``timeout`` seconds in total."""
        deadline = time.monotonic() + timeout
        cls = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
        conn = cls(self.host, self.port, timeout=timeout)
        expired = threading.Event()

        def on_deadline():
            expired.set()
            _shutdown(conn)

        timer = threading.Timer(timeout, on_deadline)
        timer.daemon = True
        with self._lock:
            self._live.add(conn)
        timer.start()
        try:
            if self.cancelled.is_set():
                raise Aborted("cancelled")
            conn.request(method, self.prefix + path, body=body, headers=headers)
            if expired.is_set() or self.cancelled.is_set():   # fired while connecting
                raise Aborted("cancelled" if self.cancelled.is_set() else "timeout")
            resp = conn.getresponse()
            chunks, size = [], 0
            while True:
                if time.monotonic() > deadline:
                    raise Aborted("timeout")
                piece = resp.read(64 << 10)
                if not piece:
                    break
                size += len(piece)
                if size > MAX_BODY_BYTES:
                    raise RunFailed(f"server at {self.origin} sent a reply larger than "
                                    f"{MAX_BODY_BYTES >> 20} MiB; probe stopped reading it.")
                chunks.append(piece)
            # A socket cut by the deadline or by cancel() can read as a clean end of file.
            if self.cancelled.is_set():
                raise Aborted("cancelled")
            if expired.is_set():
                raise Aborted("timeout")
            return Reply(resp.status, {k.lower(): v for k, v in resp.getheaders()},
                         b"".join(chunks))
        except (OSError, http.client.HTTPException, ValueError) as exc:
            if self.cancelled.is_set():
                raise Aborted("cancelled") from None
            if expired.is_set() or time.monotonic() > deadline:
                raise Aborted("timeout") from None
            raise ConnectionError(redact(str(exc) or type(exc).__name__)) from None
        finally:
            timer.cancel()
            with self._lock:
                self._live.discard(conn)
            conn.close()


def _shutdown(conn: http.client.HTTPConnection) -> None:
    sock = conn.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
