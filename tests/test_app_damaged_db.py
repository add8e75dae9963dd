"""A damaged database in the app: one sentence and exit 2, as the command line says it,
whether the damage shows when the database opens or only when a screen reads the damaged
part; never a traceback, and the file is left as it was."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3

from click.testing import CliRunner
from textual.app import App

from probe.backends.fake import FakeBackend
from probe.cli import cli
from probe.errors import BadInput
from probe.runner import Runner, RunSettings
from probe.store import Store
from screens.app import ProbeApp, make_app
from tests.test_hostile_screens import hostile_family


def _database(path) -> int:
    """A database with a few finished runs; the id of the last."""
    store = Store(path)
    backend = FakeBackend(lambda prompt: "Monarch")
    backend.load()
    fam = hostile_family()
    run_id = 0
    for _ in range(3):
        runner = Runner(store, backend)
        run_id = runner.create(fam, RunSettings(samples=40), "fake")
        runner.execute(run_id)
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    return run_id


def _overwrite_pages(path, table: str) -> None:
    """Garbage over every page of ``table`` but its root, which the open reads."""
    conn = sqlite3.connect(path)
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = [r[0] for r in conn.execute(
        "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf'", [table])]
    conn.close()
    assert pages, table
    with open(path, "r+b") as fh:
        for page in pages:
            fh.seek((page - 1) * size)
            fh.write(b"\xab" * size)


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_damage_met_at_start_is_one_sentence_and_exit_2(isolated, monkeypatch):
    db = isolated / "probe.db"
    _database(db)
    _overwrite_pages(db, "runs")
    before = _digest(db)
    monkeypatch.setattr(ProbeApp, "run", lambda self: App.run(self, headless=True))
    result = CliRunner().invoke(cli, ["--model", "fake", "--db", str(db)])
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert lines[-1] == f"probe: database {db} is damaged (database disk image is malformed)."
    assert "Traceback" not in result.output
    assert _digest(db) == before


def test_damage_met_by_a_past_run_ends_the_app_with_one_sentence(isolated):
    db = isolated / "probe.db"
    run_id = _database(db)
    _overwrite_pages(db, "samples")
    before = _digest(db)
    app = make_app(db_path=db, autoload=False)

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause(0.3)
            assert app.fatal is None            # Home reads no samples
            app.open_run(hostile_family(), run_id=run_id, read_only=True)
            for _ in range(100):                # the app ends: no pilot to pause on
                if app.fatal is not None:
                    break
                await asyncio.sleep(0.05)

    asyncio.run(go())
    assert isinstance(app.fatal, BadInput)
    assert str(app.fatal) == f"database {db} is damaged (database disk image is malformed)."
    assert app.return_code == 2
    assert _digest(db) == before
