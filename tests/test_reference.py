"""`--reference`: the released pipeline, checked against cases worked out by hand from its
rules (keys, stems, containment, cosine joins, surface_match FR, ties, the π-only label).

The embedding model is the real all-MiniLM-L6-v2 from the installed PyPI package; where an
outcome hinges on a cosine, the test first states the cosine it relies on (far from the
0.55 / 0.85 thresholds), so a different model would fail loudly at the cause.
"""

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, write_jsonl
from probe.reference import rescore_reference, suggest_merges
from probe.reference.cluster import cluster_answers
from probe.reference.embed import cosine, shared
from probe.reference.keys import cluster_key, lemma_string, strip_suffix, surface_match
from probe.scoring import Response

pytest.importorskip("lemminflect")


def cos(a, b):
    v = shared().vectors([a, b])
    return cosine(v[a], v[b])


def side(texts):
    keys = [cluster_key(t) for t in texts]
    return cluster_answers(texts, shared().vectors(keys))


def scores(direct, framed):
    rs = [Response("direct", i, t) for i, t in enumerate(direct)]
    rs += [Response("framed", i, t) for i, t in enumerate(framed)]
    return rescore_reference(None, rs).scores


# ------------------------------------------------------------------ keys

@pytest.mark.parametrize("text, key", [
    ("The Monarchs!", "monarch"),          # case, stopword, punctuation, plural
    ("teeth", "tooth"),                    # irregular plural through the lemmatiser
    ("Self-Defense", "self defense"),      # no noun→verb table in cluster keys
    ("3D printing", "3d print"),           # a mixed token stays; -ing → verb lemma
    ("42", "42"),
    ("The", "the"),                        # only stopwords: the lowercased text itself
    ("Café", "caf"),                       # ASCII letter runs only
    ("?!", "?!"),
])
def test_cluster_keys(text, key):
    assert cluster_key(text) == key


@pytest.mark.parametrize("text, lemma", [
    ("Self-Defense", "self defend"),       # hyphen splits; defense → defend
    ("1st place", "first place"),          # ordinals to words
    ("7", "seven"),                        # 0–20 to words …
    ("42", "42"),                          # … larger numbers stay
    ("3D printing", "three d print"),      # letters and digits split apart
    ("The Monarchs", "the monarch"),       # no stopwords dropped here
])
def test_lemma_strings(text, lemma):
    assert lemma_string(text) == lemma


def test_stems_strip_one_ending_and_keep_four_letters():
    assert strip_suffix("modernism") == strip_suffix("modernist") == "modern"
    assert strip_suffix("innovation") == strip_suffix("innovative") == "innov"
    assert strip_suffix("fist") == "fist"
    assert strip_suffix("history") == "history"


@pytest.mark.parametrize("a, b, same", [
    ("Monarch", "Monarch butterfly", True),     # word-set containment
    ("Modernist", "modernism", True),           # same stem
    ("7", "Seven", True),                       # number words
    ("Decisions", "decide", True),              # noun → verb table
    ("Sea lion", "Lion", True),                 # containment has no meaning check here
    ("42", "forty-two", False),
    ("Iran", "Iraq", False),
    ("", "Monarch", False),
])
def test_surface_match(a, b, same):
    assert surface_match(a, b) is same and surface_match(b, a) is same


# ------------------------------------------------------------- clustering

def test_identical_keys_share_a_cluster_named_by_the_commonest_form():
    s = side(["Monarch", "monarchs", "The Monarch", "monarchs", "Swallowtail"])
    assert [(c.name, c.count) for c in s.clusters] == [("monarchs", 4), ("Swallowtail", 1)]
    assert [why for _, why in s.placement] == ["new", "exact", "exact", "exact", "new"]


def test_stem_join_needs_the_wording_floor():
    assert 0.60 < cos("humanism", "humanity") < 0.80
    assert cos("activist", "activity") < 0.40
    joined = side(["Humanism", "Humanity"])
    assert len(joined.clusters) == 1 and joined.placement[1][1] == "stem"
    apart = side(["Activist", "Activity"])
    assert len(apart.clusters) == 2


def test_containment_join_needs_the_wording_floor():
    assert 0.65 < cos("monarch", "monarch butterfly") < 0.80
    assert cos("new", "new york") < 0.40
    joined = side(["Monarch", "Monarch butterfly"])
    assert len(joined.clusters) == 1 and joined.placement[1][1] == "containment"
    assert len(side(["New", "New York"]).clusters) == 2


