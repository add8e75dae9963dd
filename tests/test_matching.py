"""Answer extraction, normalisation and canonical forms, against labelled pairs."""

import json

import pytest

from conftest import DATA
from probe.family import Family
from probe.matching import (Canonicalizer, cluster_answers, extract, is_refusal, normalise,
                            same_answer)
from probe.scoring import Response, rescore


def _pairs(name):
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]


def test_agreement_with_labelled_pairs_is_at_least_95_percent():
    pairs = _pairs("matching_pairs.jsonl") + _pairs("matching_pairs_more.jsonl")
    agree = sum(same_answer(p["a"], p["b"], p["prompt"])[0] == p["same"] for p in pairs)
    assert agree / len(pairs) >= 0.95, f"{agree}/{len(pairs)}"


def test_agreement_with_pairs_written_before_the_rules_is_at_least_90_percent():
    # tests/data/heldout_pairs.jsonl was written before the matcher's rules and not tuned on.
    pairs = _pairs("heldout_pairs.jsonl")
    agree = sum(same_answer(p["a"], p["b"], p["prompt"])[0] == p["same"] for p in pairs)
    assert agree / len(pairs) >= 0.90, f"{agree}/{len(pairs)}"


def test_no_two_different_numbers_are_ever_merged():
    numbers = ["1", "3", "4", "7", "9", "15", "17", "37", "42", "50", "68", "73", "86", "99",
               "100", "420", "4200", "14", "41", "24"]
    for a in numbers:
        for b in numbers:
            if a != b:
                assert not same_answer(a, b, "Choose a random number between 1 and 100")[0], (a, b)


@pytest.mark.parametrize("response, answer", [
    ("**Monarch butterfly**.", "Monarch butterfly"),
    ("I'd pick the monarch!", "monarch"),
    ("My pick is: Blue Morpho", "Blue Morpho"),
    ("Answer: {Red Admiral}", "Red Admiral"),
    ("{Swallowtail}", "Swallowtail"),
    ("1. Monarch", "Monarch"),
    ("Monarch - because it is pretty", "Monarch"),
    ("Monarch. It is lovely.", "Monarch"),
    ("\n\nJava\nPython", "Java"),
    ('"Tokyo"', "Tokyo"),
    ("St. Louis", "St. Louis"),
    ("C#", "C#"),
    ("Monarch (Danaus plexippus)", "Monarch"),
    ("", ""),
    ("Sure! Here's one: Frozen", "Frozen"),
    ("Definitely Monarch!", "Monarch"),
    ("I think I'll go with Rust.", "Rust"),
    ("My number is 42.", "42"),
    ("Hmm, let's say 12", "12"),
    ("Okay, how about jazz?", "jazz"),
    ("The answer is 8", "8"),
    ("7. It is lovely.", "7"),
    ("That's a tough one! I'll go with Monarch.", "Monarch"),
    ("Good question. Monarch", "Monarch"),
    ("Great Dane", "Great Dane"),
    ("Nice, France", "Nice, France"),
    ("The One Ring", "The One Ring"),
    ("A", "A"),
])
def test_extraction(response, answer):
    assert extract(response) == answer


def test_normalisation_folds_case_articles_numbers_plurals_and_accents():
    assert normalise("The Monarch") == normalise("monarch")
    assert normalise("forty-two") == normalise("42")
    assert normalise("one hundred") == ("100",)
    assert normalise("Wolves") == normalise("wolf")
    assert normalise("Mangoes") == normalise("mango")
    assert normalise("Café") == normalise("cafe")
    assert normalise("hip_hop") == normalise("Hip-hop")


def test_number_words_joined_by_and_are_one_number():
    # A held-out set crashed the matcher here (KeyError) before this was handled.
    assert normalise("three hundred and twelve") == ("312",)
    assert normalise("a thousand and one nights") == ("1001", "night")


@pytest.mark.parametrize("a, b", [("Iran", "Iraq"), ("Jon", "John"), ("Niger", "Nigeria"),
                                  ("Gambia", "Zambia"), ("Austria", "Australia")])
def test_short_or_extended_words_are_never_typos(a, b):
    assert not same_answer(a, b, "Choose a random country")[0]


def test_typos_merge_with_reason():
    assert same_answer("Cappuccino", "Capuccino", "Choose a random type of coffee") == (True, "typo")


