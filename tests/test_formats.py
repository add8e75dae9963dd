"""The paper's formats exactly: responses files with several families, import-dataset ids
and framing numbers, export targets. Each case failed before it was fixed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from conftest import write_jsonl
from probe.cli import cli
from probe.family import load


def cli_run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _family(tmp, name, dataset_id=None, n=3, prompt="Choose a random popular butterfly"):
    body = f'name = "{name}"\n' + (f'id = "{dataset_id}"\n' if dataset_id else "")
    body += f'direct = "{prompt}"\nframings = [' + ", ".join(
        f'"Scenario {i}: which one?"' for i in range(n)) + "]\n"
    path = tmp / f"{name}.toml"
    path.write_text(body, encoding="utf-8")
    return path


# ------------------------------------------------------------ score and ids

def _two_family_rows():
    rows = []
    for fid, top in (("11", "Monarch"), ("22", "Viceroy")):
        rows += [{"id": fid, "sample_idx": i, "response": top} for i in range(4)]
        rows += [{"id": fid, "framing_idx": i, "response": top} for i in range(3)]
    return rows


def test_score_never_pools_two_families(isolated):
    resp = write_jsonl(isolated / "mixed.jsonl", _two_family_rows())
    plain = _family(isolated, "plain")
    out = cli_run("score", str(plain), "--responses", str(resp))
    assert out.exit_code == 2
    assert "2 families (ids 11, 22)" in out.output and "no dataset id" in out.output
    # A family that knows its dataset id reads only its own rows.
    fam = _family(isolated, "second", dataset_id="22")
    rec = json.loads(cli_run("score", str(fam), "--responses", str(resp), "--json").output)
    assert rec["direct"]["top_answer"] == "Viceroy" and rec["direct"]["n_samples"] == 4


def test_score_a_folder_scores_each_id_against_its_own_family(isolated):
    folder = isolated / "fams"
    folder.mkdir()
    _family(folder, "a", dataset_id="11")
    _family(folder, "b", dataset_id="22")
    resp = write_jsonl(isolated / "mixed.jsonl", _two_family_rows())
    out = cli_run("score", str(folder), "--responses", str(resp), "--json")
    assert out.exit_code == 0, out.output
    records = [json.loads(x) for x in out.output.splitlines()]
    assert [(r["id"], r["family"], r["direct"]["top_answer"], r["pi"]) for r in records] == [
        ("11", "a", "Monarch", 1.0), ("22", "b", "Viceroy", 1.0)]
    unknown = write_jsonl(isolated / "u.jsonl", [{"id": "33", "response": "x"}])
    out = cli_run("score", str(folder), "--responses", str(unknown))
    assert out.exit_code == 2 and "no family file for id(s) 33" in out.output


def test_score_reads_the_papers_separate_direct_and_framed_files(isolated):
    fam = _family(isolated, "f", dataset_id="7")
    direct = write_jsonl(isolated / "direct.jsonl", [
        {"id": "7", "sample_idx": 1, "prompt": "p", "response": "Viceroy"},
        {"id": "7", "sample_idx": 0, "prompt": "p", "response": "Monarch"},
        {"id": "7", "sample_idx": 2, "prompt": "p", "response": "Monarch", "error": None},
        {"id": "7", "sample_idx": 3, "prompt": "p", "response": "", "error": "Timeout()"},
    ])
    framed = write_jsonl(isolated / "framed.jsonl", [
        {"id": "7", "framing_idx": 2, "framing": "x", "response": "Monarch"}])
    rec = json.loads(cli_run("score", str(fam), "--responses", str(direct), "--responses",
                             str(framed), "--json").output)
    # The failed call (an ``error`` row) is not a sample.
    assert rec["direct"]["n_samples"] == 3 and rec["non_picks"]["direct"] == 0
    assert rec["direct"]["top_answer"] == "Monarch" and rec["framed"]["fr"] == 1.0
    dup = write_jsonl(isolated / "dup.jsonl", [{"sample_idx": 0, "response": "a"},
                                               {"sample_idx": 0, "response": "b"}])
    out = cli_run("score", str(fam), "--responses", str(dup))
    assert out.exit_code == 2 and "sample_idx 0 appears again" in out.output


def test_the_record_shows_non_picks_and_warns(isolated):
    fam = _family(isolated, "butterfly", n=3)
    rows = [{"response": "Butterfly"}] * 7 + [{"response": "Monarch"}] * 3
    rows += [{"framing_idx": i, "response": "Monarch"} for i in range(3)]
    resp = write_jsonl(isolated / "r.jsonl", rows)
    rec = json.loads(cli_run("score", str(fam), "--responses", str(resp), "--json").output)
    assert rec["direct"]["top_answer"] == "Monarch"
    assert rec["non_picks"] == {"direct": 7, "framed": 0}
    assert rec["warning"].startswith("verdict rests on 3 of 10 direct answers")
    assert [a["answer"] for a in rec["direct"]["non_pick_answers"]] == ["Butterfly"]
    table = cli_run("score", str(fam), "--responses", str(resp), "--no-save").output
    assert "picks    direct 3/10, framed 3/3" in table
    assert "warning  verdict rests on 3 of 10 direct answers" in table


# ------------------------------------------------------------ import-dataset

def _import(isolated, prompts, framings, out="imported"):
    p = write_jsonl(isolated / "p.jsonl", prompts)
    f = write_jsonl(isolated / "f.jsonl", framings)
    return cli_run("import-dataset", "--prompts", str(p), "--framings", str(f),
                   "--out", str(isolated / out))


def _framings(fid, n=2, start=0):
    return [{"id": fid, "framing_idx": start + i, "framing": f"Scenario {i} for {fid}?"}
            for i in range(n)]


@pytest.mark.parametrize("a,b", [(1, "1"), ("A", "a")])
def test_import_refuses_ids_that_would_share_a_file(isolated, a, b):
    out = _import(isolated, [{"id": a, "prompt": "Choose a random bird"},
                             {"id": b, "prompt": "Choose a random bird"}],
                  _framings(a) + _framings(b, start=2))
    assert out.exit_code == 2 and "line 2" in out.output
    assert not (isolated / "imported").exists() or not list((isolated / "imported").iterdir())


def test_import_keeps_distinct_ids_in_distinct_files_and_counts_what_is_on_disk(isolated):
    out = _import(isolated, [{"id": "_x", "prompt": "Choose a random bird"},
                             {"id": "_y", "prompt": "Choose a random bird"},
                             {"id": "x/../../evil", "prompt": "Choose a random bird"}],
                  _framings("_x") + _framings("_y") + _framings("x/../../evil")
                  + _framings("ghost", 3))
    assert out.exit_code == 0, out.output
    files = sorted((isolated / "imported").iterdir())
    assert len(files) == 3 and f"wrote 3 family files" in out.output
    assert {load(p).dataset_id for p in files} == {"_x", "_y", "x/../../evil"}
    assert "id ghost: 3 framings" in out.output and "have no prompt" in out.output


def test_import_keeps_framing_numbers_and_reports_duplicates(isolated):
    framings = [{"id": 5, "framing_idx": 7, "framing": "Which bird for a card?"},
                {"id": 5, "framing_idx": 3, "framing": "Which bird for a mug?"},
                {"id": 5, "framing_idx": 9, "framing": "which bird  for a card?"}]
    out = _import(isolated, [{"row_idx": 5, "rewrite": "Choose a random bird " + "x" * 5000}],
                  framings)
    assert out.exit_code == 0, out.output
    assert "framing_idx 9" in out.output and "same text as framing_idx 7" in out.output
    fam = load(next((isolated / "imported").iterdir()))
    assert fam.dataset_id == "5" and fam.framing_ids == [3, 7]
    assert fam.framings == ["Which bird for a mug?", "Which bird for a card?"]
    assert len(fam.direct) > 5000          # no arbitrary prompt-length cut
    # Responses refer to framings by the dataset's numbers.
    resp = write_jsonl(isolated / "r.jsonl", [{"id": 5, "response": "Robin"},
                                              {"id": 5, "framing_idx": 7, "response": "Robin"},
                                              {"id": 5, "framing_idx": 3, "response": "Owl"}])
    rec = json.loads(cli_run("score", str(fam.path), "--responses", str(resp),
                             "--json").output)
    assert rec["framed"]["fr"] == 0.5
    bad = write_jsonl(isolated / "b.jsonl", [{"framing_idx": 4, "response": "Robin"}])
    assert "out of range" in cli_run("score", str(fam.path), "--responses", str(bad)).output


@pytest.mark.parametrize("row,fragment", [
    ({"id": 1, "framing_idx": -1, "framing": "x"}, "non-negative integer"),
    ({"id": 1, "framing_idx": 2 ** 40, "framing": "x"},
     "non-negative integer"),
    ({"id": 1, "framing_idx": 1.0, "framing": "x"}, "non-negative integer"),
    ({"id": [1], "framing_idx": 1, "framing": "x"}, "must be a string or an integer"),
])
def test_import_rejects_bad_framing_rows(isolated, row, fragment):
    out = _import(isolated, [{"id": 1, "prompt": "Choose a random bird"}], [row])
    assert out.exit_code == 2 and fragment in out.output and "line 1" in out.output


def test_import_rejects_a_repeated_framing_index(isolated):
    out = _import(isolated, [{"id": 1, "prompt": "Choose a random bird"}],
                  _framings(1) + [{"id": "1", "framing_idx": 1, "framing": "Other?"}])
    assert out.exit_code == 2 and "framing_idx 1 was already given at" in out.output


def test_import_out_must_be_a_folder(isolated):
    (isolated / "afile").write_text("x")
    out = _import(isolated, [{"id": 1, "prompt": "Choose a random bird"}], _framings(1),
                  out="afile/sub")
    assert out.exit_code == 2 and "is a file, not a folder" in out.output


# ------------------------------------------------------------------- export

@pytest.fixture
def one_run(isolated):
    fam = _family(isolated, "bfly", dataset_id="1847229")
    resp = write_jsonl(isolated / "r.jsonl", [{"response": "Monarch"}] * 3
                       + [{"framing_idx": 0, "response": "**Monarch** butterfly."}])
    # In a process of its own, so the database is closed (and checkpointed) before the test.
    done = subprocess.run([sys.executable, "-m", "probe", "score", str(fam), "--responses",
                           str(resp)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return isolated / "probe.db"


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
def test_export_never_writes_over_the_database(one_run, suffix):
    before = one_run.read_bytes()
    out = cli_run("export", "--db", str(one_run), "--out", str(one_run) + suffix)
    assert out.exit_code == 2 and "is the database itself" in out.output
    assert one_run.read_bytes() == before


def test_export_names_a_missing_folder_and_keeps_the_release_fields(one_run, isolated):
    out = cli_run("export", "--out", str(isolated / "nope" / "x.jsonl"))
    assert out.exit_code == 2 and "does not exist" in out.output
    rec = json.loads(cli_run("export").output)
    assert rec["id"] == "1847229"
    assert rec["framed"]["distribution"][0]["surface_forms"] == [
        {"text": "**Monarch** butterfly.", "count": 1}]
    assert rec["direct"]["distribution"][0]["lemma_keys"] == ["monarch"]


def test_export_failures_are_one_sentence(one_run, isolated):
    # A folder nothing can be created in.
    out = subprocess.run([sys.executable, "-m", "probe", "export", "--out",
                          "/proc/probe-export.jsonl"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 2 and out.stderr.startswith("probe: /proc/probe-export.jsonl")
    assert len(out.stderr.strip().splitlines()) == 1
    # A reader that closes the pipe at once.
    proc = subprocess.Popen([sys.executable, "-m", "probe", "export"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in err and "standard output was closed" in err


def test_import_names_files_without_repeating_the_id(isolated):
    out = _import(isolated, [{"id": "color", "prompt": "Choose a random color"},
                             {"id": 42, "prompt": "Choose a random type of coffee"}],
                  _framings("color") + _framings(42))
    assert out.exit_code == 0, out.output
    assert sorted(p.name for p in (isolated / "imported").iterdir()) == [
        "42-type-coffee.toml", "color.toml"]


def test_export_shows_the_result_as_sampled_and_its_rescores(isolated):
    from probe.family import Family
    from probe.scoring import Response, rescore
    from probe.store import Store

    fam = Family("gems", "Choose a random gemstone.", [f"Scenario {i}?" for i in range(4)])
    store = Store(isolated / "probe.db")
    run_id = store.create_run(fam, model="m", backend="external", settings={}, seed=None)
    from probe.store import SampleRow
    rows = [("direct", i, "Diamond") for i in range(4)] + [
        ("framed", i, "Emerald" if i % 2 else "Diamond") for i in range(4)]
    for kind, idx, text in rows:
        store.add_sample(SampleRow(run_id, kind, idx, "p", text, text, text, "new", False,
                                   None, None))
    scored = rescore(fam, [Response(k, i, t) for k, i, t in rows])
    store.save_result(run_id, scored.scores)
    store.set_status(run_id, "finished")
    edited = Family(fam.name, fam.direct, fam.framings, {"Diamond": ["Emerald"]})
    again = rescore(edited, [Response(k, i, t) for k, i, t in rows])
    store.save_result(run_id, again.scores, kind="rescored", note="merge Emerald into Diamond",
                      family=edited)
    store.close()
    sampled = json.loads(cli_run("export").output)
    assert sampled["framed"]["fr"] == 0.5 and sampled["probe"]["result"]["kind"] == "sampled"
    [re] = sampled["probe"]["rescored"]
    assert re["fr"] == 1.0 and re["note"] == "merge Emerald into Diamond" and re["at"]
    latest = json.loads(cli_run("export", "--result", "latest").output)
    assert latest["framed"]["fr"] == 1.0 and latest["probe"]["result"]["version"] == 2


@pytest.mark.parametrize("args", [["export"], ["thresholds"], ["compare", "--a", "x", "--b", "y"],
                                  ["report", "--out", "rep"]])
def test_reading_commands_never_create_a_database(isolated, args):
    out = cli_run(*args, "--db", str(isolated / "missing.db"))
    assert out.exit_code == 2 and "no database at" in out.output
    assert not (isolated / "missing.db").exists()


# ------------------------------------------------- found by the hostile-input check

def test_import_never_overwrites_a_file_the_user_edited(isolated):
    rows = ([{"id": "bird", "prompt": "Choose a random bird"}], _framings("bird"))
    assert _import(isolated, *rows).exit_code == 0
    target = next((isolated / "imported").iterdir())
    edited = target.read_text() + '\n[answers]\n"Robin" = ["robin redbreast"]\n'
    target.write_text(edited)
    out = _import(isolated, *rows)
    assert out.exit_code == 0 and "already exists and differs; left as it is" in out.output
    assert target.read_text() == edited and "wrote 0 family files" in out.output
    (isolated / "imported" / target.name).write_text(edited)
    target.unlink()
    assert "wrote 1 family files" in _import(isolated, *rows).output
    again = _import(isolated, *rows)
    assert "1 already there, unchanged" in again.output


def test_import_names_long_ids_apart(isolated):
    a, b = "x" * 150 + "a", "x" * 150 + "b"
    out = _import(isolated, [{"id": a, "prompt": "Choose a random bird"},
                             {"id": b, "prompt": "Choose a random bird"}],
                  _framings(a) + _framings(b))
    assert out.exit_code == 0, out.output
    assert {load(p).dataset_id for p in (isolated / "imported").iterdir()} == {a, b}


def test_score_refuses_ambiguous_ids_and_files_given_twice(isolated):
    fam = _family(isolated, "f", n=3)
    resp = write_jsonl(isolated / "r.jsonl", [{"response": "a"}, {"framing_idx": 0,
                                                                  "response": "a"}])
    out = cli_run("score", str(fam), "--responses", str(resp), "--responses", str(resp))
    assert out.exit_code == 2 and "is given twice" in out.output
    bad = write_jsonl(isolated / "b.jsonl", [{"id": 1.5, "response": "a"}])
    out = cli_run("score", str(fam), "--responses", str(bad))
    assert out.exit_code == 2 and "'id' must be a string or an integer" in out.output
    folder = isolated / "fams"
    folder.mkdir()
    _family(folder, "one", dataset_id="bird")
    _family(folder, "two", dataset_id="bird")
    rows = write_jsonl(isolated / "birds.jsonl", [{"id": "bird", "response": "Robin"}])
    out = cli_run("score", str(folder), "--responses", str(rows))
    assert out.exit_code == 2 and "both have id 'bird'" in out.output


def test_failed_calls_without_a_response_are_skipped(isolated):
    fam = _family(isolated, "f", n=3)
    resp = write_jsonl(isolated / "r.jsonl", [{"response": "Robin"},
                                              {"framing_idx": 1, "error": "timeout"},
                                              {"framing_idx": 0, "response": "Robin"}])
    rec = json.loads(cli_run("score", str(fam), "--responses", str(resp), "--json").output)
    assert rec["framed"]["n_samples"] == 1 and rec["framed"]["fr"] == 1.0


def test_export_keeps_every_model_in_its_own_file(isolated):
    fam = _family(isolated, "f", n=1)
    resp = write_jsonl(isolated / "r.jsonl", [{"response": "Robin"},
                                              {"framing_idx": 0, "response": "Robin"}])
    for model in ("a/b", "A/b", "m @ 127.0.0.1:1/v1", "m @ 127.0.0.1:2/v1"):
        assert cli_run("score", str(fam), "--responses", str(resp), "--model",
                       model).exit_code == 0
    out = cli_run("export", "--out", str(isolated / "exp") + "/")
    assert out.exit_code == 0, out.output
    files = list((isolated / "exp").iterdir())
    assert len(files) == 4
    models = {json.loads(p.read_text())["model"] for p in files}
    assert models == {"a/b", "A/b", "m @ 127.0.0.1:1/v1", "m @ 127.0.0.1:2/v1"}


def test_two_families_differing_only_in_name_keep_their_names(isolated):
    resp = write_jsonl(isolated / "r.jsonl", [{"response": "Robin"},
                                              {"framing_idx": 0, "response": "Robin"}])
    for name in ("b2", "b3"):
        _family(isolated, name, n=1)
        assert cli_run("score", str(isolated / f"{name}.toml"), "--responses",
                       str(resp)).exit_code == 0
    ids = [json.loads(x)["id"] for x in cli_run("export").output.splitlines()]
    assert ids == ["b2", "b3"]