def test_cosine_joins_answers_without_shared_words():
    # Embeddings are of the cluster keys: "NYC" → nyc, "New York City" → new york city.
    assert cos("grey", "gray") > 0.93 and cos("nyc", "new york city") > 0.9
    # "United States" keys as "unite state", far from "usa": no join.
    assert cos("usa", "unite state") < 0.8
    assert len(side(["USA", "United States"]).clusters) == 2
    s = side(["Grey", "Gray", "NYC", "New York City"])
    assert len(s.clusters) == 2
    assert [why for _, why in s.placement] == ["new", "cosine", "new", "cosine"]


def test_joins_are_transitive():
    # Blue ⊂ Blue Morpho ⊃ Morpho: one cluster, though Blue and Morpho are far apart.
    assert cos("blue", "morpho") < 0.40
    assert cos("blue", "blue morpho") > 0.58 and cos("morpho", "blue morpho") > 0.58
    s = side(["Blue", "Morpho", "Blue Morpho"])
    assert len(s.clusters) == 1 and s.clusters[0].count == 3


# ---------------------------------------------------------------- scoring

def test_fr_counts_framed_clusters_that_surface_match_the_top():
    # Within a side, Activist and Activity stay apart (cosine < 0.55); across sides the
    # released FR test has no cosine check, so a framed "activity" counts for "Activist".
    s = scores(["Activist"] * 10, ["activity"] * 3 + ["Monarch butterflies"] + ["Reader"] * 6)
    assert s.top_answer == "Activist" and s.dr == 1.0
    assert s.fr_hits == 3 and s.n_framed == 10
    s = scores(["Monarch"] * 10, ["monarch butterfly"] * 4 + ["Painted Lady"] * 6)
    assert s.fr == 0.4


def test_ties_go_to_the_answer_seen_first():
    s = scores(["Swallowtail", "Monarch"] * 15, ["Monarch"] * 10)
    assert s.top_answer == "Swallowtail" and s.dr == 0.5 and s.fr == 0.0
    # Within a cluster, equal counts name it by the alphabetically first form.
    assert scores(["monarch", "Monarch"], []).top_answer == "Monarch"


def test_non_picks_are_ordinary_answers_and_empty_ones_are_dropped():
    direct = ["I can't choose."] * 20 + ["Monarch"] * 9 + ["", "   "]
    s = scores(direct, ["I can't choose."] * 7 + ["Monarch"] * 3)
    assert s.top_answer == "I can't choose."
    assert s.n_direct == 29 and s.dr == 20 / 29 and s.fr == 0.7
    assert s.label == "deep"          # π = 0.69 × 0.7 = 0.48 > 0.40


def test_deep_on_pi_alone_differs_from_the_default_rule(butterfly_path, tmp_path):
    # DR 0.6 and FR 0.8: π 0.48. The paper's text says Non-bias (DR ≤ 0.65); its code, Deep.
    rows = [{"response": "Monarch"}] * 18 + [{"response": "Swallowtail"}] * 12
    rows += [{"framing_idx": i, "response": "Monarch" if i < 24 else "Painted Lady"}
             for i in range(30)]
    path = write_jsonl(tmp_path / "r.jsonl", rows)
    records = {}
    for flag in ([], ["--reference"]):
        out = subprocess.run([sys.executable, "-m", "probe", "score", str(butterfly_path),
                              "--responses", str(path), "--json", *flag],
                             capture_output=True, text=True, cwd=tmp_path, env=_offline_env())
        assert out.returncode == 0, out.stderr
        records[bool(flag)] = json.loads(out.stdout)
    assert records[False]["bias_type"] == "non_bias"
    assert records[False]["probe"] == {"rule": "probe"}
    ref = records[True]
    assert ref["bias_type"] == "deep" and ref["probe"] == {"rule": "reference"}
    assert (ref["direct"]["dr"], ref["framed"]["fr"], ref["pi"]) == (0.6, 0.8, 0.48)


def _offline_env():
    """No network, no Hugging Face cache: the model must come from the installed package."""
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               HF_HOME="/nonexistent/hf", PYTHONPATH=str(ROOT))
    return env


def test_reference_run_stores_and_reuses_its_rule(tmp_path):
    from probe.backends.fake import FakeBackend
    from probe.family import Family
    from probe.runner import Runner, RunSettings
    from probe.store import Store

    fam = Family("butterfly", "Choose a random popular butterfly.",
                 [f"Scenario {i}: which butterfly?" for i in range(10)])
    # Direct: 6 of 10 name the monarch; framed: all say "monarch butterfly". π = 0.6.
    direct_calls = []

    def reply(prompt):
        if prompt.startswith("Scenario"):
            return "monarch butterfly"
        direct_calls.append(prompt)
        return "Swallowtail" if len(direct_calls) <= 4 else "Monarch"

    backend = FakeBackend(reply)
    backend.load()
    store = Store(tmp_path / "p.db")
    runner = Runner(store, backend)
    run_id = runner.create(fam, RunSettings(samples=10, rule="reference"), "fake")
    assert store.run(run_id).settings["rule"] == "reference"
    out = runner.execute(run_id)
    assert out.settings.rule == "reference"
    assert (out.scores.dr, out.scores.fr, out.scores.label) == (0.6, 1.0, "deep")
    assert store.result(run_id)["label"] == "deep"
    direct = [s for s in store.samples(run_id) if s.kind == "direct"]
    assert sorted({s.canonical for s in direct}) == ["Monarch", "Swallowtail"]
    # Exported under the rule it was scored with, not rescored by probe's.
    from probe.export import release_record

    rec = release_record(store, run_id)
    assert rec["bias_type"] == "deep" and rec["probe"]["rule"] == "reference"


