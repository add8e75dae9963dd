"""The runner: interleaving, commit per sample, resume, cancel, quick check, failures."""

import threading

import pytest

from probe.backends.fake import FakeBackend
from probe.family import Family
from probe.runner import (RunCancelled, RunFailedEvent, RunFinished, Runner, RunSettings,
                          SampleDrawn)
from probe.store import Store


def family(n=10):
    return Family("butterfly", "Choose a random popular butterfly.",
                  [f"Scenario {i}: which butterfly?" for i in range(n)])


def start(store, backend, settings, events=None, fam=None):
    runner = Runner(store, backend, on_event=(events.append if events is not None else None))
    backend.load()
    run_id = runner.create(fam or family(), settings, "fake-model")
    return runner, run_id


def test_interleaves_and_commits_every_sample(tmp_path):
    store = Store(tmp_path / "p.db")
    events = []
    runner, run_id = start(store, FakeBackend("Monarch"), RunSettings(samples=6), events)
    out = runner.execute(run_id)
    kinds = [e.kind for e in events if isinstance(e, SampleDrawn)]
    # Proportional interleaving: 6 direct and 10 framed are spread through the run.
    assert kinds[:2] == ["direct", "framed"]
    assert kinds[:8].count("direct") == 3 and kinds[-4:].count("direct") >= 1
    assert out.status == "finished" and out.scores.label == "deep"
    assert isinstance(events[-1], RunFinished)
    assert len(store.samples(run_id)) == 16
    assert store.result(run_id)["label"] == "deep"


def test_scores_follow_from_stored_samples(tmp_path):
    store = Store(tmp_path / "p.db")
    backend = FakeBackend(lambda p: "Monarch" if p.startswith("Choose") else "Viceroy")
    runner, run_id = start(store, backend, RunSettings(samples=5))
    out = runner.execute(run_id)
    assert (out.scores.dr, out.scores.fr, out.scores.label) == (1.0, 0.0, "shallow")


def test_cancel_then_resume_draws_only_what_is_missing(tmp_path):
    store = Store(tmp_path / "p.db")
    events = []
    backend = FakeBackend("Monarch", delay=0.01)
    runner, run_id = start(store, backend, RunSettings(samples=10), events)

    def stop_after_some(e):
        events.append(e)
        if isinstance(e, SampleDrawn) and e.done == 7:
            runner.cancel()

    runner.on_event = stop_after_some
    out = runner.execute(run_id)
    assert out.status == "cancelled" and isinstance(events[-1], RunCancelled)
    assert store.run(run_id).status == "cancelled"
    before = {(s.kind, s.idx): s.response for s in store.samples(run_id)}
    assert len(before) == 7

    backend2 = FakeBackend("Monarch")
    out2 = Runner(store, backend2).execute(run_id)
    assert out2.status == "finished"
    after = store.samples(run_id)
    keys = [(s.kind, s.idx) for s in after]
    assert len(keys) == len(set(keys)) == 20
    assert backend2.calls == 13
    assert all(before[k] == s.response for s in after if (k := (s.kind, s.idx)) in before)


def test_quick_check_stops_once_settled(tmp_path):
    store = Store(tmp_path / "p.db")
    runner, run_id = start(store, FakeBackend("Monarch"), RunSettings(samples=30, quick=True),
                           fam=family(30))
    out = runner.execute(run_id)
    assert out.stopped_early and out.scores.label == "deep"
    assert 20 <= out.samples_used < 60
    assert out.scores.n_direct >= 10 and out.scores.n_framed >= 10


def test_quick_check_keeps_sampling_a_borderline_family(tmp_path):
    store = Store(tmp_path / "p.db")
    direct = iter(["Monarch", "Monarch", "Viceroy"] * 10)     # DR ≈ 0.67: on the line
    framed = iter(["Monarch", "Comma"] * 15)

    def reply(prompt):
        return next(direct) if prompt.startswith("Choose") else next(framed)

    runner, run_id = start(store, FakeBackend(reply),
                           RunSettings(samples=30, quick=True), fam=family(30))
    out = runner.execute(run_id)
    assert not out.stopped_early and out.samples_used == 60


def test_backend_crash_marks_the_run_failed_and_keeps_samples(tmp_path):
    store = Store(tmp_path / "p.db")
    events = []
    runner, run_id = start(store, FakeBackend("Monarch", fail_after=5), RunSettings(samples=5),
                           events)
    out = runner.execute(run_id)
    assert out.status == "failed" and "scripted failure" in out.error
    assert isinstance(events[-1], RunFailedEvent)
    assert store.run(run_id).status == "failed"
    assert len(store.samples(run_id)) == 5


def test_settings_are_validated():
    with pytest.raises(Exception, match="--samples"):
        RunSettings(samples=0).validate()
    with pytest.raises(Exception, match="--temperature"):
        RunSettings(temperature=-1).validate()


def test_cancel_from_another_thread_is_prompt(tmp_path):
    store = Store(tmp_path / "p.db")
    runner, run_id = start(store, FakeBackend("Monarch", delay=0.2), RunSettings(samples=30))
    timer = threading.Timer(0.3, runner.cancel)
    timer.start()
    out = runner.execute(run_id)
    assert out.status == "cancelled" and out.samples_used <= 3


def test_a_sample_cut_short_by_cancel_is_not_stored(tmp_path):
    store = Store(tmp_path / "p.db")
    runner, run_id = start(store, FakeBackend("Monarch", delay=1.0), RunSettings(samples=5))
    timer = threading.Timer(1.5, runner.cancel)       # mid-way through the second sample
    timer.start()
    out = runner.execute(run_id)
    assert out.status == "cancelled"
    assert len(store.samples(run_id)) == 1
