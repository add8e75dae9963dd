"""Any OpenAI-compatible server (vLLM, SGLang, llama.cpp's server, Ollama): the way to
scale past one machine. Requests of every family in flight share one pool (``--concurrency``
of them at most, fewer while the server says it is busy: probe.backends.throttle), ``n``
where the server honours it, retries that honour ``Retry-After`` within a total budget,
and a total deadline per request (probe.backends.http). The API key is read from an
environment variable at request time, sent only to the server's own origin, and never
shown or stored."""

from __future__ import annotations

import asyncio
import json
import re
import os
import time
from typing import Callable, Iterator, Sequence

from probe.backends.base import Backend, Completion, Draw, Drawn, ProgressFn, Sampling
from probe.backends.endpoint import check_base_url
from probe.backends.http import Aborted, Transport, redact, retry_after
from probe.backends.openai_replies import completion_texts
from probe.backends.throttle import LOOK_S, Stalled, Throttle, Unwanted
from probe.errors import BadInput, RunFailed
from probe.limits import (MAX_CONCURRENCY, MAX_JSON_DEPTH, MAX_N_PER_REQUEST, MAX_RETRIES,
                          MAX_RETRY_AFTER_S, REQUEST_TIMEOUT_S, RETRY_BUDGET_S)
from probe.prompting import BRACES_REGEX, PromptStyle
from probe.run_settings import DEFAULT_CONCURRENCY

BUSY_STATUS = {429, 503}                   # the server is saturated: the pool backs off
RETRY_STATUS = {408, 409, 500, 502, 504}   # this request failed: it alone tries again


