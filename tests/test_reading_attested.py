"""Casual replies read against the answers other replies give (probe/matching/anchor.py,
extract.py, knowledge.py): a reading only one reply gives, made of prose around or beside a
name the family attests, is that name; a sequel's number or a lower-case compound stays a
name of its own; emoji after words are the voice's punctuation; a symbol the question's
table knows is no "n/a". Each case is written in words of its own, not copied from a
held-out set."""

from __future__ import annotations

from probe.matching import cluster_answers

PROMPT = "Name a random bird of prey."
SHORT = ["Kestrel", "Osprey", "Kestrel", "Peregrine falcon", "Osprey", "Harrier"]


def _answers(replies: list[str], prompt: str = PROMPT, short: list[str] = SHORT) -> list[str]:
    out = cluster_answers(replies + short, prompt)[:len(replies)]
    return ["" if m.nonpick else m.canonical for m in out]


def test_prose_read_as_the_answer_gives_way_to_the_name_the_family_attests():
    replies = ["tbh I'm a total fangirl of Osprey. That bird is criminally overlooked 🔥",
               "Kestrel all day long 🙌",
               "gonna go Osprey every time, no notes",
               "Sooo Kestrel. Don't argue with me on this 😤"]
    assert _answers(replies) == ["Osprey", "Kestrel", "Osprey", "Kestrel"]


def test_a_name_set_aside_or_supposed_is_not_the_attested_answer():
    replies = ["harrier, though osprey was close.", "buzzard, not Osprey, for me 🙂"]
    got = _answers(replies)
    assert "Osprey" not in got and got[1] == "buzzard"


def test_a_reply_torn_between_two_is_still_no_pick():
    assert _answers(["I'm torn between Kestrel and Merlin, honestly 🤷 Both are great."]) == [""]


def test_a_number_the_speaker_chooses_stays_its_answer():
    prompt = "Pick a number for the padlock."
    short = ["7", "7", "17", "42", "17"]
    reply = "If it were me, I'd choose 58 for the padlock. 7 and 17 are fine, but 58 feels lucky."
    assert _answers([reply], prompt, short) == ["58"]


def test_a_sequel_number_or_a_lower_case_compound_is_not_padding():
    prompt = "Name a random animated film."
    short = ["Cars", "Cars", "Coco", "Coco", "Moana"]
    assert _answers(["Cars 2, obviously"], prompt, short) != ["Cars"]
    prompt = "Name a random ice cream flavour."
    short = ["mint", "mint", "vanilla", "vanilla", "pistachio"]
    assert _answers(["mint chocolate chip."], prompt, short) == ["mint chocolate chip"]


def test_emoji_after_words_end_the_answer():
    prompt = "Which city should I visit?"
    short = ["Lisbon", "Lisbon", "Porto", "Seville"]
    replies = ["Lisbon, Portugal 🙌", '"Porto" 😍 Great food there.', "Seville 🌞🌞"]
    assert _answers(replies, prompt, short) == ["Lisbon", "Porto", "Seville"]


def test_an_element_symbol_is_not_n_a_but_n_a_still_declines():
    prompt = "Name a chemical element."
    short = ["Sodium", "Carbon", "Carbon", "Sodium"]
    assert _answers(["Na!", "hmm… na", "N/A"], prompt, short) == ["Sodium", "Sodium", ""]
    # Outside an element question "na" is still "not applicable".
    assert _answers(["na"], "Which city should I visit?", ["Lisbon", "Porto"]) == [""]


def test_a_question_back_is_no_pick_but_a_suggestion_put_as_one_is():
    replies = ["Meaning what?", "Why?", "Hmm, which kind do you like? Then I'll pick 🙂",
               "How about Osprey?", "Kestrel?"]
    assert _answers(replies) == ["", "", "", "Osprey", "Kestrel"]


def test_a_tie_a_toss_up_or_a_refusal_to_pick_is_no_pick():
    replies = ["ugh, it's a toss-up for me, depends on my mood 😅",
               "nah, refusing to pick, they're all cool birds",
               "Kestrel and Osprey are tied for me, I can't break the tie lol"]
    assert _answers(replies) == ["", "", ""]


def test_a_hedge_behind_an_interjection_or_adverb_still_declines():
    replies = ["Literally any bird of prey works, you do you!",
               "Ooh so many good ones! Kestrel, Osprey, Harrier... all great tbh"]
    assert _answers(replies) == ["", ""]
    # A title that opens like a hedge stays a name.
    assert _answers(["So Many Men"], "Name a random song.", ["Jolene", "Jolene"]) == ["So Many Men"]
