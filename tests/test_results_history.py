"""What a run keeps: its result as sampled (re-scores are new dated versions), its seed,
how it ended and how many samples it used; merges and splits that undo each other."""

from __future__ import annotations

import copy
import sqlite3

import pytest
from sqlite_utils import Database

from probe import family as fam_mod
from probe.answer_edits import merge, split
from probe.backends.fake import FakeBackend
from probe.family import Family, validate
from probe.runner import Runner, RunSettings
from probe.scoring import Response, rescore
from probe.store import MIGRATIONS, Store, migrate


def family() -> Family:
    return Family("gems", "Choose a random gemstone.",
                  [f"Scenario {i}: which gem?" for i in range(4)])


def backend(answer="Diamond") -> FakeBackend:
    b = FakeBackend(lambda p: answer if p.startswith("Choose") else
                    ("Emerald" if "1" in p or "3" in p else answer))
    b.load()
    return b


def run_once(store, settings=None, answer="Diamond"):
    r = Runner(store, backend(answer))
    run_id = r.create(family(), settings or RunSettings(samples=4), "fake-model")
    return run_id, r.execute(run_id)


def test_a_rescore_is_a_new_version_and_the_original_never_changes(tmp_path):
    store = Store(tmp_path / "p.db")
    run_id, out = run_once(store)
    original = store.result_versions(run_id)
    assert [(v["version"], v["kind"]) for v in original] == [(1, "sampled")]
    assert original[0]["fr"] == pytest.approx(0.5)
    edited = family()
    edited.answers = {"Diamond": ["Emerald"]}
    samples = store.samples(run_id)
    scored = rescore(edited, [Response(s.kind, s.idx, s.response) for s in samples])
    store.save_result(run_id, scored.scores, kind="rescored", note="merge Emerald into Diamond",
                      family=edited)
    versions = store.result_versions(run_id)
    assert [(v["version"], v["kind"]) for v in versions] == [(1, "sampled"), (2, "rescored")]
    assert versions[0] == original[0]                     # untouched, date and all
    assert versions[1]["fr"] == 1.0 and versions[1]["created_at"] >= versions[0]["created_at"]
    assert store.result(run_id)["fr"] == 1.0               # `results` is the latest
    # the run's own snapshot and its samples' answers stay as sampled
    assert store.family(store.run(run_id).family_id).answers == {}
    assert [s.canonical for s in store.samples(run_id)] == [s.canonical for s in samples]
    # plain sqlite3 sees both versions
    conn = sqlite3.connect(tmp_path / "p.db")
    rows = conn.execute("SELECT version, kind, fr FROM result_versions WHERE run_id = ? "
                        "ORDER BY version", [run_id]).fetchall()
    assert rows == [(1, "sampled", 0.5), (2, "rescored", 1.0)]


def test_migration_004_keeps_results_of_an_older_database(tmp_path):
    path = tmp_path / "old.db"
    db = Database(sqlite3.connect(path))
    old = [m for m in MIGRATIONS if m[0] < "003"]
    import probe.migrations as store_mod   # where migrate() reads MIGRATIONS

    saved = store_mod.MIGRATIONS
    store_mod.MIGRATIONS = old
    try:
        migrate(db)
    finally:
        store_mod.MIGRATIONS = saved
    db.execute("INSERT INTO families (id, name, hash, direct, framings, answers, created_at) "
               "VALUES (1, 'gems', 'h', 'd', '[]', '{}', 0)")
    db.execute("INSERT INTO runs (id, family_id, family_name, model, backend, settings, seed, "
               "status, probe_version, created_at) VALUES (1, 1, 'gems', 'm', 'fake', '{}', 0, "
               "'finished', 'x', 0)")
    db.execute("INSERT INTO results (run_id, dr, fr, pi, label, n_direct, n_framed, updated_at)"
               " VALUES (1, 0.9, 0.5, 0.45, 'deep', 10, 10, 5)")
    db.conn.commit()
    db.conn.close()
    store = Store(path)
    versions = store.result_versions(1)
    assert [(v["version"], v["kind"], v["pi"]) for v in versions] == [(1, "sampled", 0.45)]
    assert store.run(1).ending == "finished"
    ids = {r["name"]: r["id"] for r in store.query("SELECT * FROM probe_migrations")}
    assert ids["004_result_versions"] == 4


def test_each_run_draws_a_fresh_seed_unless_one_is_fixed(tmp_path):
    store = Store(tmp_path / "p.db")
    a, _ = run_once(store)
    b, _ = run_once(store)
    seeds = [store.run(a).seed, store.run(b).seed]
    assert None not in seeds and seeds[0] != seeds[1]
    assert store.run(a).settings["seed"] == seeds[0]        # recorded where resume reads it
    c, _ = run_once(store, RunSettings(samples=4, seed=7))
    assert store.run(c).seed == 7


