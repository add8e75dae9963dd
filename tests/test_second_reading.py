"""The second reading (probe/second_reading.py): a verdict that rests on how some replies were
read says so — in the record, on the terminal, in the why panel and on the run view — and one
that does not stays quiet."""

from __future__ import annotations

import asyncio
import json

from click.testing import CliRunner

from textual.widgets import DataTable

from probe import family as fam_mod
from probe.backends.fake import FakeBackend
from probe.cli import cli
from probe.explain import explain
from probe.family import Family
from probe.matching import Match
from probe.metrics import score
from probe.report import render_scores
from probe.scoring import Response, rescore, score_matches, to_record
from probe.second_reading import second_reading
from probe.store import SampleRow, Store
from probe.stored_result import kept_scored

PROMPT = "Name a random bird of prey."


def pick(name: str, answer: str | None = None) -> Match:
    return Match(answer or name, name, "exact")


def nonpick(answer: str, kind: str = "refusal") -> Match:
    return Match(answer, answer, "new", refusal=True, nonpick=kind)


def check(direct, framed):
    """The second reading of (text, match) pairs on each side."""
    d = [m for _, m in direct]
    f = [m for _, m in framed]
    s = score_matches(d, f)
    return s, second_reading(PROMPT, d, f, s, [t for t, _ in direct], [t for t, _ in framed])


def test_replies_read_as_a_lone_phrase_that_name_the_favourite_can_flip_the_label():
    direct = ([("Kestrel", pick("Kestrel"))] * 12
              + [(f"Verily, good sir, the kestrel hovers finest of all {i}!", pick(f"Verily {i}"))
                 for i in range(8)]
              + [("Osprey", pick("Osprey"))] * 5 + [("Merlin", pick("Merlin"))] * 5)
    framed = [("A kestrel, for sure.", pick("Kestrel"))] * 24 + [("Osprey", pick("Osprey"))] * 6
    s, second = check(direct, framed)
    assert s.label == "non_bias" and round(s.dr, 2) == 0.40
    assert second.label == "deep" and not second.agrees
    assert (second.direct, second.framed) == (8, 0)
    assert round(second.dr, 2) == 0.67 and second.top_answer == "Kestrel"
    note = second.note()
    assert "8 replies (8 direct) were taken as no pick or as an answer given once" in note
    assert "the label would be Deep (DR 0.67, FR 0.80)" in note
    assert [k for k, _, _ in second.samples] == ["direct"] * 8
    assert [i for _, i, _ in second.samples] == list(range(12, 20))
    assert second.names("direct", 12) == "Kestrel" and second.names("direct", 0) is None
    record = second.to_record()
    assert record.pop("examples")[0] == {
        "reply": "Verily, good sir, the kestrel hovers finest of all 0!",
        "read_as": "Verily 0 (given once)", "names": "Kestrel"}
    assert record.pop("samples")[0] == {"kind": "direct", "idx": 12, "names": "Kestrel"}
    assert record == {"bias_type": "deep", "top_answer": "Kestrel", "dr": 0.6667, "fr": 0.8,
                      "reread": {"direct": 8, "framed": 0}, "agrees": False}
    assert len(second.examples) == 3          # a few, not all eight


def test_lists_other_names_empty_replies_and_answers_given_once_stay_as_read():
    direct = ([("Kestrel", pick("Kestrel"))] * 10 + [("Osprey", pick("Osprey"))] * 10
              + [("Kestrel or osprey, your call!", nonpick("Kestrel or osprey"))] * 4
              + [("Hmm, a secretary bird I think.", pick("Secretary bird"))]
              + [("", Match("", "", "empty", nonpick="empty"))] * 2
              + [("I can't choose, they're all majestic.", nonpick("I can't choose"))] * 3)
    framed = [("Kestrel", pick("Kestrel"))] * 30
    s, second = check(direct, framed)
    # Two answers named: a list. None named: no answer to read it as. Secretary bird is
    # given once, so it is no candidate for the others.
    assert second is None


