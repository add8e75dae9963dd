"""A corpus of malformed family and response files through the real command: each is
exit 2 with one line naming the problem, never a traceback. Plus security checks."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import FAMILIES, write_jsonl

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
