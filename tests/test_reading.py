"""Issue 15's failure classes, each in words of its own (the issue's examples are kinds, not
the cases): reading the answer out of a sentence, telling picks from lists, hedges and
echoes, joining everyday aliases, and keeping look-alikes apart."""

from __future__ import annotations

import pytest

from probe.matching import Canonicalizer, cluster_answers, extract, same_answer


def _pick(response: str, prompt: str = "Name a random bird.") -> str:
    match = Canonicalizer(prompt).add(response)
    return "" if match.nonpick else match.answer


# ------------------------------------------------------------ 1. the answer in a sentence

@pytest.mark.parametrize("response, answer", [
    ("Okay, let me choose... Tangerine!", "Tangerine"),
    ("Quick pick: Obsidian", "Obsidian"),
    ("Simple — “Green Curry”!", "Green Curry"),
    ("I believe stegosaurus would be ideal.", "stegosaurus"),
    ("beagle, naturally.", "beagle"),
    ("Kingfisher, no contest", "Kingfisher"),
    ("Papaya it is!", "Papaya"),
    ("Ruby! Lovely choice", "Ruby"),
    ("You ought to go with Jade", "Jade"),
    ("Jade would be ideal", "Jade"),
    ("For a picnic basket, a Pear would be charming.", "Pear"),
    ("W.A. Mozart", "W.A. Mozart"),
    ("Star Trek: The Motion Picture", "Star Trek: The Motion Picture"),
    ("Cobalt<end_of_turn>and then more text", "Cobalt"),
    ("My lucky number is 9 since it feels round.", "9"),
    ("The constellation I'd name is Orion.", "Orion"),
    ("Hmm, tricky. They're all nice, but I'd settle on Lynx.", "Lynx"),
    ("Not Mars, not Venus: Saturn.", "Saturn"),
    ("I thought about Python, but Haskell suits better.", "Haskell"),
    ("You can't go wrong with Tulips.", "Tulips"),
    ("Walnut? Hmm, no, wait. Pecan.", "Pecan"),
    ("I nearly said Lisbon, but actually, Porto.", "Porto"),
    ("Spruce... no, cedar.", "cedar"),
    ("NOTE: settled on Copper after all.", "Copper"),
    ("Result: Bassoon", "Bassoon"),
    ("Ours: marigold.", "marigold"),
    ("Sure thing: *Oslo*.", "Oslo"),
    ("My money goes to Ferrari.", "Ferrari"),
    ("Fun! Put us down for **Rome**.", "Rome"),
    ("What a lovely idea! I'm a huge fan of Gouda for this.", "Gouda"),
    ("Brilliant plan. Okay, going with Degas.", "Degas"),
    ("Simple, Triceratops. Also, consider the", "Triceratops"),
    ("“Tagalog,” she answered without a pause", "Tagalog"),
    ("Heron or Stork... Stork.", "Stork"),
    ("Not Tin; Zinc.", "Zinc"),
    ("Forget the hawk; the owl is the stronger pick.", "owl"),
    ("It's between Dublin and Cork, and I'll take Cork.", "Cork"),
    ("They debated Basil and Thyme for ages and finally picked Thyme", "Thyme"),
    ("How do you feel about Vienna? I think it fits.", "Vienna"),
    ("Why not Oslo?", "Oslo"),
    ("The one that springs to mind is Kyoto.", "Kyoto"),
    ("I'd steer away from Leeds here and pick York instead.", "York"),
    ("Argon Argon Argon Argon", "Argon"),
    ("'12' '12' '12'", "12"),
    ("\"Lima (Peru)\" \"Lima (Peru)\" \"Lima (Peru)\"", "Lima"),
])
def test_the_answer_is_read_out_of_its_sentence(response, answer):
    assert extract(response) == answer


def test_capital_roman_numerals_are_numbers():
    assert same_answer("MCMXCIX", "1999", "Name a year")[0]
    assert same_answer("XLII", "42", "Pick a number")[0]
    assert not same_answer("MCMXCIX", "1998", "Name a year")[0]


def test_articles_and_number_labels_do_not_split_an_answer():
    assert same_answer("the red panda", "Red panda", "Name an animal")[0]
    assert same_answer("An Okapi", "okapi", "Name an animal")[0]
    assert same_answer("No. 9", "9", "Pick a number from 1 to 20")[0]
    assert same_answer("number 9", "#9", "Pick a number from 1 to 20")[0]