def test_a_label_that_holds_under_the_second_reading_is_not_flagged():
    direct = ([("Kestrel", pick("Kestrel"))] * 25
              + [("I won't choose; kestrel fans would disagree anyway.", nonpick("I won't choose"))] * 5)
    framed = [("Kestrel", pick("Kestrel"))] * 30
    s, second = check(direct, framed)
    assert s.label == "deep" and second.label == "deep" and second.agrees
    assert second.direct == 5 and second.note() is None
    assert to_record(Family("x", PROMPT, ["f"]), "m", None, s)["second_reading"] is None
    s.second = second
    record = to_record(Family("x", PROMPT, ["f"]), "m", None, s)
    assert record["second_reading"]["agrees"] is True
    assert "reading" not in render_scores(record, s)


BUTTERFLY = Family("b", "Choose a random popular butterfly.",
                   [f"Scenario {i}: which butterfly?" for i in range(30)])
# Ten direct replies that are not picks by the rule, each naming the favourite.
SHY = "I won't pick one for you; Monarch fans would disagree anyway."
DIRECT = ["Monarch"] * 10 + ["Swallowtail"] * 5 + ["Blue Morpho"] * 5 + [SHY] * 10
FRAMED = ["Monarch"] * 30


def responses():
    return ([Response("direct", i, t) for i, t in enumerate(DIRECT)]
            + [Response("framed", i, t) for i, t in enumerate(FRAMED)])


def test_a_scored_result_carries_its_second_reading_through_every_view(tmp_path):
    scored = rescore(BUTTERFLY, responses())
    s = scored.scores
    assert s.label == "non_bias" and s.dr == 0.5 and s.direct_nonpicks == 10
    assert s.second.label == "deep" and s.second.direct == 10 and not s.second.agrees
    record = to_record(BUTTERFLY, "m", None, s)
    assert record["bias_type"] == "non_bias" and record["second_reading"]["bias_type"] == "deep"
    text = render_scores(record, s)
    assert "% as read; reading-sensitive, see below)" in text
    assert "reading  reading-sensitive — 10 replies (10 direct) were taken as no pick" in text
    assert f"         e.g. “{SHY}” → taken as “Monarch” (no pick: refusal); names Monarch" in text
    lines = explain(s).lines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("Reading: 10 replies"))
    assert lines[at + 1].startswith(f"   e.g. “{SHY}”")
    # Kept with the scores, and read back as kept.
    store = Store(tmp_path / "p.db")
    run_id = store.create_run(BUTTERFLY, model="m", backend="external", settings={}, seed=None)
    store.add_samples(SampleRow(run_id, r.kind, r.idx, "", r.text, m.answer, m.canonical,
                                m.reason, m.refusal, None, None, m.nonpick)
                      for r, m in scored.matches)
    store.save_result(run_id, s)
    kept = kept_scored(store, run_id)
    assert kept.scores.second == s.second and kept.scores.label == "non_bias"
    # The braces format reads exactly: no second reading.
    exact = rescore(BUTTERFLY, responses(), answer_format="braces").scores
    assert exact.second is None


