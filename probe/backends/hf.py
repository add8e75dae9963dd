"""Hugging Face transformers: GPU first (bf16), CPU otherwise; batched sampling.

Safe by default: safetensors weights only and no ``trust_remote_code`` unless the user
passes the explicit flags, because pickle checkpoints and remote code can run anything.
"""

from __future__ import annotations

import hashlib
import shutil
import time
from pathlib import Path
from typing import Iterator, Sequence

from probe.backends.base import Backend, Completion, Draw, Drawn, ProgressFn, Sampling
from probe.backends.weights import PICKLE_SUFFIXES, check_weights  # noqa: F401 (re-exported)
from probe.errors import BadInput, RunFailed, describe
from probe.prompting import PromptStyle


# Sequences per generate on a CPU. A step's cost there grows faster than the batch: on the
# default model 32 framings took 22–24 s as one batch of 32 and 14–15 s as four of 8, with
# fewer decoding steps in the one batch (benchmarks/sampling.py, 2026-12-01).
CPU_BATCH = 8

class TransformersBackend(Backend):
    name = "transformers"
    SUPPORTS_BATCH = True
    SUPPORTS_N = True             # k sequences of one prompt in one generate

    def __init__(self, path: str | Path, trust_remote_code: bool = False,
                 allow_pickle: bool = False, device: str | None = None,
                 cache_dir: Path | None = None, threads: int | None = None):
        super().__init__()
        self.threads = threads
        self.path = Path(path)
        self.trust_remote_code = trust_remote_code
        self.allow_pickle = allow_pickle
        self.device_name = device
        self.cache_dir = cache_dir
        self.model = None
        self.tok = None
        self._newline_ids: list[int] = []
        self._batch_size = CPU_BATCH

    # ----------------------------------------------------------------- load

    def _gguf_to_safetensors(self, progress: ProgressFn | None) -> Path:
        """Dequantise a GGUF once and keep a safetensors copy in the user cache."""
        from probe.atomic import make_temp_dir
        from probe.backends.gguf_check import check_gguf
        from probe.paths import cache_dir


        stat = self.path.stat()
        key = hashlib.sha256(f"{self.path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"
                             .encode()).hexdigest()[:16]
        target = (self.cache_dir or cache_dir()) / "converted" / f"{self.path.stem}-{key}"
        if target.is_symlink():
            raise BadInput(f"the converted-model cache {target} is a symbolic link; remove it.")
        if (target / "config.json").exists():
            return target
        if progress:
            progress("dequantising GGUF (once; about a minute)", 0.2)
        from transformers import AutoModelForCausalLM, AutoTokenizer

        try:
            model = AutoModelForCausalLM.from_pretrained(
                str(self.path.parent), gguf_file=self.path.name, local_files_only=True)
            tok = AutoTokenizer.from_pretrained(str(self.path.parent), gguf_file=self.path.name,
                                                local_files_only=True)
        except Exception as exc:  # the GGUF loader raises many kinds
            check_gguf(self.path)          # a damaged file is bad input, exit 2
            raise RunFailed(f"transformers could not read {self.path}: {exc}.") from None
        # An exclusively created folder beside the target: a planted link or folder at a
        # predictable name cannot redirect the write.
        tmp = make_temp_dir(target)
        # The weights are already dequantised in memory, but transformers marks a GGUF model
        # as "quantized" and refuses save_pretrained; write plain safetensors ourselves.
        from safetensors.torch import save_model

        save_model(model, str(tmp / "model.safetensors"))
        config = model.config
        if hasattr(config, "quantization_config"):
            delattr(config, "quantization_config")
        config.save_pretrained(tmp)
        if model.generation_config is not None:
            model.generation_config.save_pretrained(tmp)
        tok.save_pretrained(tmp)
        try:
            tmp.rename(target)
        except OSError:          # another process converted it meanwhile: use theirs
            shutil.rmtree(tmp, ignore_errors=True)
            if not (target / "config.json").is_file():
                raise RunFailed(f"cannot store the converted model in {target}.") from None
        return target

    def load(self, progress: ProgressFn | None = None) -> None:
        if progress:
            progress("importing torch and transformers", 0.05)
        import torch
        import transformers
        from transformers import AutoModelForCausalLM, AutoTokenizer

        # Their progress bars would scribble over the app and the CLI's own status line.
        transformers.utils.logging.disable_progress_bar()
        transformers.utils.logging.set_verbosity_error()
        folder = self.path
        if folder.is_file() and folder.suffix == ".gguf":
            folder = self._gguf_to_safetensors(progress)
        if not (folder / "config.json").exists():
            raise BadInput(f"model {folder} has no config.json.")
        check_weights(folder, self.allow_pickle)
        if self.threads:
            torch.set_num_threads(self.threads)
        cuda = torch.cuda.is_available() and self.device_name != "cpu"
        self.device = torch.device(self.device_name or ("cuda" if cuda else "cpu"))
        self.USES_GPU = self.device.type == "cuda"
        dtype = torch.bfloat16 if self.USES_GPU else torch.float32
        if progress:
            progress(f"loading {folder.name} on {self.device.type}", 0.4)
        try:
            self.tok = AutoTokenizer.from_pretrained(
                str(folder), local_files_only=True, trust_remote_code=self.trust_remote_code)
            self.model = AutoModelForCausalLM.from_pretrained(
                str(folder), dtype=dtype, local_files_only=True,
                use_safetensors=not self.allow_pickle,
                trust_remote_code=self.trust_remote_code).to(self.device)
        except (OSError, ValueError) as exc:
            if "trust_remote_code" in str(exc):
                raise BadInput(f"model {folder} needs its own code to load; pass "
                               "--trust-remote-code only if you trust its author.") from None
            raise RunFailed(f"transformers could not load {folder}: {describe(exc)}") \
                from None
        except RuntimeError as exc:
            if "out of memory" in str(exc).lower():
                raise RunFailed(f"model {folder} does not fit in {self.device.type} memory.") \
                    from None
            raise RunFailed(f"transformers could not load {folder}: {describe(exc)}") from None
        except Exception as exc:
            # A model's own code (--trust-remote-code) can fail in any way: an auto_map
            # naming a class its module lacks, an import it cannot make.
            raise RunFailed(f"transformers could not load {folder}: {describe(exc)}") from None
        self.model.eval()
        self._batch_size = self._fit_batch_size()
        self.tok.padding_side = "left"
        if self.tok.pad_token_id is None:
            self.tok.pad_token = self.tok.eos_token or self.tok.unk_token
        vocab = self.tok.get_vocab()
        self._newline_ids = [i for t, i in vocab.items()
                             if "\n" in self.tok.convert_tokens_to_string([t])]
        if progress:
            progress("model loaded", 1.0)

    @property
    def has_chat_template(self) -> bool:
        return bool(getattr(self.tok, "chat_template", None))

    def chat_template(self):
        """The tokenizer's template, with the special tokens transformers gives it."""
        from probe.template_box import ChatTemplate

        source = getattr(self.tok, "chat_template", None)
        if isinstance(source, dict):        # named templates: the default one
            source = source.get("default") or next(iter(source.values()), None)
        if not source:
            return None
        context = {k: v for k, v in self.tok.special_tokens_map.items()
                   if isinstance(v, str) or (isinstance(v, list)
                                             and all(isinstance(x, str) for x in v))}
        return ChatTemplate(source, self.path.name, context)

    def preferred_chunk(self) -> int:
        return self._batch_size

    def _fit_batch_size(self) -> int:
        """Sequences per generate that fit in half the free GPU memory (KV cache + logits);
        ``CPU_BATCH`` on a CPU."""
        if not self.USES_GPU:
            return CPU_BATCH
        import torch

        cfg = self.model.config
        cfg = getattr(cfg, "text_config", cfg)
        heads = getattr(cfg, "num_attention_heads", 16)
        kv_heads = getattr(cfg, "num_key_value_heads", None) or heads
        head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // heads
        layers = getattr(cfg, "num_hidden_layers", 32)
        context = 1024                       # prompt with shots plus the answer, generously
        per_seq = 2 * layers * kv_heads * head_dim * 2 * context + cfg.vocab_size * 4 * 2
        free, _total = torch.cuda.mem_get_info(self.device)
        return int(max(1, min(256, 0.5 * free // per_seq)))

    # ------------------------------------------------------------ sampling

    def _stopping(self, style: PromptStyle, prompt_len: int):
        import torch
        from transformers import StoppingCriteria, StoppingCriteriaList

        newline = torch.tensor(self._newline_ids or [-1], device=self.device)
        cancelled = self.cancelled
        base = style.mode == "base"

        class _Stop(StoppingCriteria):
            # Per-sequence: a base-mode answer ends at its first newline; a cancel ends all.
            def __call__(self, input_ids, scores, **kwargs):
                if cancelled.is_set():
                    return torch.ones(input_ids.shape[0], dtype=torch.bool,
                                      device=input_ids.device)
                if not base:
                    return torch.zeros(input_ids.shape[0], dtype=torch.bool,
                                       device=input_ids.device)
                new = input_ids[:, prompt_len:]
                return torch.isin(new, newline).any(dim=1)

        return StoppingCriteriaList([_Stop()])

    def _generate(self, texts: list[str], k: int, sampling: Sampling, seed: int,
                  style: PromptStyle) -> list[Completion]:
        import torch

        start = time.perf_counter()
        enc = self.tok(texts, return_tensors="pt", padding=True,
                       add_special_tokens=style.mode == "base").to(self.device)
        torch.manual_seed(seed)
        prompt_len = enc["input_ids"].shape[1]
        with torch.inference_mode():
            out = self.model.generate(
                **enc, do_sample=sampling.temperature > 0,
                temperature=sampling.temperature if sampling.temperature > 0 else None,
                top_k=0, top_p=1.0, max_new_tokens=sampling.max_tokens,
                num_return_sequences=k, pad_token_id=self.tok.pad_token_id,
                stopping_criteria=self._stopping(style, prompt_len))
        elapsed = (time.perf_counter() - start) * 1000
        new = out[:, prompt_len:]
        results = []
        for i, row in enumerate(new):
            ids = [t for t in row.tolist() if t != self.tok.pad_token_id]
            text = self.tok.decode(ids, skip_special_tokens=True)
            if style.mode == "base":
                text = text.split("\n", 1)[0]
            results.append(Completion(text=text.strip(), tokens=len(ids),
                                      latency_ms=elapsed / len(new), prompt=texts[i // k]))
        return results

    def sample_many(self, prompt: str, k: int, style: PromptStyle, sampling: Sampling,
                    seeds: Sequence[int]) -> Iterator[Completion]:
        # One generate call: the prompt is tokenised once and expanded to k sequences.
        if self.cancelled.is_set() or k == 0:
            return
        yield from self._generate([self.render(prompt, style)], k, sampling, seeds[0], style)

    def sample_each(self, prompts: Sequence[str], style: PromptStyle, sampling: Sampling,
                    seeds: Sequence[int]) -> Iterator[Completion]:
        start = 0
        while start < len(prompts):
            if self.cancelled.is_set():
                return
            size = self._batch_size
            batch = [self.render(p, style) for p in prompts[start:start + size]]
            try:
                results = self._generate(batch, 1, sampling, seeds[start], style)
            except RuntimeError as exc:
                # The estimate was optimistic (long prompts, fragmentation): halve and retry.
                if "out of memory" not in str(exc).lower() or size == 1:
                    raise
                self._free_cuda()
                self._batch_size = max(1, size // 2)
                continue
            yield from results
            start += len(batch)

    def _free_cuda(self) -> None:
        import torch

        if torch.cuda.is_available():
            torch.cuda.empty_cache()

    def sample_texts(self, texts: Sequence[str], mode: str, sampling: Sampling,
                     seeds: Sequence[int]) -> list[Completion]:
        """One completion of each already-rendered text in one ``generate``. One call
        draws from one random stream, seeded with the first sample's seed."""
        return self._generate(list(texts), 1, sampling, seeds[0], PromptStyle(mode=mode))

    def draw(self, draws: Iterator[Draw], window: int = 1) -> Iterator[list[Drawn]]:
        """Direct draws run as they come (one ``generate`` of k sequences); framed draws
        wait in pools, one per (mode, temperature, max tokens), and a pool is generated
        when it holds a batch, when a draw of a run already in it comes back (so one run's
        direct and framed samples still alternate), or at the end. Framings of many
        families thus share one ``generate``, each sampled with its own run's settings."""
        pools: dict[tuple, list[Draw]] = {}
        for d in draws:
            if self.cancelled.is_set():
                return
            key = (d.style.mode, d.sampling.temperature, d.sampling.max_tokens)
            for other, pool in list(pools.items()):
                if any(p.group == d.group for p in pool):
                    yield from self._pooled(pools.pop(other))
            if d.kind == "direct":
                yield from Backend.draw(self, iter([d]))
                continue
            pool = pools.setdefault(key, [])
            pool.append(d)
            if sum(p.size for p in pool) >= self._batch_size:
                yield from self._pooled(pools.pop(key))
        for pool in pools.values():
            yield from self._pooled(pool)

    def _pooled(self, pool: list[Draw]) -> Iterator[list[Drawn]]:
        """The framed draws of a pool in batches of the fitted size (halved on running out
        of GPU memory); an engine error fails the draws of that batch only."""
        items = [(d, i) for d in pool for i in range(d.size)]
        start = 0
        while start < len(items):
            if self.cancelled.is_set():
                return
            batch = [(d, i) for d, i in items[start:start + self._batch_size] if d.wanted()]
            size = self._batch_size
            if not batch:
                start += size
                continue
            first = batch[0][0]
            try:
                texts = [self.render(d.prompt(i), d.style) for d, i in batch]
                results = self.sample_texts(texts, first.style.mode, first.sampling,
                                            [d.seeds[i] for d, i in batch])
            except RuntimeError as exc:
                if "out of memory" in str(exc).lower() and size > 1:
                    self._free_cuda()
                    self._batch_size = max(1, size // 2)
                    continue
                yield [Drawn(d, -1, None, exc) for d in {id(d): d for d, _ in batch}.values()]
                start += size
                continue
            except Exception as exc:     # the runs of this batch fail; the others go on
                yield [Drawn(d, -1, None, exc) for d in {id(d): d for d, _ in batch}.values()]
                start += size
                continue
            yield [Drawn(d, i, c) for (d, i), c in zip(batch, results)]
            start += size

    def close(self) -> None:
        self.model = None
