"""Numbered schema migrations, applied when a store opens; a table records those applied.

Each migration's number (its id in ``probe_migrations``) comes from its name, so branches
that added migrations independently apply cleanly in any order.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Callable

from sqlite_utils import Database

MIGRATIONS_TABLE = "probe_migrations"


def _script(db: Database, sql: str) -> None:
    # Statement by statement: executescript() would COMMIT the migration's transaction.
    for statement in sql.split(";"):
        if statement.strip():
            db.execute(statement)


def _m001_initial(db: Database) -> None:
    _script(db, """
    CREATE TABLE families (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        direct TEXT NOT NULL,
        framings TEXT NOT NULL,          -- JSON list
        answers TEXT NOT NULL,           -- JSON object canonical -> [aliases]
        source_path TEXT,
        created_at REAL NOT NULL
    );
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        family_id INTEGER NOT NULL REFERENCES families(id),
        family_name TEXT NOT NULL,
        model TEXT NOT NULL,
        model_hash TEXT,
        backend TEXT NOT NULL,
        settings TEXT NOT NULL,          -- JSON: samples, temperature, prompts, shots...
        seed INTEGER,
        status TEXT NOT NULL,            -- running | finished | cancelled | failed
        error TEXT,
        probe_version TEXT NOT NULL,
        created_at REAL NOT NULL,
        finished_at REAL
    );
    CREATE INDEX runs_family ON runs(family_name);
    CREATE TABLE samples (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id),
        kind TEXT NOT NULL CHECK (kind IN ('direct', 'framed')),
        idx INTEGER NOT NULL,
        prompt TEXT NOT NULL,
        response TEXT NOT NULL,
        answer TEXT NOT NULL,            -- extracted
        canonical TEXT NOT NULL,         -- '' for an empty response
        reason TEXT NOT NULL,
        refusal INTEGER NOT NULL DEFAULT 0,
        tokens INTEGER,
        latency_ms REAL,
        created_at REAL NOT NULL,
        UNIQUE (run_id, kind, idx)
    );
    CREATE TABLE results (
        run_id INTEGER PRIMARY KEY REFERENCES runs(id),
        top_answer TEXT,
        dr REAL NOT NULL,
        fr REAL NOT NULL,
        pi REAL NOT NULL,
        label TEXT NOT NULL,
        n_direct INTEGER NOT NULL,
        n_framed INTEGER NOT NULL,
        dr_low REAL, dr_high REAL, fr_low REAL, fr_high REAL,
        p_label REAL,
        framed_top TEXT,
        updated_at REAL NOT NULL
    );
    """)


def _m002_batches(db: Database) -> None:
    _script(db, """
    CREATE TABLE batches (
        id INTEGER PRIMARY KEY,
        model TEXT NOT NULL,
        settings TEXT NOT NULL,          -- JSON: model spec, engine, run settings
        families TEXT NOT NULL,          -- JSON list of family file paths, in order
        created_at REAL NOT NULL
    );
    ALTER TABLE runs ADD COLUMN batch_id INTEGER REFERENCES batches(id);
    CREATE INDEX runs_batch ON runs(batch_id)
    """)


def _m003_nonpicks(db: Database) -> None:
    # n_direct/n_framed are the picks (the rates' denominators); the totals keep every
    # sample, so the non-pick share of each side can be shown. ``rule`` names the rule
    # that scored the result ("probe" or "reference"). A family snapshot keeps the
    # dataset id and framing numbers of an imported family, for exports.
    _script(db, """
    ALTER TABLE results ADD COLUMN direct_total INTEGER;
    ALTER TABLE results ADD COLUMN framed_total INTEGER;
    ALTER TABLE results ADD COLUMN rule TEXT NOT NULL DEFAULT 'probe';
    ALTER TABLE families ADD COLUMN dataset_id TEXT;
    ALTER TABLE families ADD COLUMN framing_ids TEXT
    """)


def _m004_result_versions(db: Database) -> None:
    """A run's result as sampled is permanent; a re-score (after a merge or split) is a new,
    dated version beside it. ``results`` keeps the latest version of each run."""
    _script(db, """
    CREATE TABLE result_versions (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id),
        version INTEGER NOT NULL,        -- 1, 2, ... per run
        kind TEXT NOT NULL,              -- sampled | rescored
        note TEXT,                       -- what changed: 'merge Emerald into Diamond'
        family_id INTEGER REFERENCES families(id),   -- the answers it was scored with
        top_answer TEXT,
        dr REAL NOT NULL,
        fr REAL NOT NULL,
        pi REAL NOT NULL,
        label TEXT NOT NULL,
        n_direct INTEGER NOT NULL,
        n_framed INTEGER NOT NULL,
        p_label REAL,
        framed_top TEXT,
        direct_total INTEGER,            -- every direct sample, picks or not
        framed_total INTEGER,
        rule TEXT,                       -- probe | reference: the rule that scored it
        scores TEXT,                     -- JSON: every field of the scores
        canonicals TEXT,                 -- JSON [[kind, idx, canonical, reason]] (re-scores)
        edit TEXT,                       -- JSON: the answers edit, so a split can undo a merge
        created_at REAL NOT NULL,
        UNIQUE (run_id, version)
    );
    CREATE INDEX result_versions_run ON result_versions(run_id);
    INSERT INTO result_versions (run_id, version, kind, note, family_id, top_answer, dr, fr,
        pi, label, n_direct, n_framed, p_label, framed_top, created_at)
        SELECT results.run_id, 1, 'sampled', NULL, runs.family_id, results.top_answer,
               results.dr, results.fr, results.pi, results.label, results.n_direct,
               results.n_framed, results.p_label, results.framed_top, results.updated_at
        FROM results JOIN runs ON runs.id = results.run_id;
    ALTER TABLE runs ADD COLUMN ending TEXT;          -- finished | quick check | cancelled | failed
    ALTER TABLE runs ADD COLUMN samples_used INTEGER;
    UPDATE runs SET ending = CASE WHEN status = 'running' THEN NULL ELSE status END,
        samples_used = (SELECT COUNT(*) FROM samples WHERE samples.run_id = runs.id)
    """)


def _m005_run_leases(db: Database) -> None:
    # Which process is sampling a run (probe/leases.py). A table of its own, so it is
    # independent of every other migration.
    _script(db, """
    CREATE TABLE run_leases (
        run_id INTEGER PRIMARY KEY REFERENCES runs(id),
        owner TEXT NOT NULL,             -- host:pid:token of the sampling process
        pid INTEGER,
        host TEXT,
        heartbeat REAL NOT NULL          -- renewed while sampling, stale after LEASE_TTL_S
    )
    """)


def _m019_family_drafted(db: Database) -> None:
    # Where a snapshot's framings came from (probe/provenance.py), as JSON; NULL for
    # framings written by hand. Numbered after its issue (19), so branches adding 006…
    # at the same time do not collide.
    _script(db, "ALTER TABLE families ADD COLUMN drafted TEXT")


def _m017_sample_nonpick(db: Database) -> None:
    # Why a sample is not a pick (empty, refusal, echo…), as the matcher said when the run
    # was scored: exports and the pooled view name it without matching the text again.
    _script(db, "ALTER TABLE samples ADD COLUMN nonpick TEXT")


# The number in each name is its id, so branches that add 003, 004 and 005 merge cleanly.
MIGRATIONS: list[tuple[str, Callable[[Database], None]]] = [
    ("001_initial", _m001_initial),
    ("002_batches", _m002_batches),
    ("003_nonpicks", _m003_nonpicks),
    ("004_result_versions", _m004_result_versions),
    ("005_run_leases", _m005_run_leases),
    ("017_sample_nonpick", _m017_sample_nonpick),
    ("019_family_drafted", _m019_family_drafted),
]


class Unrecorded(Exception):
    """A migration not recorded as applied whose changes are already there (a column or
    table it adds exists): a half-migrated or hand-edited database."""

    def __init__(self, name: str, why: str):
        super().__init__(f"{name}: {why}")
        self.name = name
        self.why = why


def migrate(db: Database) -> list[str]:
    """Apply the migrations not yet recorded; return the names applied."""
    db.execute(f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} "
               "(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, applied_at REAL NOT NULL)")
    done = {row[0] for row in db.execute(f"SELECT name FROM {MIGRATIONS_TABLE}")}
    if all(name in done for name, _ in MIGRATIONS):
        return []
    applied = []
    # IMMEDIATE takes the write lock first, so two processes opening a new database at
    # once cannot both apply the same migration.
    db.execute("BEGIN IMMEDIATE")
    try:
        done = {row[0] for row in db.execute(f"SELECT name FROM {MIGRATIONS_TABLE}")}
        for name, fn in MIGRATIONS:
            if name in done:
                continue
            number = int(name.split("_", 1)[0])
            try:
                fn(db)
            except sqlite3.OperationalError as exc:
                if "duplicate column" in str(exc) or "already exists" in str(exc):
                    raise Unrecorded(name, str(exc)) from None
                raise
            db.execute(f"INSERT INTO {MIGRATIONS_TABLE} (id, name, applied_at) VALUES (?, ?, ?)",
                       [number, name, time.time()])
            applied.append(name)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return applied
