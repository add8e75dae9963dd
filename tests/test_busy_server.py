"""A server that only ever says it is busy (429, 503, with or without a usable
Retry-After): the retry budget is wall time, whatever a request waits on (its own
backoff, the pool's pause, its turn behind others), so a run ends within the budget
rather than minutes later; and a run that has failed stops its other requests at once."""

from __future__ import annotations

import threading
import time

import pytest

from probe.backends.base import Draw, Sampling
from probe.backends.openai import OpenAIBackend
from probe.errors import RunFailed
from probe.family import Family
from probe.prompting import style_for
from probe.runner import Runner, RunSettings
from servers import GOOD, MODELS, _reply

BUDGET = 2.0


def _always(status: int, retry_after: str | None = None):
    headers = {"Retry-After": retry_after} if retry_after is not None else {}

    def script(path, seen):
        if path.endswith("/models"):
            return _reply(200, MODELS)
        return _reply(status, b"busy", headers)
    return script


def _many_requests(backend, count: int = 24) -> float:
    """Draw ``count`` framings at once; the seconds until the draw failed."""
    style = style_for("Choose a random fruit.", False, True, 0, None)
    prompts = [f"Which fruit for occasion {i}?" for i in range(count)]
    draw = Draw("framed", prompts, list(range(count)), style, Sampling())
    start = time.monotonic()
    with pytest.raises(RunFailed) as err:
        for ready in backend.draw(iter([draw]), backend.concurrency):
            for item in ready:
                if item.error is not None:
                    raise item.error
    return time.monotonic() - start, str(err.value)


@pytest.mark.parametrize("status,retry_after", [
    (503, None), (429, None), (429, "1"), (429, "soon"), (429, "-5"), (429, "0.5"),
    (429, "nan"), (503, "0")])
def test_a_server_that_stays_busy_fails_the_draw_within_the_budget(serve, status,
                                                                   retry_after):
    server = serve(_always(status, retry_after))
    backend = OpenAIBackend(server.url, "m", chat=False, concurrency=4, retry_budget=BUDGET,
                            timeout=5)
    backend.load()
    took, message = _many_requests(backend)
    # The budget, plus one last answer's round trip and a look at the clock.
    assert took < BUDGET + 2.5, f"{took:.1f} s"
    assert f"HTTP {status}" in message and "busy" in message
    assert sum(p.endswith("/completions") for p, _ in server.seen) > 1     # it did retry


def test_a_server_busy_for_a_while_then_fine_is_waited_for(serve):
    def script(path, seen):
        if path.endswith("/models"):
            return _reply(200, MODELS)
        first = seen[1][0] if len(seen) > 1 else None
        return _reply(503, b"busy") if len(seen) < 8 and first else _reply(200, GOOD)
    server = serve(script)
    backend = OpenAIBackend(server.url, "m", chat=False, concurrency=4, retry_budget=30)
    backend.load()
    style = style_for("Choose a random fruit.", False, True, 0, None)
    got = list(backend.sample_each([f"Which fruit {i}?" for i in range(6)], style,
                                   Sampling(), list(range(6))))
    assert [c.text for c in got] == ["Monarch"] * 6


def test_a_failed_run_stops_its_other_requests_and_ends(serve, isolated):
    """One request is refused outright (the run fails); the others were answered busy
    and would wait out a long budget: they stop at once, and the run's end returns."""
    def script(path, seen):
        if path.endswith("/models"):
            return _reply(200, MODELS)
        if len(seen) == 2:
            return _reply(400, b"no such thing")
        return _reply(503, b"busy")
    server = serve(script)
    backend = OpenAIBackend(server.url, "m", chat=False, concurrency=8, retry_budget=300)
    backend.load()
    from probe.store import Store

    store = Store(isolated / "probe.db")
    family = Family("fruit", "Choose a random fruit.",
                    [f"Which fruit for occasion {i}?" for i in range(12)])
    runner = Runner(store, backend)
    run_id = runner.create(family, RunSettings(samples=4, base=True, shots=0,
                                               concurrency=8), "m")
    done = threading.Event()
    start = time.monotonic()

    def execute():
        runner.execute(run_id)
        done.set()

    threading.Thread(target=execute, daemon=True).start()
    assert done.wait(15), "the failed run's process kept waiting on busy requests"
    assert time.monotonic() - start < 10
    run = store.run(run_id)
    assert run.status == "failed" and "HTTP 400" in run.error
    asked = lambda: sum(p.endswith("/completions") for p, _ in server.seen)  # noqa: E731
    seen = asked()
    time.sleep(1.5)
    assert asked() == seen                     # nothing more was sent for it


def test_a_busy_spell_that_failed_one_draw_is_not_held_against_the_next(serve):
    """The app keeps one backend for many runs: a server that was busy for a whole budget
    and then recovers serves the next run."""
    busy = {"on": True}

    def script(path, seen):
        if path.endswith("/models"):
            return _reply(200, MODELS)
        return _reply(503, b"busy") if busy["on"] else _reply(200, GOOD)
    server = serve(script)
    backend = OpenAIBackend(server.url, "m", chat=False, concurrency=4, retry_budget=1.0)
    backend.load()
    _many_requests(backend, 4)
    busy["on"] = False
    style = style_for("Choose a random fruit.", False, True, 0, None)
    got = list(backend.sample_each(["Which fruit?", "Which one?"], style, Sampling(), [1, 2]))
    assert [c.text for c in got] == ["Monarch", "Monarch"]
