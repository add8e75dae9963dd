"""The SQLite store: migrations, WAL, samples, and databases that are not ours."""

import sqlite3

import pytest
from sqlite_utils import Database

from probe.errors import BadInput
from probe.family import Family
from probe.store import MIGRATIONS, SampleRow, Store, migrate


def fam():
    return Family("butterfly", "Choose a random popular butterfly.", ["a", "b"])


def test_migrations_apply_once_on_memory():
    db = Database(memory=True)
    assert migrate(db) == [name for name, _ in MIGRATIONS]
    assert migrate(db) == []
    tables = set(db.table_names())
    assert {"families", "runs", "samples", "results", "probe_migrations"} <= tables
    cols = {c.name for c in db["samples"].columns}
    assert {"run_id", "kind", "idx", "prompt", "response", "answer", "canonical"} <= cols


def test_file_store_uses_wal_and_round_trips_samples(tmp_path):
    store = Store(tmp_path / "p.db")
    assert store.query("PRAGMA journal_mode")[0]["journal_mode"] == "wal"
    run_id = store.create_run(fam(), "m", "fake", {"samples": 2}, seed=1)
    store.add_sample(SampleRow(run_id, "direct", 0, "p", "Monarch.", "Monarch", "Monarch",
                               "new", False, 3, 1.5))
    store.add_sample(SampleRow(run_id, "framed", 1, "p", "", "", "", "empty", False, 0, 1.0))
    got = store.samples(run_id)
    assert [(s.kind, s.idx, s.canonical) for s in got] == [("direct", 0, "Monarch"),
                                                           ("framed", 1, "")]
    with pytest.raises(sqlite3.IntegrityError):
        store.add_sample(got[0])   # (run, kind, idx) is unique: no duplicate samples
    assert store.run(run_id).status == "running"
    store.set_status(run_id, "finished")
    assert store.run(run_id).status == "finished"


def test_same_family_snapshot_is_stored_once(tmp_path):
    store = Store(tmp_path / "p.db")
    assert store.save_family(fam()) == store.save_family(fam())


def test_foreign_sqlite_database_is_reported_and_untouched(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(BadInput, match="not a probe database"):
        Store(path)
    assert path.read_bytes() == before


def test_non_sqlite_file_is_reported_and_untouched(tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("my precious notes\n" * 100)
    before = path.read_bytes()
    with pytest.raises(BadInput, match="not an SQLite file"):
        Store(path)
    assert path.read_bytes() == before


def test_corrupt_probe_database_is_reported(tmp_path):
    path = tmp_path / "p.db"
    Store(path).close()
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\x00garbage" * ((4096 - 100) // 8)
    path.write_bytes(bytes(data))
    with pytest.raises(BadInput):
        Store(path)


def test_database_from_a_newer_probe_is_refused(tmp_path):
    path = tmp_path / "p.db"
    store = Store(path)
    store.db.execute("INSERT INTO probe_migrations VALUES (99, '099_future', 0)")
    store.close()
    with pytest.raises(BadInput, match="newer probe"):
        Store(path)


def test_many_processes_opening_a_new_database_at_once(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "fresh.db"
    code = ("import sys; from probe.store import Store; from probe.family import Family;"
            "s = Store(sys.argv[1]);"
            "s.create_run(Family('f', 'Choose a random x', ['a']), 'm', 'fake', {}, 0)")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path)], stderr=subprocess.PIPE,
                              text=True) for _ in range(6)]
    errors = [p.communicate()[1] for p in procs]
    assert all(p.returncode == 0 for p in procs), errors
    assert len(Store(path).runs()) == 6


def test_an_old_database_is_migrated_in_place_keeping_its_runs(tmp_path, monkeypatch):
    import probe.migrations as store_mod   # where migrate() reads MIGRATIONS

    path = tmp_path / "old.db"
    monkeypatch.setattr(store_mod, "MIGRATIONS", MIGRATIONS[:1])   # a probe from before 002
    old = Store(path)
    run_id = old.db.execute(
        "INSERT INTO families (name, hash, direct, framings, answers, created_at) "
        "VALUES ('f', 'h', 'd', '[\"a\"]', '{}', 0)").lastrowid
    old.db.execute("INSERT INTO runs (family_id, family_name, model, backend, settings, status,"
                   " probe_version, created_at) VALUES (?, 'f', 'm', 'b', '{}', 'finished', "
                   "'0', 0)", [run_id])
    old.close()
    monkeypatch.setattr(store_mod, "MIGRATIONS", MIGRATIONS)
    new = Store(path)
    applied = [r["name"] for r in new.query("SELECT name FROM probe_migrations ORDER BY id")]
    assert applied == [name for name, _ in MIGRATIONS]
    run = new.run(1)
    assert run.family_name == "f" and run.batch_id is None