def test_a_title_keeps_what_follows_its_colon():
    assert not same_answer("Star Trek: The Motion Picture", "Star Trek: Nemesis",
                           "Name a film")[0]


# ------------------------------------------------------------------ 2. pick or not

@pytest.mark.parametrize("response", [
    "Falcon or Eagle", "Either falcon or eagle.", "falcon/eagle", "Falcon or Eagle — you decide!",
    "- Falcon\n- Eagle\n- Owl", "1) Falcon 2) Eagle", "Maybe falcon, maybe eagle.",
    "Options: Falcon; Eagle; Owl", "3 30 31 32", "Torn between Falcon and Eagle.",
])
def test_options_side_by_side_are_a_list_not_a_pick(response):
    assert _pick(response) == ""


@pytest.mark.parametrize("response, answer", [
    ("Falcon or Eagle... I'll take Eagle!", "Eagle"),
    ("A few I like:\n- Falcon\n- Eagle\n\nIf I must commit to one, Eagle.", "Eagle"),
    ("Torn between Falcon and Eagle; I'll say Falcon.", "Falcon"),
    ("I considered falcon, but eagle fits better.", "eagle"),
])
def test_a_list_that_ends_in_a_choice_is_that_choice(response, answer):
    assert _pick(response) == answer


@pytest.mark.parametrize("hedge", [
    "That's a personal thing.", "Choose whatever you fancy!", "Frankly, any of these would be fine.",
    "Tricky one — they're all wonderful.", "It honestly varies by mood.",
    "There are too many great birds to pick just one.", "Everyone has their own favourite.",
    "Hard to say without knowing more.", "Which bird do you like best?", "[bird]",
    "My favourite bird is {favorite_bird}.", "I'd go with <answer>.",
])
def test_hedges_in_new_words_are_not_picks(hedge):
    assert _pick(hedge) == ""


@pytest.mark.parametrize("title", ["Any Given Sunday", "So Many Men", "Both Sides Now", "It Follows",
                                   "The Who", "Her", "Anything Goes", "No Country for Old Men",
                                   "You've Got Mail", "Everybody Wants to Rule the World"])
def test_titles_that_read_like_hedges_stay_picks(title):
    assert _pick(title, "Name a film or a band") != ""


@pytest.mark.parametrize("prompt, echo", [
    ("Name a random bird.", "a tropical bird"),
    ("Name a river.", "Some river"),
    ("Which holiday do you like most?", "A winter holiday!"),
    ("Pick a random number between 1 and 10.", "Pick a random number between 1 and 10?"),
])
def test_a_description_of_the_category_is_an_echo(prompt, echo):
    assert _pick(echo, prompt) == ""


def test_a_name_the_response_sets_aside_is_not_its_pick():
    prompt = "Name an NBA team."
    responses = ["Boston Celtics"] * 3 + ["Brooklyn Nets"] * 2 + [
        "B. Celtics, not to be confused with the Brooklyn Nets."]
    assert cluster_answers(responses, prompt)[-1].canonical != "Brooklyn Nets"


def test_a_family_answer_named_inside_an_echo_is_that_answer():
    prompt = "Name a random bird."
    matches = cluster_answers(["Kestrel", "kestrel", "Kestrel!", "A bird. The Kestrel, really."],
                              prompt)
    assert [m.canonical for m in matches] == ["Kestrel"] * 4


# ------------------------------------------------------------------------ 3. aliases

@pytest.mark.parametrize("a, b, prompt, reason", [
    ("Curie", "Marie Curie", "Name a scientist", "short name"),
    ("Dodgers", "Los Angeles Dodgers", "Name a baseball team", "short name"),
    ("Paul McCartney", "Sir Paul McCartney", "Name a musician", "short name"),
    ("W. A. Mozart", "Wolfgang Amadeus Mozart", "Name a composer", "initials"),
    ("JFK", "John F. Kennedy", "Name a president", "initials"),
    ("Vit D", "Vitamin D", "Name a vitamin", "abbreviation"),
    ("Sept", "September", "Name a month", "abbreviation"),
    ("Feb", "February", "Name a month", "abbreviation"),
    ("25th of December", "December 25", "Name a date", "exact"),
    ("12/25", "Dec 25th", "Name a date", "exact"),
    ("Charles the Second", "Charles II", "Name a king", "exact"),
    ("Charles II of England", "Charles II", "Name a king", "place"),
    ("B-6", "Vitamin B6", "Name a vitamin", "containment"),
    ("Republic of Chile", "Chile", "Name a country", "exact"),
])
def test_everyday_aliases_join_with_their_reason(a, b, prompt, reason):
    assert same_answer(a, b, prompt) == (True, reason)


