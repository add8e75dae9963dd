"""Drafting a family offline: the category-phrase finder on questions of many shapes, the
templates, and what a drafted family must be (valid, varied, never the question itself)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from conftest import DATA, FAMILIES
from probe import family as fam_mod
from probe.drafting import (TEMPLATES, CategoryNotFound, contains_direct, draft_family,
                            find_category, save_new, usable_templates)
from probe.errors import BadInput

NUMBER_WORDS = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                "ten", "eleven", "twelve", "twenty", "thirty", "hundred", "thousand", "dozen",
                "first", "second", "third", "half"}
COLOURS = {"red", "blue", "green", "yellow", "orange", "purple", "pink", "black", "white",
           "brown", "grey", "gray", "gold", "silver"}


def questions(name: str) -> list[tuple[str, list[str]]]:
    out = []
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            question, accepted = line.split("\t")
            out.append((question, [a.strip().casefold() for a in accepted.split("|")]))
    return out


@pytest.mark.parametrize("name", ["direct_questions.tsv", "direct_questions_heldout.tsv"])
def test_the_finder_reads_every_question_of_the_two_sets(name):
    cases = questions(name)
    assert len(cases) >= 100
    wrong = []
    for question, accepted in cases:
        try:
            got = find_category(question).phrase.casefold()
        except CategoryNotFound:
            got = "?"
        if got not in accepted:
            wrong.append(f"{question!r}: got {got!r}, want {' | '.join(accepted)}")
    assert not wrong, "\n".join(wrong)


def test_the_category_carries_article_plural_and_a_short_second_mention():
    cat = find_category("Choose a random popular butterfly.")
    assert (cat.a_phrase, cat.plural, cat.noun) == ("a popular butterfly",
                                                    "popular butterflies", "butterfly")
    cat = find_category("Pick a number between 1 and 100.")
    assert (cat.a_phrase, cat.plural, cat.noun) == ("a number between 1 and 100",
                                                    "numbers between 1 and 100", "number")
    assert find_category("Name an Olympic sport.").a_phrase == "an Olympic sport"
    assert find_category("Choose a random type of coffee.").plural == "types of coffee"


def test_an_unreadable_question_is_one_sentence_asking_for_the_category():
    with pytest.raises(CategoryNotFound) as exc:
        draft_family("Why is the sky blue?")
    message = str(exc.value)
    assert "what kind of answer" in message and message.count(".") <= 3
    drafted = draft_family("Why is the sky blue?", category="shade of blue", seed=1)
    assert all("shade of blue" in f or "shades of blue" in f for f in drafted.family.framings)
    with pytest.raises(CategoryNotFound):
        draft_family("Pick a fruit.", category="quickly")


def test_the_templates_are_many_varied_and_lean_towards_no_answer():
    assert len(TEMPLATES) >= 40
    assert len({t.id for t in TEMPLATES}) == len(TEMPLATES)
    assert len({t.scene for t in TEMPLATES}) >= 15
    for t in TEMPLATES:
        words = set(re.findall(r"[a-z]+", re.sub(r"\{\w+\}", " ", t.text).lower()))
        assert "{a_cat}" in t.text or "{cats}" in t.text, t.id
        assert t.text.endswith("?"), t.id
        assert not re.search(r"\d", t.text), t.id
        assert not words & NUMBER_WORDS, (t.id, words & NUMBER_WORDS)
        assert not words & COLOURS, (t.id, words & COLOURS)
        assert "random" not in words and "randomly" not in words, t.id


def framing_problems(direct: str, framings: list[str], phrase: str, plural: str) -> list[str]:
    problems = []
    keys = [" ".join(f.split()).casefold() for f in framings]
    if len(set(keys)) != len(keys):
        problems.append("duplicates")
    for f in framings:
        low = f.casefold()
        if not f.strip():
            problems.append("an empty framing")
        if contains_direct(direct, f):
            problems.append(f"contains the direct question: {f}")
        if phrase.casefold() not in low and plural.casefold() not in low:
            problems.append(f"does not name the category: {f}")
        last = re.split(r"(?<=[.!])\s+", f)[-1]
        if not (f.endswith("?") and re.match(r"(Which|What)\b", last)):
            problems.append(f"not a question: {f}")
        if re.search(r"\brandom", low):
            problems.append(f"asks for chance: {f}")
    return problems


def test_a_drafted_family_passes_the_editors_checks_for_every_readable_question():
    readable = [q for name in ("direct_questions.tsv", "direct_questions_heldout.tsv")
                for q, accepted in questions(name) if "?" not in accepted]
    assert len(readable) > 250
    problems = []
    for seed, question in enumerate(readable):
        draft = draft_family(question, seed=seed)
        fam = draft.family
        assert len(fam.framings) == 30
        # The loader's own validation (duplicates, empties, types) on the saved form.
        assert fam_mod.validate(fam.to_dict(), "drafted").framings == fam.framings
        problems += [f"{question}: {p}" for p in framing_problems(
            question, fam.framings, draft.category.phrase, draft.category.plural)]
    assert not problems, "\n".join(problems[:20])


def test_thirty_framings_spread_over_the_scenes_and_a_seed_repeats_them():
    a = draft_family("Choose a random gemstone.", seed=5).family
    b = draft_family("Choose a random gemstone.", seed=5).family
    c = draft_family("Choose a random gemstone.", seed=6).family
    assert a.framings == b.framings and a.drafted.templates == b.drafted.templates
    assert a.framings != c.framings
    scenes = Counter(t.rsplit("-", 1)[0] for t in a.drafted.templates)
    assert len(scenes) >= 15 and max(scenes.values()) <= 2
    # Consecutive framings come from different scenes, whatever the seed and category, even
    # when every template that fits is drawn.
    for question in ("Choose a random gemstone.", "Pick a random party game.",
                     "What is a good name for a dog?"):
        every = len(usable_templates(find_category(question), question))
        for seed in range(10):
            for n in (30, every):
                ids = [t.split("-")[0] for t in draft_family(question, seed=seed,
                                                             n=n).family.drafted.templates]
                assert all(x != y for x, y in zip(ids, ids[1:])), (question, seed, ids)


def test_a_template_that_already_names_the_category_is_left_out():
    fam = draft_family("Choose a random boat.", n=40, seed=2).family
    assert "naming-boat" not in fam.drafted.templates
    assert not any("boat and want to name it after a boat" in f for f in fam.framings)
    with pytest.raises(BadInput, match="templates fit"):
        draft_family("Choose a random boat.", n=len(TEMPLATES), seed=2)


def test_a_template_whose_text_would_contain_the_direct_question_is_left_out():
    # "…asks every team to write down a fruit" contains this direct question.
    fam = draft_family("Write down a fruit", n=60, seed=1, category="fruit").family
    assert "quiz-pub" not in fam.drafted.templates
    assert not any(contains_direct("Write down a fruit", f) for f in fam.framings)


def test_the_family_file_records_its_drafting_and_round_trips(isolated):
    draft = draft_family("Pick a number between 1 and 100.", n=12, seed=3)
    path = save_new(draft.family, isolated / "families")
    text = path.read_text()
    assert "[drafted]" in text and 'method = "templates"' in text and "seed = 3" in text
    loaded = fam_mod.load(path)
    assert loaded.drafted == draft.family.drafted
    assert len(loaded.drafted.templates) == 12 and all(loaded.drafted.templates)
    # A second draft of the same question never replaces the first file.
    second = save_new(draft_family("Pick a number between 1 and 100.", n=12, seed=4).family,
                      isolated / "families")
    assert second != path and path.read_text() == text
    assert fam_mod.load(second).name == "number between 1 and 100 2"


@pytest.mark.parametrize("change, message", [
    ('method = "templates"', None),
    ('method = "model"', "drafted.method must be 'templates'"),
    ('colour = "red"', "unknown key 'drafted.colour'"),
    ('seed = -1', "drafted.seed must be"),
    ('templates = ["a"]', "has 1 entries for 2 framings"),
])
def test_the_drafted_table_is_validated_like_the_rest_of_the_file(isolated, change, message):
    body = ('name = "x"\ndirect = "Pick a fruit."\nframings = ["Which fruit?", '
            '"What fruit?"]\n\n[drafted]\nmethod = "templates"\ncategory = "fruit"\n'
            'templates = ["gift-mug", ""]\n')
    key = change.split(" =")[0]
    lines = [ln for ln in body.splitlines() if not ln.startswith(key + " =")]
    lines.insert(lines.index("[drafted]") + 1, change)
    path = isolated / "x.toml"
    path.write_text("\n".join(lines) + "\n")
    if message is None:
        assert fam_mod.load(path).drafted.templates == ["gift-mug", ""]
        return
    with pytest.raises(BadInput, match=re.escape(message)) as exc:
        fam_mod.load(path)
    assert ", line " in str(exc.value)


def test_an_edited_framing_loses_its_template_and_the_rest_keep_theirs():
    fam = draft_family("Choose a random gemstone.", n=5, seed=1).family
    edited = [fam.framings[0] + " Be honest.", *fam.framings[1:4], "My own framing, which?"]
    again = fam.drafted.realigned(fam.framings, edited)
    assert again.templates == ["", *fam.drafted.templates[1:4], ""]
    assert fam.drafted.realigned(fam.framings, ["Only mine?"]) is None


def test_bundled_families_keep_their_content_hash():
    # Families without [drafted] hash as before, so stored snapshots still match them.
    for path in FAMILIES.glob("*.toml"):
        fam = fam_mod.load(path)
        assert fam.drafted is None
        assert "drafted" not in fam.to_dict()


def test_inflect_loads_without_leaving_typeguard_changed():
    import typeguard

    before = typeguard.typechecked
    assert find_category("Name an Olympic sport.").plural == "Olympic sports"
    assert typeguard.typechecked is before