def test_how_a_run_ended_and_how_many_samples_it_used(tmp_path):
    store = Store(tmp_path / "p.db")
    run_id, _ = run_once(store)
    assert (store.run(run_id).ending, store.run(run_id).samples_used) == ("finished", 8)
    fam = Family("gems", "Choose a random gemstone.",
                 [f"Scenario {i}: which gem?" for i in range(30)])
    r = Runner(store, backend())
    quick = r.create(fam, RunSettings(samples=30, quick=True), "fake-model")
    out = r.execute(quick)
    assert out.stopped_early
    row = store.run(quick)
    assert row.ending == "quick check" and row.samples_used == out.samples_used < 60
    listed = {x["id"]: x for x in store.runs()}
    assert listed[quick]["ending"] == "quick check"


def test_home_and_charts_use_the_same_rows_and_skip_cancelled_runs(tmp_path):
    store = Store(tmp_path / "p.db")
    run_id, _ = run_once(store)
    r = Runner(store, backend("Ruby"))
    partial = r.create(family(), RunSettings(samples=4), "fake-model")
    r.cancel()
    r.execute(partial)
    assert store.run(partial).status == "cancelled"
    labels = store.last_labels()
    assert labels[("gems", "fake-model")]["run_id"] == run_id
    assert [x["run_id"] for x in store.latest_results()] == [run_id]


# ------------------------------------------------------------- merge and split

GEMS = {"Diamond": ["Adamant"], "Emerald": ["Smaragd"], "Ruby": []}


@pytest.mark.parametrize("form", ["Emerald", "emerald", "Smaragd"])
def test_merge_then_split_gives_back_the_file(form):
    answers = copy.deepcopy(GEMS)
    edit = merge(answers, "Diamond", {"Emerald": ["Emerald", "emerald"]})
    assert answers == {"Diamond": ["Adamant", "Emerald", "Smaragd"], "Ruby": []}
    validate({"name": "g", "direct": "d", "framings": ["a"], "answers": answers})
    split(answers, "Diamond", form, [edit])
    assert answers == GEMS


def test_merging_an_answer_not_in_the_file_and_splitting_it_back():
    answers: dict[str, list[str]] = {}
    edit = merge(answers, "Diamond", {"Emerald": ["Emerald", "emerald"]})
    assert answers == {"Diamond": ["Emerald"]}
    split(answers, "Diamond", "Emerald", [edit])
    assert answers == {}


def test_a_split_without_a_recorded_merge_still_loads():
    # The file: a merge made in an older session, nothing recorded.
    answers = {"Diamond": ["Emerald", "emerald"]}
    split(answers, "Diamond", "Emerald")
    fam = validate({"name": "g", "direct": "d", "framings": ["a"], "answers": answers})
    assert "Emerald" in fam.answers and not fam.answers["Diamond"]


def test_merge_split_round_trip_through_the_file(tmp_path):
    path = tmp_path / "gems.toml"
    fam_mod.save(Family("gems", "Choose a random gemstone.", ["a", "b"],
                        copy.deepcopy(GEMS)), path)
    fam = fam_mod.load(path)
    before = path.read_text()
    edit = merge(fam.answers, "Diamond", {"Emerald": ["Emerald"]})
    fam_mod.save(fam, path)
    fam = fam_mod.load(path)
    split(fam.answers, "Diamond", "Emerald", [edit])
    fam_mod.save(fam, path)
    assert fam_mod.load(path).answers == GEMS and path.read_text() == before


def test_migrations_numbered_by_name_merge_in_any_order(monkeypatch):
    # A database that applied 004 on a branch without 003: when 003 arrives it applies
    # alone, as id 3, and both work.
    import probe.migrations as store_mod   # where migrate() reads MIGRATIONS

    db = Database(memory=True)
    without = [m for m in MIGRATIONS if not m[0].startswith("003")]
    monkeypatch.setattr(store_mod, "MIGRATIONS", without)
    migrate(db)
    monkeypatch.setattr(store_mod, "MIGRATIONS", MIGRATIONS)
    assert migrate(db) == [m[0] for m in MIGRATIONS if m[0].startswith("003")]
    ids = [r[0] for r in db.execute("SELECT id FROM probe_migrations ORDER BY id")]
    assert ids == [int(name[:3]) for name, _ in MIGRATIONS]


def test_a_resumed_runs_result_as_sampled_is_its_last_sampling_not_the_partial_one(tmp_path):
    from probe.store import as_sampled, version_kind

    store = Store(tmp_path / "p.db")
    run_id, _ = run_once(store)
    samples = store.samples(run_id)
    partial = rescore(family(), [Response(s.kind, s.idx, s.response) for s in samples[:3]])
    full = rescore(family(), [Response(s.kind, s.idx, s.response) for s in samples])
    store.save_result(run_id, partial.scores)           # as if stopped early …
    store.save_result(run_id, full.scores)              # … and resumed to the end
    edited = family()
    edited.answers = {"Diamond": ["Emerald"]}
    again = rescore(edited, [Response(s.kind, s.idx, s.response) for s in samples])
    store.save_result(run_id, again.scores, kind="rescored", note="merge", family=edited)
    versions = store.result_versions(run_id)
    assert as_sampled(versions)["version"] == 3
    assert [version_kind(v, versions) for v in versions] == [
        "partial", "partial", "as sampled", "re-scored"]
