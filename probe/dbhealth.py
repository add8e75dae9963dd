"""Is a probe database fit to use, and what a database error means to the user.

A database whose tables were dropped or altered is reported before anything is written
to it; SQLite's errors (read-only, locked, damaged, full) become one sentence each.
"""

from __future__ import annotations

import sqlite3

from probe.errors import BadInput, ProbeError, RunFailed

# The columns probe reads and writes: (migration that adds them, table, columns).
EXPECTED = [
    ("001", "families", ("id", "name", "hash", "direct", "framings", "answers")),
    ("001", "runs", ("id", "family_id", "family_name", "model", "backend", "settings",
                     "status", "error", "created_at", "finished_at")),
    ("001", "samples", ("run_id", "kind", "idx", "prompt", "response", "answer",
                        "canonical", "reason", "refusal")),
    ("001", "results", ("run_id", "top_answer", "dr", "fr", "pi", "label", "n_direct",
                        "n_framed")),
    ("002", "batches", ("id", "model", "settings", "families")),
    ("002", "runs", ("batch_id",)),
    ("003", "results", ("direct_total", "framed_total", "rule")),
    ("003", "families", ("dataset_id", "framing_ids")),
    ("005", "run_leases", ("run_id", "owner", "pid", "host", "heartbeat")),
]


def check_schema(conn: sqlite3.Connection, path, applied: set[str]) -> None:
    """BadInput naming the first table or column missing among those the applied
    migrations created. Reads only."""
    numbers = {name.split("_", 1)[0] for name in applied}
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    for number, table, columns in EXPECTED:
        if number not in numbers:
            continue
        if table not in tables:
            raise BadInput(f"database {path} is damaged: table '{table}' is missing; it was "
                           "left untouched.")
        have = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
        missing = [c for c in columns if c not in have]
        if missing:
            raise BadInput(f"database {path} is damaged: table '{table}' has no column "
                           f"'{missing[0]}'; it was left untouched.")


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
        return RunFailed(f"database {path} could not be written: {msg} (no data was lost; "
                         "free some space and resume).")
    if "no such table" in low or "no such column" in low or "malformed" in low \
            or "not a database" in low:
        return BadInput(f"database {path} is damaged ({msg}).")
    verb = "written" if writing else "read"
    return RunFailed(f"database {path} could not be {verb}: {msg}.")
