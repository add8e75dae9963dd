"""A GGUF file's header read without llama.cpp: a garbage or truncated file is bad
input (exit 2, one sentence) rather than a failed load deep inside the engine."""

from __future__ import annotations

import struct
from pathlib import Path

from probe.errors import BadInput
from probe.reading import open_regular

# ggml type id → (elements per block, bytes per block), for the types in common GGUFs.
_TYPE_SIZES = {0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24),
               8: (32, 34), 9: (32, 36), 10: (256, 84), 11: (256, 110), 12: (256, 144),
               13: (256, 176), 14: (256, 210), 15: (256, 292), 24: (1, 1), 25: (1, 2),
               26: (1, 4), 27: (1, 8), 28: (1, 8), 30: (1, 2)}
# metadata value type → fixed size in bytes (8 = string, 9 = array are variable)
_SCALAR = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_MAX_COUNT = 1 << 24          # tensors, keys or array items: real files have thousands


class _Truncated(Exception):
    pass


class _Reader:
    def __init__(self, fh):
        self.fh = fh

    def take(self, n: int) -> bytes:
        data = self.fh.read(n)
        if len(data) < n:
            raise _Truncated
        return data

    def u32(self) -> int:
        return struct.unpack("<I", self.take(4))[0]

    def u64(self) -> int:
        return struct.unpack("<Q", self.take(8))[0]

    def string(self) -> str:
        n = self.u64()
        if n > _MAX_COUNT:
            raise ValueError("a string is implausibly long")
        return self.take(n).decode("utf-8", "replace")

    def value(self, vtype: int):
        if vtype in _SCALAR:
            raw = self.take(_SCALAR[vtype])
            return int.from_bytes(raw, "little") if vtype in (4, 5) else raw
        if vtype == 8:
            return self.string()
        if vtype == 9:
            item_type, count = self.u32(), self.u64()
            if count > _MAX_COUNT or item_type == 9:
                raise ValueError("an array is implausibly long or nested")
            if item_type in _SCALAR:
                self.take(_SCALAR[item_type] * count)
            else:
                for _ in range(count):
                    self.value(item_type)
            return None
        raise ValueError(f"unknown metadata type {vtype}")


def check_gguf(path: Path) -> None:
    """BadInput unless ``path`` is a complete GGUF file: magic, header, metadata and
    tensor table readable, and the file long enough to hold every tensor's data."""
    size = path.stat().st_size if path.is_file() else 0
    with open_regular(path, "model file") as fh:
        r = _Reader(fh)
        try:
            if r.take(4) != b"GGUF":
                raise BadInput(f"model file {path} is not a GGUF file.")
            version = r.u32()
            if version not in (2, 3):
                raise ValueError(f"GGUF version {version} is not supported")
            n_tensors, n_kv = r.u64(), r.u64()
            if n_tensors > _MAX_COUNT or n_kv > _MAX_COUNT:
                raise ValueError("the header counts are implausible")
            alignment = 32
            for _ in range(n_kv):
                key = r.string()
                value = r.value(r.u32())
                if key == "general.alignment" and isinstance(value, int) and value > 0:
                    alignment = value
            end = 0
            for _ in range(n_tensors):
                r.string()
                n_dims = r.u32()
                if n_dims > 8:
                    raise ValueError("a tensor has more than 8 dimensions")
                dims = [r.u64() for _ in range(n_dims)]
                ggml_type, offset = r.u32(), r.u64()
                elements = 1
                for d in dims:
                    elements *= d
                block, nbytes = _TYPE_SIZES.get(ggml_type, (elements or 1, 0))
                end = max(end, offset + elements // block * nbytes)
            data_start = -(-fh.tell() // alignment) * alignment
        except _Truncated:
            raise BadInput(f"model file {path} is truncated (it ends inside its header); "
                           "download or copy it again.") from None
        except (ValueError, struct.error, OverflowError) as exc:
            raise BadInput(f"model file {path} is not a valid GGUF file ({exc}).") from None
    if data_start + end > size:
        raise BadInput(f"model file {path} is truncated ({size:,} bytes; its tensors need "
                       f"{data_start + end:,}); download or copy it again.")
