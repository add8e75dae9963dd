"""Final scores do not depend on the order samples arrive in, and they find the truth."""

import random

from synthetic import families, picks_only, true_scores
from probe.family import Family
from probe.scoring import LiveScorer, Response, rescore


def _outcome(family, responses):
    scored = rescore(family, responses)
    canon = sorted((r.kind, r.idx, m.canonical, m.nonpick) for r, m in scored.matches)
    s = scored.scores
    return canon, s.top_answer, s.dr, s.fr, s.label


def test_shuffled_responses_give_identical_canonical_answers_and_scores():
    rng = random.Random(5)
    for synthetic in families(seed=101, n=40):
        expected = _outcome(synthetic.family, synthetic.responses)
        for _ in range(24):
            shuffled = synthetic.responses[:]
            rng.shuffle(shuffled)
            assert _outcome(synthetic.family, shuffled) == expected, synthetic.family.direct


def test_a_live_run_keeps_order_free_final_scores():
    synthetic = families(seed=202, n=1)[0]
    finals = set()
    for seed in range(6):
        order = synthetic.responses[:]
        random.Random(seed).shuffle(order)
        live = LiveScorer(synthetic.family)
        for r in order:
            live.add(r)
        s = live.final().scores
        finals.add((s.top_answer, s.dr, s.fr, s.label))
    assert len(finals) == 1


def test_synthetic_families_are_scored_as_their_true_answers_say():
    fams = families(seed=303, n=120)
    right = 0
    for synthetic in fams:
        got = picks_only(rescore(synthetic.family, synthetic.responses).matches)
        truth = true_scores(synthetic)
        right += (got.dr, got.fr, got.label) == (truth.dr, truth.fr, truth.label)
    assert right / len(fams) >= 0.95, f"{right}/{len(fams)}"


def test_greedy_order_traps_do_not_change_the_result():
    # A bare form between two qualified forms, typo chains and a declared answer: arrival
    # order decided which way these went when answers were matched one by one.
    family = Family("city", "Choose a random city to visit.", ["f0", "f1"],
                    {"Springfield": []})
    texts = ["Springfield, Illinois", "Springfield", "Springfield, Missouri", "Capuccino",
             "Cappuccino", "Cappucino", "Rome, Italy", "Rome"]
    base = [Response("direct", i, t) for i, t in enumerate(texts)]
    outcomes = set()
    for seed in range(20):
        order = base[:]
        random.Random(seed).shuffle(order)
        outcomes.add(_outcome(family, order)[0].__repr__())
    assert len(outcomes) == 1
