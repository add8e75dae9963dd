"""The documented nesting limit (MAX_JSON_DEPTH) holds for a responses line and for a
server's reply: one level more is refused in one sentence, at the limit it is read, and
brackets inside a string are text, not nesting."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from probe.backends.openai import OpenAIBackend
from probe.errors import BadInput, RunFailed
from probe.jsonl import iter_objects
from probe.limits import MAX_JSON_DEPTH


def _nested(depth: int) -> str:
    """A responses row, as JSON text, whose ``meta`` nests arrays so the whole row is
    ``depth`` deep (written by hand: ``json`` itself recurses)."""
    return '{"response": "Apple", "meta": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, MAX_JSON_DEPTH + 30, 500, 900])
def test_a_line_nested_beyond_the_limit_is_refused(tmp_path, depth):
    path = tmp_path / "r.jsonl"
    path.write_text('{"response": "Pear"}\n' + _nested(depth) + "\n")
    with pytest.raises(BadInput, match=f"line 2: JSON nested more than {MAX_JSON_DEPTH} deep"):
        list(iter_objects(path))


def test_a_line_at_the_limit_and_brackets_in_text_are_read(tmp_path):
    path = tmp_path / "r.jsonl"
    deep_text = {"response": "[" * 500 + "{" * 500 + "\\\"]"}
    path.write_text(_nested(MAX_JSON_DEPTH) + "\n" + json.dumps(deep_text) + "\n")
    rows = [obj for _, obj in iter_objects(path)]
    assert len(rows) == 2 and rows[1]["response"] == deep_text["response"]


def test_score_refuses_a_deep_line_in_one_sentence(isolated):
    path = isolated / "r.jsonl"
    path.write_text(_nested(MAX_JSON_DEPTH + 6) + "\n")
    fam = isolated / "families" / "tea.toml"
    fam.write_text('direct = "Choose a tea."\nframings = ["Which tea?"]\n')
    out = subprocess.run([sys.executable, "-m", "probe", "score", str(fam), "--responses",
                          str(path), "--no-save"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr.strip() == (f"probe: {path}, line 1: JSON nested more than "
                                  f"{MAX_JSON_DEPTH} deep.")


def test_a_server_reply_nested_beyond_the_limit_is_refused():
    backend = OpenAIBackend("http://127.0.0.1:9", "m")
    # choices → [ → { → logprobs: a row nested to the limit sits three levels down.
    reply = '{"choices": [{"text": "Apple", "logprobs": ' + _nested(MAX_JSON_DEPTH) + "}]}"
    with pytest.raises(RunFailed, match=f"nested more than {MAX_JSON_DEPTH} deep"):
        backend._json(reply.encode(), "/v1/completions")
    shallow = {"choices": [{"text": "Apple [[[[[[" * 20}]}
    assert backend._json(json.dumps(shallow).encode(), "/v1/completions") == shallow