def test_containment_only_over_generic_words():
    assert same_answer("Painted Lady", "painted lady butterfly",
                       "Choose a random popular butterfly") == (True, "containment")
    assert not same_answer("Jazz", "Jazz fusion", "Choose a random music genre")[0]


def test_family_aliases_come_first():
    canon = Canonicalizer("Choose a random popular butterfly", {"Monarch": ["Danaus plexippus"]})
    m = canon.add("Danaus plexippus")
    assert (m.canonical, m.reason) == ("Monarch", "alias")
    assert canon.add("monarch").canonical == "Monarch"


def test_a_declared_answer_without_words_is_ignored():
    canon = Canonicalizer("Choose a random popular butterfly", {"!!!": ["?"], "Monarch": []})
    assert canon.add("monarch").canonical == "Monarch"


def test_new_forms_are_named_by_their_most_frequent_surface_form():
    canon = Canonicalizer("Choose a random popular butterfly")
    first = canon.add("blue morpho")
    canon.add("Blue Morpho")
    canon.add("Blue Morpho.")
    assert canon.name_of(first.cluster) == "Blue Morpho"


def test_refusals_and_echoes_are_marked():
    canon = Canonicalizer("Choose a random popular butterfly")
    assert canon.add("I can't choose, it depends on your taste.").refusal
    assert canon.add("Butterfly").refusal
    assert not canon.add("Monarch").refusal
    assert is_refusal("As an AI, I don't have preferences")
    # An echo never absorbs a real answer by containment.
    assert canon.add("Monarch butterfly").canonical == "Monarch"


def test_empty_response_has_no_canonical_form():
    m = Canonicalizer("x").add("   ")
    assert (m.answer, m.canonical, m.reason) == ("", "", "empty")


def test_thousands_separators_and_place_abbreviations():
    assert same_answer("1,000", "1000", "Choose a random number")[0]
    assert not same_answer("1,000", "1", "Choose a random number")[0]
    assert same_answer("St. Petersburg", "Saint Petersburg", "Choose a random city")[0]
    assert same_answer("Mt. Fuji", "Mount Fuji", "Choose a random mountain")[0]


# ------------------------------------------------------------ issue 9 §3 regressions

LETTER = "Choose a random letter"


def test_a_one_letter_answer_is_an_answer():
    canon = Canonicalizer(LETTER)
    m = canon.add("A")
    assert (m.answer, m.canonical, m.nonpick) == ("A", "A", "")
    assert not same_answer("A", "B", LETTER)[0]
    assert same_answer("A", "a.", LETTER)[0]
    assert normalise("Vitamin A") != normalise("Vitamin")
    assert not Canonicalizer("Choose a random vitamin").add("Vitamin A").refusal


@pytest.mark.parametrize("a, b, prompt", [
    ("Vitamin C", "Vitamin E", "Choose a random vitamin"),
    ("Hepatitis B", "Hepatitis C", "Choose a random disease"),
    ("Louis XIV", "Louis XV", "Choose a random king"),
    ("Mario", "Maria", "Choose a random first name"),
    ("Karen", "Karin", "Choose a random first name"),
    ("Austin", "Austen", "Choose a random name"),
    ("Henry VIII", "Henry VII", "Choose a random king"),
])
def test_a_differing_short_word_or_two_real_words_are_not_a_typo(a, b, prompt):
    assert not same_answer(a, b, prompt)[0]


@pytest.mark.parametrize("a, b", [("San Francisco", "San Fransisco"), ("Turquoise", "Turqoise"),
                                  ("Lamborghini", "Lamborgini"), ("Xylocopa", "Xylocpa")])
def test_a_misspelling_of_one_word_still_merges_as_a_typo(a, b):
    assert same_answer(a, b, "Choose a random thing") == (True, "typo")


@pytest.mark.parametrize("a, b", [("Plane", "Plan"), ("Rome", "ROM"), ("Wine", "Win"),
                                  ("Cube", "Cub"), ("Tape", "Tap")])
def test_different_words_never_share_a_stem(a, b):
    assert not same_answer(a, b, "Choose a random thing")[0]


@pytest.mark.parametrize("a, b", [("Mice", "Mouse"), ("Geese", "Goose"), ("Cacti", "Cactus"),
                                  ("Oxen", "Ox"), ("Teeth", "Tooth"), ("Children", "Child"),
                                  ("Movies", "Movie")])
