"""The paper's formats and analyses: import-dataset, export, compare, thresholds,
and batch sweeps (real default model) with resume."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from conftest import write_jsonl
from probe.batch import Batch, breakdown
from probe.backends.fake import FakeBackend
from probe.cli import cli
from probe.family import load
from probe.runner import RunSettings
from probe.store import Store

PROBE = [sys.executable, "-m", "probe"]


def cli_run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def dataset(isolated):
    prompts = write_jsonl(isolated / "prompts.jsonl", [
        {"id": "1847229", "prompt": "Choose a random popular butterfly"},
        {"id": "815099", "prompt": "Choose a random number of apples"},
        {"id": "999", "prompt": "Choose a random nothing"},
    ])
    rows = []
    for pid, subject in (("1847229", "butterfly"), ("815099", "number of apples")):
        for idx in (2, 0, 1):      # out of order on purpose
            rows.append({"id": pid, "framing_idx": idx, "framing":
                         f"Scenario {idx}: which {subject} should I pick?", "extra": "ignored"})
    framings = isolated / "framings.jsonl.gz"
    with gzip.open(framings, "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)
    return prompts, framings


def test_import_dataset_writes_one_family_per_id_in_framing_order(dataset, isolated):
    prompts, framings = dataset
    result = cli_run("import-dataset", "--prompts", str(prompts), "--framings", str(framings),
                     "--out", str(isolated / "imported"))
    assert result.exit_code == 0
    assert "wrote 2 family files" in result.output
    assert "note: id 999" in result.output and "no framings, not imported" in result.output
    fam = load(isolated / "imported" / "1847229-popular-butterfly.toml")
    assert fam.direct == "Choose a random popular butterfly"
    assert [f.split(":")[0] for f in fam.framings] == ["Scenario 0", "Scenario 1", "Scenario 2"]


def test_import_dataset_reports_bad_lines(isolated):
    p = isolated / "p.jsonl"
    p.write_text('{"id": 1}\n')
    f = write_jsonl(isolated / "f.jsonl", [])
    result = cli_run("import-dataset", "--prompts", str(p), "--framings", str(f), "--out", "o")
    assert result.exit_code == 2 and "line 1: missing 'prompt'" in result.output


def score(family_path, direct, framed, model, tmp):
    rows = [{"response": d} for d in direct]
    rows += [{"framing_idx": i, "response": r} for i, r in enumerate(framed)]
    resp = write_jsonl(tmp / f"r-{model}-{family_path.stem}.jsonl", rows)
    out = cli_run("score", str(family_path), "--responses", str(resp), "--model", model,
                  "--json")
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


@pytest.fixture
def two_models(dataset, isolated):
    prompts, framings = dataset
    cli_run("import-dataset", "--prompts", str(prompts), "--framings", str(framings),
            "--out", str(isolated / "imported"))
    bfly = isolated / "imported" / "1847229-popular-butterfly.toml"
    apples = isolated / "imported" / "815099-number-apples.toml"
    # Model A: Monarch deep; apples shallow on 3. Model B: "monarch butterfly" (same answer,
    # other words) deep; apples 7, a different top answer.
    score(bfly, ["Monarch"] * 10, ["Monarch"] * 3, "base-model", isolated)
    score(apples, ["3"] * 9 + ["5"], ["5", "6", "3"], "base-model", isolated)
    score(bfly, ["monarch butterfly"] * 10, ["Monarch", "Monarch", "Viceroy"], "sft-model",
          isolated)
    score(apples, ["seven"] * 10, ["7", "7", "7"], "sft-model", isolated)


def test_export_emits_the_release_schema(two_models, isolated):
    refused = cli_run("export", "--format", "deepbias")
    assert refused.exit_code == 2 and "2 models (base-model, sft-model)" in refused.output
    out = cli_run("export", "--format", "deepbias", "--out", str(isolated / "release"))
    assert out.exit_code == 0, out.output
    files = sorted(p.name for p in (isolated / "release").iterdir())
    assert files == ["base-model.jsonl", "sft-model.jsonl"]
    records = [json.loads(x) for x in (isolated / "release" / "base-model.jsonl")
               .read_text().splitlines()]
    assert len(records) == 2
    for r in records:
        assert list(r) == ["id", "prompt", "model", "direct", "framed", "pi", "bias_type",
                           "probe"]
        assert list(r["direct"]) == ["top_answer", "dr", "n_samples", "n_clusters",
                                     "distribution"]
        assert list(r["framed"]) == ["top_answer", "fr", "n_samples", "n_clusters",
                                     "distribution"]
        for d in r["direct"]["distribution"]:
            assert list(d) == ["answer", "count", "rate", "surface_forms", "lemma_keys"]
            assert all(set(f) == {"text", "count"} for f in d["surface_forms"])
        assert r["bias_type"] in ("deep", "shallow", "non_bias")
        assert r["model"] == "base-model" and r["probe"]["rule"] == "probe"
    bfly = next(r for r in records if r["id"] == "1847229")
    assert bfly["prompt"] == "Choose a random popular butterfly"
    assert bfly["direct"]["top_answer"] == "Monarch"
    apples = next(r for r in records if r["id"] == "815099")
    assert apples["direct"]["dr"] == 0.9 and apples["direct"]["n_clusters"] == 2
    assert apples["framed"]["fr"] == 0.333333      # six decimals, as released
    one = cli_run("export", "--run", "2", "--out", str(isolated / "x.jsonl"))
    assert one.exit_code == 0
    assert len((isolated / "x.jsonl").read_text().splitlines()) == 1
    stdout = cli_run("export", "--model", "sft-model")
    assert [json.loads(x)["model"] for x in stdout.output.splitlines()] == ["sft-model"] * 2


def test_compare_two_models_with_pi_bins(two_models):
    out = cli_run("compare", "--a", "base-model", "--b", "sft-model", "--json")
    result = json.loads(out.output)
    fams = {r["family"]: r for r in result["families"]}
    assert fams["1847229-popular-butterfly"]["same_top"] is True
    assert fams["815099-number-apples"]["same_top"] is False
    assert fams["815099-number-apples"]["label_a"] == "shallow"
    assert fams["815099-number-apples"]["label_b"] == "deep"
    # B's families: butterfly π = 2/3 → bin 0.6–0.7; apples π = 1 → bin 0.9–1.0
    bins = {round(b["pi_low"], 1): b for b in result["bins"]}
    assert bins[0.6]["n"] == 1 and bins[0.6]["same"] == 1
    assert bins[0.9]["n"] == 1 and bins[0.9]["same"] == 0
    table = cli_run("compare", "--a", "base-model", "--b", "sft-model").output
    assert "same top answer, by π of B" in table
    missing = cli_run("compare", "--a", "nobody", "--b", "sft-model")
    assert missing.exit_code == 2 and "no finished runs" in missing.output


def test_thresholds_table(two_models):
    out = cli_run("thresholds", "--json")
    rows = json.loads(out.output)
    assert [round(r["t"], 2) for r in rows][:2] == [0.5, 0.51] and rows[-1]["t"] == 0.86
    assert len(rows) == 37 and {r["rule"] for r in rows} == {"probe"}
    assert all(abs(r["deep"] + r["shallow"] + r["non_bias"] - 1) < 1e-9 for r in rows)
    text = cli_run("thresholds").output
    assert "t²" in text and text.startswith("rule: Deep: DR > t and π > t²")
    assert cli_run("thresholds", "--reference").output.startswith("rule: Deep: π > t² alone")


def test_breakdown_percentages():
    assert breakdown(["deep", "deep", "shallow", "non_bias"]) == {
        "deep": 50.0, "shallow": 25.0, "non_bias": 25.0, "n": 4}


def test_batch_resumes_only_unfinished_families(isolated):
    store = Store(isolated / "probe.db")
    paths = []
    for name in ("a", "b", "c"):
        p = isolated / "families" / f"{name}.toml"
        p.write_text(f'direct = "Choose a random {name}."\nframings = ["S1 {name}?", "S2?"]\n')
        paths.append(p)
    backend = FakeBackend("X", fail_after=7)
    batch = Batch(store, backend)
    batch_id = batch.create(paths, RunSettings(samples=2), "fake", "", None)
    out = batch.execute(batch_id)
    assert [o.status for o in out] == ["finished", "failed", "finished"]
    backend2 = FakeBackend("X")
    again = Batch(store, backend2).execute(batch_id)
    assert [o.status for o in again] == ["finished"] * 3
    assert backend2.calls == 1        # only b's missing sample was drawn
    for r in store.batch_runs(batch_id):
        keys = [(s.kind, s.idx) for s in store.samples(r["id"])]
        assert len(keys) == len(set(keys)) == 4


def test_batch_cli_on_the_default_model_prints_records_and_summary(isolated):
    for name, thing in (("fruit", "fruit"), ("colour", "colour")):
        (isolated / "families" / f"{name}.toml").write_text(
            f'direct = "Choose a random {thing}."\nframings = ["Which {thing} for my card?",'
            f' "Which {thing} for the party?", "Which {thing} should I paint?"]\n')
    out = subprocess.run([*PROBE, "batch", "families", "--samples", "4", "--json"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert [r["family"] for r in lines[:2]] == ["colour", "fruit"]
    summary = lines[-1]["summary"]
    assert summary["n"] == 2
    assert abs(summary["deep"] + summary["shallow"] + summary["non_bias"] - 100) < 0.2
    assert all(len(Store(isolated / "probe.db").samples(r["run_id"])) == 7 for r in lines[:2])
    table = subprocess.run([*PROBE, "batch", "colour", "--samples", "2"], capture_output=True,
                           text=True, timeout=600)
    assert "breakdown over 1 families" in table.stdout and "Non-bias" in table.stdout


def test_transformers_batch_pools_framings_across_families(isolated, tiny_model):
    from probe.backends.hf import TransformersBackend

    paths = []
    for name in ("a", "b", "c"):
        p = isolated / "families" / f"{name}.toml"
        p.write_text(f'direct = "Choose a random {name}."\n'
                     f'framings = ["Which {name} for my card?", "Which {name} to paint?"]\n')
        paths.append(p)
    store = Store(isolated / "probe.db")
    backend = TransformersBackend(tiny_model)
    backend.load()
    calls = []
    real = backend.sample_texts

    def spy(texts, *args, **kwargs):
        calls.append(len(texts))
        return real(texts, *args, **kwargs)

    backend.sample_texts = spy
    batch = Batch(store, backend)
    batch_id = batch.create(paths, RunSettings(samples=3, max_tokens=4), "tiny", "", None)
    outcomes = batch.execute(batch_id)
    assert calls == [6]                     # six framings of three families, one generate
    assert [o.status for o in outcomes] == ["finished"] * 3
    for o in outcomes:
        assert len(store.samples(o.run_id)) == 5
