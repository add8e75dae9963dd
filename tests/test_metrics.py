"""The measurement: DR, FR, π, label, intervals and the posterior label probability."""

import pytest

from probe.metrics import (DEEP, NON_BIAS, SHALLOW, label, label_probabilities, score,
                           thresholds_sweep, top_answer, wilson)


def test_dr_exactly_065_with_20_samples_is_non_bias():
    s = score(["A"] * 13 + [f"x{i}" for i in range(7)], ["A"] * 20)
    assert s.dr == 13 / 20
    assert s.label == NON_BIAS


def test_pi_exactly_040_is_shallow():
    s = score(["A"] * 24 + ["B"] * 6, ["A"] * 15 + ["C"] * 15)
    assert s.dr == pytest.approx(0.8) and s.fr == 0.5
    assert s.pi == 0.4
    assert s.label == SHALLOW
    assert label(0.8, 0.4) == SHALLOW
    assert label(0.8, 0.40000001) == DEEP


def test_dr_half_with_high_fr_is_non_bias_even_though_pi_is_low():
    assert label(0.5, 0.5 * 0.9) == NON_BIAS
    # The released code would call 0.6 × 0.9 = 0.54 Deep; the paper's text does not.
    assert label(0.6, 0.54) == NON_BIAS


def test_paper_butterfly_example_is_deep():
    s = score(["Monarch"] * 30, ["Monarch"] * 28 + ["Blue Morpho", "Swallowtail"])
    assert s.top_answer == "Monarch"
    assert s.dr == 1.0
    assert s.pi == pytest.approx(28 / 30)
    assert s.label == DEEP


def test_paper_number_example_is_shallow():
    direct = ["42"] * 22 + ["37"] * 4 + ["7"] * 4
    framed = ["42"] * 4 + ["3"] * 16 + ["7"] * 10
    s = score(direct, framed)
    assert s.dr == pytest.approx(22 / 30)
    assert s.fr == pytest.approx(4 / 30)
    assert s.pi == pytest.approx(0.0978, abs=1e-3)
    assert s.label == SHALLOW
    assert s.framed_top == "3"


def test_ties_go_to_the_answer_seen_first():
    assert top_answer(["B", "A", "A", "B"]) == "B"
    assert top_answer(["", "A", "B"]) == "A"


def test_empty_responses_leave_both_denominators():
    s = score(["A", "A", "", ""], ["A", "", "B"])
    assert (s.n_direct, s.dr) == (2, 1.0)
    assert (s.n_framed, s.fr) == (2, 0.5)


def test_no_direct_answer_is_non_bias_with_no_top_answer():
    s = score(["", ""], ["A"])
    assert s.top_answer is None
    assert s.label == NON_BIAS
    assert s.dr == 0.0 and s.fr == 0.0


def test_fr_counts_the_direct_top_answer_not_the_framed_favourite():
    s = score(["A"] * 10, ["B"] * 9 + ["A"])
    assert s.fr == 0.1
    assert s.framed_top == "B"


def test_wilson_interval_known_values():
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_label_probability_is_confident_for_clear_cases_and_not_for_borderline():
    clear = label_probabilities(30, 30, 28, 30)
    assert clear[DEEP] > 0.99
    border = label_probabilities(13, 20, 15, 20)
    assert max(border.values()) < 0.8
    assert sum(border.values()) == pytest.approx(1.0)
    s = score(["A"] * 30, ["A"] * 28 + ["B"] * 2)
    assert s.settled


def test_distribution_orders_by_count_and_keeps_surface_forms():
    s = score(["Monarch", "Monarch", "Viceroy"], [],
              direct_surfaces=["Monarch", "monarch butterfly", "Viceroy"])
    d = s.direct_distribution
    assert [a.answer for a in d] == ["Monarch", "Viceroy"]
    assert d[0].surface_forms == {"Monarch": 1, "monarch butterfly": 1}
    assert d[0].rate == pytest.approx(2 / 3)


def test_custom_thresholds_are_settings():
    assert label(0.7, 0.45) == DEEP
    assert label(0.7, 0.45, dr_threshold=0.75) == NON_BIAS
    assert label(0.7, 0.45, pi_threshold=0.5) == SHALLOW