def test_irregular_plurals_fold(a, b):
    assert same_answer(a, b, "Choose a random thing") == (True, "exact")


@pytest.mark.parametrize("a, b, same", [
    ("Frozen", "Frozen 2", False), ("Frozen 2", "Frozen II", True),
    ("Rocky IV", "Rocky 4", True), ("Rocky II", "Rocky III", False),
    ("Python 2", "Python 3", False), ("World War 2", "World War II", True),
])
def test_sequels_and_roman_numerals(a, b, same):
    assert same_answer(a, b, "Choose a random title")[0] is same


@pytest.mark.parametrize("a, b, same, reason", [
    ("Colour", "Color", True, "exact"), ("Grey", "Gray", True, "exact"),
    ("Doughnut", "Donut", True, "exact"), ("Theatre", "Theater", True, "exact"),
    ("Rome, Italy", "Rome", True, "place"), ("Austin, TX", "Austin", True, "place"),
    ("Springfield, Illinois", "Springfield, Missouri", False, "different"),
    ("Austin, TX", "Austin, Texas", True, "exact"), ("London, England", "London, UK", True, "place"),
    ("Paris, Texas", "Paris, France", False, "different"),
    ("Brasil", "Brazil", True, "exact"), ("Granada", "Grenada", False, "different"),
    ("Blue bird", "Bluebird", True, "compound"), ("Drum 'n' bass", "Drum and bass", True, "exact"),
    ("Rock n roll", "Rock and roll", True, "exact"),
    ("Rolls Royce", "Rolls-Royce", True, "exact"),
    ("Indian elephant", "Elephant", True, "qualifier"), ("Sea lion", "Lion", False, "different"),
    ("Snow leopard", "Leopard", False, "different"),
    ("North Korea", "Korea", False, "different"), ("South Africa", "Africa", False, "different"),
    ("West Virginia", "Virginia", False, "different"),
    ("1.5", "15", False, "different"), ("42", "420", False, "different"),
])
def test_general_rules_with_their_reasons(a, b, same, reason):
    assert same_answer(a, b, "Choose a random thing") == (same, reason)


def test_a_bare_name_between_two_qualified_ones_joins_neither():
    canon = Canonicalizer("Choose a random city")
    for text in ("Springfield, Illinois", "Springfield", "Springfield, Missouri"):
        canon.add(text)
    names = {canon.refresh(canon.add(t)).canonical for t in
             ("Springfield, Illinois", "Springfield", "Springfield, Missouri")}
    assert len(names) == 3


# ------------------------------------------------------------------- non-picks

@pytest.mark.parametrize("text", ["None", "Neither", "Both", "both!", "Any", "All of them",
                                  "It depends", "Personal preference", "Up to you",
                                  "As an AI, I have no favourite.", "{your_choice}", "[answer]",
                                  "<option>", "I can't choose.", "I'm sorry, I cannot pick one.",
                                  "No preference", "I'm not sure.", "Impossible to choose!"])
def test_refusals_are_non_picks(text):
    m = Canonicalizer("Choose a random city").add(text)
    assert m.nonpick == "refusal" and m.refusal, text


@pytest.mark.parametrize("text", ["Nonet", "Bothell", "Anyang", "Allentown", "Neithercott",
                                  "Monarch", "Depends Creek"])
def test_words_that_start_like_refusals_are_picks(text):
    m = Canonicalizer("Choose a random city").add(text)
    assert (m.nonpick, m.refusal) == ("", False), text


@pytest.mark.parametrize("prompt, text", [("Choose a random popular butterfly", "Butterfly"),
                                          ("Choose a random number", "a number"),
                                          ("Choose a random music genre", "A music"),
                                          ("Name a random first name", "A name")])
def test_echoes_of_the_question_are_non_picks(prompt, text):
    m = Canonicalizer(prompt).add(text)
    assert m.nonpick == "echo" and m.refusal


def test_empty_is_its_own_kind_of_non_pick():
    m = Canonicalizer("x").add("")
    assert (m.nonpick, m.refusal) == ("empty", False)


def test_a_non_pick_never_joins_a_pick():
    assert not same_answer("None", "Non", "Choose a random word")[0]
    canon = Canonicalizer("Choose a random popular butterfly")
    assert canon.add("Monarch").cluster != canon.add("Butterfly").cluster


