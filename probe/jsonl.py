"""Reading JSONL files (plain or .gz) with errors that name the file and line."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Iterable, Iterator

from probe.errors import BadInput


def open_text(path: Path):
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, "r", encoding="utf-8")


def iter_objects(path: str | Path, what: str = "file",
                 required: Iterable[str] = ()) -> Iterator[tuple[int, dict]]:
    """(line number, object) for each non-blank line; BadInput for the first bad one."""
    path = Path(path)
    if not path.is_file():
        raise BadInput(f"{path}: no such {what}.")
    required = tuple(required)
    try:
        with open_text(path) as fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise BadInput(f"{path}, line {lineno}: not valid JSON ({exc.msg}).") \
                        from None
                if not isinstance(obj, dict):
                    raise BadInput(f"{path}, line {lineno}: expected a JSON object.")
                for key in required:
                    if key not in obj:
                        raise BadInput(f"{path}, line {lineno}: missing '{key}'.")
                yield lineno, obj
    except UnicodeDecodeError:
        raise BadInput(f"{path}: is not UTF-8 text.") from None
    except (OSError, EOFError) as exc:
        raise BadInput(f"{path}: cannot be read ({exc}).") from None
