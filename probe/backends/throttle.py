"""How many requests go to a server at once: one window shared by every request in flight.

The window starts at ``--concurrency``. A busy answer (429, 503) halves it, once per
congestion event (answers to requests sent before the last cut do not cut again), and
pauses the whole pool: for the server's ``Retry-After`` when it gives one, else for a
backoff that doubles while the server stays busy. Each success widens the window again by
about one request per window's worth of answers. So a server that can take 8 requests at
a time settles near 8, with no request failing for being one too many, and a server that
can take hundreds gets them. A server that has answered nothing but "busy" for the retry
budget fails every request waiting on it, so no run waits on it for longer. Lives on the
transport's event loop; not thread-safe.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from typing import Callable

MIN_BACKOFF_S = 0.1
MAX_BACKOFF_S = 8.0
LOOK_S = 0.5        # a waiting request looks again this often: is it still wanted, late?


class Stalled(Exception):
    """The request's time is up, or the server has been busy for the whole budget."""


class Unwanted(Exception):
    """The run the request was for has ended (failed, settled): nobody waits for it."""


class Throttle:
    def __init__(self, size: int, budget: float = math.inf):
        self.size = max(1, size)
        self.budget = budget
        self.window = float(self.size)
        self.in_flight = 0
        self.paused_until = 0.0
        self.backoff = MIN_BACKOFF_S
        self.busy_answers = 0
        self.busy_since: float | None = None    # the first busy answer since a success
        self.last_busy = ""                     # what it was ("HTTP 503")
        self._last_cut = float("-inf")
        self._waiters: deque[asyncio.Future] = deque()

    def limit(self, deadline: float | None) -> float:
        """When a request with ``deadline`` must stop waiting: its own deadline, or the end
        of the budget since the server last answered anything but busy."""
        pool = self.busy_since + self.budget if self.busy_since is not None else math.inf
        return min(pool, deadline if deadline is not None else math.inf)

    def resize(self, size: int) -> None:
        """A new ``--concurrency`` for the next draws (the app's setting may change)."""
        self.size = max(1, size)
        self.window = min(self.window, self.size) if self.busy_answers else float(self.size)
        self._wake()

    async def acquire(self, deadline: float | None = None,
                      wanted: Callable[[], bool] | None = None) -> float:
        """Wait for the pool's pause to end and a place in the window; returns when the
        request may start (its start time, for ``busy``). ``Stalled`` once ``limit`` has
        passed, ``Unwanted`` once ``wanted()`` is false (looked at every LOOK_S)."""
        loop = asyncio.get_running_loop()
        while True:
            now = loop.time()
            until = self.limit(deadline)
            if now >= until:
                raise Stalled()
            if wanted is not None and not wanted():
                raise Unwanted()
            if now < self.paused_until:
                await asyncio.sleep(min(self.paused_until, until, now + LOOK_S) - now)
                continue
            if self.in_flight < max(1, int(self.window)):
                self.in_flight += 1
                return now
            waiter = loop.create_future()
            self._waiters.append(waiter)
            try:
                await asyncio.wait([waiter], timeout=min(until - now, LOOK_S))
            finally:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
                if waiter.done() and not waiter.cancelled():
                    # Woken, then leaving (cancelled, late, unwanted) or looping round to
                    # take the place: either way the place goes to whoever can use it.
                    self._wake()
                elif not waiter.done():
                    waiter.cancel()

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
        self.busy_since = None
        self._wake()

    def busy(self, started: float, asked: float | None, status: int = 503) -> float:
        """The server said it is busy to a request sent at ``started``: cut the window,
        pause the pool; returns the pause (seconds)."""
        now = asyncio.get_running_loop().time()
        self.busy_answers += 1
        self.last_busy = f"HTTP {status}"
        if self.busy_since is None:
            self.busy_since = now
        if started >= self._last_cut:
            self.window = max(1.0, self.window / 2)
            self._last_cut = now
            self.backoff = min(MAX_BACKOFF_S, self.backoff * 2)
        pause = asked if asked is not None else self.backoff
        self.paused_until = max(self.paused_until, now + pause)
        return pause
