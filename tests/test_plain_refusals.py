"""Small inputs that used to get the wrong sentence, a library's message, or one only after
a long wait: each is one sentence naming what is wrong, exit 2, said before any work."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time

import pytest

from conftest import FAMILIES, write_jsonl
from probe.backends.endpoint import check_base_url
from probe.errors import BadInput
from probe.store import Store

PROBE = [sys.executable, "-m", "probe"]


def probe(*args, timeout=120, **kw):
    return subprocess.run([*PROBE, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, **kw)


def one_sentence(out) -> str:
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2, out.stderr
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    return lines[0]


# ------------------------------------------------------------------ server addresses

@pytest.mark.parametrize("host", ["ｌｏｃａｌｈｏｓｔ", "☃.example", "ex\u00adample.org"])
def test_a_host_name_with_no_domain_name_form_is_one_sentence(butterfly_path, host):
    out = probe("run", "butterfly", "--backend", "openai", "--model", "m", "--base-url",
                f"http://{host}:1/v1")
    assert "not a valid domain name" in one_sentence(out)


def test_an_international_host_name_is_accepted():
    assert check_base_url("http://bücher.example:8000/v1").host == "bücher.example"


@pytest.mark.parametrize("url", ["http://127.0.0.1:1/v1#frag", "http://127.0.0.1:1/#"])
def test_a_fragment_is_named_as_a_fragment(url):
    with pytest.raises(BadInput, match="#fragment") as err:
        check_base_url(url)
    assert "password" not in str(err.value)


# ------------------------------------------------------------------ numbers

@pytest.mark.parametrize("key,value,said", [
    ("sample_idx", 10 ** 18, "'sample_idx' has more than 18 digits"),
    ("framing_idx", 123456789012345678901234, "'framing_idx' has more than 18 digits"),
    ("sample_idx", 2 ** 31, "more than the largest index"),
    ("framing_idx", -1, "must be an integer (0 or more)")])
def test_an_index_out_of_range_says_how(isolated, key, value, said):
    responses = write_jsonl(isolated / "r.jsonl", [{"response": "Monarch", key: value}])
    (isolated / "families" / "butterfly.toml").write_text(
        (FAMILIES / "butterfly.toml").read_text())
    line = one_sentence(probe("score", "butterfly", "--responses", responses, "--no-save"))
    assert said in line and "line 1" in line


def test_a_json_integer_of_thousands_of_digits_is_said_as_the_documented_limit(isolated):
    path = isolated / "r.jsonl"
    path.write_text('{"response": "Monarch", "sample_idx": ' + "9" * 5000 + "}\n")
    (isolated / "families" / "butterfly.toml").write_text(
        (FAMILIES / "butterfly.toml").read_text())
    line = one_sentence(probe("score", "butterfly", "--responses", path, "--no-save"))
    assert line.endswith("line 1: an integer has more than 18 digits.")


def test_a_family_integer_of_thousands_of_digits_is_said_as_the_documented_limit(isolated):
    path = isolated / "f.toml"
    path.write_text('direct = "Name a fruit."\nframings = ["Which?"]\n\n[drafted]\n'
                    'method = "templates"\nseed = ' + "7" * 5000 + "\n")
    line = one_sentence(probe("score", path, "--responses",
                              write_jsonl(isolated / "r.jsonl", [{"response": "x"}])))
    assert line.endswith("line 6: an integer has more than 18 digits.")


# ------------------------------------------------------------------ the database

def _scored(isolated):
    (isolated / "families" / "tea.toml").write_text((FAMILIES / "tea.toml").read_text())
    responses = write_jsonl(isolated / "r.jsonl", [{"response": "Green tea"}] * 2)
    assert probe("score", "tea", "--responses", responses).returncode == 0
    return isolated / "probe.db", responses


def test_a_half_migrated_database_is_explained(isolated):
    db, _ = _scored(isolated)
    conn = sqlite3.connect(db)
    last = conn.execute("SELECT name FROM probe_migrations ORDER BY id DESC").fetchone()[0]
    conn.execute("DELETE FROM probe_migrations WHERE name = ?", [last])
    conn.commit()
    conn.close()
    before = db.read_bytes()
    with pytest.raises(BadInput) as err:
        Store(db)
    assert f"migration {last}" in str(err.value) and "half-migrated" in str(err.value)
    line = one_sentence(probe("thresholds", "--db", db))
    assert "half-migrated" in line
    assert db.read_bytes() == before


@pytest.mark.parametrize("table,column,value", [
    ("runs", "settings", "{not json"), ("runs", "settings", "[1, 2]"),
    ("families", "answers", '"Apple"')])
def test_damaged_stored_json_stops_every_command_before_it_writes(isolated, table, column,
                                                                   value):
    db, responses = _scored(isolated)
    conn = sqlite3.connect(db)
    conn.execute(f"UPDATE {table} SET {column} = ?", [value])
    conn.commit()
    runs = conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    conn.close()
    for args in (["thresholds"], ["score", "tea", "--responses", responses],
                 ["export", "--format", "deepbias"]):
        line = one_sentence(probe(*args, "--db", db))
        assert "is damaged" in line and f"stored {column}" in line, args
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == runs   # none added
    conn.close()


# ------------------------------------------------------------------ probe new

def test_a_category_holding_a_control_character_is_refused(isolated):
    out = probe("new", "Why is the sky blue?", "--category", "blue \x1b[31mthing")
    assert "holds a control or invisible character" in one_sentence(out)
    assert not list((isolated / "families").glob("*.toml"))


def test_the_app_drafting_refuses_such_a_category_too():
    from probe.drafting import draft_family

    with pytest.raises(BadInput, match="category holds a control"):
        draft_family("Why is the sky blue?", 10, 1, "blue \u202ething")


def test_a_question_longer_than_a_family_allows_is_refused_before_drafting(isolated):
    start = time.monotonic()
    line = one_sentence(probe("new", "Why is the sky blue? " * 5000))
    assert "longer than 32000 characters" in line
    assert time.monotonic() - start < 20      # drafting it took 75 s


# ------------------------------------------------------------------ listing and --out

def test_a_model_file_name_with_an_escape_is_listed_as_it_is_named(isolated):
    models = isolated / "models"
    models.mkdir()
    (models / "x\x1b[2J.gguf").write_bytes(b"GGUF" + bytes(64))
    out = probe("models")
    assert out.returncode == 0
    assert "x\\u001b[2J.gguf" in out.stdout and "x.gguf" not in out.stdout
    listed = json.loads(probe("models", "--json").stdout)
    assert any(m["spec"].endswith("x\x1b[2J.gguf") for m in listed)


def test_report_out_under_a_file_is_refused_before_any_figure(isolated):
    _scored(isolated)
    (isolated / "afile").write_text("x")
    start = time.monotonic()
    line = one_sentence(probe("report", "--out", isolated / "afile" / "sub"))
    assert "afile" in line and "is a file, not a folder" in line
    assert time.monotonic() - start < 10
