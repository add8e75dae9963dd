"""Replies of a few sentences (probe/matching/anchor.py, longreply.py): a reply that commits
to nothing and declines in a sentence of its own is no pick; a hedge conceded before a turn
does not decline; the speaker's commitment counts where clauses side by side only describe;
a phrase that talks to or of the speaker is never a family candidate. Each case is written
in words of its own, not copied from a held-out set."""

from __future__ import annotations

import re

from probe.matching import cluster_answers

PROMPT = "Name a random river."
SHORT = ["Nile", "Danube", "Amazon", "Volga", "Nile"]


def _answers(replies: list[str], prompt: str = PROMPT) -> list[str]:
    """Each reply's canonical answer, or '' for a non-pick, read with the family's short
    replies."""
    out = cluster_answers(replies + SHORT, prompt)[:len(replies)]
    return ["" if m.nonpick else re.sub(r"^the ", "", m.canonical, flags=re.I) for m in out]


def test_a_reply_that_weighs_two_and_declines_is_no_pick():
    replies = [
        "Oh, what a lovely project. The Danube is graceful and the Volga is vast. "
        "Honestly, it comes down to what you're after — there's no wrong answer.",
        "Hmm, tricky! Nile and Amazon each have a great story. Any of them, really.",
        "Great question. Each one has its own charm, so it's hard to say. "
        "The Danube and the Nile are both worth a look.",
    ]
    assert _answers(replies) == ["", "", ""]


def test_a_hedge_conceded_before_a_turn_still_leaves_the_pick():
    replies = [
        "There's no single right answer here, but since you asked, I'll go with the Volga. "
        "It's enormous and quietly beautiful.",
        "Any river would work, honestly. Still, I'd take the Danube for this one.",
    ]
    assert _answers(replies) == ["Volga", "Danube"]


def test_a_refusal_after_a_turn_declines():
    reply = ("That's a kind thing to ask, but I can't really choose a river for you. "
             "Think about what the card needs to say.")
    assert _answers([reply]) == [""]


def test_clauses_side_by_side_describe_options_without_choosing():
    reply = ("That depends on the mood. The Nile is perfect for something ancient, while "
             "the Amazon is the best fit for something wild.")
    assert _answers([reply]) == [""]


def test_the_speaker_commits_with_everyday_verbs():
    replies = [
        "The Amazon is the classic answer and the Nile is popular too. The Volga crossed my "
        "mind, but I'll stick with the Danube.",
        "For a poem about home I'd lean Volga over Nile. It feels gentle.",
        "Nothing beats the Nile for a story like this. It has everything.",
        "I was leaning Amazon at first, but the Danube is the better call here.",
    ]
    assert _answers(replies) == ["Danube", "Volga", "Nile", "Danube"]


def test_a_phrase_speaking_to_the_listener_is_no_answer():
    # Repeated across replies, "Go with your gut" and "Trust your instincts" could pass
    # for a candidate; they address the listener, so they are hedges, not rivers.
    replies = ["I'd rather not pick for you — it's such a personal thing. Trust your instincts!"] * 2 \
        + ["Every river has something going for it, truly. Go with your gut!"] * 2
    assert _answers(replies) == ["", "", "", ""]


def test_an_answer_on_its_own_first_line_is_a_candidate_in_a_family_of_essays():
    body = ("\n\nThat's the short version. The longer one: it carries history and it photographs "
            "well, and nobody argues with it. I also weighed {a} and {b}; both are fine, but "
            "{pick} suits this best.\n\nGood luck!")
    replies = [f"{p}.{body.format(a=a, b=b, pick=p)}" for p, a, b in
               [("Mekong", "Rhine", "Seine"), ("Rhine", "Seine", "Mekong"),
                ("Mekong", "Seine", "Rhine")]]
    assert cluster_answers(replies, PROMPT)[0].answer == "Mekong"
    assert [m.answer for m in cluster_answers(replies, PROMPT)] == ["Mekong", "Rhine", "Mekong"]


def test_a_time_said_in_words_is_the_time_on_the_clock():
    from probe.matching.normalise import normalise

    same = [("eight at night", "8:00 PM"), ("8 in the evening", "20:00"),
            ("two in the morning", "2 a.m."), ("ten o'clock in the morning", "10:00 AM"),
            ("half past four in the afternoon", "4:30 PM"), ("quarter to nine", "8:45"),
            ("eleven pm", "11 PM"), ("twelve at night", "midnight")]
    for spoken, written in same:
        assert normalise(spoken) == normalise(written), (spoken, written)
    assert normalise("eight at night") != normalise("8:00 AM")
    assert normalise("Ocean's 11") != normalise("Ocean's 11:00")


def test_a_name_that_glues_digits_to_letters_is_the_spaced_name():
    from probe.matching.normalise import normalise

    assert normalise("7UP") == normalise("Seven Up")
    assert normalise("4Runner") == normalise("4 Runner")
    assert normalise("1st") == normalise("first")
    assert normalise("1980s") != normalise("1980")


def test_a_short_label_or_a_turn_word_before_a_lone_name_commits():
    replies = [
        "Simple: the Volga. Runner-up is the Nile, and the Amazon deserves a nod.",
        "Oh, there are loads to choose from! Still, the Danube. It just feels right.",
        "Honestly? You can't go wrong with the Amazon for this. It's huge and alive.",
    ]
    assert _answers(replies) == ["Volga", "Danube", "Amazon"]


def test_a_description_after_the_chosen_name_is_not_part_of_it():
    replies = ["Happy to! Go with the Mekong, muddy brown water full of life.",
               "Sure thing. Go with the Mekong, slow-moving near the delta."]
    assert _answers(replies) == ["Mekong", "Mekong"]


def test_praise_in_the_negative_commits_over_a_rival_named_after():
    replies = [
        "Hmm, hard one. You really can't beat the Nile — it has a story for everyone. "
        "(Though Amazon lovers will object!)",
        "Ooh. Honestly, you can't go wrong with the Volga here. (Danube fans, sorry!)",
    ]
    assert _answers(replies) == ["Nile", "Volga"]


def test_a_passing_word_far_from_the_name_does_not_pass_it_over():
    replies = ["I like picks that are lovely without trying too hard, which is why my choice "
               "is Danube. I did briefly consider Volga.",
               "The Nile would be my second choice. The Amazon is the one I'd go with."]
    assert _answers(replies) == ["Danube", "Amazon"]


def test_a_reasoning_models_thinking_is_not_its_answer():
    replies = ["<think>\nHmm, rivers. The Nile is the obvious one. The Amazon is huge. The "
               "Volga, maybe? Let me go with the Danube.\n</think>\n\nDanube",
               "<think>The Nile comes to mind first, but I'd like something calmer.</think>\n"
               "The Volga."]
    assert _answers(replies) == ["Danube", "Volga"]


def test_a_pointer_after_the_name_commits_to_it():
    replies = ["A good river here should be calm and easy to picture. The Nile is grand, but "
               "it might be too obvious. The Danube ticks every box, so that's my pick.",
               "The Amazon is wild and the Nile is old. Of those, the one with the most charm "
               "is the Volga, so that's where I land.",
               "With all that in mind, the Danube makes the most sense here. The Nile is a "
               "close second."]
    assert _answers(replies) == ["Danube", "Volga", "Danube"]


def test_a_pointer_or_a_present_pick_outranks_what_came_before():
    replies = ["I keep picturing the Volga for a story like yours, so let's go with that! Enjoy.",
               "Ha, a week ago I'd have said the Nile. But the Danube is my pick now, honestly."]
    assert _answers(replies) == ["Volga", "Danube"]
