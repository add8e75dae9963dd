"""`probe score` and `probe match` through the command line, as a user runs them."""

import json
import subprocess
import sys

from click.testing import CliRunner

from conftest import DATA, write_jsonl
from probe.cli import cli
from probe.store import Store


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def butterfly_responses(tmp_path, framed_hits=28):
    rows = [{"response": "**Monarch**."} for _ in range(25)]
    rows += [{"response": "monarch butterfly"} for _ in range(5)]
    rows += [{"framing_idx": i, "response": "Monarch" if i < framed_hits else "Blue Morpho"}
             for i in range(30)]
    return write_jsonl(tmp_path / "resp.jsonl", rows)


def test_score_json_record_matches_the_design_shape(butterfly_path, tmp_path):
    result = run("score", str(butterfly_path), "--responses",
                 str(butterfly_responses(tmp_path)), "--json")
    assert result.exit_code == 0, result.output
    rec = json.loads(result.output)
    assert rec["family"] == "butterfly" and rec["model"] == "external"
    assert rec["direct"]["top_answer"] == "Monarch"
    assert rec["direct"]["dr"] == 1.0 and rec["direct"]["n_samples"] == 30
    assert rec["direct"]["distribution"][0]["surface_forms"] == {"Monarch": 25,
                                                                  "monarch butterfly": 5}
    assert rec["framed"]["fr"] == round(28 / 30, 4)
    assert rec["bias_type"] == "deep"
    # Saved: the stored samples give the same numbers.
    store = Store(tmp_path / "probe.db")
    samples = store.samples(rec["run_id"])
    assert len(samples) == 60
    assert store.result(rec["run_id"])["label"] == "deep"
    direct = [s for s in samples if s.kind == "direct"]
    assert sum(s.canonical == "Monarch" for s in direct) == 30


def test_score_by_family_name_and_readable_table(butterfly_path, tmp_path):
    result = run("score", "butterfly", "--responses", str(butterfly_responses(tmp_path, 3)),
                 "--no-save")
    assert result.exit_code == 0, result.output
    assert "Shallow" in result.output and "Monarch" in result.output
    assert not (tmp_path / "probe.db").exists()


def test_score_reports_a_malformed_line_by_number(butterfly_path, tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_text('{"response": "Monarch"}\n{"response": "x", \n')
    result = run("score", str(butterfly_path), "--responses", str(p))
    assert result.exit_code == 2
    assert "line 2" in result.output and "Traceback" not in result.output


def test_score_rejects_out_of_range_framing(butterfly_path, tmp_path):
    p = write_jsonl(tmp_path / "r.jsonl", [{"response": "a", "framing_idx": 99}])
    result = run("score", str(butterfly_path), "--responses", str(p))
    assert result.exit_code == 2 and "out of range" in result.output


def test_score_unknown_family_is_one_sentence(tmp_path):
    result = run("score", "nope", "--responses", "x.jsonl")
    assert result.exit_code == 2 and "no family file" in result.output


def test_match_two_answers():
    result = run("match", "Monarch", "A monarch butterfly!", "--prompt",
                 "Choose a random popular butterfly", "--json")
    assert json.loads(result.output)["same"] is True
    assert json.loads(result.output)["reason"] == "containment"
    assert run("match", "42", "420").output.startswith("different")


def test_match_pairs_file_writes_one_verdict_per_pair(tmp_path):
    result = CliRunner().invoke(cli, ["match", "--pairs", str(DATA / "matching_pairs.jsonl")])
    lines = [json.loads(x) for x in result.stdout.splitlines()]
    assert len(lines) == 86
    assert all(isinstance(x["same"], bool) and x["reason"] for x in lines)
    agree = sum(x["same"] == x["expected"] for x in lines)
    assert agree / 86 >= 0.95


def test_cli_help_is_light_and_core_imports_no_ui_or_torch():
    code = ("import sys, probe.metrics, probe.matching, probe.store, probe.family, probe.cli;"
            "bad = [m for m in ('textual', 'screens', 'torch', 'transformers', 'llama_cpp')"
            " if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stderr
    # Every core module, the backends included: none pulls in the UI.
    code = ("import sys, pkgutil, importlib, probe;"
            "[importlib.import_module(m.name) for m in "
            "pkgutil.walk_packages(probe.__path__, 'probe.')];"
            "print([m for m in ('textual', 'screens') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stderr
    help_out = subprocess.run([sys.executable, "-m", "probe", "--help"], capture_output=True,
                              text=True)
    assert help_out.returncode == 0 and "score" in help_out.stdout


def test_paths_prints_where_things_live(isolated, monkeypatch):
    result = run("paths", "--db", str(isolated / "x.db"))
    lines = dict(line.split(None, 1) for line in result.output.splitlines())
    assert lines["database"] == str((isolated / "x.db").resolve())
    assert lines["families"] == str((isolated / "families").resolve())
    assert lines["cache"] == str((isolated / "cache").resolve())
    assert lines["config"] == str((isolated / "config").resolve())       # the app's settings
    assert lines["exports"] == str((isolated / "exports").resolve())
