"""Smaller hostile inputs: stored values of the wrong type, an export that cannot be one file,
run ids of many digits, and JSONL rows with a key twice."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys

import pytest
from click.testing import CliRunner
from textual.widgets import DataTable

from conftest import FAMILIES, write_jsonl
from probe.cli import cli

PROBE = [sys.executable, "-m", "probe"]


def _scored(isolated, model="m1", n=1):
    rows = [{"response": "Monarch"}] * 3 + [{"framing_idx": 0, "response": "Monarch"}]
    resp = write_jsonl(isolated / "r.jsonl", rows)
    for _ in range(n):
        out = CliRunner().invoke(cli, ["score", str(FAMILIES / "butterfly.toml"), "--responses",
                                       str(resp), "--model", model])
        assert out.exit_code == 0, out.output


@pytest.mark.parametrize("table, column, value", [
    ("samples", "response", b"\x00\xffMonarch"),
    ("samples", "canonical", b"Monarch"),
    ("samples", "idx", "three"),
    ("runs", "model", b"gemma"),
    ("families", "direct", b"Choose a random popular butterfly."),
])
def test_a_value_of_the_wrong_type_is_one_sentence_naming_its_column(isolated, table, column,
                                                                     value):
    _scored(isolated)
    with sqlite3.connect(isolated / "probe.db") as db:
        db.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = (SELECT MIN(rowid) "
                   f"FROM {table})", [value])
    for args in (["export"], ["export", "--run", "1"]):
        out = subprocess.run([*PROBE, *args], capture_output=True, text=True, timeout=120)
        assert out.returncode == 2, out.stderr
        assert f"{table}.{column} is" in out.stderr and "it cannot be used" in out.stderr
        assert len(out.stderr.splitlines()) == 1 and "Traceback" not in out.stderr


def test_export_of_several_models_is_refused_before_any_record_is_built(isolated,
                                                                       monkeypatch):
    for model in ("m1", "m2", "m3"):
        _scored(isolated, model, n=2)
    import probe.export as export

    built = []
    real = export.release_record
    monkeypatch.setattr(export, "release_record",
                        lambda *a, **k: built.append(a) or real(*a, **k))
    out = CliRunner().invoke(cli, ["export"])
    assert out.exit_code == 2 and "3 models (m1, m2, m3)" in out.output
    assert built == []                        # decided with one query, nothing built first
    out = CliRunner().invoke(cli, ["export", "--model", "m2"])
    assert out.exit_code == 0 and len(out.output.splitlines()) == 2 and len(built) == 2


def test_history_shows_whole_run_ids(isolated):
    _scored(isolated, n=2)
    with sqlite3.connect(isolated / "probe.db") as db:
        for old, new in ((1, 100001), (2, 123456)):
            db.execute("UPDATE samples SET run_id = ? WHERE run_id = ?", [new, old])
            db.execute("UPDATE results SET run_id = ? WHERE run_id = ?", [new, old])
            db.execute("UPDATE result_versions SET run_id = ? WHERE run_id = ?", [new, old])
            db.execute("UPDATE runs SET id = ? WHERE id = ?", [new, old])
    from screens.app import make_app

    app = make_app(db_path=isolated / "probe.db", autoload=False)

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("h")
            await pilot.pause(0.2)
            screenshot = app.export_screenshot()
            runs = app.screen.query_one("#runs", DataTable)
            assert {str(runs.get_row_at(i)[1]) for i in range(runs.row_count)} == {
                "100001", "123456"}
            assert "100001" in screenshot and "123456" in screenshot

    asyncio.run(go())


@pytest.mark.parametrize("line", [
    '{"response": "Monarch", "response": "Viceroy"}',
    '{"framing_idx": 0, "response": "a", "framing_idx": 1}',
    '{"response": "a", "meta": {"k": 1, "k": 2}}',
    '{"response": "a", "response" : "b"}',
])
def test_a_jsonl_row_with_a_key_twice_is_refused_naming_the_line(isolated, line):
    resp = isolated / "r.jsonl"
    resp.write_text('{"response": "Monarch"}\n\n' + line + "\n", encoding="utf-8")
    out = subprocess.run([*PROBE, "score", FAMILIES / "butterfly.toml", "--responses", resp],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    assert "r.jsonl, line 3: the key" in out.stderr and "appears twice" in out.stderr


def test_a_key_that_only_looks_repeated_inside_a_string_is_fine(isolated):
    rows = [{"response": 'he said "response": "x"', "note": '"a": 1, "a": 2'}]
    resp = write_jsonl(isolated / "r.jsonl", rows)
    out = subprocess.run([*PROBE, "score", FAMILIES / "butterfly.toml", "--responses", resp,
                          "--no-save"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