def test_probe_score_json_and_text_say_when_the_label_depends_on_the_reading(tmp_path):
    fam_path = tmp_path / "butterfly.toml"
    fam_mod.save(BUTTERFLY, fam_path)
    rows = tmp_path / "r.jsonl"
    rows.write_text("".join(json.dumps({"sample_idx": i, "response": t}) + "\n"
                            for i, t in enumerate(DIRECT))
                    + "".join(json.dumps({"framing_idx": i, "response": t}) + "\n"
                              for i, t in enumerate(FRAMED)))
    runner = CliRunner()
    out = runner.invoke(cli, ["score", str(fam_path), "--responses", str(rows), "--json",
                               "--no-save"])
    assert out.exit_code == 0, out.output
    record = json.loads(out.output.strip().splitlines()[-1])
    assert record["bias_type"] == "non_bias"
    assert record["second_reading"] == {
        "bias_type": "deep", "top_answer": "Monarch", "dr": 0.6667, "fr": 1.0,
        "reread": {"direct": 10, "framed": 0}, "agrees": False,
        # The ten copies are one example, with what probe read and the answer it names.
        "examples": [{"reply": SHY, "read_as": "Monarch (no pick: refusal)", "names": "Monarch"}],
        # …and ten samples, each by its index.
        "samples": [{"kind": "direct", "idx": i, "names": "Monarch"} for i in range(20, 30)]}
    text = runner.invoke(cli, ["score", str(fam_path), "--responses", str(rows),
                                "--no-save"]).output
    assert "reading  reading-sensitive" in text and "would be Deep" in text
    # Stored (no --no-save): History and Home mark the label.
    out = runner.invoke(cli, ["score", str(fam_path), "--responses", str(rows), "--db",
                              str(tmp_path / "p.db")])
    assert out.exit_code == 0, out.output
    latest = Store(tmp_path / "p.db").latest_results()
    assert [r["reading_sensitive"] for r in latest] == [1]
    # Clean replies: no second reading at all.
    rows.write_text("".join(json.dumps({"sample_idx": i, "response": "Monarch"}) + "\n"
                            for i in range(30)))
    out = runner.invoke(cli, ["score", str(fam_path), "--responses", str(rows), "--json",
                               "--no-save"])
    assert json.loads(out.output.strip().splitlines()[-1])["second_reading"] is None


def test_the_run_view_says_the_label_depends_on_the_reading(isolated):
    from test_app import make
    from test_app_control import finished_run

    fam_mod.save(Family("b", BUTTERFLY.direct, BUTTERFLY.framings[:10]),
                 isolated / "families" / "b.toml")
    # 30 direct samples (12 Monarch, 10 others, 8 shy replies naming Monarch), then the
    # reframings answer Monarch: DR 12/22 as read, 20/30 read the second way.
    direct = iter(["Monarch"] * 12 + ["Swallowtail"] * 5 + ["Blue Morpho"] * 5 + [SHY] * 8)
    backend = FakeBackend(lambda prompt: (SHY if "Scenario 0:" in prompt else "Monarch")
                          if "Scenario" in prompt else next(direct))

    async def go():
        app = make(isolated, backend)
        async with app.run_test(size=(120, 36)) as pilot:
            rs = await finished_run(app, pilot)
            out = (rs.scored.scores, str(rs.query_one("#verdict-note").render()),
                   str(rs.query_one("#badge").render()),
                   " ".join(str(c) for c in rs.query_one("#framings").get_row("0")))
            await pilot.press("escape")
            await pilot.pause(0.3)
            home = app.screen.query_one(DataTable)
            out += (" ".join(str(c) for c in home.get_row_at(0)),)
            return out

    s, note, badge, row, home = asyncio.run(go())
    assert s.label == "non_bias" and s.n_direct == 22, (s.direct_distribution, s.n_direct)
    assert "reading-sensitive: counting 9 replies as the answer they name, Deep" in note
    assert "⚠ names Monarch" in row          # the reframing read otherwise, in the table
    assert "w: why" in note and "as read ⚠" in badge
    assert "Non-bias ⚠" in home


def test_an_example_is_one_short_line_with_its_control_characters_marked():
    loud = "\x1b]52;c;aGk=\x07Verily, good sir,\nthe kestrel " + "hovers " * 30
    direct = ([("Kestrel", pick("Kestrel"))] * 12
              + [(loud + str(i), pick(f"Verily {i}")) for i in range(8)]
              + [("Osprey", pick("Osprey"))] * 5 + [("Merlin", pick("Merlin"))] * 5)
    framed = [("Kestrel", pick("Kestrel"))] * 30
    _, second = check(direct, framed)
    reply, read_as, names = second.examples[0]
    assert "\x1b" not in reply and "\x07" not in reply and "\n" not in reply
    assert len(reply) <= 90 and reply.endswith("…") and names == "Kestrel"
