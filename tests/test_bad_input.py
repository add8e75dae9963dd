"""A corpus of malformed family and response files through the real command: each is
exit 2 with one line naming the problem, never a traceback. Plus security checks."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import FAMILIES, peak_rss_mib, write_jsonl

PROBE = [sys.executable, "-m", "probe"]

FAMILY_CORPUS = {
    "invalid-toml": ('direct = "x\nframings = [\n', "invalid TOML"),
    "binary": (b"\x00\x01\xff\xfe\x89PNG\r\n\x1a\n" * 50, "not UTF-8"),
    "wrong-types": ('direct = ["x"]\nframings = ["a"]\n', "'direct' must be a string"),
    "wrong-framing-type": ('direct = "x"\nframings = [1, 2]\n', "framing 1 must be a string"),
    "unknown-key": ('direct = "x"\nframings = ["a"]\nseed = 3\n', "unknown key 'seed'"),
    "ten-thousand": ('direct = "x"\nframings = [' + ", ".join(f'"s{i}"' for i in range(10_000))
                     + "]\n", "more than the limit of 1000"),
    "empty-direct": ('direct = ""\nframings = ["a"]\n', "'direct' is empty"),
    "empty-framing": ('direct = "x"\nframings = ["a", "   "]\n', "framing 2 is empty"),
    "no-framings": ('direct = "x"\nframings = []\n', "'framings' is empty"),
    "huge-line": ('direct = "' + "x" * 200_000 + '"\nframings = ["a"]\n', "longer than 32000"),
    "bad-name": ('name = "../../../tmp/pwn"\ndirect = "x"\nframings = ["a"]\n', "not allowed"),
    "answers-not-table": ('direct = "x"\nframings = ["a"]\nanswers = 3\n',
                          "'answers' must be a table"),
    "empty-file": ("", "missing 'direct'"),
}


@pytest.mark.parametrize("case", sorted(FAMILY_CORPUS))
def test_malformed_family_files(isolated, case):
    body, fragment = FAMILY_CORPUS[case]
    path = isolated / f"{case}.toml"
    if isinstance(body, bytes):
        path.write_bytes(body)
    else:
        path.write_text(body, encoding="utf-8")
    resp = write_jsonl(isolated / "r.jsonl", [{"response": "x"}])
    out = subprocess.run([*PROBE, "score", str(path), "--responses", str(resp)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0] and path.name in lines[0], out.stderr
    assert "Traceback" not in out.stderr + out.stdout


RESPONSE_CORPUS = {
    "not-json": (b'{"response": "a"}\n{oops\n', "line 2: not valid JSON"),
    "binary": (b"\xff\xfe\x00garbage\n", "not UTF-8"),
    "array": (b'[1, 2]\n', "line 1: expected a JSON object"),
    "no-response": (b'{"answer": "a"}\n', "line 1: missing 'response'"),
    "number-response": (b'{"response": 42}\n', "'response' must be a string"),
    "bad-index": (b'{"response": "a", "framing_idx": "3"}\n', "must be an integer"),
    "index-range": (b'{"response": "a", "framing_idx": 30}\n', "out of range"),
    "duplicate-index": (b'{"response": "a", "framing_idx": 1}\n{"response": "b", '
                        b'"framing_idx": 1}\n', "appears again"),
    "empty": (b"\n\n", "has no responses"),
    "gz-not-gzip": (b"plain text", "cannot be read"),
}


@pytest.mark.parametrize("case", sorted(RESPONSE_CORPUS))
def test_malformed_response_files(isolated, case):
    body, fragment = RESPONSE_CORPUS[case]
    path = isolated / (f"{case}.jsonl.gz" if case.startswith("gz") else f"{case}.jsonl")
    path.write_bytes(body)
    out = subprocess.run([*PROBE, "score", str(FAMILIES / "butterfly.toml"), "--responses",
                          str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], out.stderr


def test_odd_unicode_and_huge_answers_are_scored_not_crashed(isolated):
    fam = isolated / "odd.toml"
    fam.write_text('name = "odd"\ndirect = "Choose a random 🦋 name\u200b"\n'
                   'framings = ["Ｗｈｉｃｈ one?", "שאלה?", "e\u0301tude?"]\n', encoding="utf-8")
    rows = [{"response": "🦋 Monarch\u200b"}, {"response": "\u202eMONARCH"},
            {"response": "x" * 1_000_000}, {"response": "\x00\x07\x1b[2J"},
            {"framing_idx": 0, "response": "Ｍｏｎａｒｃｈ"}, {"framing_idx": 2, "response": ""}]
    resp = write_jsonl(isolated / "r.jsonl", rows)
    out = subprocess.run([*PROBE, "score", str(fam), "--responses", str(resp), "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout


def test_malformed_cli_values_are_one_sentence(isolated):
    for args, fragment in ([["run", str(FAMILIES / "butterfly.toml"), "--samples", "-3"],
                            "--samples must be at least 1"],
                           [["run", "--resume", "99"], "no run 99"],
                           [["match", "only-one"], "needs two answers"],
                           [["export", "--run", "5"], "no run 5"]):
        out = subprocess.run([*PROBE, *args], capture_output=True, text=True, timeout=60)
        assert out.returncode == 2, (args, out.stderr)
        assert fragment in out.stderr and "Traceback" not in out.stderr


# ------------------------------------------------------------------ security

EVIL_TEMPLATES = [
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ cycler.__init__.__globals__.os.popen('touch PWNED').read() }}",
    "{% for m in messages %}{{ m.__class__.__init__.__globals__ }}{% endfor %}",
]


@pytest.mark.parametrize("template", EVIL_TEMPLATES)
def test_a_gguf_chat_template_cannot_reach_python_internals(template, isolated):
    """llama-cpp-python renders a GGUF's chat template in Jinja's immutable sandbox: the
    formatter our llama backend's chat path uses refuses attribute escapes."""
    from jinja2.exceptions import SecurityError
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    fmt = Jinja2ChatFormatter(template=template, eos_token="</s>", bos_token="<s>")
    with pytest.raises(SecurityError, match="unsafe"):
        fmt(messages=[{"role": "user", "content": "hi"}])
    assert not (isolated / "PWNED").exists()


