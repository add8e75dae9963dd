"""The SQLite store: schema, numbered migrations, runs and their samples.

One file (default ``./probe.db``) that ``sqlite3`` and Datasette read as is. Every
sample is committed as it arrives, so a killed run loses at most the one in flight.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import urllib.parse
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from sqlite_utils import Database

from probe.dbhealth import (SQLITE_MAGIC, check_file, check_result, check_schema,  # noqa: F401
                            check_stored_json, check_types, db_error, is_row_id, stored_json,
                            writable)
from probe.errors import BadInput
from probe.family import Family
from probe.paths import check_followable
from probe.provenance import from_stored
from probe.reading import clean_text
from probe import migrations as _migrations
# Re-exported: callers and tests read these from the store.
from probe.migrations import MIGRATIONS, MIGRATIONS_TABLE, migrate  # noqa: F401

def default_db_path() -> Path:
    """``--db`` beats ``PROBE_DB`` beats ``./probe.db``; the CLI passes ``--db`` in."""
    return Path(os.environ.get("PROBE_DB") or "probe.db")


# ----------------------------------------------------------------------- store

@dataclass
class RunRow:
    id: int
    family_id: int
    family_name: str
    model: str
    model_hash: str | None
    backend: str
    settings: dict
    seed: int | None
    status: str
    error: str | None
    probe_version: str
    created_at: float
    finished_at: float | None
    batch_id: int | None = None
    ending: str | None = None           # finished | quick check | cancelled | failed
    samples_used: int | None = None


@dataclass
class SampleRow:
    run_id: int
    kind: str
    idx: int
    prompt: str
    response: str
    answer: str
    canonical: str
    reason: str
    refusal: bool
    tokens: int | None
    latency_ms: float | None
    nonpick: str = ""       # why it is not a pick, as the matcher said (empty, refusal, echo…)


# 1 when a run's newest kept result depends on how some replies were read (its second
# reading gives another label, probe.second_reading); NULL when it has none or the record
# is not JSON.
_READING_SENSITIVE = (
    "(SELECT CASE WHEN json_valid(v.scores) THEN json_extract(v.scores, '$.second.agrees') = 0 "
    "END FROM result_versions AS v WHERE v.run_id = runs.id ORDER BY v.version DESC LIMIT 1) "
    "AS reading_sensitive")


class Store:
    """A probe database. Thread-safe: the app's worker and UI share one."""

    def __init__(self, path: str | Path | None = None, must_exist: bool = False):
        """``must_exist``: a command that only reads (export, compare, report…) refuses a
        missing database rather than leaving a new empty one behind."""
        self.path = Path(path) if path is not None else default_db_path()
        memory = str(self.path) == ":memory:"
        if not memory:
            check_followable(self.path)
        if must_exist and not memory and not self.path.exists():
            raise BadInput(f"no database at {self.path}: nothing has been run or scored "
                           "there yet.")
        if not memory:
            check_file(self.path)
            if not self.path.parent.exists():
                raise BadInput(f"database folder {self.path.parent} does not exist.")
            if not self.path.parent.is_dir():
                raise BadInput(f"database folder {self.path.parent} is a file, not a folder.")
        existed = not memory and self.path.exists() and self.path.stat().st_size > 0
        # A database we may not write is opened read-only: reading commands still work,
        # and nothing (not even the journal mode) is changed.
        self.read_only = existed and not writable(self.path)
        if not memory and not existed and not os.access(self.path.parent, os.W_OK):
            raise BadInput(f"database folder {self.path.parent} is not writable.")
        try:
            if self.read_only:
                conn = self._connect_read_only()
            else:
                conn = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False)
            self.db = Database(conn)
            self._lock = threading.RLock()
            self._in_transaction = False
            self.db.execute("PRAGMA busy_timeout=30000")
            if existed:
                self._check_foreign()
            if not memory and not self.read_only:
                self.db.execute("PRAGMA journal_mode=WAL")
                # In WAL mode NORMAL syncs at checkpoints, not at every commit: a killed
                # process loses nothing committed (the OS has it), and only a power cut
                # can lose the last commits, never the database's consistency. A commit
                # per few samples then costs microseconds instead of a disk flush.
                self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            if self.read_only:
                if self._pending():
                    raise BadInput(f"database {self.path} is read-only and was made by an "
                                   "older probe; use a writable copy to upgrade it.")
            else:
                _migrations.migrate(self.db)
                check_schema(conn, self.path, self._applied())
        except sqlite3.Error as exc:
            raise db_error(exc, self.path, writing=False) from None
        except _migrations.Unrecorded as exc:
            raise BadInput(f"database {self.path} already has what migration {exc.name} "
                           f"adds ({exc.why}), yet {MIGRATIONS_TABLE} does not record it: "
                           "it was half-migrated or edited by hand; it was left "
                           "untouched.") from None

    def _connect_read_only(self) -> sqlite3.Connection:
        uri = "file:" + urllib.parse.quote(str(self.path.resolve()))
        conn = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=30, check_same_thread=False)
        try:
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError as exc:
            conn.close()
            if "unable to open" not in str(exc):
                raise
        # A WAL database in a folder probe cannot write (a read-only mount, an immutable
        # folder): SQLite cannot create the -shm index it reads through. Nothing can be
        # writing it either, so it is read as an immutable file, unless a -wal left there
        # holds commits that reading it so would leave out.
        wal = self.path.with_name(self.path.name + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise BadInput(f"database {self.path} has changes in {wal.name} that only a "
                           "writable folder can read; copy both files to one probe can "
                           "write to.")
        return sqlite3.connect(uri + "?immutable=1", uri=True, timeout=30,
                               check_same_thread=False)

    def _applied(self) -> set[str]:
        return {r[0] for r in self.db.execute(f"SELECT name FROM {MIGRATIONS_TABLE}")}

    def _pending(self) -> bool:
        return any(name not in self._applied() for name, _ in _migrations.MIGRATIONS)

    def _check_foreign(self) -> None:
        names = {r[0] for r in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type='table'")}
        if names and MIGRATIONS_TABLE not in names:
            raise BadInput(f"database {self.path} is not a probe database "
                           f"(it has tables {', '.join(sorted(names)[:5])}); it was left untouched.")
        if MIGRATIONS_TABLE in names:
            known = {name for name, _ in _migrations.MIGRATIONS}
            stored = self._applied()
            newer = stored - known
            if newer:
                raise BadInput(f"database {self.path} was written by a newer probe "
                               f"(migration {sorted(newer)[-1]}); upgrade probe to use it.")
            # Tables dropped or altered by hand, or damaged JSON in them: say so before
            # anything is written.
            check_schema(self.db.conn, self.path, stored)
            check_stored_json(self.db.conn, self.path)

    def close(self) -> None:
        self.db.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[Database]:
        """Several writes as one: all of them are stored, or none (a scored run is never
        left half-stored, or 'running', by a full disk or an interrupt)."""
        with self._write() as db:
            yield db

    @contextmanager
    def _write(self) -> Iterator[Database]:
        # BEGIN IMMEDIATE takes the write lock up front (waiting on busy_timeout); a
        # deferred BEGIN that reads first fails at once with "database is locked" when
        # another process wrote in between.
        with self._lock:
            if self._in_transaction:          # inside transaction(): it commits
                yield self.db
                return
            self._in_transaction = True
            try:
                with self._transaction() as db:
                    yield db
            finally:
                self._in_transaction = False

    @contextmanager
    def _transaction(self) -> Iterator[Database]:
        try:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                if self.db.conn.in_transaction:
                    self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self.db.conn.in_transaction:
                self.db.conn.rollback()
            raise db_error(exc, self.path, writing=True) from None
        except OverflowError:
            if self.db.conn.in_transaction:
                self.db.conn.rollback()
            raise BadInput("a value is too large for the database (over 2^63).") from None

    def query(self, sql: str, params: list | tuple = ()) -> list[dict]:
        with self._lock:
            try:
                cur = self.db.execute(sql, list(params))
                cols = [c[0] for c in cur.description]
                return [dict(zip(cols, row)) for row in cur.fetchall()]
            except sqlite3.Error as exc:
                raise db_error(exc, self.path, writing=False) from None
            except OverflowError:
                raise BadInput("a value is too large for the database (over 2^63).") from None

    # ----------------------------------------------------------- families

    def save_family(self, family: Family) -> int:
        digest = family.content_hash()
        with self._write() as db:
            row = db.execute("SELECT id FROM families WHERE hash = ?", [digest]).fetchone()
            if row:
                return row[0]
            cur = db.execute(
                "INSERT INTO families (name, hash, direct, framings, answers, source_path, "
                "created_at, dataset_id, framing_ids, drafted) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [family.name, digest, family.direct,
                 json.dumps(family.framings, ensure_ascii=False),
                 json.dumps(family.answers, ensure_ascii=False),
                 str(family.path) if family.path else None, time.time(), family.dataset_id,
                 json.dumps(family.framing_ids) if family.framing_ids is not None else None,
                 json.dumps(family.drafted.to_dict(), ensure_ascii=False)
                 if family.drafted is not None else None])
            return cur.lastrowid

    def family(self, family_id: int) -> Family:
        rows = self.query("SELECT * FROM families WHERE id = ?", [family_id])
        if not rows:
            raise BadInput(f"no family with id {family_id} in {self.path}.")
        r = check_types(rows[0], "families", f"family {family_id}", self.path)
        framings = stored_json(r["framings"], list, f"family {family_id}", self.path)
        answers = stored_json(r["answers"], dict, f"family {family_id}", self.path)
        framing_ids = stored_json(r["framing_ids"], list, f"family {family_id}", self.path) \
            if r.get("framing_ids") else None
        fam = Family(name=r["name"], direct=r["direct"], framings=framings, answers=answers,
                     dataset_id=r.get("dataset_id"), framing_ids=framing_ids,
                     drafted=from_stored(r.get("drafted")))
        if r["source_path"]:
            fam.path = Path(r["source_path"])
        return fam

    def family_names(self) -> list[str]:
        return [r["name"] for r in self.query(
            "SELECT DISTINCT name FROM families ORDER BY name")]

    # --------------------------------------------------------------- runs

    def create_run(self, family: Family, model: str, backend: str, settings: dict,
                   seed: int | None, model_hash: str | None = None,
                   batch_id: int | None = None) -> int:
        from probe import __version__

        family_id = self.save_family(family)
        with self._write() as db:
            cur = db.execute(
                "INSERT INTO runs (family_id, family_name, model, model_hash, backend, settings,"
                " seed, status, probe_version, created_at, batch_id)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [family_id, family.name, model, model_hash, backend,
                 json.dumps(settings, ensure_ascii=False, sort_keys=True), seed, "running",
                 __version__, time.time(), batch_id])
            return cur.lastrowid

    def run(self, run_id: int) -> RunRow:
        rows = self.query("SELECT * FROM runs WHERE id = ?", [run_id]) \
            if is_row_id(run_id) else []
        if not rows:
            raise BadInput(f"no run {run_id} in {self.path}.")
        r = check_types(rows[0], "runs", f"run {run_id}", self.path)
        r["settings"] = stored_json(r["settings"], dict, f"run {run_id}", self.path)
        known = RunRow.__dataclass_fields__
        return RunRow(**{k: v for k, v in r.items() if k in known})

    def runs(self, family: str | None = None, model: str | None = None,
             limit: int = 500) -> list[dict]:
        sql = ("SELECT runs.*, results.label, results.dr, results.fr, results.pi, "
               "results.top_answer, results.n_direct, results.n_framed, "
               "(SELECT COUNT(*) FROM result_versions AS v WHERE v.run_id = runs.id) "
               "AS n_versions, json_array_length(families.framings) AS n_framings, "
               f"{_READING_SENSITIVE} FROM runs "
               "LEFT JOIN results ON results.run_id = runs.id "
               "LEFT JOIN families ON families.id = runs.family_id WHERE 1=1")
        params: list = []
        if family:
            sql += " AND runs.family_name = ?"
            params.append(family)
        if model:
            sql += " AND runs.model LIKE ?"
            params.append(f"%{model}%")
        sql += " ORDER BY runs.id DESC LIMIT ?"
        params.append(limit)
        return [check_types(r, "runs", f"run {r['id']}", self.path)
                for r in self.query(sql, params)]

    def create_batch(self, model: str, settings: dict, families: list[str]) -> int:
        with self._write() as db:
            return db.execute(
                "INSERT INTO batches (model, settings, families, created_at) VALUES (?, ?, ?, ?)",
                [model, json.dumps(settings, ensure_ascii=False), json.dumps(families),
                 time.time()]).lastrowid

    def batch(self, batch_id: int) -> dict:
        rows = self.query("SELECT * FROM batches WHERE id = ?", [batch_id]) \
            if is_row_id(batch_id) else []
        if not rows:
            raise BadInput(f"no batch {batch_id} in {self.path}.")
        row = rows[0]
        row["settings"] = stored_json(row["settings"], dict, f"batch {batch_id}", self.path)
        row["families"] = stored_json(row["families"], list, f"batch {batch_id}", self.path)
        if not isinstance(row["settings"].get("run"), dict):
            raise BadInput(f"batch {batch_id} in {self.path} has damaged settings.")
        return row

    def batch_runs(self, batch_id: int) -> list[dict]:
        return self.query("SELECT id, family_name, status FROM runs WHERE batch_id = ? "
                          "ORDER BY id", [batch_id])

    def latest_results(self, model: str | None = None,
                       statuses: tuple[str, ...] = ("finished",)) -> list[dict]:
        """The newest run per (family, model) among those with one of ``statuses``, with
        its result and prompt, and ``reading_sensitive`` (1 when its newest kept result's
        label depends on how some replies were read)."""
        marks = ", ".join("?" for _ in statuses)
        sql = ("SELECT runs.id AS run_id, runs.family_name, runs.model, runs.family_id, "
               f"families.direct, results.*, {_READING_SENSITIVE} "
               "FROM runs JOIN results ON results.run_id = runs.id "
               "JOIN families ON families.id = runs.family_id "
               f"WHERE runs.id IN (SELECT MAX(r.id) FROM runs AS r JOIN results AS x "
               f"ON x.run_id = r.id WHERE r.status IN ({marks}) "
               "GROUP BY r.family_name, r.model)")
        params: list = list(statuses)
        if model:
            sql += " AND runs.model LIKE ?"
            params.append(f"%{model}%")
        rows = self.query(sql + " ORDER BY runs.family_name, runs.model", params)
        for row in rows:
            check_result(row, self.path)
            check_types(row, "runs", f"run {row['run_id']}", self.path)
        return rows

    def set_status(self, run_id: int, status: str, error: str | None = None,
                   ending: str | None = None, samples_used: int | None = None) -> None:
        """``ending`` says how a run stopped (``quick check`` is a finished run the quick
        check stopped early); it defaults to the status."""
        finished = time.time() if status != "running" else None
        if error is not None:
            error = clean_text(error, 2000)
        if ending is None and status != "running":
            ending = status
        with self._write() as db:
            if samples_used is None:
                samples_used = db.execute("SELECT COUNT(*) FROM samples WHERE run_id = ?",
                                          [run_id]).fetchone()[0]
            db.execute("UPDATE runs SET status = ?, error = ?, finished_at = ?, ending = ?, "
                       "samples_used = ? WHERE id = ?",
                       [status, error, finished, ending, samples_used, run_id])

    # ------------------------------------------------------------ samples

    _INSERT_SAMPLE = ("INSERT INTO samples (run_id, kind, idx, prompt, response, answer, "
                      "canonical, reason, refusal, tokens, latency_ms, created_at, nonpick)"
                      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")

    @staticmethod
    def _sample_values(s: SampleRow, created_at: float) -> list:
        return [s.run_id, s.kind, s.idx, s.prompt, s.response, s.answer, s.canonical,
                s.reason, int(s.refusal), s.tokens, s.latency_ms, created_at, s.nonpick or None]

    def add_sample(self, s: SampleRow, created_at: float | None = None) -> None:
        self.add_samples([s], created_at)

    def add_samples(self, rows: Iterable[SampleRow], created_at: float | None = None,
                    chunk: int = 5000) -> int:
        """Commit samples in one transaction (``transaction()`` around it for more), in
        chunks: what scoring a file of a million rows needs, where one commit per sample
        took minutes. Their text is stored as given: the sampling pipeline and the file
        readers clean it once (``reading.clean_text``: no lone surrogates, responses cut to
        MAX_RESPONSE_CHARS)."""
        now = created_at if created_at is not None else time.time()
        count = 0
        with self._write() as db:
            batch: list[list] = []
            for s in rows:
                batch.append(self._sample_values(s, now))
                if len(batch) >= chunk:
                    db.conn.executemany(self._INSERT_SAMPLE, batch)
                    count += len(batch)
                    batch = []
            if batch:
                db.conn.executemany(self._INSERT_SAMPLE, batch)
                count += len(batch)
        return count

    def samples(self, run_id: int) -> list[SampleRow]:
        rows = self.query(
            "SELECT run_id, kind, idx, prompt, response, answer, canonical, reason, refusal,"
            " tokens, latency_ms, COALESCE(nonpick, '') AS nonpick FROM samples"
            " WHERE run_id = ? ORDER BY id", [run_id])
        return [SampleRow(**{**check_types(r, "samples", f"run {run_id}", self.path),
                             "refusal": bool(r["refusal"])}) for r in rows]

    def update_matches(self, run_id: int, matches: Iterable) -> None:
        """Keep each sample's match from the run's final, order-free pass ((Response,
        Match) pairs): what it joined, why, and whether it is a pick. Every view of the
        finished run reads these back, so none has to match the text again."""
        with self._write() as db:
            db.conn.executemany(
                "UPDATE samples SET answer = ?, canonical = ?, reason = ?, refusal = ?, "
                "nonpick = ? WHERE run_id = ? AND kind = ? AND idx = ?",
                [[clean_text(m.answer), clean_text(m.canonical), m.reason, int(m.refusal),
                  m.nonpick or None, run_id, r.kind, r.idx] for r, m in matches])

    # ------------------------------------------------------------ results

    def save_result(self, run_id: int, scores, kind: str = "sampled", note: str | None = None,
                    family: Family | None = None, canonicals: list | None = None,
                    edit: dict | None = None) -> int:
        """Add a result version for the run and make it the run's current result.

        Earlier versions are never changed: a re-score after a merge (``kind='rescored'``,
        with the edited ``family``) is a new, dated row beside the result as sampled.
        Returns the version number."""
        from dataclasses import asdict, is_dataclass

        family_id = self.save_family(family) if family is not None else None
        now = time.time()
        body = json.dumps(asdict(scores), ensure_ascii=False, default=str) \
            if is_dataclass(scores) else None
        with self._write() as db:
            if family_id is None:
                family_id = db.execute("SELECT family_id FROM runs WHERE id = ?",
                                       [run_id]).fetchone()[0]
            version = db.execute("SELECT COALESCE(MAX(version), 0) + 1 FROM result_versions "
                                 "WHERE run_id = ?", [run_id]).fetchone()[0]
            db.execute(
                "INSERT INTO result_versions (run_id, version, kind, note, family_id, top_answer,"
                " dr, fr, pi, label, n_direct, n_framed, p_label, framed_top, direct_total, "
                "framed_total, rule, scores, canonicals, edit, created_at) VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [run_id, version, kind, note, family_id, scores.top_answer, scores.dr,
                 scores.fr, scores.pi, scores.label, scores.n_direct, scores.n_framed,
                 scores.p_label, scores.framed_top, scores.direct_total, scores.framed_total,
                 scores.rule, body,
                 json.dumps(canonicals, ensure_ascii=False) if canonicals is not None else None,
                 json.dumps(edit, ensure_ascii=False) if edit is not None else None, now])
            db.execute(
                "INSERT OR REPLACE INTO results (run_id, top_answer, dr, fr, pi, label, "
                "n_direct, n_framed, dr_low, dr_high, fr_low, fr_high, p_label, framed_top, "
                "updated_at, direct_total, framed_total, rule) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [run_id, scores.top_answer, scores.dr, scores.fr, scores.pi, scores.label,
                 scores.n_direct, scores.n_framed, *scores.dr_interval, *scores.fr_interval,
                 scores.p_label, scores.framed_top, now, scores.direct_total,
                 scores.framed_total, scores.rule])
        return version

    def result_versions(self, run_id: int) -> list[dict]:
        """Every result the run has had, oldest first: version 1 is the result as sampled;
        ``kind`` is ``sampled`` or ``rescored``, ``note`` says what changed."""
        rows = self.query("SELECT * FROM result_versions WHERE run_id = ? ORDER BY version",
                          [run_id])
        for r in rows:
            for key in ("scores", "canonicals", "edit"):
                r[key] = json.loads(r[key]) if r[key] else None
        return rows

    def sampled_scores(self, run_id: int):
        """The scores kept when the run was sampled (``Scores``), read back rather than
        matched again; None when no such record is stored (a database from before they
        were kept, or a damaged one)."""
        from probe.metrics import Scores

        rows = self.query("SELECT scores FROM result_versions WHERE run_id = ? AND "
                          "kind = 'sampled' ORDER BY version DESC LIMIT 1", [run_id])
        if not rows or not rows[0]["scores"]:
            return None
        try:
            return Scores.from_dict(json.loads(rows[0]["scores"]))
        except (TypeError, KeyError, ValueError, RecursionError):
            return None

    def answer_edits(self, family_name: str) -> list[dict]:
        """The answers edits (merges, splits) recorded with re-scores of a family's runs,
        newest first."""
        rows = self.query(
            "SELECT v.edit, v.created_at FROM result_versions AS v JOIN runs "
            "ON runs.id = v.run_id WHERE runs.family_name = ? AND v.edit IS NOT NULL "
            "ORDER BY v.id DESC", [family_name])
        return [json.loads(r["edit"]) for r in rows]

    def result(self, run_id: int) -> dict | None:
        rows = self.query("SELECT * FROM results WHERE run_id = ?", [run_id])
        return check_result(rows[0], self.path) if rows else None

    def last_labels(self) -> dict[tuple[str, str], dict]:
        """The newest finished result for each (family, model): the same rows the charts
        draw, so Home and Charts agree. A cancelled partial run is never a family's label."""
        return {(r["family_name"], r["model"]): r for r in self.latest_results()}


def as_sampled(versions: list[dict]) -> dict | None:
    """The result as sampled among a run's versions: the newest ``sampled`` one. A run that
    was stopped and resumed has a partial sampled version before it; re-scores come after."""
    sampled = [v for v in versions if v["kind"] == "sampled"]
    return sampled[-1] if sampled else (versions[0] if versions else None)


def version_kind(version: dict, versions: list[dict]) -> str:
    """How to name a version: 'as sampled', 'partial' (superseded by a resume) or
    're-scored'."""
    if version["kind"] == "rescored":
        return "re-scored"
    return "as sampled" if version is as_sampled(versions) else "partial"
