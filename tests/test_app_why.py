"""Issue 17, items 3 and 5: the "why this label" panel (values against thresholds, where the
doubt is, what would settle it), the glossary in help, and the editor speaking in its own
line numbers."""

from __future__ import annotations

import asyncio

from textual.widgets import Input, Static, TextArea

from probe import family as fam_mod
from probe.backends.fake import FakeBackend
from probe.explain import explain
from probe.metrics import label_probabilities, score
from probe.runner import RunSettings
from screens.app import HelpScreen, HomeScreen, make_app
from screens.editor import EditorScreen
from test_app import make
from test_app_control import finished_run


def run(coro):
    return asyncio.run(coro)


def scores(direct, framed):
    return score(["Monarch"] * direct[0] + ["Viceroy"] * direct[1],
                 ["Monarch"] * framed[0] + ["Viceroy"] * framed[1])


def test_a_clear_dr_and_a_doubtful_fr_say_more_reframings_settle_it_and_direct_wont():
    s = scores((29, 1), (6, 4))                      # DR 0.97 clear; π 0.58, FR on 10
    assert not s.settled
    e = explain(s, n_framings=10)
    dr, fr, pi = e.checks
    assert dr.settled and dr.above and not pi.settled
    assert "π straddles its threshold, mostly through FR" in e.doubt
    assert "more direct samples won't help" in e.advice
    more = next(a for a in e.advice if "more reframings would settle FR" in a)
    n = int(more.split()[1].replace(",", ""))
    assert 5 <= n <= 200 and "repeat run" in more
    # The estimate holds: that many more framed picks at FR 0.6 settle the label.
    probs = label_probabilities(29, 30, 6 + round(0.6 * n), 10 + n)
    assert max(probs.values()) >= 0.95
    text = "\n".join(e.lines())
    assert "DR 0.97  95% CI" in text and "> 0.65" in text and "settled" in text
    assert "π  0.58  range" in text and "straddles 0.40" in text


def test_a_settled_label_gives_no_advice_and_a_low_dr_says_fr_cannot_matter():
    e = explain(scores((30, 0), (30, 0)))
    assert e.settled and not e.advice
    low = explain(score(["A"] * 12 + ["B"] * 10 + ["C"] * 8, ["A"] * 5 + ["B"] * 5))
    assert low.label == "non_bias" and "no strong favourite, whatever FR is" in low.reason
    assert low.checks[0].name == "DR" and not low.checks[0].above


def test_the_reference_rule_explains_deep_on_pi_alone():
    s = scores((12, 10), (10, 0))                    # DR 0.55, FR 1.0, π 0.55
    s.label, s.rule = "deep", "reference"            # what the released rule gives
    e = explain(s, rule="reference")
    assert e.reason == "π 0.55 > 0.40 (the released rule needs nothing else for Deep)"


def test_the_why_panel_and_the_line_under_the_badge(isolated):
    fam_mod.save(fam_mod.Family("b", "Choose a random popular butterfly.",
                                [f"Scenario {i}: which?" for i in range(10)]),
                 isolated / "families" / "b.toml")

    def answer(p):
        if p.startswith("Choose"):
            return "Monarch"
        return "Monarch" if int(p.split()[1].rstrip(":")) < 6 else "Viceroy"

    async def go():
        app = make_app(db_path=isolated / "probe.db", backend_factory=lambda spec: (
            FakeBackend(answer), "fake-model"))
        app.run_settings = RunSettings(samples=30, seed=3)
        async with app.run_test(size=(120, 40)) as pilot:
            rs = await finished_run(app, pilot)
            note = str(rs.query_one("#verdict-note", Static).render())
            assert note.startswith("why: DR 1.00 > 0.65 and π 0.60 > 0.40")
            assert "more reframings would settle FR" in note and "(w: more)" in note
            await pilot.press("w")
            assert app.screen.__class__.__name__ == "WhyScreen"
            text = str(app.screen.query_one("#why-text", Static).render())
            assert "FR 0.60  95% CI" in text and "Doubt:" in text
            assert "more direct samples won't help" in text
            await pilot.press("escape", "question_mark")
            assert isinstance(app.screen, HelpScreen)
            w = app.screen.query_one("#glossary", Static)
            glossary = " ".join(s.text for s in w.render_lines(w.region.reset_offset))
            for word in ("DR", "FR", "π", "⊘", "95% CI", "pooled", "reference"):
                assert word in glossary

    run(go())


