"""Draws to a server, many families at once: the calling thread pulls draws from the
pipeline and hands them to the transport's event loop, where each becomes its requests
(one with ``n`` for a family's direct samples where the server honours it, one per
framing); samples come back through a queue as each request lands."""

from __future__ import annotations

import asyncio
import queue
from typing import Iterator

from probe.backends.base import Completion, Draw, Drawn


class _DrawDone:
    """Marker: every request of ``draw`` has ended."""

    def __init__(self, draw: Draw):
        self.draw = draw


class DrawFeeder:
    """Keeps twice the window of requests handed to the loop (the throttle lets at most
    the window onto the wire), so the wire never waits for the calling thread to commit."""

    def __init__(self, backend, window: int):
        self.backend = backend
        self.window = window
        self.results: queue.SimpleQueue = queue.SimpleQueue()
        self.pending: dict[Draw, int] = {}       # draw → requests it was counted for
        self.queued = 0

    def _requests(self, d: Draw) -> int:
        if d.kind == "direct" and self.backend.supports_n is not False:
            return 1
        return d.size

    def run(self, draws: Iterator[Draw]) -> Iterator[list[Drawn]]:
        futures = []
        exhausted = False
        try:
            while True:
                while not exhausted and self.queued < 2 * self.window:
                    if self.backend.cancelled.is_set():
                        return
                    d = next(draws, None)
                    if d is None:
                        exhausted = True
                        break
                    self.pending[d] = self._requests(d)
                    self.queued += self.pending[d]
                    futures.append(self.backend.http.submit(self._draw(d)))
                if not self.pending:
                    return
                ready = self._collect()
                if self.backend.cancelled.is_set():
                    return
                futures = [f for f in futures if not f.done()]
                if ready:
                    yield ready
        finally:
            if self.pending:            # stopped early: cut what is still out
                for f in futures:
                    f.cancel()

    def _collect(self) -> list[Drawn]:
        """Wait for something to land (waking often, so Ctrl-C and cancel are prompt),
        then take everything that has landed meanwhile."""
        ready: list[Drawn] = []
        while True:
            try:
                item = self.results.get(timeout=0.2)
                break
            except queue.Empty:
                if self.backend.cancelled.is_set():
                    return ready
        while True:
            if isinstance(item, _DrawDone):
                self.queued -= self.pending.pop(item.draw, 0)
            else:
                ready.append(item)
            try:
                item = self.results.get_nowait()
            except queue.Empty:
                return ready

    # ------------------------------------------------------------ on the loop

    async def _draw(self, d: Draw) -> None:
        b = self.backend
        try:
            rendered = {}
            if d.kind == "direct" and d.size > 1 and b.supports_n is not False:
                texts, tokens, ms = await b._complete(d.prompts[0], d.style, d.sampling,
                                                      d.seeds[0], d.size, self.window,
                                                      d.wanted)
                shown = rendered.setdefault(0, b.render(d.prompts[0], d.style))
                if len(texts) == d.size:
                    b.supports_n = True
                    for i, text in enumerate(texts):
                        self.results.put(Drawn(d, i, Completion(text.strip(), tokens // d.size,
                                                                ms / d.size, shown)))
                    return
                # The server ignored n: keep what came back, ask for the rest one by one.
                b.supports_n = False
                self.results.put(Drawn(d, 0, Completion(texts[0].strip(), tokens, ms, shown)))
                todo = range(1, d.size)
            else:
                todo = range(d.size)
            # A failed request cancels its siblings: the run fails, its other samples
            # are not worth the server's time.
            async with asyncio.TaskGroup() as group:
                for i in todo:
                    group.create_task(self._single(d, i, rendered))
        except Exception as exc:      # the draw's run fails; the other draws go on
            while isinstance(exc, ExceptionGroup):
                exc = exc.exceptions[0]
            self.results.put(Drawn(d, -1, None, exc))
        finally:
            self.results.put(_DrawDone(d))

    async def _single(self, d: Draw, i: int, rendered: dict) -> None:
        if not d.wanted():
            return
        prompt = d.prompt(i)
        texts, tokens, ms = await self.backend._complete(prompt, d.style, d.sampling,
                                                         d.seeds[i], 1, self.window, d.wanted)
        key = 0 if d.kind == "direct" else i
        if key not in rendered:
            rendered[key] = self.backend.render(prompt, d.style)
        self.results.put(Drawn(d, i, Completion(texts[0].strip(), tokens, ms, rendered[key])))
