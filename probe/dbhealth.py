"""Is a probe database fit to use, and what a database error means to the user.

A database whose tables were dropped or altered is reported before anything is written
to it; SQLite's errors (read-only, locked, damaged, full) become one sentence each.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
from pathlib import Path

from probe.errors import BadInput, ProbeError, RunFailed
from probe.reading import shown

SQLITE_MAGIC = b"SQLite format 3\x00"

@functools.lru_cache(maxsize=1)
def expected_columns() -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """(migration number, table, columns it adds) for every column of every table the
    migrations create, read from a fresh in-memory database: whatever a migration adds,
    the check knows of, with no list to keep in step."""
    from sqlite_utils import Database

    from probe.migrations import MIGRATIONS

    conn = sqlite3.connect(":memory:")
    try:
        db = Database(conn)
        first: dict[tuple[str, str], str] = {}
        for name, migration in MIGRATIONS:
            migration(db)
            for table in _tables(conn):
                for col in _columns(conn, table):
                    first.setdefault((table, col), name.split("_", 1)[0])
        final = {(t, c) for t in _tables(conn) for c in _columns(conn, t)}
    finally:
        conn.close()
    grouped: dict[tuple[str, str], list[str]] = {}
    for (table, col), number in first.items():
        if (table, col) in final:
            grouped.setdefault((number, table), []).append(col)
    return tuple((n, t, tuple(cols)) for (n, t), cols in sorted(grouped.items()))


def _tables(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' "
                                       "AND name NOT LIKE 'sqlite_%' ORDER BY name")]


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    # The name comes from sqlite_master; quoted, as an identifier cannot be a parameter.
    quoted = '"' + table.replace('"', '""') + '"'
    return [r[1] for r in conn.execute(f"PRAGMA table_info({quoted})")]


def check_schema(conn: sqlite3.Connection, path, applied: set[str]) -> None:
    """BadInput naming the first table or column missing among those the applied
    migrations created. Reads only."""
    numbers = {name.split("_", 1)[0] for name in applied}
    tables = set(_tables(conn))
    for number, table, columns in expected_columns():
        if number not in numbers:
            continue
        if table not in tables:
            raise BadInput(f"database {path} is damaged: table '{table}' is missing; it was "
                           "left untouched.")
        have = set(_columns(conn, table))
        missing = [c for c in columns if c not in have]
        if missing:
            raise BadInput(f"database {path} is damaged: table '{table}' has no column "
                           f"'{missing[0]}'; it was left untouched.")


# JSON columns every reader needs whole: (table, column, the JSON type it holds).
STORED_JSON = (("runs", "settings", "object"), ("batches", "settings", "object"),
               ("batches", "families", "array"), ("families", "framings", "array"),
               ("families", "answers", "object"))


def check_stored_json(conn: sqlite3.Connection, path) -> None:
    """BadInput naming the first row whose stored JSON is damaged (a hand edit, a planted
    value): said when the database opens, by every command alike, before anything is
    written. One query per column, in SQLite's own JSON reader: ~30 ms per 100,000 runs."""
    tables = set(_tables(conn))
    for table, column, kind in STORED_JSON:
        if table not in tables or column not in _columns(conn, table):
            continue                       # check_schema names a missing one
        bad = conn.execute(
            f"SELECT rowid FROM {table} WHERE {column} IS NOT NULL AND CASE WHEN "
            f"json_valid({column}) THEN json_type({column}) != ? ELSE 1 END LIMIT 1",
            [kind]).fetchone()
        if bad:
            what = {"runs": "run", "batches": "batch", "families": "family"}[table]
            raise BadInput(f"database {path} is damaged: {what} {bad[0]}'s stored {column} "
                           f"are not a JSON {kind}; it was left untouched.")


class RefusedWrite(RunFailed, sqlite3.IntegrityError):
    """The database refused a write (a constraint or a trigger): one sentence for the
    user, still an ``IntegrityError`` for code that expects one (a duplicate sample)."""


