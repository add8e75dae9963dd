"""How many requests go to a server at once: one window shared by every request in flight.

The window starts at ``--concurrency``. A busy answer (429, 503) halves it, once per
congestion event (answers to requests sent before the last cut do not cut again), and
pauses the whole pool: for the server's ``Retry-After`` when it gives one, else for a
backoff that doubles while the server stays busy. Each success widens the window again by
about one request per window's worth of answers. So a server that can take 8 requests at
a time settles near 8, with no request failing for being one too many, and a server that
can take hundreds gets them. Lives on the transport's event loop; not thread-safe.
"""

from __future__ import annotations

import asyncio
from collections import deque

MIN_BACKOFF_S = 0.1
MAX_BACKOFF_S = 8.0


class Throttle:
    def __init__(self, size: int):
        self.size = max(1, size)
        self.window = float(self.size)
        self.in_flight = 0
        self.paused_until = 0.0
        self.backoff = MIN_BACKOFF_S
        self.busy_answers = 0
        self._last_cut = float("-inf")
        self._waiters: deque[asyncio.Future] = deque()

    def resize(self, size: int) -> None:
        """A new ``--concurrency`` for the next draws (the app's setting may change)."""
        self.size = max(1, size)
        self.window = min(self.window, self.size) if self.busy_answers else float(self.size)
        self._wake()

    async def acquire(self) -> float:
        """Wait for the pool's pause to end and a place in the window; returns when the
        request may start (its start time, for ``busy``)."""
        loop = asyncio.get_running_loop()
        while True:
            now = loop.time()
            if now < self.paused_until:
                await asyncio.sleep(self.paused_until - now)
                continue
            if self.in_flight < max(1, int(self.window)):
                self.in_flight += 1
                return now
            waiter = loop.create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            finally:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)

    def release(self) -> None:
        self.in_flight -= 1
        self._wake()

    def _wake(self) -> None:
        room = max(1, int(self.window)) - self.in_flight
        while room > 0 and self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                room -= 1

    def ok(self) -> None:
        self.window = min(float(self.size), self.window + 1.0 / max(self.window, 1.0))
        self.backoff = MIN_BACKOFF_S
        self._wake()

    def busy(self, started: float, asked: float | None) -> float:
        """The server said it is busy to a request sent at ``started``: cut the window,
        pause the pool; returns the pause (seconds)."""
        now = asyncio.get_running_loop().time()
        self.busy_answers += 1
        if started >= self._last_cut:
            self.window = max(1.0, self.window / 2)
            self._last_cut = now
            self.backoff = min(MAX_BACKOFF_S, self.backoff * 2)
        pause = asked if asked is not None else self.backoff
        self.paused_until = max(self.paused_until, now + pause)
        return pause