# ---------------------------------------------------------------- hostile input

@pytest.mark.parametrize("text", ["Monarch" + " " * 30_000 + "x", "St. " * 12_000, "(" * 40_000,
                                  "{" * 40_000, "[" * 40_000 + "a", "a " * 50_000,
                                  "I'd pick " * 5_000 + "Monarch"])
def test_extraction_of_hostile_text_is_quick(text):
    import time

    start = time.perf_counter()
    Canonicalizer("Choose a random popular butterfly").add(text)
    # Quadratic extraction took 20–54 s on these; linear takes milliseconds.
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize("prompt, text", [("Which is better, cats or dogs?", "Cats"),
                                          ("Tea or coffee?", "Coffee."),
                                          ("Should I say yes or no?", "Yes"),
                                          ("Both, neither or either?", "Both"),
                                          ("Pick one: red, green, or blue.", "green")])
def test_an_option_the_prompt_lists_is_a_pick_not_an_echo_or_refusal(prompt, text):
    m = Canonicalizer(prompt).add(text)
    assert (m.nonpick, m.refusal) == ("", False)


def test_non_choice_words_are_refusals_when_the_prompt_does_not_offer_them():
    assert Canonicalizer("Choose a random popular butterfly").add("Yes").nonpick == "refusal"
    assert Canonicalizer("Cats or dogs?").add("Neither").nonpick == "refusal"


# ----------------------------------------- found by an outside known-answer check

@pytest.mark.parametrize("hedge", [
    "That's a matter of personal preference.", "It's a matter of taste.", "Any fruit is fine!",
    "Whatever you like.", "There are so many to choose from!", "Neither, really.",
    "I'll leave that to you.", "Hard to say!", "There's no right answer here.",
])
def test_hedges_are_not_picks(hedge):
    m = cluster_answers([hedge], "Choose a random fruit.")[0]
    assert m.nonpick == "refusal", m


@pytest.mark.parametrize("title", ["So Many Men", "Any Given Sunday", "Both Sides Now",
                                   "Everyone Loves Raymond", "Nonet"])
def test_titles_that_open_like_a_hedge_are_picks(title):
    assert not cluster_answers([title], "Choose a random title.")[0].nonpick


def test_one_ambiguous_form_never_fuses_two_answers():
    for answers, prompt in ((["Austria"] * 12 + ["Australia"] * 9 + ["Austraia"],
                             "Choose a random country."),
                            (["Grape"] * 12 + ["Grapefruit"] * 9 + ["Grape fruit"],
                             "Choose a random fruit.")):
        names = {m.canonical for m in cluster_answers(answers, prompt)}
        assert {"Austria", "Australia"} <= names or {"Grape", "Grapefruit"} <= names
        s = score_of(answers, prompt)
        assert s.dr == pytest.approx(12 / 22)


def test_a_breed_question_keeps_qualified_breeds_apart():
    assert not same_answer("French Bulldog", "Bulldog", "Choose a random dog breed.")[0]
    assert same_answer("Bengal tiger", "Tiger", "Choose a random animal.")[0]


def score_of(direct: list[str], prompt: str):
    fam = Family("f", prompt, ["Scenario?"])
    return rescore(fam, [Response("direct", i, t) for i, t in enumerate(direct)]).scores


@pytest.mark.parametrize("response,answer,nonpick", [
    ("a. A butterfly", "butterfly", "echo"),          # a lettered option, then an echo
    ("A) Yellow", "Yellow", ""),
    ("(b) Viceroy", "Viceroy", ""),
    ("A. Lincoln", "A. Lincoln", ""),                    # an initial is not a sentence end
    ("J. S. Bach", "J. S. Bach", ""),
    ("Banana, apple, orange, pear, peach", None, "refusal"),   # a list is no single pick
    ("Apple, banana, and cherry", None, "refusal"),
    ("Red, blue or green", None, "refusal"),
    ("Portland, Oregon, USA", "Portland, Oregon, USA", ""),
    ("Monarch, because it is pretty, bright and big", "Monarch", ""),
])
def test_options_lists_and_initials(response, answer, nonpick):
    m = cluster_answers([response], "Choose a random popular butterfly.")[0]
    if answer is not None:
        assert m.answer == answer
    assert m.nonpick == nonpick