def db_error(exc: Exception, path, writing: bool) -> ProbeError:
    """One sentence for an SQLite error."""
    msg = str(exc)
    low = msg.lower()
    if isinstance(exc, sqlite3.IntegrityError):
        return RefusedWrite(f"database {path} refused a write ({msg}).")
    if "readonly" in low or "read-only" in low or "attempt to write" in low:
        return BadInput(f"database {path} is read-only; use a writable copy or another "
                        "--db (reading commands work on it as is).")
    if "locked" in low or "busy" in low:
        return RunFailed(f"database {path} is locked by another process (waited 30 s); "
                         "try again when it is done.")
    if "full" in low or "disk i/o" in low:
        # What to do next depends on what was writing (a run resumes, a score is run
        # again): the command says that, not this sentence.
        return RunFailed(f"database {path} could not be written: {msg} (no data was lost; "
                         "free some space first).")
    if "no such table" in low or "no such column" in low or "malformed" in low \
            or "not a database" in low:
        return BadInput(f"database {path} is damaged ({msg}).")
    verb = "written" if writing else "read"
    return RunFailed(f"database {path} could not be {verb}: {msg}.")


def check_file(path: Path) -> None:
    if path.is_dir():
        raise BadInput(f"database {path} is a folder, not a file.")
    if path.exists() and not path.is_file():
        raise BadInput(f"database {path} is not a regular file (a device or pipe).")
    if path.exists() and path.stat().st_size > 0:
        with open(path, "rb") as fh:
            head = fh.read(16)
        if head != SQLITE_MAGIC:
            raise BadInput(f"database {path} is not an SQLite file; it was left untouched.")


def writable(path: Path) -> bool:
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def is_row_id(value) -> bool:
    return isinstance(value, int) and 0 <= value < 2 ** 63


def stored_json(text, kind: type, what: str, path: Path):
    """A JSON column read back, or one sentence saying the row is damaged."""
    try:
        value = json.loads(text) if isinstance(text, (str, bytes)) else None
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, kind):
        raise BadInput(f"{what} in {path} has damaged stored data (not a JSON "
                       f"{kind.__name__}); it cannot be used.")
    return value


# Columns probe reads as text or as integers, per table: SQLite stores whatever it is
# given, so a hand-edited or planted database can hold a BLOB where a response belongs.
COLUMN_TYPES = {
    "samples": {"kind": str, "prompt": str, "response": str, "answer": str, "canonical": str,
                "reason": str, "idx": int, "refusal": int},
    "runs": {"family_name": str, "model": str, "backend": str, "status": str, "id": int,
             "family_id": int},
    "families": {"name": str, "direct": str},
}
_KIND_NAMES = {bytes: "a BLOB", str: "text", int: "an integer", float: "a number"}


def check_types(row: dict, table: str, what: str, path) -> dict:
    """``row`` read from ``table``, or one sentence naming the first column whose stored
    value is of the wrong type (NULL is left to the caller)."""
    for column, kind in COLUMN_TYPES[table].items():
        value = row.get(column)
        if value is None or (isinstance(value, kind) and not isinstance(value, bool)):
            continue
        got = _KIND_NAMES.get(type(value), type(value).__name__)
        raise BadInput(f"{what} in {path} has damaged stored data ({table}.{column} is {got}, "
                       f"not {_KIND_NAMES[kind]}); it cannot be used.")
    return row


RATES = ("dr", "fr", "pi")
LABELS = ("deep", "shallow", "non_bias")


def check_result(row: dict, path: Path) -> dict:
    """A stored result as the analyses expect it, or one sentence naming the bad value
    (a hand-edited database can hold text where a rate belongs)."""
    for col in RATES:
        v = row.get(col)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
            raise BadInput(f"run {row.get('run_id')} in {path} has a damaged result ({col} = "
                           f"{shown(repr(v))}); it cannot be used.")
    for col in ("n_direct", "n_framed"):
        v = row.get(col)
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2 ** 31:
            raise BadInput(f"run {row.get('run_id')} in {path} has a damaged result ({col} = "
                           f"{shown(repr(v))}); it cannot be used.")
    if row.get("label") not in LABELS:
        raise BadInput(f"run {row.get('run_id')} in {path} has a damaged result (label = "
                       f"{shown(repr(row.get('label')))}); it cannot be used.")
    return row