async def new_family(pilot, framings: str):
    """n on Home, then a family "moths" with these reframings typed in."""
    await pilot.press("n")
    ed = pilot.app.screen
    ed.query_one("#name", Input).value = "moths"
    ed.query_one("#direct", Input).value = "Choose a random moth."
    ed.query_one("#framings", TextArea).text = framings
    await pilot.pause()
    return ed


def test_the_editor_names_duplicates_by_its_own_line_numbers(isolated):
    async def go():
        app = make(isolated, autoload=False)
        async with app.run_test(size=(100, 30)) as pilot:
            # Line 4 repeats line 1; blank lines 2 and 5 are no reframing but keep numbers.
            ed = await new_family(pilot, "Which moth for a card?\n\nWhich moth for a mug?\n"
                                         "which moth  for a card?\n\nWhich moth for a cake?")
            count = str(ed.query_one("#framing-count", Static).render())
            assert "line 4 repeats line 1" in count
            status = str(ed.query_one("#validation", Static).render())
            assert "line 4 duplicates line 1" in status

    run(go())


def test_leaving_the_editor_can_save_first(isolated):
    async def go():
        app = make(isolated, autoload=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await new_family(pilot, "Which moth for a card?")
            await pilot.press("escape")
            assert app.screen.__class__.__name__ == "ConfirmLeave"
            await pilot.press("s")
            assert isinstance(app.screen, HomeScreen)
            assert fam_mod.load(isolated / "families" / "moths.toml").direct == \
                "Choose a random moth."
            # An invalid family cannot be saved: the editor stays, saying why.
            await pilot.press("n")
            app.screen.query_one("#direct", Input).value = "Choose a random bee."
            await pilot.press("escape", "s")
            assert isinstance(app.screen, EditorScreen)

    run(go())


def test_an_unsure_label_names_its_rival_and_non_bias_speaks_only_of_dr():
    # 19 of 29 direct picks, 5 of 29 framed: Shallow, with Non-bias as likely.
    s = score(["Banana"] * 19 + ["Apple"] * 10, ["Banana"] * 5 + ["Apple"] * 24)
    head = explain(s).lines()[0]
    assert head.startswith("Shallow, 49% sure") and "Non-bias 50%" in head
    assert "as likely or likelier" in head
    # Non-bias: DR straddles its threshold, and so does π, which cannot decide it.
    nb = explain(score(["A"] * 12 + ["B"] * 8, ["A"] * 8 + ["B"] * 2))
    assert nb.label == "non_bias" and not nb.settled
    assert nb.doubt == "DR straddles its threshold"
    pi_line = next(line for line in nb.lines() if line.startswith("π"))
    assert "does not decide this label" in pi_line


def test_question_mark_in_the_why_panel_opens_the_glossary(isolated):
    fam_mod.save(fam_mod.Family("b", "Choose a random popular butterfly.",
                                [f"Scenario {i}: which?" for i in range(6)]),
                 isolated / "families" / "b.toml")

    async def go():
        app = make(isolated, backend=FakeBackend("Monarch"))
        app.run_settings = RunSettings(samples=6, seed=1)
        async with app.run_test(size=(80, 24)) as pilot:
            await finished_run(app, pilot)
            await pilot.press("w")
            assert app.screen.__class__.__name__ == "WhyScreen"
            await pilot.press("question_mark")
            await pilot.pause(0.2)
            assert isinstance(app.screen, HelpScreen)
            box = app.screen.query_one("#help-box")
            glossary = app.screen.query_one("#glossary", Static)
            # The glossary is in view, not below the fold.
            assert box.region.y <= glossary.region.y < box.region.bottom
            await pilot.press("escape")
            assert app.screen.__class__.__name__ == "WhyScreen"
            await pilot.press("escape", "question_mark")
            await pilot.pause(0.2)
            assert app.screen.query_one("#help-box").scroll_y == 0    # ? alone: the top

    run(go())