@pytest.mark.parametrize("a, b, prompt", [
    ("Vit D", "Vitamin E", "Name a vitamin"),
    ("Predator", "Predators", "Name a film"),
    ("Shrek", "Shrek 2", "Name a film"),
    ("Sea horse", "Horse", "Name an animal"),
    ("Guinea pig", "Pig", "Name an animal"),
    ("York", "New York", "Name a city"),
    ("Bern", "Berlin", "Name a capital city"),
    ("Mali", "Malawi", "Name a country"),
    ("Charles I", "Charles II", "Name a king"),
    ("7/4", "4/7", "Name a date"),
])
def test_look_alikes_stay_apart(a, b, prompt):
    assert not same_answer(a, b, prompt)[0]


def test_a_short_name_shared_by_two_full_names_joins_neither():
    matches = cluster_answers(["Williams", "Serena Williams", "Venus Williams"], "Name a tennis player")
    assert len({m.cluster for m in matches}) == 3


# ------------------------------------------------------------- --answer-format braces

def test_in_the_braces_format_only_an_answer_in_braces_is_a_pick():
    matches = cluster_answers(["{Wren}", "Wren", "{neither}", "Easy: {Robin}!"],
                              "Name a random bird.", answer_format="braces")
    assert [(m.answer, m.nonpick) for m in matches] == [
        ("Wren", ""), ("Wren", "refusal"), ("neither", "refusal"), ("Robin", "")]


def test_the_braces_format_asks_for_braces_and_shows_them_in_the_examples():
    from probe.prompting import style_for

    style = style_for("Name a random bird.", chat_capable=False, force_base=True, shots=2,
                      system=None, answer_format="braces")
    prompt = style.base_prompt("Name a random bird.")
    assert "curly braces" in prompt and "A: {" in prompt and prompt.endswith("A:")
    chat = style_for("Name a random bird.", True, False, 0, None, "braces")
    assert "curly braces" in chat.messages("Name a random bird.")[-1]["content"]


# ------------------------------------------- round 2: classes found on a measured set

@pytest.mark.parametrize("response, answer", [
    ("Has to be Albatross.", "Albatross"),
    ("Gotta be puffin!", "puffin"),
    ("Wow, I adore this one. Final answer: Heron.", "Heron"),
    ("The seabird I picked is Gannet.", "Gannet"),
    ("Someone who always comes up for me is the Osprey. Its wings are huge.", "Osprey"),
    ("I went with Kestrel and honestly it was fun.", "Kestrel"),
    ("Q: Name a bird. A: Magpie Q: Name a bird. A: Magpie", "Magpie"),
    ("Robin... hmm, no wait, Wren.", "Wren"),
    ("A swan is pretty, a goose is fine too... but really it's the Crane.", "Crane"),
])
def test_the_answer_is_found_past_remarks_and_descriptions(response, answer):
    assert _pick(response) == answer


@pytest.mark.parametrize("response", [
    "I really don't know.",
    "Would you like something common or something rare?",
    "Want me to choose for you?",
])
def test_not_knowing_and_asking_back_are_not_picks(response):
    assert _pick(response) == ""


FAMILY = ["Heron", "heron", "Heron!", "Egret", "Egret", "Ibis", "Ibis"]


@pytest.mark.parametrize("response", [
    "If you like tall birds, Heron; if you like white ones, Egret. Up to you!",
    "Heron? Egret? Either works.",
    "Heron, Ibis",
    "Good ones include Heron, Egret and Ibis. Shall I narrow it down?",
    "Choose one: Heron, Ibis",
])
def test_two_family_answers_without_a_choice_between_them_are_options(response):
    match = cluster_answers([response] + FAMILY, "Name a random bird.")[0]
    assert match.nonpick, match


@pytest.mark.parametrize("response, answer", [
    ("Heron! Egret is lovely too.", "Heron"),
    ("I'd pick Heron over Egret.", "Heron"),
    ("Egret... no, wait. Heron.", "Heron"),
    ("Ibis is nice, Egret too... but honestly it's Heron.", "Heron"),
    ("Heron (though Ibis comes close).", "Heron"),
])
def test_a_family_answer_chosen_among_others_is_the_pick(response, answer):
    match = cluster_answers([response] + FAMILY, "Name a random bird.")[0]
    assert not match.nonpick and match.canonical == answer, match


