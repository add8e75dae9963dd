"""Replies in a character's voice and a model's habits of phrasing (probe/matching/extract.py,
anchor.py, words.py): a term of address set off by a comma is the listener, not the answer;
a refusal in dialect is still a refusal; a reply made of another reply's frame around
something else answers that something. Each case is written in words of its own, not copied
from a held-out set."""

from __future__ import annotations

from probe.matching import cluster_answers
from probe.matching.extract import read

PROMPT = "Name a planet."
SHORT = ["Jupiter", "Saturn", "Jupiter", "Mars", "Neptune"]


def _answers(replies: list[str], prompt: str = PROMPT, short: list[str] = SHORT) -> list[str]:
    out = cluster_answers(replies + short, prompt)[:len(replies)]
    return ["" if m.nonpick else m.canonical for m in out]


def test_the_listener_named_after_a_comma_is_not_part_of_the_answer():
    replies = ["Saturn, darling. Those rings never go out of style.",
               "We're charting a course for Neptune, my friend.",
               "Mars, ye bilge rat!",
               "JUPITER, CADET! ANY QUESTIONS?"]
    assert _answers(replies) == ["Saturn", "Neptune", "Mars", "Jupiter"]


def test_an_opening_that_only_calls_the_listener_is_passed_over():
    replies = ["Oh honey, Jupiter, obviously. Now eat your vegetables.",
               "Listen, kiddo, it's Saturn.",
               "Well buddy, I reckon Mars."]
    assert _answers(replies) == ["Jupiter", "Saturn", "Mars"]


def test_a_word_of_address_that_is_the_whole_answer_stays_a_name():
    assert read("Baby").first.answer == "Baby"
    assert read("Sir Duke").first.answer == "Sir Duke"
    assert read("Honey, I Shrunk the Kids").first.answer.startswith("Honey")


def test_a_refusal_in_dialect_is_no_pick():
    replies = ["I'll not be pickin' one fer ye, matey. Every sailor charts his own stars!",
               "I shan't be choosing, dear. They're all lovely."]
    assert _answers(replies) == ["", ""]


def test_a_reply_made_of_another_replys_frame_answers_what_fills_it():
    prompt = "What's the best movie of all time?"
    short = ["Alien", "Alien", "Heat", "Alien"]
    replies = ["crown alien and thank me later",
               "crown the big lebowski and thank me later",
               "crown heat and thank me later"]
    assert _answers(replies, prompt, short) == ["Alien", "the big lebowski", "Heat"]



def test_a_sentence_that_leads_in_with_a_colon_names_what_follows():
    replies = ["After three sleepless nights I knew the answer: Neptune.",
               "A few favourites: Mars, Venus and Saturn."]
    assert _answers(replies) == ["Neptune", ""]


def test_the_speaker_asked_back_leads_in_to_the_answer():
    assert _answers(["Me? Saturn. Always."]) == ["Saturn"]


def test_texting_interjections_are_voice_not_options():
    assert _answers(["saturn, duh", "mars ftw", "neptune istg"]) == ["Saturn", "Mars", "Neptune"]


def test_a_name_put_second_after_but_is_not_the_pick():
    assert _answers(["ok neptune, but saturn is a close second"]) == ["Neptune"]


def test_the_live_view_learns_a_frame_as_replies_arrive():
    from probe.matching import Canonicalizer

    live = Canonicalizer("What's the best movie of all time?")
    for reply in ["Alien", "Alien", "crown alien and thank me later"]:
        live.add(reply)
    assert live.add("crown the big lebowski and thank me later").answer == "the big lebowski"


def test_a_stage_direction_is_the_characters_action_not_the_answer():
    replies = ["*adjusts monocle* Saturn, naturally.",
               "*yawns and stretches* mm... jupiter. wake me later.",
               "(taps the telescope) Neptune, without a doubt.",
               "I'd pick *Mars*"]
    assert _answers(replies) == ["Saturn", "Jupiter", "Neptune", "Mars"]


def test_a_clause_after_a_comma_is_not_part_of_the_name():
    assert _answers(["Go with Saturn, trust me.", "Neptune, bless it."]) == ["Saturn", "Neptune"]
