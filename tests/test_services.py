"""probe/services.py: what the screens ask of the core, usable without the app — a stored
run's result, answer edits re-scored as a new version, drafting, and the typed run options."""

from __future__ import annotations

import subprocess
import sys

import pytest

from probe import family as fam_mod
from probe.backends.fake import FakeBackend
from probe.cli_options import RunOptions, from_params
from probe.errors import BadInput
from probe.runner import Runner, RunSettings
from probe.services import apply_answer_edit, draft_reframings, run_result
from probe.answer_edits import merge
from probe.store import Store
from probe.verdict import framed_lines


def stored_run(isolated, rule="probe"):
    path = isolated / "families" / "b.toml"
    fam_mod.save(fam_mod.Family("b", "Choose a random popular butterfly.",
                                [f"Scenario {i}: which?" for i in range(4)]), path)
    store = Store(isolated / "probe.db")
    backend = FakeBackend(lambda p: "Monarch" if p.startswith("Choose") or "0" in p or "2" in p
                          else "Viceroy")
    backend.load()
    r = Runner(store, backend)
    run_id = r.create(fam_mod.load(path), RunSettings(samples=4, seed=1, rule=rule), "fake")
    r.execute(run_id)
    return store, run_id, path


def test_a_stored_runs_result_is_the_one_the_runner_kept(isolated):
    store, run_id, _ = stored_run(isolated)
    shown = run_result(store, run_id)
    kept = store.result(run_id)
    s = shown.scored.scores
    assert (s.dr, s.fr, s.label, s.top_answer) == (kept["dr"], kept["fr"], kept["label"],
                                                   kept["top_answer"])
    assert [ln.mark for _, ln in sorted(framed_lines(shown.scored).items())] == \
        ["✓", "✗", "✓", "✗"]


def test_an_answer_edit_is_a_new_version_and_the_file_changes_when_asked(isolated):
    store, run_id, path = stored_run(isolated)
    family = run_result(store, run_id).family
    before = store.result_versions(run_id)[0]
    done = apply_answer_edit(store, run_id, family, RunSettings(samples=4),
                             lambda answers, _: merge(answers, "Monarch",
                                                      {"Viceroy": ["Viceroy"]}),
                             "merge Viceroy into Monarch", path)
    assert done.scored.scores.fr == 1.0 and done.version == 2
    assert store.result_versions(run_id)[0] == before               # as sampled, kept
    assert "Viceroy" in fam_mod.load(path).answers["Monarch"]
    assert run_result(store, run_id).scored.scores.fr == 1.0        # shown as re-scored


def test_an_answer_edit_under_the_reference_rule_is_refused(isolated):
    with pytest.raises(BadInput, match="ignores the family's aliases"):
        apply_answer_edit(None, 1, None, RunSettings(rule="reference"), None, "merge")


def test_drafting_needs_a_chat_model_and_a_question():
    with pytest.raises(BadInput, match="chat model"):
        draft_reframings(FakeBackend("x"), "Choose a random moth.")
    chat = FakeBackend("1. Which moth for a birthday card?\n- Which moth for a garden sign?\nok",
                       chat=True)
    chat.load()
    assert draft_reframings(chat, "Choose a random moth.") == [
        "Which moth for a birthday card?", "Which moth for a garden sign?"]
    with pytest.raises(BadInput, match="direct question"):
        draft_reframings(chat, "  ")


def test_run_options_come_from_one_field_list():
    opts = from_params(RunOptions, {"family": "b", "samples": 12, "as_json": True,
                                    "unrelated": 1})
    assert (opts.family, opts.samples, opts.as_json, opts.temperature) == ("b", 12, True, 0.6)
    out = subprocess.run([sys.executable, "-m", "probe", "run", "--help"], capture_output=True,
                         text=True)
    for flag in ("--samples", "--temperature", "--dr-threshold", "--reference", "--db",
                 "--json", "--timeout"):
        assert flag in out.stdout