def test_a_title_before_a_name_is_the_same_answer_even_beside_the_full_name():
    matches = cluster_answers(["Darwin", "Prof. Darwin", "Charles Darwin", "Mendel"],
                              "Name a scientist")
    assert len({m.cluster for m in matches[:3]}) == 1 and matches[3].cluster != matches[0].cluster


@pytest.mark.parametrize("a, b, prompt", [
    ("Harry Truman", "Harry S. Truman", "Name a president"),
    ("Thu", "Thursday", "Name a weekday"),
])
def test_a_middle_initial_and_calendar_short_forms_join(a, b, prompt):
    assert same_answer(a, b, prompt)[0]


@pytest.mark.parametrize("response, answer", [
    ("Kestrel, Kestrel, Kestrel,", "Kestrel"),
    ("Hmm, Lark... no, let's make it Finch.", "Finch"),
    ("1. Robin\n2. Wren\n3. Finch\n\nIf I must choose, I'd take #2, Wren.", "Wren"),
    ("Sure!\n\nOoh, I adore this.\n\nPlover.", "Plover"),
    ("I would choose Here Comes The Sun.", "Here Comes The Sun"),
])
def test_repeats_changes_of_mind_list_references_and_titles_of_small_words(response, answer):
    assert _pick(response, "Name a random bird or song.") == answer


@pytest.mark.parametrize("response", [
    "Popular choices include Robin and Wren, though there are many more.",
    "I'd be delighted to help you narrow down some options!",
    "Various birds suit various people.",
    "Just go with whatever feels right to you!",
    "Robin? Wren? Finch?",
    "a) Robin b) Wren c) Finch",
    "Update: thanks everyone for the suggestions",
    "The bird I picked is ___.",
])
def test_offers_remarks_and_option_sets_in_new_words_are_not_picks(response):
    assert _pick(response) == ""


@pytest.mark.parametrize("a, b, prompt", [
    ("19:45", "7:45 PM", "Pick a time of day"),
    ("9 a.m.", "09:00", "Pick a time of day"),
    ("the seventies", "1970s", "Pick a decade"),
    ("'70s", "1970s", "Pick a decade"),
    ("'72", "1972", "Pick a year"),
    ("1066 AD", "1066", "Pick a year"),
    ("RDR 2", "Red Dead Redemption 2", "Name a video game"),
    ("Natl Park", "National Park", "Name a place"),
    ("Sherlock", "Sherlock Holmes", "Name a detective"),
])
def test_notations_of_one_answer_join(a, b, prompt):
    assert same_answer(a, b, prompt)[0]


@pytest.mark.parametrize("a, b, prompt", [
    ("10:30", "10:30 PM", "Pick a time of day"),
    ("RDR 2", "Red Dead Redemption 3", "Name a video game"),
    ("'72", "1927", "Pick a year"),
])
def test_notations_keep_different_answers_apart(a, b, prompt):
    assert not same_answer(a, b, prompt)[0]


def test_a_title_with_a_surname_joins_the_one_full_name_it_ends():
    matches = cluster_answers(["Senator Obama", "Barack Obama", "Barack Obama", "Joe Biden"],
                              "Name a politician")
    assert matches[0].cluster == matches[1].cluster != matches[3].cluster


@pytest.mark.parametrize("answers, prompt", [
    (["Ag", "silver", "Silver"], "Name a chemical element."),
    (["Italiano", "Italian"], "Which language would you learn?"),
])
def test_where_the_question_asks_for_them_symbols_and_own_names_are_the_english_name(answers, prompt):
    assert len({m.cluster for m in cluster_answers(answers, prompt)}) == 1


def test_outside_those_questions_a_symbol_is_just_letters():
    matches = cluster_answers(["Ag", "Silver"], "Name a random word.")
    assert matches[0].cluster != matches[1].cluster


@pytest.mark.parametrize("response", ["Wait", "Nope!", "no", "Actually, no", "no, wait"])
def test_a_reply_of_take_backs_alone_is_a_non_pick_not_a_crash(response):
    # "Wait" once failed a whole run with "IndexError: tuple index out of range".
    matches = cluster_answers([response, "Wren", "Wren"], "Name a random bird.")
    assert matches[0].nonpick and [m.canonical for m in matches[1:]] == ["Wren", "Wren"]
    assert Canonicalizer("Name a random bird.").add(response).nonpick
