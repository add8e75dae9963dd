"""Replies that reason before they answer, and casual ones (probe/matching/longreply.py,
anchor.py, extract.py): a concluding label commits in a reply of any length; a runner-up
named beside the winner is set aside; a remark in the speaker's voice that names one
candidate is its pick; a head before a list labels the list; lower-case prose that speaks
to the listener is no name. Each case is written in words of its own, not copied from a
held-out set."""

from __future__ import annotations

import re

from probe.matching import cluster_answers

PROMPT = "Name a random mountain."
SHORT = ["Everest", "Kilimanjaro", "Denali", "Mont Blanc", "Everest", "Matterhorn"]


def _answers(replies: list[str], prompt: str = PROMPT, short: list[str] = SHORT) -> list[str]:
    out = cluster_answers(replies + short, prompt)[:len(replies)]
    return ["" if m.nonpick else re.sub(r"^the ", "", m.canonical, flags=re.I) for m in out]


_WEIGHING = ("Let me think this through properly before answering. Everest is the obvious "
             "one, though it is crowded these days. Kilimanjaro is lovely, but it is a long "
             "trek for a short card. Denali has real drama to it, and the name is memorable. "
             "Mont Blanc is elegant, if a little expected.\n\n")


def test_a_concluding_label_commits_in_a_long_reply():
    replies = [_WEIGHING + "Hence: Denali.",
               _WEIGHING + "Upshot: Mont Blanc.",
               _WEIGHING + "Takeaway: Kilimanjaro."]
    assert _answers(replies) == ["Denali", "Mont Blanc", "Kilimanjaro"]


def test_an_option_line_of_a_long_reply_is_not_a_conclusion():
    # "Budget: X" lines lay the options out; none of them concludes.
    reply = ("Here are a few ways to think about it for the poster.\n\n"
             "Classic: Everest.\nUnusual: Denali.\nRomantic: Mont Blanc.\n\n"
             "Each of them works; it depends on the mood you're after.")
    assert _answers([reply]) == [""]


def test_a_runner_up_beside_the_winner_is_set_aside():
    reply = (_WEIGHING + "Verdict: Matterhorn, with Denali as a close second.")
    assert _answers([reply]) == ["Matterhorn"]


def test_a_name_stated_only_in_the_conclusion_is_read():
    # "Aconcagua" is no other reply's answer; the conclusion states it.
    reply = (_WEIGHING + "Having weighed all of that, none of those quite fits.\n\n"
             "Decision: Aconcagua.")
    assert _answers([reply]) == ["Aconcagua"]


def test_a_verb_of_the_reasoning_is_not_a_stated_name():
    # "…I wondered which…" names nothing; the heading's answer below it is the pick.
    reply = (_WEIGHING + "Before committing, I wondered which of these I'd still like in a "
             "year. That settled it quickly.\n\n### My pick\n**Denali**")
    assert _answers([reply]) == ["Denali"]


def test_a_remark_in_the_speakers_voice_names_its_pick():
    replies = [
        "Personally I'd steer toward Denali for this. The whole thing looks spectacular.",
        "I keep coming back to the Matterhorn here, honestly. Have a great trip!",
    ]
    assert _answers(replies) == ["Denali", "Matterhorn"]


def test_a_question_back_that_names_options_is_no_pick():
    reply = ("Before I choose: are you after something like Everest, or more like Denali? "
             "Tell me and I'll decide!")
    assert _answers([reply]) == [""]


def test_a_head_before_a_list_labels_the_list():
    replies = ["A few favourites: Everest, Denali, Matterhorn. Your call!",
               "some classics: Mont Blanc, Kilimanjaro, Everest"]
    assert _answers(replies) == ["", ""]


def test_lower_case_advice_to_the_listener_is_no_name():
    replies = ["Pick whatever you like — trust your instincts!",
               "Honestly just follow your heart"]
    assert _answers(replies) == ["", ""]


def test_a_title_that_speaks_to_the_listener_is_still_a_name():
    short = ["Your Name", "Spirited Away", "Your Name", "Akira"]
    assert _answers(["Your Name"], "Name a random anime film.", short) == ["Your Name"]


def test_a_sentence_about_what_would_help_is_no_answer():
    reply = "Before I choose — what sort of trip is it? That'd help loads!"
    assert _answers([reply]) == [""]


