"""Safe loading for transformers folders: only safetensors weights that really hold
tensors count, and no index file may send the loader to a pickle file (pickle runs
code when loaded) unless the user passes ``--allow-pickle``."""

from __future__ import annotations

import json
from pathlib import Path

from probe.errors import BadInput
from probe.reading import read_bytes, shown

PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle", ".joblib")
MAX_INDEX_BYTES = 64 << 20     # a weights index or a safetensors header


def _holds_tensors(path: Path) -> bool:
    """True when ``path`` is a safetensors file whose header names at least one tensor
    (an empty or fake ``*.safetensors`` beside pickle weights proves nothing)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
            if len(head) < 8:
                return False
            size = int.from_bytes(head, "little")
            if not 2 <= size <= MAX_INDEX_BYTES:
                return False
            header = json.loads(fh.read(size))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(header, dict) and any(k != "__metadata__" for k in header)


def _index_targets(index: Path) -> list[str]:
    """The files an ``*.index.json`` sends the loader to (its ``weight_map`` values)."""
    try:
        data = json.loads(read_bytes(index, MAX_INDEX_BYTES, "weights index"))
    except (ValueError, RecursionError):
        raise BadInput(f"model {index.parent}: {index.name} is not valid JSON.") from None
    wmap = data.get("weight_map") if isinstance(data, dict) else None
    if not isinstance(wmap, dict):
        raise BadInput(f"model {index.parent}: {index.name} has no weight_map.")
    return sorted({str(v) for v in wmap.values()})


CONFIG_FILES = ("config.json", "generation_config.json", "tokenizer_config.json",
                "special_tokens_map.json")
MAX_CONFIG_BYTES = 16 << 20


def check_config(path: Path) -> None:
    """A small JSON file transformers reads first: valid JSON, an object, not nested past
    what Python's parser can follow (a deep one would end the loader in a RecursionError)."""
    raw = read_bytes(path, MAX_CONFIG_BYTES, "model config")
    try:
        data = json.loads(raw)
    except RecursionError:
        raise BadInput(f"model {path.parent}: {path.name} is nested too deeply to be a "
                       "model config.") from None
    except ValueError as exc:
        raise BadInput(f"model {path.parent}: {path.name} is not valid JSON "
                       f"({shown(str(exc), 80)}).") from None
    if not isinstance(data, dict):
        raise BadInput(f"model {path.parent}: {path.name} is not a JSON object.")


def check_weights(folder: Path, allow_pickle: bool) -> None:
    """Refuse pickle checkpoints before any loader can unpickle them: a folder counts as
    safe only when safetensors files that really hold tensors are what gets loaded, and
    no index file (``*.index.json``) sends the loader to a pickle file."""
    for p in folder.iterdir():
        # A FIFO or device named config.json or tokenizer.json would hang the loader.
        if p.exists() and not p.is_dir() and not p.is_file():
            raise BadInput(f"model {folder}: {p.name} is not a regular file (a device or "
                           "pipe).")
    files = [p for p in folder.iterdir() if p.is_file()]
    for name in CONFIG_FILES:
        if (folder / name).is_file():
            check_config(folder / name)
    pickled = [p for p in files if p.suffix in PICKLE_SUFFIXES and "training_args" not in p.name]
    for index in (p for p in files if p.name.endswith(".index.json")):
        for target in _index_targets(index):
            if "/" in target or "\\" in target or target.startswith("."):
                raise BadInput(f"model {folder}: {index.name} points outside the folder "
                               f"({shown(target)}).")
            if not target.endswith(".safetensors"):
                if allow_pickle:
                    continue
                raise BadInput(f"model {folder}: {index.name} points at {shown(target)}, a "
                               "pickle file, which can run code when loaded; convert it to "
                               "safetensors or pass --allow-pickle if you trust it.")
            if not _holds_tensors(folder / target):
                raise BadInput(f"model {folder}: {index.name} points at {shown(target)}, "
                               "which is missing or not a safetensors file.")
    safe = [p for p in files if p.suffix == ".safetensors" and _holds_tensors(p)]
    if safe:
        return
    if pickled and not allow_pickle:
        raise BadInput(
            f"model {folder} has only pickle weights ({pickled[0].name}), which can run code "
            "when loaded; convert it to safetensors or pass --allow-pickle if you trust it.")
    if not pickled:
        raise BadInput(f"model {folder} has no weight files (*.safetensors holding tensors).")
