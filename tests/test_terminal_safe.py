"""The terminal-safe filter (probe.terminal) and the command line's use of it: nothing
probe prints from a file, a model, a server or the database can drive the terminal."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import unicodedata

import pytest

from conftest import FAMILIES, write_jsonl
from probe.terminal import first_unsafe, marked, safe

PROBE = [sys.executable, "-m", "probe"]
OSC_TITLE = "\x1b]0;pwned\x07"
OSC_CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"
HOSTILE = [OSC_TITLE, OSC_CLIPBOARD, "\x1b[2J", "\x9b31m", "\u202eexe.txt", "a\u200bb",
           "zw\u200dj\ufeff", "\x00\x08\x7f", "line\u2028sep", "tag\U000e0041"]


def raw(text: str) -> list[str]:
    """Characters a terminal would act on, newline and tab aside."""
    return [c for c in text if c not in "\n\t" and first_unsafe(c)]


def probe(*args, **kw):
    return subprocess.run([*PROBE, *map(str, args)], capture_output=True, text=True,
                          timeout=120, **kw)


@pytest.mark.parametrize("text", HOSTILE)
def test_safe_escapes_every_control_bidi_and_format_character(text):
    shown = safe(text)
    assert not raw(shown) and shown != text
    # The escape is JSON's: JSON printed through the filter keeps its values.
    record = json.dumps({"a": text}, ensure_ascii=False)
    assert json.loads(safe(record)) == {"a": text}
    assert len(marked(text)) == len(text) and not raw(marked(text).replace("\n", ""))


def test_every_format_character_of_this_python_is_unsafe():
    for code in range(0x110000):
        ch = chr(code)
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") and ch not in "\n\t":
            assert first_unsafe(ch), hex(code)
    assert not first_unsafe("Monarch 🦋 é 蝶 שלום")


def test_a_file_name_with_a_clipboard_write_is_escaped_in_an_error(isolated):
    empty = isolated / f"r{OSC_CLIPBOARD}.jsonl"
    empty.write_text("\n")
    out = probe("score", FAMILIES / "butterfly.toml", "--responses", empty)
    assert out.returncode == 2 and "has no responses" in out.stderr
    assert not raw(out.stderr + out.stdout), repr(out.stderr)
    assert "\\u001b]52;c;" in out.stderr


def test_an_rlo_in_a_family_argument_is_escaped(isolated):
    out = probe("run", "\u202eylimaf")
    assert out.returncode == 2 and not raw(out.stderr) and "\\u202e" in out.stderr


def test_model_paths_are_escaped_by_probe_models(isolated):
    models = isolated / "models"
    models.mkdir()
    (models / f"m{OSC_TITLE}\u202e.gguf").write_bytes(b"GGUF" + bytes(64))
    for args in (["models"], ["models", "--json"]):
        out = probe(*args)
        assert out.returncode == 0 and "gguf" in out.stdout
        assert not raw(out.stdout + out.stderr), repr(out.stdout)
    listed = json.loads(probe("models", "--json").stdout)
    assert any(m["name"] == f"m{OSC_TITLE}\u202e.gguf" for m in listed)


@pytest.mark.parametrize("command", [["score", FAMILIES / "butterfly.toml", "--responses",
                                      "r.jsonl", "--model"], ["run", "butterfly", "--model"],
                                     ["export", "--model"], ["--model"]])
def test_a_model_name_with_control_characters_is_refused_and_never_stored(isolated, command):
    write_jsonl(isolated / "r.jsonl", [{"response": "Monarch"}])
    out = probe(*command, f"gemma{OSC_TITLE}")
    assert out.returncode == 2, out.stderr
    assert "control or invisible character" in out.stderr and not raw(out.stderr)
    assert len(out.stderr.splitlines()) == 1
    if (isolated / "probe.db").exists():
        with sqlite3.connect(isolated / "probe.db") as db:
            assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0


def test_stored_text_is_escaped_in_tables_json_and_library_warnings(isolated):
    fam = isolated / "evil.toml"
    fam.write_text(f'direct = {json.dumps("Choose a butterfly " + OSC_TITLE)}\n'
                   f'framings = [{json.dumps("Which one " + OSC_CLIPBOARD + "?")}, "b?"]\n',
                   encoding="utf-8")
    rows = [{"response": f"Monarch {text}"} for text in HOSTILE]
    rows += [{"response": f"{text} Viceroy", "framing_idx": i} for i, text in enumerate(HOSTILE[:2])]
    write_jsonl(isolated / "r.jsonl", rows)
    for extra in ([], ["--json"]):
        out = probe("score", fam, "--responses", "r.jsonl", *extra)
        assert out.returncode == 0, out.stderr
        assert not raw(out.stdout + out.stderr), repr(out.stdout)
    # A database planted with a hostile model name: matplotlib warns about the glyphs it
    # cannot draw, and its warning repeats them.
    with sqlite3.connect(isolated / "probe.db") as db:
        db.execute("UPDATE runs SET model = ?", [f"m {OSC_TITLE} \u202e"])
    out = probe("report", "--out", isolated / "figures", "--format", "svg")
    assert out.returncode == 0, out.stderr
    assert not raw(out.stdout + out.stderr), repr(out.stderr)
    export = probe("export")
    assert export.returncode == 0 and not raw(export.stdout)
    assert json.loads(export.stdout.splitlines()[0])["model"] == f"m {OSC_TITLE} \u202e"