def test_family_file_is_data_not_code(isolated):
    evil = isolated / "evil.toml"
    evil.write_text('direct = "__import__(\'os\').system(\'touch PWNED\')"\n'
                    'framings = ["{{ 7*7 }}", "${HOME}", "$(touch PWNED2)"]\n')
    resp = write_jsonl(isolated / "r.jsonl", [{"response": "{{ 7*7 }}"}])
    out = subprocess.run([*PROBE, "score", str(evil), "--responses", str(resp), "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    assert not (isolated / "PWNED").exists() and not (isolated / "PWNED2").exists()
    # "{{ 7*7 }}" is just text: its answer is the characters, never 49.
    assert '"top_answer": "77"' in out.stdout and "49" not in out.stdout


def test_sql_is_parameterised_against_hostile_names(isolated):
    from probe.store import Store

    fam = isolated / "x.toml"
    fam.write_text('name = "x"\ndirect = "Robert\'); DROP TABLE runs;--"\nframings = ["a"]\n')
    resp = write_jsonl(isolated / "r.jsonl", [{"response": "'; DROP TABLE samples; --"}])
    out = subprocess.run([*PROBE, "score", str(fam), "--responses", str(resp), "--model",
                          "m'); DROP TABLE results;--"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    store = Store(isolated / "probe.db")
    assert {"runs", "samples", "results"} <= set(store.db.table_names())
    assert store.runs(model="'; DROP")[:1] == []


# ------------------------------------------------- hostile input (issue 11, items 12, 14)

HOSTILE_FAMILIES = {
    "nested-1000-deep": ('direct = "x"\nframings = ["a"]\nextra = ' + "[" * 1000 + "]" * 1000
                         + "\n", "nested too deeply"),
    "nested-100-deep": ('direct = "x"\nframings = ["a"]\nextra = ' + "[" * 100 + "]" * 100
                        + "\n", "nested more than"),
    "inline-tables-deep": ('direct = "x"\nframings = ["a"]\nextra = ' + "{a = " * 900
                           + "1" + "}" * 900 + "\n", "nested too deeply"),
    "int-5000-digits": ('direct = "x"\nframings = ["a"]\nextra = ' + "9" * 5000 + "\n",
                        "line 3: an integer has more than 18 digits"),
    "int-4000-digits": ('direct = "x"\nframings = ["a"]\nextra = ' + "9" * 4000 + "\n",
                        "more than 18 digits"),
    "megabyte-unknown-key": ('direct = "x"\nframings = ["a"]\n' + "k" * 1_000_000 + " = 1\n",
                             "unknown key 'kkkk"),
    "megabyte-alias-clash": ('direct = "x"\nframings = ["a"]\n[answers]\n' + "A = ['"
                             + "z" * 500_000 + "']\nB = ['" + "z" * 500_000 + "']\n",
                             "listed under both"),
    "over-16-mib": ('direct = "x"\nframings = ["a"]\n# ' + "x" * (17 << 20) + "\n",
                   "larger than the limit"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_FAMILIES))
def test_hostile_family_files_are_one_short_sentence(isolated, case):
    body, fragment = HOSTILE_FAMILIES[case]
    path = isolated / f"{case}.toml"
    path.write_text(body, encoding="utf-8")
    resp = write_jsonl(isolated / "r.jsonl", [{"response": "x"}])
    out = subprocess.run([*PROBE, "score", str(path), "--responses", str(resp)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr[-2000:]
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0] and path.name in lines[0], out.stderr[:500]
    assert len(out.stderr) < 600 and "Traceback" not in out.stderr


def test_a_utf8_bom_family_and_responses_are_accepted(isolated):
    fam = isolated / "bom.toml"
    fam.write_bytes(b"\xef\xbb\xbf" + b'direct = "Choose a random butterfly."\n'
                    b'framings = ["Which one for a card?"]\n')
    resp = isolated / "r.jsonl"
    resp.write_bytes(b'\xef\xbb\xbf{"response": "Monarch"}\n')
    out = subprocess.run([*PROBE, "score", str(fam), "--responses", str(resp), "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["direct"]["top_answer"] == "Monarch"


def _special_files(isolated):
    fifo = isolated / "fifo"
    os.mkfifo(fifo)
    zero = isolated / "zero.toml"
    zero.symlink_to("/dev/zero")
    fifo_toml = isolated / "fifo.toml"
    fifo_toml.symlink_to(fifo)
    return {"dev-zero": zero, "fifo": fifo_toml, "dev-zero-direct": Path("/dev/zero")}


@pytest.mark.parametrize("which", ["dev-zero", "fifo", "dev-zero-direct"])
def test_devices_and_fifos_are_refused_before_reading(isolated, which, butterfly_path):
    special = _special_files(isolated)[which]
    resp = write_jsonl(isolated / "r.jsonl", [{"response": "x"}])
    commands = [
        ["score", str(special), "--responses", str(resp)],                 # family file
        ["score", "butterfly", "--responses", str(special)],               # responses file
        ["run", "butterfly", "--system", str(special), "--model", "nope.gguf"],   # --system
        ["match", "--pairs", str(special)],                                # pairs file
        ["score", "butterfly", "--responses", str(resp), "--db", str(special)],   # database
        ["import-dataset", "--prompts", str(special), "--framings", str(resp), "--out",
         str(isolated / "out")],                                           # dataset files
    ]
    for args in commands:
        out = subprocess.run([*PROBE, *args], capture_output=True, text=True, timeout=30)
        assert out.returncode == 2, (args, out.stderr)
        assert "regular file" in out.stderr or "not an SQLite file" in out.stderr, \
            (args, out.stderr)
        assert "Traceback" not in out.stderr


def test_a_fifo_in_the_families_folder_does_not_hang_discovery(isolated):
    from probe.family import discover

    os.mkfifo(isolated / "families" / "pipe.toml")
    (isolated / "families" / "deep.toml").write_text(
        'direct = "x"\nframings = ["a"]\nextra = ' + "[" * 2000 + "]" * 2000 + "\n")
    found = dict(discover(isolated / "families"))
    assert "regular file" in str(found[isolated / "families" / "pipe.toml"])
    assert "nested too deeply" in str(found[isolated / "families" / "deep.toml"])


def test_the_app_starts_with_a_family_nested_1000_deep(isolated):
    import asyncio

    from textual.widgets import DataTable

    from probe.backends.fake import FakeBackend
    from screens.app import make_app

    (isolated / "families" / "deep.toml").write_text(
        'direct = "x"\nframings = ["a"]\nextra = ' + "[" * 1000 + "]" * 1000 + "\n")
    shutil.copy(FAMILIES / "butterfly.toml", isolated / "families" / "butterfly.toml")

    async def go():
        app = make_app(db_path=isolated / "probe.db",
                       backend_factory=lambda spec: (FakeBackend(lambda p: "x"), "fake"))
        async with app.run_test(size=(120, 30)) as pilot:
            await pilot.pause(0.3)
            table = app.screen.query_one("#families", DataTable)
            cells = [" ".join(str(c) for c in table.get_row_at(i))
                     for i in range(table.row_count)]
            assert any("deep" in c and "nested too deeply" in c for c in cells), cells
            assert any("butterfly" in c for c in cells)

    asyncio.run(go())


HOSTILE_RESPONSES = {
    "deeply-nested-json": (b'{"response": "a", "x": ' + b"[" * 100_000 + b"]" * 100_000
                           + b"}\n", "nested more than 64 deep"),
    "framing-idx-5000-digits": (b'{"response": "a", "framing_idx": ' + b"9" * 5000 + b"}\n",
                                "an integer has more than 18 digits"),
    "framing-idx-4000-digits": (b'{"response": "a", "framing_idx": ' + b"9" * 4000 + b"}\n",
                                "framing_idx"),
    "two-megabyte-line": (b'{"response": "' + b"a" * (2 << 20) + b'"}\n',
                          "longer than the limit"),
    "bad-utf8-line-3": (b'{"response": "a"}\n\n{"response": "\xff"}\n', "line 3"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_RESPONSES))
def test_hostile_responses_files_are_one_short_sentence(isolated, case):
    body, fragment = HOSTILE_RESPONSES[case]
    path = isolated / f"{case}.jsonl"
    path.write_bytes(body)
    out = subprocess.run([*PROBE, "score", str(FAMILIES / "butterfly.toml"), "--responses",
                          str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr[-1000:]
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], out.stderr[:500]
    assert len(out.stderr) < 600


def test_lone_surrogates_and_huge_responses_are_stored_cut_and_clean(isolated):
    from probe.limits import MAX_RESPONSE_CHARS
    from probe.store import Store

    path = isolated / "r.jsonl"
    path.write_text('{"response": "\\ud800Monarch"}\n{"response": "\\udfff"}\n'
                    + json.dumps({"response": "Monarch " + "z" * 500_000}) + "\n"
                    + '{"response": "x", "framing_idx": 0}\n', encoding="utf-8")
    out = subprocess.run([*PROBE, "score", str(FAMILIES / "butterfly.toml"), "--responses",
                          str(path), "--json"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    store = Store(isolated / "probe.db")
    assert store.run(1).status == "finished"
    texts = [s.response for s in store.samples(1)]
    assert texts[0] == "\ufffdMonarch" and texts[1] == "\ufffd"
    assert len(texts[2]) == MAX_RESPONSE_CHARS


def test_a_small_gz_expanding_to_one_gigabyte_line_fails_fast_in_bounded_memory(isolated):
    path = isolated / "bomb.jsonl.gz"
    with gzip.open(path, "wb", compresslevel=9) as fh:
        fh.write(b'{"response": "')
        block = b"a" * (1 << 20)
        for _ in range(1024):                  # 1 GiB of one line, ~1 MB compressed
            fh.write(block)
    assert path.stat().st_size < 3 << 20
    start = time.monotonic()
    rc, peak, err = peak_rss_mib(["score", str(FAMILIES / "butterfly.toml"), "--responses",
                                  str(path)])
    assert rc == 2 and "longer than the limit" in err, err
    assert time.monotonic() - start < 30
    assert peak < 300, f"peak RSS {peak:.0f} MiB"


def test_a_gz_of_blank_lines_is_fast(isolated):
    path = isolated / "blank.jsonl.gz"
    with gzip.open(path, "wb", compresslevel=9) as fh:
        fh.write(b'{"response": "Monarch"}\n')
        for _ in range(256):
            fh.write(b"\n" * (1 << 20))         # 256 Mi blank lines
        fh.write(b'{"response": "Viceroy", "framing_idx": 1}\n')
    start = time.monotonic()
    out = subprocess.run([*PROBE, "score", str(FAMILIES / "butterfly.toml"), "--responses",
                          str(path), "--json"], capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - start
    # 256 Mi lines is over the line cap: refused, and quickly (no per-line Python work).
    assert out.returncode == 2 and "more than the limit" in out.stderr, out.stderr
    assert elapsed < 30


def test_a_truncated_gguf_is_bad_input_like_a_garbage_one(isolated, default_gguf,
                                                         butterfly_path):
    cut = isolated / "cut.gguf"
    with open(default_gguf, "rb") as src:
        cut.write_bytes(src.read(4 << 20))
    garbage = isolated / "garbage.gguf"
    garbage.write_bytes(b"\x00" * 4096)
    for model, fragment in ((cut, "truncated"), (garbage, "not a GGUF")):
        out = subprocess.run([*PROBE, "run", "butterfly", "--model", str(model)],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and fragment in out.stderr, out.stderr
        assert "Traceback" not in out.stderr


def test_paths_under_a_file_are_one_sentence(isolated, butterfly_path):
    resp = write_jsonl(isolated / "r.jsonl", [{"response": "Monarch"}])
    subprocess.run([*PROBE, "score", "butterfly", "--responses", str(resp)], check=True,
                   capture_output=True, timeout=60)
    afile = isolated / "afile"
    afile.write_text("x")
    sub = str(afile / "sub")
    for args in (["report", "--out", sub],
                 ["score", "butterfly", "--responses", str(resp), "--db", sub],
                 ["score", "butterfly", "--responses", sub],
                 ["score", sub, "--responses", str(resp)],
                 ["run", "butterfly", "--system", sub, "--model", "nope.gguf"]):
        out = subprocess.run([*PROBE, *args], capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and "afile" in out.stderr, (args, out.stderr)
        assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr


# ------------------------------------------------------------------ hostile-input check

def _probe(*args, **kw):
    return subprocess.run([*PROBE, *map(str, args)], capture_output=True, text=True,
                          timeout=120, **kw)


def test_a_long_line_is_refused_wherever_it_sits_in_the_file(isolated):
    from probe.limits import MAX_LINE_BYTES

    path = isolated / "pairs.jsonl"
    long_row = json.dumps({"a": "x" * (MAX_LINE_BYTES + 10), "b": "y"})
    path.write_text(json.dumps({"a": "x", "b": "y"}) + "\n" + long_row + "\n"
                    + json.dumps({"a": "x", "b": "y"}) + "\n" * 3, encoding="utf-8")
    out = _probe("match", "--pairs", path)
    assert out.returncode == 2, out.stderr
    assert "line 2: is longer than the limit" in out.stderr and "Traceback" not in out.stderr


def test_lone_surrogates_in_pairs_and_dataset_rows_become_replacement_chars(isolated):
    pairs = isolated / "pairs.jsonl"
    pairs.write_text('{"a": "\\ud800", "b": "\\udfff", "same": false}\n', encoding="utf-8")
    out = _probe("match", "--pairs", pairs)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert json.loads(out.stdout.splitlines()[0])["a"] == "\ufffd"

    prompts = isolated / "p.jsonl"
    prompts.write_text('{"id": "e2\\ud800", "prompt": "Pick \\udfff a colour."}\n',
                       encoding="utf-8")
    framings = isolated / "f.jsonl"
    framings.write_text('{"id": "e2\\ud800", "framing_idx": 0, "framing": "A \\ud800 b."}\n',
                        encoding="utf-8")
    out = _probe("import-dataset", "--prompts", prompts, "--framings", framings,
                 "--out", isolated / "fams")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    (written,) = (isolated / "fams").glob("*.toml")
    assert "\ufffd" in written.read_text(encoding="utf-8")


@pytest.mark.parametrize("args", [["paths"], ["--help"], ["match", "a", "b"],
                                  ["thresholds"], ["score", FAMILIES / "butterfly.toml",
                                                   "--responses", "r.jsonl", "--json"]])
@pytest.mark.parametrize("stdout", ["full", "closed"])
def test_a_full_or_closed_standard_output_is_one_sentence_and_exit_1(isolated, args, stdout):
    write_jsonl(isolated / "r.jsonl", [{"response": "Monarch"}])
    _probe("score", FAMILIES / "butterfly.toml", "--responses", "r.jsonl")  # a database
    if stdout == "full":
        with open("/dev/full", "w") as full:
            out = subprocess.run([*PROBE, *map(str, args)], stdout=full, stderr=subprocess.PIPE,
                                 text=True, timeout=120)
        why = "No space left on device"
    else:
        out = subprocess.run([*PROBE, *map(str, args)], stderr=subprocess.PIPE, text=True,
                             timeout=120, preexec_fn=lambda: os.close(1))
        why = "it is closed"
    assert out.returncode == 1, out.stderr
    assert out.stderr == f"probe: cannot write to standard output ({why}).\n"


@pytest.mark.parametrize("args", [["thresholds", "--model", "bad\udcff"],
                                  ["compare", "--a", "bad\udcff", "--b", "x"],
                                  ["export", "--model", "bad\udcff"],
                                  ["report", "--out", "o", "--family", "bad\udcff"],
                                  ["score", FAMILIES / "butterfly.toml", "--responses", "r.jsonl",
                                   "--model", "bad\udcff"]])
def test_arguments_that_are_not_utf8_name_the_option(isolated, args):
    write_jsonl(isolated / "r.jsonl", [{"response": "Monarch"}])
    _probe("score", FAMILIES / "butterfly.toml", "--responses", "r.jsonl")
    argv = [os.fsencode(str(a)) for a in [*PROBE, *args]]   # the raw byte 0xff
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    option = args[args.index("bad\udcff") - 1]
    assert out.stderr.startswith(f"probe: {option} is not valid UTF-8 text")
    assert len(out.stderr.splitlines()) == 1


@pytest.mark.parametrize("value", ["0", "-5", "inf", "nan"])
def test_a_timeout_that_is_not_above_zero_is_refused(isolated, value):
    out = _probe("run", FAMILIES / "butterfly.toml", "--backend", "openai", "--base-url",
                 "http://127.0.0.1:9", "--model", "m", "--timeout", value)
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("probe: --timeout must be a number of seconds above 0")


@pytest.mark.parametrize("table,column", [("runs", "seed"), ("runs", "model_hash"),
                                          ("families", "source_path"),
                                          ("samples", "latency_ms")])
def test_a_dropped_column_is_named_before_anything_is_read_or_written(isolated, table,
                                                                      column):
    import sqlite3

    write_jsonl(isolated / "r.jsonl", [{"response": "Monarch"}])
    assert _probe("score", FAMILIES / "butterfly.toml", "--responses", "r.jsonl").returncode == 0
    db = isolated / "probe.db"
    with sqlite3.connect(db) as conn:
        conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")

    def dump():
        with sqlite3.connect(db) as conn:
            return list(conn.iterdump())
    before = dump()
    for args in (["export"], ["report", "--out", "rep"], ["run", "--resume", "1"],
                 ["score", FAMILIES / "butterfly.toml", "--responses", "r.jsonl"]):
        out = _probe(*args)
        assert out.returncode == 2, (args, out.stderr)
        assert out.stderr == (f"probe: database {db} is damaged: table '{table}' has no "
                              f"column '{column}'; it was left untouched.\n"), args
    assert dump() == before


DAMAGE = {
    "framings-not-text": ("UPDATE families SET framings = '[1, 2]'",
                          "stored family is damaged (framing 1 must be a string"),
    "samples-huge": ("UPDATE runs SET settings = json_set(settings, '$.samples', 1000000000)",
                     "stored settings are damaged (samples 1000000000 is more than the limit"),
    "seed-huge": ("UPDATE runs SET seed = 99999999999999999",
                  "stored settings are damaged (seed 99999999999999999 is outside"),
    "seed-differs": ("UPDATE runs SET seed = seed + 1", "stored settings are damaged (seed"),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_damaged_stored_settings_or_family_are_named_before_a_resume_writes(isolated, case):
    import sqlite3

    from probe.backends.fake import FakeBackend
    from probe.family import load
    from probe.runner import Runner, RunSettings
    from probe.store import Store

    db = isolated / "probe.db"
    store = Store(db)
    Runner(store, FakeBackend()).create(load(FAMILIES / "butterfly.toml"),
                                        RunSettings(samples=3, seed=7), "fake")
    store.close()
    sql, fragment = DAMAGE[case]
    with sqlite3.connect(db) as conn:
        conn.execute(sql)

    def dump():
        with sqlite3.connect(db) as conn:
            return list(conn.iterdump())
    before = dump()
    out = _probe("run", "--resume", "1")
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith(f"probe: run 1's {fragment}"), out.stderr
    assert len(out.stderr.splitlines()) == 1 and "--samples" not in out.stderr
    assert dump() == before


@pytest.mark.parametrize("args", [["score", FAMILIES / "butterfly.toml", "--responses", "d"],
                                  ["paths", "--db", "d"],
                                  ["run", FAMILIES / "butterfly.toml", "--system", "d"],
                                  ["report", "--out", "o", "--dpi", "5"]])
def test_a_folder_for_a_file_or_a_value_out_of_range_is_one_sentence(isolated, args):
    (isolated / "d").mkdir()
    out = _probe(*args)
    assert out.returncode == 2, out.stderr
    assert len(out.stderr.splitlines()) == 1 and out.stderr.startswith("probe: invalid value")


@pytest.mark.parametrize("as_json", [False, True])
def test_match_never_echoes_terminal_escapes(isolated, as_json):
    hostile = "\x1b]0;pwn\x07"
    out = _probe("match", hostile, "x", *(["--json"] if as_json else []))
    assert out.returncode == 0, out.stderr
    assert not any(ch in out.stdout for ch in "\x1b\x07\x9b"), repr(out.stdout)
    if as_json:
        assert json.loads(out.stdout)["a"] == hostile
    else:
        assert "\\u001b]0;pwn\\u0007" in out.stdout
    pairs = write_jsonl(isolated / "p.jsonl", [{"a": hostile + "\x9b2J", "b": "x"}])
    listed = _probe("match", "--pairs", pairs)
    assert not any(ch in listed.stdout for ch in "\x1b\x9b"), repr(listed.stdout)
    assert json.loads(listed.stdout)["a"] == hostile + "\x9b2J"


def test_a_batch_with_damaged_stored_settings_is_named_before_a_resume(isolated):
    import sqlite3

    from probe.backends.fake import FakeBackend
    from probe.batch import Batch
    from probe.runner import RunSettings
    from probe.store import Store

    db = isolated / "probe.db"
    store = Store(db)
    Batch(store, FakeBackend()).create([FAMILIES / "butterfly.toml"],
                                       RunSettings(samples=3, seed=5), "fake", "", None)
    store.close()
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE batches SET settings = "
                     "json_set(settings, '$.run.samples', 1000000000)")
    out = _probe("batch", "--resume", "1")
    assert out.returncode == 2, out.stderr
    assert out.stderr == ("probe: batch 1's stored settings are damaged (samples 1000000000 is "
                          "more than the limit of 10000); it cannot be resumed.\n")


def test_a_huge_integer_in_a_family_file_names_its_line(isolated):
    fam = isolated / "huge.toml"
    fam.write_text('direct = "Choose a random bird."\nframings = ["a"]\nid = '
                   + "7" * 5000 + "\n")
    out = subprocess.run([*PROBE, "score", str(fam), "--responses", str(fam)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr.strip() == f"probe: {fam}, line 3: an integer has more than 18 digits."
