"""Any OpenAI-compatible server (vLLM, SGLang, llama.cpp's server, Ollama): the way to
scale past one machine. Bounded concurrency, ``n`` where the server honours it,
retries with backoff, timeouts. The API key is read from an environment variable at
request time and never stored."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Iterator, Sequence

from probe.backends.base import Backend, Completion, ProgressFn, Sampling
from probe.errors import BadInput, RunFailed
from probe.prompting import PromptStyle

RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


class OpenAIBackend(Backend):
    name = "openai"
    SUPPORTS_BATCH = False      # concurrency, not batched tensors: the server batches

    def __init__(self, base_url: str, model: str, api_key_env: str | None = None,
                 concurrency: int = 8, timeout: float = 120.0, retries: int = 4,
                 chat: bool = True):
        super().__init__()
        if not base_url.startswith(("http://", "https://")):
            raise BadInput(f"--base-url must start with http:// or https:// (got '{base_url}').")
        self.base_url = base_url.rstrip("/")
        if self.base_url.endswith("/v1"):
            self.base_url = self.base_url[:-3]
        self.model = model
        self.api_key_env = api_key_env
        self.concurrency = max(1, concurrency)
        self.timeout = timeout
        self.retries = retries
        self.chat = chat
        self.supports_n: bool | None = None

    # ------------------------------------------------------------ http

    def _headers(self) -> dict:
        headers = {"Content-Type": "application/json"}
        if self.api_key_env:
            key = os.environ.get(self.api_key_env)
            if not key:
                raise BadInput(f"environment variable {self.api_key_env} (the API key) is "
                               "not set.")
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _request(self, path: str, body: dict | None = None) -> dict:
        url = self.base_url + path
        data = json.dumps(body).encode() if body is not None else None
        delay = 0.5
        last = ""
        for attempt in range(self.retries + 1):
            if self.cancelled.is_set():
                raise RunFailed("cancelled")
            req = urllib.request.Request(url, data=data, headers=self._headers(),
                                         method="POST" if data else "GET")
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    return json.loads(resp.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                detail = exc.read().decode("utf-8", "replace")[:200]
                if exc.code in (401, 403):
                    raise BadInput(f"server at {self.base_url} refused the API key "
                                   f"(HTTP {exc.code}).") from None
                if exc.code == 404 and path.endswith("/models"):
                    raise BadInput(f"{self.base_url} has no /v1/models: is it an "
                                   "OpenAI-compatible server?") from None
                if exc.code not in RETRY_STATUS:
                    raise RunFailed(f"server at {self.base_url} answered HTTP {exc.code}: "
                                    f"{detail}") from None
                last = f"HTTP {exc.code}"
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                last = str(reason)
                if attempt == 0 and path.endswith("/models"):
                    break     # unreachable at start: say so at once, don't retry for long
            except json.JSONDecodeError:
                raise RunFailed(f"server at {self.base_url} did not answer JSON.") from None
            if attempt < self.retries:
                time.sleep(delay)
                delay = min(delay * 2, 8.0)
        raise RunFailed(f"cannot reach the server at {self.base_url} ({last}).")

    # ------------------------------------------------------------ backend

    def load(self, progress: ProgressFn | None = None) -> None:
        if progress:
            progress(f"contacting {self.base_url}", 0.2)
        try:
            listing = self._request("/v1/models")
        except RunFailed as exc:
            raise BadInput(str(exc)) from None
        served = [m.get("id") for m in listing.get("data", []) if isinstance(m, dict)]
        if served and self.model not in served and len(served) > 1:
            raise BadInput(f"the server does not serve '{self.model}' (it serves: "
                           f"{', '.join(served[:5])}).")
        if progress:
            progress("server ready", 1.0)

    @property
    def has_chat_template(self) -> bool:
        return self.chat

    def preferred_chunk(self) -> int:
        return self.concurrency

    def _body(self, prompt: str, style: PromptStyle, sampling: Sampling, seed: int,
              n: int = 1) -> tuple[str, dict]:
        body = {"model": self.model, "temperature": sampling.temperature,
                "max_tokens": sampling.max_tokens, "seed": seed, "top_p": 1.0}
        if n > 1:
            body["n"] = n
        if style.mode == "chat":
            body["messages"] = style.messages(prompt)
            return "/v1/chat/completions", body
        body["prompt"] = style.base_prompt(prompt)
        body["stop"] = style.stop()
        return "/v1/completions", body

    def _texts(self, reply: dict, mode: str) -> tuple[list[str], int]:
        choices = reply.get("choices") or []
        if mode == "chat":
            texts = [(c.get("message") or {}).get("content") or "" for c in choices]
        else:
            texts = [c.get("text") or "" for c in choices]
        tokens = int((reply.get("usage") or {}).get("completion_tokens") or 0)
        return texts, tokens

    def _one(self, prompt: str, style: PromptStyle, sampling: Sampling,
             seed: int) -> Completion:
        start = time.perf_counter()
        path, body = self._body(prompt, style, sampling, seed)
        texts, tokens = self._texts(self._request(path, body), style.mode)
        return Completion(text=(texts[0] if texts else "").strip(), tokens=tokens,
                          latency_ms=(time.perf_counter() - start) * 1000,
                          prompt=self.render(prompt, style))

    def _many(self, prompts: Sequence[str], style: PromptStyle, sampling: Sampling,
              seeds: Sequence[int]) -> Iterator[Completion]:
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            futures = [pool.submit(self._one, p, style, sampling, s)
                       for p, s in zip(prompts, seeds)]
            try:
                for fut in futures:           # in order, as each one is ready
                    if self.cancelled.is_set():
                        break
                    yield fut.result()
            finally:
                for fut in futures:
                    fut.cancel()

    def sample_many(self, prompt: str, k: int, style: PromptStyle, sampling: Sampling,
                    seeds: Sequence[int]) -> Iterator[Completion]:
        if k > 1 and self.supports_n is not False:
            start = time.perf_counter()
            path, body = self._body(prompt, style, sampling, seeds[0], n=k)
            texts, tokens = self._texts(self._request(path, body), style.mode)
            if len(texts) == k:
                self.supports_n = True
                per = (time.perf_counter() - start) * 1000 / k
                for t in texts:
                    yield Completion(t.strip(), tokens // k, per, self.render(prompt, style))
                return
            # The server ignored n: keep what came back, ask for the rest one by one.
            self.supports_n = False
            for t in texts[:1]:
                yield Completion(t.strip(), tokens, (time.perf_counter() - start) * 1000,
                                 self.render(prompt, style))
            yield from self._many([prompt] * (k - 1), style, sampling, list(seeds[1:k]))
            return
        yield from self._many([prompt] * k, style, sampling, seeds)

    def sample_each(self, prompts: Sequence[str], style: PromptStyle, sampling: Sampling,
                    seeds: Sequence[int]) -> Iterator[Completion]:
        yield from self._many(prompts, style, sampling, seeds)
