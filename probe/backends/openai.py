"""Any OpenAI-compatible server (vLLM, SGLang, llama.cpp's server, Ollama): the way to
scale past one machine. Bounded concurrency, ``n`` where the server honours it,
retries that honour ``Retry-After`` within a total budget, a total deadline per request
(``probe.backends.http``). The API key is read from an environment variable at request
time, sent only to the server's own origin, and never shown or stored."""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Iterator, Sequence

from probe.backends.base import Backend, Completion, ProgressFn, Sampling
from probe.backends.http import Aborted, Transport, redact, retry_after
from probe.errors import BadInput, RunFailed
from probe.limits import MAX_RETRY_AFTER_S, REQUEST_TIMEOUT_S, RETRY_BUDGET_S
from probe.prompting import PromptStyle
from probe.reading import clean_text

RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


class OpenAIBackend(Backend):
    name = "openai"
    SUPPORTS_BATCH = False      # concurrency, not batched tensors: the server batches

    def __init__(self, base_url: str, model: str, api_key_env: str | None = None,
                 concurrency: int = 8, timeout: float = REQUEST_TIMEOUT_S, retries: int = 4,
                 chat: bool = True, retry_budget: float = RETRY_BUDGET_S):
        super().__init__()
        if not base_url.startswith(("http://", "https://")):
            raise BadInput(f"--base-url must start with http:// or https:// "
                           f"(got '{redact(base_url)}').")
        if not 0 < timeout <= 3600:
            raise BadInput(f"--timeout must be between 0 and 3600 seconds (got {timeout}).")
        self.http = Transport(base_url, self.cancelled)
        self.base_url = self.http.origin + self.http.prefix
        self.model = model
        self.api_key_env = api_key_env
        self.concurrency = max(1, concurrency)
        self.timeout = timeout
        self.retries = retries
        self.retry_budget = retry_budget
        self.chat = chat
        self.supports_n: bool | None = None

    def cancel(self) -> None:
        super().cancel()
        self.http.abort_all()     # Ctrl-C must not wait for a slow server

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
        data = json.dumps(body).encode() if body is not None else None
        key = self._key()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        secrets = [key] if key else []
        waited = 0.0
        delay = 0.5
        last = ""
        for attempt in range(self.retries + 1):
            if self.cancelled.is_set():
                raise RunFailed("cancelled")
            pause = delay
            try:
                reply = self.http.request("POST" if data else "GET", path, data, headers,
                                          self.timeout)
            except Aborted as exc:
                if exc.why == "cancelled":
                    raise RunFailed("cancelled") from None
                raise RunFailed(f"server at {self.base_url} did not answer {path} within "
                                f"{self.timeout:g} s (--timeout).") from None
            except ConnectionError as exc:
                last = redact(str(exc), secrets)
                if attempt == 0 and path.endswith("/models"):
                    break     # unreachable at start: say so at once, don't retry for long
            else:
                if 200 <= reply.status < 300:
                    return self._json(reply.body, path)
                detail = redact(reply.body.decode("utf-8", "replace"), secrets)
                self._refuse(reply, path, detail)
                last = f"HTTP {reply.status}"
                asked = retry_after(reply.headers.get("retry-after"))
                if asked is not None:
                    if asked > MAX_RETRY_AFTER_S or waited + asked > self.retry_budget:
                        raise RunFailed(f"server at {self.base_url} is busy (HTTP "
                                        f"{reply.status}) and asked to retry after "
                                        f"{asked:.0f} s; try again later.")
                    pause = asked
            if attempt == self.retries:
                break
            if waited + pause > self.retry_budget:
                break
            if self.cancelled.wait(pause):
                raise RunFailed("cancelled")
            waited += pause
            delay = min(delay * 2, 8.0)
        raise RunFailed(f"cannot reach the server at {self.base_url} ({last}).")

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
        if code not in RETRY_STATUS:
            raise RunFailed(f"server at {self.base_url} answered HTTP {code}: {detail}")

    def _json(self, body: bytes, path: str):
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

    def _texts(self, reply, mode: str) -> tuple[list[str], int]:
        """The texts and completion-token count of a reply, or one sentence naming the
        server when the reply is not shaped like an OpenAI completion."""
        bad = RunFailed(f"server at {self.base_url} answered with a malformed completion "
                        "(expected choices[].message.content or choices[].text, and usage "
                        "with integer token counts).")
        choices = reply.get("choices") if isinstance(reply, dict) else None
        if not isinstance(choices, list) or not all(isinstance(c, dict) for c in choices):
            raise bad
        if not choices:
            raise RunFailed(f"server at {self.base_url} answered with no completion (an "
                            "empty 'choices' list).")
        texts = []
        for c in choices:
            if mode == "chat":
                msg = c.get("message")
                if not isinstance(msg, dict):
                    raise bad
                text = msg.get("content")
                if text is None:            # a refusal comes as {content: null, refusal}
                    text = msg.get("refusal")
            else:
                text = c.get("text")
            if not isinstance(text, str):
                raise bad
            texts.append(clean_text(text))
        usage = reply.get("usage")
        if usage is not None and not isinstance(usage, dict):
            raise bad
        tokens = (usage or {}).get("completion_tokens") or 0
        if isinstance(tokens, bool) or not isinstance(tokens, int) or not 0 <= tokens < 2**31:
            raise bad
        return texts, tokens

    def _one(self, prompt: str, style: PromptStyle, sampling: Sampling,
             seed: int) -> Completion:
        start = time.perf_counter()
        path, body = self._body(prompt, style, sampling, seed)
        texts, tokens = self._texts(self._request(path, body), style.mode)
        return Completion(text=texts[0].strip(), tokens=tokens,
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
                if self.cancelled.is_set():
                    self.http.abort_all()

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
