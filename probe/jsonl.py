"""Reading JSONL files (plain or .gz) with errors that name the file and line.

Streamed in chunks with caps on line length, decompressed size and line count
(``probe.limits``), so memory stays bounded whatever the input: a small ``.gz`` that
expands to one gigabyte-long line fails at the first megabyte, and a ``.gz`` of blank
lines is skipped a chunk at a time.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from pathlib import Path
from typing import Iterable, Iterator

from probe.errors import BadInput
from probe.limits import (MAX_INPUT_BYTES, MAX_INPUT_LINES, MAX_INT_DIGITS, MAX_JSON_DEPTH,
                          MAX_LINE_BYTES)
from probe.reading import clean_text, open_regular, shown

CHUNK = 1 << 20
_NONBLANK = re.compile(rb"[^\s][^\n]*")
# A JSON string (skipped whole: a bracket inside one is text) or a bracket.
_NESTING = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def too_deep(raw: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Does the JSON text ``raw`` nest arrays and objects more than ``limit`` deep? Read
    before parsing (Python's parser goes some 990 deep before it gives up). A text with
    no more brackets than ``limit`` cannot, and costs two counts: every real record."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    depth = 0
    for m in _NESTING.finditer(raw):
        token = m.group()
        if token in (b"[", b"{"):
            depth += 1
            if depth > limit:
                return True
        elif token in (b"]", b"}"):
            depth -= 1
    return False


def _raw_lines(path: Path, fh) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of each non-blank line, under the caps. Blank lines cost
    no Python work: a regex finds the next non-blank one and a count gives its number."""
    buf = b""
    total = 0
    lineno = 0              # lines fully consumed so far
    while True:
        chunk = fh.read(CHUNK)
        total += len(chunk)
        if total > MAX_INPUT_BYTES:
            raise BadInput(f"{path}: is larger than the limit of {MAX_INPUT_BYTES:,} bytes "
                           "(decompressed).")
        buf += chunk
        cut = len(buf) if not chunk else buf.rfind(b"\n") + 1
        body, buf = buf[:cut], buf[cut:]
        seen = 0
        for m in _NONBLANK.finditer(body):
            lineno += body.count(b"\n", seen, m.start())
            seen = m.start()
            if m.end() - m.start() > MAX_LINE_BYTES:
                raise BadInput(f"{path}, line {lineno + 1}: is longer than the limit of "
                               f"{MAX_LINE_BYTES:,} bytes.")
            yield lineno + 1, m.group()
        lineno += body.count(b"\n", seen)
        if lineno > MAX_INPUT_LINES:
            raise BadInput(f"{path}: has more than the limit of {MAX_INPUT_LINES:,} lines.")
        if len(buf) > MAX_LINE_BYTES:
            raise BadInput(f"{path}, line {lineno + 1}: is longer than the limit of "
                           f"{MAX_LINE_BYTES:,} bytes.")
        if not chunk:
            return


def _clean(value):
    """``value`` with lone surrogates (JSON ``\\ud800`` escapes, which no UTF-8 file,
    terminal or SQLite text can hold) made U+FFFD, in keys and values alike."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {clean_text(k): _clean(v) for k, v in value.items()}
    return value


_KEY_END = re.compile(rb'"[ \t\r\n]*:')


def _count_keys(value) -> int:
    stack, n = [value], 0
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            n += len(item)
            stack.extend(v for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, (dict, list)))
    return n


class _DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object whose keys are all different: with a key twice, which value counts is
    a guess (the last, in Python), so the row is refused instead."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


def iter_objects(path: str | Path, what: str = "file",
                 required: Iterable[str] = ()) -> Iterator[tuple[int, dict]]:
    """(line number, object) for each non-blank line; BadInput for the first bad one."""
    path = Path(path)
    required = tuple(required)
    raw = open_regular(path, what)
    try:
        fh = gzip.GzipFile(fileobj=raw, mode="rb") if path.suffix == ".gz" else raw
        for lineno, line in _raw_lines(path, fh):
            if lineno == 1 and line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]            # a UTF-8 BOM
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                raise BadInput(f"{path}, line {lineno}: is not UTF-8 text.") from None
            if too_deep(line):
                raise BadInput(f"{path}, line {lineno}: JSON nested more than "
                               f"{MAX_JSON_DEPTH} deep.")
            try:
                obj = json.loads(text)
                # Each key ends in '"' then ':'; when the line has as many of those as the
                # object has keys, no key repeats. Otherwise parse again, key by key.
                if isinstance(obj, dict) and _count_keys(obj) != len(_KEY_END.findall(line)):
                    obj = json.loads(text, object_pairs_hook=_unique_keys)
            except _DuplicateKey as dup:
                raise BadInput(f"{path}, line {lineno}: the key '{shown(clean_text(dup.key))}' "
                               "appears twice in one object; which value counts is "
                               "unclear.") from None
            except json.JSONDecodeError as exc:
                raise BadInput(f"{path}, line {lineno}: not valid JSON ({exc.msg}).") \
                    from None
            except RecursionError:
                raise BadInput(f"{path}, line {lineno}: JSON nested too deeply.") from None
            except ValueError:            # an integer of thousands of digits
                raise BadInput(f"{path}, line {lineno}: an integer has more than "
                               f"{MAX_INT_DIGITS} digits.") from None
            if not isinstance(obj, dict):
                raise BadInput(f"{path}, line {lineno}: expected a JSON object.")
            if b"\\u" in line:            # an escape may be a lone surrogate
                try:
                    obj = _clean(obj)
                except RecursionError:
                    raise BadInput(f"{path}, line {lineno}: JSON nested too deeply.") \
                        from None
            for key in required:
                if key not in obj:
                    raise BadInput(f"{path}, line {lineno}: missing '{key}'.")
            yield lineno, obj
    except (OSError, EOFError, zlib.error) as exc:
        raise BadInput(f"{path}: cannot be read ({exc}).") from None
    finally:
        raw.close()
