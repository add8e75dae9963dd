"""llama.cpp (llama-cpp-python) for GGUF files: the quantized fallback and the default."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from probe.backends.base import Backend, Completion, ProgressFn, Sampling
from probe.backends.gguf_check import check_gguf
from probe.errors import BadInput, RunFailed, describe
from probe.prompting import PromptStyle
from probe.reading import open_regular


@contextlib.contextmanager
def _quiet_stderr():
    """llama.cpp logs model loading to fd 2 from C; keep the terminal clean."""
    try:
        fd = os.dup(2)
    except OSError:
        yield
        return
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(fd, 2)
            os.close(fd)


class LlamaBackend(Backend):
    name = "llama"
    SUPPORTS_BATCH = False

    def __init__(self, path: str | Path, n_ctx: int = 2048, n_threads: int | None = None,
                 seed: int = 0):
        super().__init__()
        self.path = Path(path)
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.seed = seed
        self.llm = None
        self._template: str | None = None
        self._eos = self._bos = ""

    def load(self, progress: ProgressFn | None = None) -> None:
        if not self.path.is_file():
            raise BadInput(f"model file {self.path} does not exist.")
        with open_regular(self.path, "model file") as fh:
            if fh.read(4) != b"GGUF":
                raise BadInput(f"model file {self.path} is not a GGUF file.")
        if progress:
            progress(f"loading {self.path.name}", 0.1)
        import llama_cpp  # heavy: only when a GGUF model is used

        gpu = bool(llama_cpp.llama_supports_gpu_offload())
        self.USES_GPU = gpu
        try:
            with _quiet_stderr():
                self.llm = llama_cpp.Llama(
                    model_path=str(self.path), n_ctx=self.n_ctx,
                    n_gpu_layers=-1 if gpu else 0, seed=self.seed, verbose=False,
                    n_threads=self.n_threads, n_threads_batch=self.n_threads,
                    logits_all=False)
        except Exception as exc:
            # A damaged file is bad input (exit 2), not a failed run: read its header only
            # now, so a good model pays nothing for the check.
            check_gguf(self.path)
            raise RunFailed(f"llama.cpp could not load {self.path}: {describe(exc)}.") \
                from None
        meta = self.llm.metadata or {}
        self._template = meta.get("tokenizer.chat_template") or None
        self._eos = self._token_text(self.llm.token_eos())
        self._bos = self._token_text(self.llm.token_bos())
        if progress:
            progress("model loaded", 1.0)

    @property
    def has_chat_template(self) -> bool:
        return bool(self._template)

    def _token_text(self, token: int) -> str:
        if token < 0:
            return ""
        try:
            return self.llm.detokenize([token], special=True).decode("utf-8", "replace")
        except Exception:   # an odd vocabulary: the template gets no such token
            return ""

    def chat_template(self):
        """The GGUF's own template, with the BOS and EOS texts llama.cpp gives it."""
        from probe.template_box import ChatTemplate

        if not self._template:
            return None
        return ChatTemplate(self._template, self.path.name,
                            {"bos_token": self._bos, "eos_token": self._eos})

    def _stopper(self):
        # Checked by llama.cpp after every token: cancellation needs no whole answer.
        import llama_cpp

        return llama_cpp.StoppingCriteriaList([lambda _ids, _logits: self.cancelled.is_set()])

    # sample_many/sample_each come from Backend: llama-cpp-python keeps the last prompt's
    # KV cache and re-evaluates only what differs, so the N direct samples pay for the
    # prompt once.
    def sample_one(self, prompt: str, style: PromptStyle, sampling: Sampling,
                   seed: int) -> Completion:
        assert self.llm is not None, "load() first"
        start = time.perf_counter()
        # Plain temperature sampling, as the transformers backend and the paper's
        # servers do: llama.cpp's default top-k/top-p/min-p would narrow the distribution.
        kwargs = dict(max_tokens=sampling.max_tokens, temperature=sampling.temperature,
                      seed=seed, top_k=0, top_p=1.0, min_p=0.0,
                      stopping_criteria=self._stopper())
        if style.mode == "chat":
            # The GGUF's own template, rendered in the box before sampling (probe.template_box)
            # rather than by llama-cpp-python in this process; its special tokens are tokens.
            rendered = self.render(prompt, style)
            tokens = self.llm.tokenize(rendered.encode("utf-8"), add_bos=False, special=True)
            out = self.llm.create_completion(tokens, stop=[self._eos] if self._eos else [],
                                             **kwargs)
            text = out["choices"][0]["text"] or ""
        else:
            out = self.llm.create_completion(style.base_prompt(prompt), stop=style.stop(),
                                             **kwargs)
            text = out["choices"][0]["text"]
        tokens = int(out.get("usage", {}).get("completion_tokens", 0))
        return Completion(text=text.strip(), tokens=tokens,
                          latency_ms=(time.perf_counter() - start) * 1000,
                          prompt=self.render(prompt, style))

    def close(self) -> None:
        if self.llm is not None:
            with contextlib.suppress(Exception):
                self.llm.close()
            self.llm = None