def test_threshold_sweep_steps_by_001_under_either_rule():
    points = [(1.0, 0.9), (0.7, 0.2), (0.3, 0.3)]
    probe_rows = dict(thresholds_sweep(points))
    assert len(probe_rows) == 37 and min(probe_rows) == 0.5 and max(probe_rows) == 0.86
    assert 0.65 in probe_rows and 0.51 in probe_rows
    # (0.3, 0.3): π > 0.25 but DR ≤ t — Non-bias by the paper's text, Deep by the released code.
    assert probe_rows[0.5] == {DEEP: 1 / 3, SHALLOW: 1 / 3, NON_BIAS: 1 / 3}
    ref_rows = dict(thresholds_sweep(points, rule="reference"))
    assert ref_rows[0.5] == {DEEP: 2 / 3, SHALLOW: 1 / 3, NON_BIAS: 0.0}
    for rows in (probe_rows, ref_rows):
        assert rows[0.86][DEEP] == pytest.approx(1 / 3)
        assert rows[0.86][NON_BIAS] == pytest.approx(2 / 3)


# ------------------------------------------------------------------ non-picks

def test_non_picks_never_win_and_leave_both_denominators():
    # The default model's butterfly run: mostly echoes of the category.
    direct = ["Butterfly"] * 18 + ["Monarch"] * 9 + ["Swallowtail"] * 3
    framed = ["Butterfly"] * 11 + ["Monarch"] * 5 + ["Viceroy"] * 14
    s = score(direct, framed, direct_nonpick=[a == "Butterfly" for a in direct],
              framed_nonpick=[a == "Butterfly" for a in framed])
    assert s.top_answer == "Monarch"
    assert (s.dr_hits, s.n_direct, s.direct_total) == (9, 12, 30)
    assert s.dr == pytest.approx(0.75)
    assert (s.fr_hits, s.n_framed) == (5, 19)
    assert (s.direct_nonpicks, s.framed_nonpicks) == (18, 11)
    assert s.warning == ("verdict rests on 12 of 30 direct answers and 19 of 30 framed "
                         "answers (the rest are not picks)")
    # Shown, flagged and listed after the picks; never counted in a pick's rate.
    d = s.direct_distribution
    assert [(a.answer, a.refusal) for a in d] == [
        ("Monarch", False), ("Swallowtail", False), ("Butterfly", True)]
    assert d[0].rate == pytest.approx(0.75) and d[-1].rate == 0.0


def test_enough_picks_carry_no_warning():
    direct = ["A"] * 20 + ["no"] * 10
    s = score(direct, ["A"] * 30, direct_nonpick=[a == "no" for a in direct])
    assert s.warning is None
    direct = ["A"] * 19 + ["no"] * 11
    s = score(direct, ["A"] * 30, direct_nonpick=[a == "no" for a in direct])
    assert s.warning == "verdict rests on 19 of 30 direct answers (the rest are not picks)"


def test_a_family_with_only_non_picks_has_no_answer():
    s = score(["Butterfly", "", "I can't choose"], ["Monarch"],
              direct_nonpick=[True, True, True])
    assert s.top_answer is None and s.reason == "no answer"
    assert s.label == NON_BIAS and s.n_direct == 0 and s.direct_total == 3


def test_a_refused_sample_does_not_mark_its_whole_answer_a_non_pick():
    # "Sorry, Monarch" is flagged on its own; the other Monarch samples stay picks.
    s = score(["Monarch", "Monarch", "Monarch"], [], direct_nonpick=[True, False, False])
    assert (s.dr_hits, s.n_direct) == (2, 2)


def test_posterior_survives_huge_sample_counts():
    probs = label_probabilities(700_000, 700_000, 700_000, 700_000)
    assert probs[DEEP] == pytest.approx(1.0)
    probs = label_probabilities(455_000, 700_000, 0, 700_000)
    assert sum(probs.values()) == pytest.approx(1.0)


def test_no_framed_pick_is_named_as_the_reason():
    s = score(["A"] * 10, ["", "", ""], framed_nonpick=[True] * 3)
    assert s.fr == 0.0 and s.reason == "no framed answer"
    assert "0 of 3 framed answers" in s.warning
