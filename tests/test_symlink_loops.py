"""A symbolic link loop wherever a command takes a path (a file it reads or writes, a
folder, the database, the families folder): one sentence naming the path as a loop and
exit 2; never a traceback, nor a sentence that blames something else ("no database",
"is a file, not a folder")."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from conftest import FAMILIES, write_jsonl

PROBE = [sys.executable, "-m", "probe"]
SERVER = ["--backend", "openai", "--model", "m", "--base-url", "http://127.0.0.1:1"]

# (arguments, extra environment); LOOP is a link to itself, PAIR one of two links that
# point at each other, DEEP a path whose folder loops.
CASES = {
    "score --responses": (["score", "fruit", "--responses", "LOOP"], {}),
    "score --responses, two links": (["score", "fruit", "--responses", "PAIR"], {}),
    "score FAMILY": (["score", "LOOP", "--responses", "R"], {}),
    "score --db": (["score", "fruit", "--responses", "R", "--db", "LOOP"], {}),
    "a reading command's --db": (["thresholds", "--db", "LOOP"], {}),
    "export --out": (["export", "--format", "deepbias", "--model", "external", "--out",
                      "LOOP"], {}),
    "export --out LOOP/": (["export", "--format", "deepbias", "--out", "LOOP/"], {}),
    "export --out under a loop": (["export", "--format", "deepbias", "--out", "DEEP"], {}),
    "report --out": (["report", "--out", "LOOP"], {}),
    "import-dataset --out": (["import-dataset", "--prompts", "P", "--framings", "F",
                              "--out", "LOOP"], {}),
    "new --name onto a looping file": (["new", "Name a random fruit.", "--name", "lnew"], {}),
    "PROBE_FAMILIES with score": (["score", "fruit", "--responses", "R"],
                                  {"PROBE_FAMILIES": "LOOP"}),
    "PROBE_FAMILIES with new": (["new", "Name a random vegetable."],
                                {"PROBE_FAMILIES": "LOOP"}),
    "PROBE_FAMILIES with paths": (["paths"], {"PROBE_FAMILIES": "LOOP"}),
    "PROBE_FAMILIES with batch": (["batch", "fruit", *SERVER], {"PROBE_FAMILIES": "LOOP"}),
    "batch FAMILY": (["batch", "LOOP", *SERVER], {}),
    "run --model": (["run", "fruit", "--model", "LOOP"], {}),
    "run --system": (["run", "fruit", "--system", "LOOP", *SERVER], {}),
    "match --pairs": (["match", "--pairs", "LOOP"], {}),
}


@pytest.fixture
def tree(isolated):
    fams = isolated / "families"
    shutil.copy(FAMILIES / "tea.toml", fams / "fruit.toml")
    os.symlink("loop", isolated / "loop")
    os.symlink("pair-b", isolated / "pair-a")
    os.symlink("pair-a", isolated / "pair-b")
    os.symlink("lnew.toml", fams / "lnew.toml")
    write_jsonl(isolated / "r.jsonl", [{"response": "Apple"}])
    write_jsonl(isolated / "p.jsonl", [{"id": "a", "prompt": "Name a fruit."}])
    write_jsonl(isolated / "f.jsonl", [{"id": "a", "framing_idx": 0, "framing": "Which?"}])
    # A database, so reading commands get as far as their --out.
    subprocess.run([*PROBE, "score", "fruit", "--responses", str(isolated / "r.jsonl")],
                   capture_output=True, check=True, timeout=60)
    return isolated


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_symbolic_link_loop_is_one_sentence(tree, case):
    args, env_extra = CASES[case]
    names = {"LOOP": tree / "loop", "PAIR": tree / "pair-a", "DEEP": tree / "loop" / "x",
             "R": tree / "r.jsonl", "P": tree / "p.jsonl", "F": tree / "f.jsonl",
             "LOOP/": f"{tree / 'loop'}/"}
    argv = [str(names.get(a, a)) for a in args]
    env = {**os.environ, **{k: str(names[v]) for k, v in env_extra.items()}}
    out = subprocess.run([*PROBE, *argv], capture_output=True, text=True, timeout=60,
                         env=env)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    assert len(lines) == 1 and "symbolic link loop" in lines[0], out.stderr
    looped = ("pair-" if case.endswith("two links") else "lnew.toml" if "--name" in case
              else str(tree / "loop"))
    assert looped in lines[0]
