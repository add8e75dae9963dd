"""A database in a folder nobody may write (a read-only mount, an immutable folder):
reading commands still read it, writing ones say it is read-only, and a -wal file left
there with commits in it is said rather than silently left out."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys

import pytest

from conftest import FAMILIES, write_jsonl

PROBE = [sys.executable, "-m", "probe"]


@pytest.fixture
def frozen(tmp_path):
    """A folder made immutable (chattr +i: even root cannot write it), undone after."""
    folders = []

    def freeze(folder):
        done = subprocess.run(["chattr", "+i", str(folder)], capture_output=True)
        if done.returncode != 0:
            pytest.skip("chattr +i is not available here")
        folders.append(folder)

    yield freeze
    for folder in folders:
        subprocess.run(["chattr", "-i", str(folder)], capture_output=True)


def _scored_database(isolated):
    shutil.copy(FAMILIES / "tea.toml", isolated / "families" / "tea.toml")
    responses = write_jsonl(isolated / "r.jsonl", [{"response": "Green tea"}] * 3)
    subprocess.run([*PROBE, "score", "tea", "--responses", str(responses)],
                   capture_output=True, check=True, timeout=60)
    return isolated / "probe.db", responses


def test_reading_commands_read_a_database_in_a_read_only_folder(isolated, frozen):
    db, responses = _scored_database(isolated)
    folder = isolated / "ro"
    folder.mkdir()
    shutil.copy(db, folder / "probe.db")
    frozen(folder)
    for args in (["thresholds"], ["export", "--format", "deepbias", "--model", "external"]):
        out = subprocess.run([*PROBE, *args, "--db", str(folder / "probe.db")],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert "could not be read" not in out.stderr
    assert '"top_answer": "Green tea"' in out.stdout
    wrote = subprocess.run([*PROBE, "score", "tea", "--responses", str(responses), "--db",
                            str(folder / "probe.db")], capture_output=True, text=True,
                           timeout=60)
    assert wrote.returncode == 2
    assert "is read-only" in wrote.stderr and "Traceback" not in wrote.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["probe.db"]


def test_commits_left_in_a_wal_file_are_said_not_left_out(isolated, frozen):
    db, _ = _scored_database(isolated)
    folder = isolated / "ro"
    folder.mkdir()
    # A writer that has committed into the -wal and not yet checkpointed it, copied as is.
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("UPDATE runs SET model = 'renamed'")
    writer.commit()
    shutil.copy(db, folder / "probe.db")
    shutil.copy(db.with_name("probe.db-wal"), folder / "probe.db-wal")
    writer.close()
    assert (folder / "probe.db-wal").stat().st_size > 0
    frozen(folder)
    out = subprocess.run([*PROBE, "thresholds", "--db", str(folder / "probe.db")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr
    assert "probe.db-wal" in out.stderr and "writable" in out.stderr
    assert "Traceback" not in out.stderr
