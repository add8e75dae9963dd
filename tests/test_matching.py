"""Answer extraction, normalisation and canonical forms, against labelled pairs."""

import json

import pytest

from conftest import DATA as SHARED
from probe.matching import Canonicalizer, extract, is_refusal, normalise, same_answer

PAIRS = [json.loads(line) for line in (SHARED / "matching_pairs.jsonl").read_text().splitlines()
         if line.strip()]


def test_agreement_with_labelled_pairs_is_at_least_95_percent():
    agree = sum(same_answer(p["a"], p["b"], p["prompt"])[0] == p["same"] for p in PAIRS)
    assert agree / len(PAIRS) >= 0.95, f"{agree}/{len(PAIRS)}"


def test_no_two_different_numbers_are_ever_merged():
    numbers = ["1", "3", "4", "7", "9", "15", "17", "37", "42", "50", "68", "73", "86", "99",
               "100", "420", "4200", "14", "41", "24"]
    for a in numbers:
        for b in numbers:
            if a != b:
                assert not same_answer(a, b, "Choose a random number between 1 and 100")[0], (a, b)


@pytest.mark.parametrize("response, answer", [
    ("**Monarch butterfly**.", "Monarch butterfly"),
    ("I'd pick the monarch!", "the monarch"),
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