class OpenAIBackend(Backend):
    name = "openai"
    SUPPORTS_BATCH = False      # the server batches; probe keeps it fed
    SUPPORTS_N = True           # until the server shows it ignores ``n``
    guided = True               # until the server refuses ``guided_regex``
    CONCURRENT = True

    def __init__(self, base_url: str, model: str, api_key_env: str | None = None,
                 concurrency: int = DEFAULT_CONCURRENCY, timeout: float = REQUEST_TIMEOUT_S,
                 retries: int = MAX_RETRIES, chat: bool = True,
                 retry_budget: float = RETRY_BUDGET_S):
        super().__init__()
        if not 0 < timeout <= 3600:
            raise BadInput(f"--timeout must be between 0 and 3600 seconds (got {timeout}).")
        endpoint = check_base_url(base_url)
        self.http = Transport(endpoint, self.cancelled)
        self.base_url = endpoint.origin + endpoint.prefix
        self.model = model
        self.api_key_env = api_key_env
        self.concurrency = max(1, min(concurrency, MAX_CONCURRENCY))
        self.timeout = timeout
        self.retries = retries
        self.retry_budget = retry_budget
        self.chat = chat
        self.supports_n: bool | None = None
        self._throttle: Throttle | None = None      # made on the loop

    @property
    def in_flight(self) -> int:
        """Requests on the wire now."""
        return self._throttle.in_flight if self._throttle else 0

    def cancel(self) -> None:
        super().cancel()
        self.http.abort_all()     # Ctrl-C must not wait for a slow server

    def close(self) -> None:
        self.http.close()

    # ------------------------------------------------------------ http

    def _key(self) -> str | None:
        if not self.api_key_env:
            return None
        key = os.environ.get(self.api_key_env)
        if not key:
            raise BadInput(f"environment variable {self.api_key_env} (the API key) is "
                           "not set.")
        if any(ord(c) < 0x20 or ord(c) == 0x7f for c in key) or not key.isascii() \
                or key != key.strip():
            raise BadInput(f"the API key in {self.api_key_env} contains spaces, a line break "
                           "or other characters a header cannot carry; set it again without "
                           "them.")
        return key

    def _request(self, path: str, body: dict | None = None):
        """One call, waited for in this thread (start-up, tests)."""
        return self.http.call(self._call(path, body, self.concurrency))

    async def _call(self, path: str, body: dict | None, window: int,
                    wanted: Callable[[], bool] | None = None):
        """One request with its retries: busy answers pause the whole pool (and do not
        use up this request's retries); other failures are retried by this request alone,
        with its own backoff. The retry budget is wall time from the request's first
        failed answer, whatever it waits on (its backoff, the pool's pause, its turn), and
        the pool fails every request once the server has been busy for the whole budget.
        A request whose run has ended (``wanted()`` false) stops at its next wait."""
        data = json.dumps(body).encode() if body is not None else None
        key = self._key()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        secrets = [key] if key else []
        throttle = self._pool(window)
        loop = asyncio.get_running_loop()
        first_failure: float | None = None
        delay, attempt, last = 0.5, 0, ""
        while True:
            if self.cancelled.is_set():
                raise RunFailed("cancelled")
            deadline = first_failure + self.retry_budget if first_failure is not None \
                else None
            try:
                started = await throttle.acquire(deadline, wanted)
            except Unwanted:
                raise RunFailed("the run this request was for has ended") from None
            except Stalled:
                break
            try:
                reply = await self.http.request("POST" if data else "GET", path, data,
                                                headers, self.timeout, throttle.size)
            except Aborted as exc:
                if exc.why == "cancelled":
                    raise RunFailed("cancelled") from None
                raise RunFailed(f"server at {self.base_url} did not answer {path} within "
                                f"{self.timeout:g} s (--timeout).") from None
            except ConnectionError as exc:
                last = redact(str(exc), secrets)
                reply = None
            finally:
                throttle.release()
            now = loop.time()
            first_failure = now if first_failure is None else first_failure
            spent = now - first_failure
            pause = delay
            if reply is not None:
                if 200 <= reply.status < 300:
                    throttle.ok()
                    return self._json(reply.body, path)
                detail = redact(reply.body.decode("utf-8", "replace"), secrets)
                self._refuse(reply, path, detail)
                last = f"HTTP {reply.status}"
                asked = retry_after(reply.headers.get("retry-after"))
                if asked is not None and asked > min(MAX_RETRY_AFTER_S, self.retry_budget):
                    raise RunFailed(f"server at {self.base_url} is busy (HTTP {reply.status}) "
                                    f"and asked to retry after {asked:.0f} s; try again "
                                    "later.")
                if reply.status in BUSY_STATUS:
                    pause = throttle.busy(started, asked, reply.status)
                else:
                    pause = asked if asked is not None else delay
                    attempt += 1
            else:
                if path.endswith("/models"):
                    break     # unreachable at start: say so at once, don't retry for long
                attempt += 1
            if attempt > self.retries or spent + pause > self.retry_budget:
                break
            await self._nap(pause, wanted)
            if reply is None or reply.status not in BUSY_STATUS:
                delay = min(delay * 2, 8.0)
        last = last or throttle.last_busy or "no answer"
        if last in {f"HTTP {code}" for code in BUSY_STATUS}:
            raise RunFailed(f"server at {self.base_url} stayed busy ({last}) for "
                            f"{self.retry_budget:g} s, the retry budget; try again later.")
        raise RunFailed(f"cannot reach the server at {self.base_url} ({last}).")

    @staticmethod
    async def _nap(seconds: float, wanted: Callable[[], bool] | None) -> None:
        """Sleep before a retry, waking early (Unwanted → RunFailed) if the run ends."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while (left := end - loop.time()) > 0:
            if wanted is not None and not wanted():
                raise RunFailed("the run this request was for has ended")
            await asyncio.sleep(min(left, LOOK_S))

    async def _fresh_budget(self) -> None:
        self._throttle.busy_since = None      # on the loop, where the throttle lives

    def _pool(self, window: int) -> Throttle:
        if self._throttle is None:
            self._throttle = Throttle(window, self.retry_budget)
        elif self._throttle.size != window:
            self._throttle.resize(window)
        return self._throttle

    def _refuse(self, reply, path: str, detail: str) -> None:
        """Raise for answers that retrying cannot fix."""
        code = reply.status
        if 300 <= code < 400:
            where = redact(reply.headers.get("location", "elsewhere"))
            raise BadInput(f"server at {self.base_url} redirected {path} to {where}; probe "
                           "does not follow redirects (the API key must not go to another "
                           "host): pass the final address as --base-url.")
        if code in (401, 403):
            raise BadInput(f"server at {self.base_url} refused the API key (HTTP {code}).")
        if code == 404 and path.endswith("/models"):
            raise BadInput(f"{self.base_url} has no /v1/models: is it an OpenAI-compatible "
                           "server?")
        if code not in RETRY_STATUS and code not in BUSY_STATUS:
            raise RunFailed(f"server at {self.base_url} answered HTTP {code}: {detail}")

    def _json(self, body: bytes, path: str):
        from probe.jsonl import too_deep

        if too_deep(body):
            raise RunFailed(f"server at {self.base_url} answered {path} with JSON nested "
                            f"more than {MAX_JSON_DEPTH} deep.")
        try:
            return json.loads(body.decode("utf-8"))
        except (ValueError, RecursionError):     # also bad UTF-8, huge numbers, deep nesting
            raise RunFailed(f"server at {self.base_url} did not answer {path} with valid "
                            "JSON.") from None

    # ------------------------------------------------------------ backend

    def load(self, progress: ProgressFn | None = None) -> None:
        if progress:
            progress(f"contacting {self.base_url}", 0.2)
        try:
            listing = self._request("/v1/models")
        except RunFailed as exc:
            raise BadInput(str(exc)) from None
        data = listing.get("data") if isinstance(listing, dict) else None
        if not isinstance(data, list) or not all(
                isinstance(m, dict) and isinstance(m.get("id"), str) for m in data):
            raise BadInput(f"server at {self.base_url} answered /v1/models with something "
                           "other than a list of models ({\"data\": [{\"id\": ...}]}); is it "
                           "an OpenAI-compatible server?")
        served = [m["id"] for m in data]
        if served and self.model not in served and len(served) > 1:
            names = ", ".join(redact(s)[:60] for s in served[:5])
            raise BadInput(f"the server does not serve '{self.model}' (it serves: {names}).")
        if progress:
            progress("server ready", 1.0)

    @property
    def has_chat_template(self) -> bool:
        return self.chat

    def preferred_chunk(self) -> int:
        """Direct samples per request: all of a family's at once where ``n`` works."""
        return MAX_N_PER_REQUEST

    def _body(self, prompt: str, style: PromptStyle, sampling: Sampling, seed: int,
              n: int = 1) -> tuple[str, dict]:
        body = {"model": self.model, "temperature": sampling.temperature,
                "max_tokens": sampling.max_tokens, "seed": seed, "top_p": 1.0}
        if n > 1:
            body["n"] = n
        if style.answer_format == "braces" and self.guided:
            # vLLM's guided decoding: the answer cannot leave its braces. A server that does
            # not know the field says so once, and the prompt alone asks for braces then.
            body["guided_regex"] = BRACES_REGEX
        if style.mode == "chat":
            body["messages"] = style.messages(prompt)
            return "/v1/chat/completions", body
        body["prompt"] = style.base_prompt(prompt)
        body["stop"] = style.stop()
        return "/v1/completions", body

    async def _complete(self, prompt: str, style: PromptStyle, sampling: Sampling,
                        seed: int, n: int, window: int,
                        wanted: Callable[[], bool] | None = None
                        ) -> tuple[list[str], int, float]:
        start = time.perf_counter()
        path, body = self._body(prompt, style, sampling, seed, n)
        try:
            reply = await self._call(path, body, window, wanted)
        except RunFailed as exc:
            if "guided_regex" not in body or not re.search(r"HTTP 4(?:00|22).*guided", str(exc),
                                                           re.I | re.S):
                raise
            self.guided = False
            path, body = self._body(prompt, style, sampling, seed, n)
            reply = await self._call(path, body, window, wanted)
        texts, tokens = completion_texts(reply, style.mode, self.base_url)
        return texts, tokens, (time.perf_counter() - start) * 1000

    def _one(self, prompt: str, style: PromptStyle, sampling: Sampling,
             seed: int) -> Completion:
        texts, tokens, ms = self.http.call(self._complete(prompt, style, sampling, seed, 1,
                                                          self.concurrency))
        return Completion(texts[0].strip(), tokens, ms, self.render(prompt, style))

    # ------------------------------------------------------------ draws

    def draw(self, draws: Iterator[Draw], window: int = DEFAULT_CONCURRENCY
             ) -> Iterator[list[Drawn]]:
        """Keep up to ``window`` requests on the wire (fewer while the server is busy),
        from as many draws (families) as that takes; yield samples as they land."""
        from probe.backends.openai_draws import DrawFeeder

        window = max(1, min(window or self.concurrency, MAX_CONCURRENCY))
        if self._throttle is not None:
            # A busy spell that failed earlier runs is not held against these: the server
            # gets a fresh budget (the app keeps one backend for many runs).
            self.http.call(self._fresh_budget())
        yield from DrawFeeder(self, window).run(draws)

    def sample_many(self, prompt: str, k: int, style: PromptStyle, sampling: Sampling,
                    seeds: Sequence[int]) -> Iterator[Completion]:
        yield from self._all(Draw("direct", [prompt], list(seeds[:k]), style, sampling))

    def sample_each(self, prompts: Sequence[str], style: PromptStyle, sampling: Sampling,
                    seeds: Sequence[int]) -> Iterator[Completion]:
        yield from self._all(Draw("framed", list(prompts), list(seeds[:len(prompts)]), style,
                                  sampling))

    def _all(self, draw: Draw) -> list[Completion]:
        """Every completion of one draw, in order (or its error)."""
        got: dict[int, Completion] = {}
        for ready in self.draw(iter([draw]), self.concurrency):
            for item in ready:
                if item.error is not None:
                    raise item.error
                got[item.index] = item.completion
        return [got[i] for i in sorted(got)]
