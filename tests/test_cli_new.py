"""`probe new`: a direct question → a drafted family file (→ a verdict with --run), and the
drafting record carried into stored runs, JSON records and exports."""

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from conftest import write_jsonl
from probe import family as fam_mod
from probe.cli import cli
from probe.store import Store


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_new_writes_a_valid_family_and_prints_its_path(isolated):
    result = run("new", "Choose a random popular butterfly.", "--seed", "3")
    assert result.exit_code == 0, result.output
    path = Path(result.stdout.strip())
    assert path == isolated / "families" / "popular-butterfly.toml"
    fam = fam_mod.load(path)
    assert fam.name == "popular butterfly" and fam.direct == "Choose a random popular butterfly."
    assert len(fam.framings) == 30
    assert fam.drafted.seed == 3 and fam.drafted.category == "popular butterfly"
    # The same seed drafts the same framings; the first file is never replaced.
    again = run("new", "Choose a random popular butterfly.", "--seed", "3")
    second = Path(again.stdout.strip())
    assert second.name == "popular-butterfly-2.toml"
    assert fam_mod.load(second).framings == fam.framings
    assert fam_mod.load(path).name == "popular butterfly"


def test_new_with_a_name_and_a_count(isolated):
    result = run("new", "Pick a number between 1 and 100.", "--framings", "12", "--name",
                 "numbers quick", "--seed", "1")
    assert result.exit_code == 0, result.output
    path = Path(result.stdout.strip())
    assert len(fam_mod.load(path).framings) == 12
    before = path.read_text()
    taken = run("new", "Pick a fruit.", "--name", "numbers quick")
    assert taken.exit_code == 2
    assert "already exists" in taken.stderr and len(taken.stderr.strip().splitlines()) == 1
    assert path.read_text() == before


def test_a_question_it_cannot_read_asks_for_the_category(isolated):
    result = run("new", "Why is the sky blue?")
    assert result.exit_code == 2
    assert "--category" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not list((isolated / "families").glob("*.toml"))      # no broken family
    result = run("new", "Why is the sky blue?", "--category", "shade of blue", "--seed", "2")
    assert result.exit_code == 0, result.output
    assert fam_mod.load(result.stdout.strip()).drafted.category == "shade of blue"


def test_bad_input_is_one_sentence(isolated):
    for args, words in [(("Pick a fruit.", "--model", "x"), "--model only applies with --run"),
                        (("Pick a fruit.", "--json"), "--json only applies with --run"),
                        (("Pick a fruit.", "--framings", "0"), "at least 1"),
                        (("Pick a fruit.", "--framings", "500"), "templates fit"),
                        (("   ",), "the direct question is empty")]:
        result = run("new", *args)
        assert result.exit_code == 2, args
        assert words in result.stderr and "Traceback" not in result.output


def test_the_drafting_record_travels_with_runs_records_and_exports(isolated):
    path = Path(run("new", "Choose a random gemstone.", "--seed", "5",
                    "--framings", "10").stdout.strip())
    rows = [{"response": "Ruby"} for _ in range(10)]
    rows += [{"framing_idx": i, "response": "Ruby" if i % 2 else "Emerald"} for i in range(10)]
    responses = write_jsonl(isolated / "r.jsonl", rows)
    result = run("score", str(path), "--responses", str(responses), "--json")
    record = json.loads(result.stdout)
    drafted = record["probe"]["drafted"]
    assert drafted["method"] == "templates" and drafted["seed"] == 5
    assert drafted["templates"] == fam_mod.load(path).drafted.templates
    store = Store(isolated / "probe.db")
    snapshot = store.family(store.run(record["run_id"]).family_id)
    assert snapshot.drafted == fam_mod.load(path).drafted
    text = run("score", str(path), "--responses", str(responses)).stdout
    assert "all 10 framings drafted from templates (category 'gemstone', seed 5)" in text
    exported = json.loads(run("export", "--run", str(record["run_id"]), "--format",
                              "deepbias").stdout)
    assert exported["probe"]["drafted"]["category"] == "gemstone"


def test_new_run_prints_the_verdict_on_the_default_model(isolated):
    """The one-step path on the real default model: path on stderr, record on stdout."""
    out = subprocess.run([sys.executable, "-m", "probe", "new",
                          "Choose a random popular butterfly.", "--run", "--samples", "10",
                          "--framings", "10", "--seed", "1", "--json"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert record["family"] == "popular butterfly" and record["bias_type"] in (
        "deep", "shallow", "non_bias")
    assert record["probe"]["drafted"]["seed"] == 1 and record["seed"] == 1
    assert str(isolated / "families" / "popular-butterfly.toml") in out.stderr
    assert len(Store(isolated / "probe.db").samples(record["run_id"])) == 20


def test_new_run_says_its_settings_why_and_that_the_apps_settings_are_not_its(isolated):
    """The text verdict names the settings used (the command line's own defaults), why the
    label is what it is and what would settle it; the app's saved settings, where they
    differ, are named as not used."""
    (isolated / "config").mkdir()
    (isolated / "config" / "settings.json").write_text(json.dumps(
        {"run": {"temperature": 0.9, "samples": 10}}))
    out = subprocess.run([sys.executable, "-m", "probe", "new", "Choose a random gemstone.",
                          "--run", "--samples", "4", "--framings", "4", "--seed", "2"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    lines = {line[:8].strip(): line[9:] for line in out.stdout.splitlines() if line[:1] != " "}
    assert lines["settings"].startswith("N 4 · T 0.6 · rule probe")
    assert "answer format words" in lines["settings"] and "seed 2" in lines["settings"]
    assert lines["why"]
    posterior = int(lines["label"].split("posterior ")[1].split("%")[0])
    assert posterior >= 95 or "would settle" in lines["settle"] or "won't" in lines["settle"]
    assert "T 0.9" in lines["note"] and "N 10" in lines["note"]
    assert "own options and their defaults" in lines["note"]