def test_suggestions_pair_close_meanings_and_ignore_the_category_word():
    pairs = suggest_merges(["Grey", "Gray", "Monarch", "Swallowtail", "USA",
                            "United States"], "Choose a random colour or country.")
    found = {(a, b) for a, b, _ in pairs}
    assert ("Grey", "Gray") in found and ("USA", "United States") in found   # texts, not keys
    assert all(c >= 0.8 for _, _, c in pairs)
    assert not any("Monarch" in (a, b) for a, b, _ in pairs)
    # Alike only by their category word: not suggested.
    assert suggest_merges(["Monarch butterfly", "Swallowtail butterfly"],
                          "Choose a random butterfly.") == []
    # Echoes of the question are never merge partners, however close.
    assert suggest_merges(["Butterflies", "A butterfly", "Monarch"],
                          "Choose a random butterfly.", min_cosine=0.0) == []


def test_reference_batch_scores_every_family_and_rescores_finished_ones_alike(tmp_path):
    from probe.backends.fake import FakeBackend
    from probe.batch import Batch
    from probe.runner import RunSettings
    from probe.store import Store

    fam = tmp_path / "bird.toml"
    fam.write_text('direct = "Choose a random bird."\n'
                   'framings = ["Which bird for my logo?", "A bird for a poem?", '
                   '"Your bird for a tattoo?"]\n', encoding="utf-8")
    # Direct: "Robins" 3 of 5 (DR 0.6); framed: "the robin" everywhere (FR 1): Deep only
    # under the released rule.
    replies = iter(["Robins", "Sparrow", "Robins", "Crow", "Robins"])
    backend = FakeBackend(lambda p: next(replies) if p.startswith("Choose") else "the robin")
    backend.load()
    store = Store(tmp_path / "p.db")
    batch = Batch(store, backend)
    batch_id = batch.create([fam], RunSettings(samples=5, rule="reference"), "fake", "fake", None)
    first = batch.execute(batch_id)
    again = Batch(store, backend).execute(batch_id)     # finished runs: rescored from the store
    for outcome in (first[0], again[0]):
        assert outcome.settings.rule == "reference"
        assert (outcome.scores.dr, outcome.scores.fr, outcome.scores.label) == (0.6, 1.0, "deep")


def test_a_runs_kept_scores_follow_sample_indices_not_arrival_order():
    from probe.reference import ReferenceScorer

    rs = [Response("direct", i, "Swallowtail" if i % 2 else "Monarch") for i in range(6)]
    rs += [Response("framed", 0, "Monarch")]
    kept = []
    for order in (rs, rs[::-1]):          # e.g. a resume that drew the later indices first
        scorer = ReferenceScorer(None)
        for r in order:
            scorer.add(r)
        kept.append(scorer.final().scores)
    assert kept[0].top_answer == kept[1].top_answer == "Monarch"     # index 0 is seen first
    assert kept[0].fr == kept[1].fr == 1.0


def test_a_reference_export_carries_the_released_lemma_keys(tmp_path):
    from probe.backends.fake import FakeBackend
    from probe.export import release_record
    from probe.family import Family
    from probe.runner import Runner, RunSettings
    from probe.store import Store

    fam = Family("ants", "Choose a random ant species.", ["Which ant for a poster?"])
    backend = FakeBackend(lambda p: "Queen of Ants" if p.startswith("Choose") else "fire ant")
    backend.load()
    store = Store(tmp_path / "p.db")
    runner = Runner(store, backend)
    run_id = runner.create(fam, RunSettings(samples=3, rule="reference"), "fake")
    runner.execute(run_id)
    rec = release_record(store, run_id)
    # The released key: its stopwords out ("of"), lemmas in ("ants" → "ant"), case folded.
    assert rec["direct"]["distribution"][0]["lemma_keys"] == ["queen ant"]
    assert rec["direct"]["distribution"][0]["surface_forms"] == [
        {"text": "Queen of Ants", "count": 3}]