_REASONING = ("Hmm, let me think. Everest is the famous one, but it feels a bit expected. "
              "Kilimanjaro? Lovely, though a long way off for this. And Denali? It is wild, "
              "remote and unforgettable, and it suits a story about getting away. ")


def test_the_closing_line_of_reasoning_names_its_verdict():
    replies = [_REASONING + "So — Denali.",
               _REASONING + "Denali by a nose.",
               _REASONING + "Easy call, then: Denali. Have a lovely trip!",
               _REASONING + "Mm. Still Denali.\n\nHope that helps!"]
    assert _answers(replies) == ["Denali"] * 4


def test_a_closing_verdict_may_name_what_no_other_reply_gave():
    reply = ("Okay, thinking aloud. Everest is too obvious. Aconcagua is the tallest outside "
             "Asia and far less talked about, which I like. Denali is lovely too, but cold. "
             "Yep: Aconcagua.")
    assert _answers([reply]) == ["Aconcagua"]


def test_a_sign_off_or_a_remark_after_the_pick_is_no_verdict():
    replies = [
        "Tough one! Everest is iconic, but for a quiet poem I'd go with Mont Blanc. Cheers!",
        "I'd pick Denali for this. Everest is a fine backup, of course — Everest rarely "
        "disappoints.",
        _REASONING + "Verdict: Denali.\n\nAlso worth considering: Kilimanjaro.",
    ]
    assert _answers(replies) == ["Mont Blanc", "Denali", "Denali"]


def test_a_base_models_run_on_after_its_answer_is_no_verdict():
    reply = ("Matterhorn, in my view — the most photogenic peak there is, and one people "
             "recognise at a glance.\nQ: Name a random colour.\nA: Teal")
    assert _answers([reply]) == ["Matterhorn"]


def test_a_reply_that_reasons_and_then_declines_has_no_verdict():
    reply = (_REASONING + "Kilimanjaro: warm. Denali: wild.\n\n"
             "Honestly, it depends on the story you want to tell.")
    assert _answers([reply]) == [""]


def test_going_with_a_name_commits_and_a_gerund_title_does_not():
    replies = [_REASONING + "Going with Kilimanjaro, after all that.",
               "# Choosing a mountain\n\n" + _REASONING + "Still, I'd pick Everest."]
    assert _answers(replies) == ["Kilimanjaro", "Everest"]


def test_a_take_back_names_the_last_word():
    replies = ["Let's say Everest — actually no, Denali! It's wilder.",
               "I'll pick Kilimanjaro. Hold on, let me think again... yes, Kilimanjaro, final "
               "answer.",
               "Yesterday I'd have gone for Everest. Now? Mont Blanc, since it is prettier."]
    assert _answers(replies) == ["Denali", "Kilimanjaro", "Mont Blanc"]


def test_a_winner_that_edges_out_a_rival_is_the_pick():
    replies = ["Close call, but Matterhorn edges out Mont Blanc for a postcard.",
               "Honestly? Denali beats Everest for this one, easily."]
    assert _answers(replies) == ["Matterhorn", "Denali"]


def test_everyday_verbs_of_taking_commit():
    replies = ["Ooh, I'd grab Kilimanjaro for a story like that. Happy to give more ideas! "
               "Want another?"]
    assert _answers(replies) == ["Kilimanjaro"]


def test_reasoning_that_ends_undecided_is_no_pick():
    replies = [
        _REASONING + "I keep going back and forth, and I honestly can't settle on one here.",
        _REASONING + "Which matters more to you, height or remoteness? Tell me and I'll choose.",
        _REASONING + "In the end I'd narrow it down to Denali or Everest, and I'd be content "
        "with either.",
        _REASONING + "So it really depends on what the story needs.",
    ]
    assert _answers(replies) == ["", "", "", ""]


def test_casual_openers_are_not_the_answer():
    replies = ["Okayyy I'm going with Denali and that's final",
               "Hot take: Matterhorn. Nothing else comes close, fight me",
               "ngl Kilimanjaro, it's just so iconic lol"]
    assert _answers(replies) == ["Denali", "Matterhorn", "Kilimanjaro"]


def test_the_one_option_not_put_second_is_the_pick():
    # Everest is an answer of two other replies.
    replies = ["**Everest**, honestly such a mood! Denali is a fun runner-up though.",
               "Everest, every single time, no contest. Mont Blanc would be my backup."]
    assert _answers(replies) == ["Everest", "Everest"]
