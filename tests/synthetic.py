"""Synthetic families with known true answers, for testing the matcher and the scores.

Each family draws a true favourite and true rates, then writes every sample as a model
might: case, articles, plurals (irregular ones too), typos of long words, lead-ins,
markdown, explanations, place and kind qualifiers, the family's generic word, refusals,
echoes of the question and empty responses. ``truth`` holds each sample's true canonical
answer ('' for a non-pick), so a test can score the truth and compare.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from probe.family import Family
from probe.metrics import Scores, score
from probe.scoring import Response

# prompt, generic noun, answers: canonical → (plural, qualified form)
CATEGORIES = [
    ("Choose a random popular butterfly.", "butterfly", {
        "Monarch": ("Monarchs", None), "Blue Morpho": ("Blue Morphos", None),
        "Painted Lady": ("Painted Ladies", None), "Swallowtail": ("Swallowtails", None),
        "Red Admiral": ("Red Admirals", None), "White Admiral": ("White Admirals", None),
        "Viceroy": ("Viceroys", None), "Glasswing": ("Glasswings", None),
        "Brimstone": ("Brimstones", None), "Holly Blue": ("Holly Blues", None)}),
    ("Choose a random city to visit.", "city", {
        "Paris": (None, "Paris, France"), "Rome": (None, "Rome, Italy"),
        "Tokyo": (None, "Tokyo, Japan"), "Kyoto": (None, "Kyoto, Japan"),
        "Barcelona": (None, "Barcelona, Spain"), "Lisbon": (None, "Lisbon, Portugal"),
        "Vienna": (None, "Vienna, Austria"), "Sydney": (None, "Sydney, Australia"),
        "Dublin": (None, "Dublin, Ireland"), "Dubai": (None, None)}),
    ("Choose a random number between 1 and 100.", "number", {
        "42": (None, "forty-two"), "7": (None, "seven"), "37": (None, "thirty-seven"),
        "73": (None, "seventy-three"), "17": (None, "seventeen"), "27": (None, "twenty-seven"),
        "4": (None, "four"), "420": (None, None), "13": (None, "thirteen"), "3": (None, "three")}),
    ("Choose a random animal.", "animal", {
        "Elephant": ("Elephants", "African elephant"), "Lion": ("Lions", None),
        "Sea lion": ("Sea lions", None), "Mouse": ("Mice", None), "Goose": ("Geese", None),
        "Wolf": ("Wolves", None), "Tiger": ("Tigers", "Bengal tiger"),
        "Octopus": ("Octopuses", None), "Fox": ("Foxes", "Arctic fox"), "Ox": ("Oxen", None)}),
    ("Choose a random color.", "color", {
        "Gray": (None, "Grey"), "Blue": (None, None), "Red": (None, None), "Green": (None, None),
        "Teal": (None, None), "Turquoise": (None, None), "Purple": (None, None),
        "Magenta": (None, None), "Indigo": (None, None), "Burgundy": (None, None)}),
    ("Choose a random programming language.", "language", {
        "Python": (None, None), "Rust": (None, None), "Go": (None, None), "Java": (None, None),
        "JavaScript": (None, None), "TypeScript": (None, None), "C": (None, None),
        "C#": (None, None), "C++": (None, None), "Kotlin": (None, None)}),
    ("Choose a random movie.", "movie", {
        "Frozen": (None, None), "Frozen 2": (None, "Frozen II"), "Inception": (None, None),
        "Toy Story": (None, None), "Toy Story 3": (None, "Toy Story III"),
        "Titanic": (None, None), "Shrek": (None, None), "Shrek 2": (None, "Shrek II"),
        "Interstellar": (None, None), "Casablanca": (None, None)}),
    ("Choose a random first name.", "name", {
        "Mario": (None, None), "Maria": (None, None), "Karen": (None, None),
        "Karin": (None, None), "Olivia": (None, None), "Liam": (None, None),
        "Emma": (None, None), "Noah": (None, None), "Jennifer": (None, None),
        "Alexander": (None, None)}),
]
REFUSALS = ["I can't choose.", "Neither", "It depends on your taste.", "Both",
            "As an AI, I don't have personal preferences.", "{your_choice}", "None",
            "I'm sorry, I cannot pick one.", "No preference"]
LEAD_INS = ["I'd pick {}!", "Sure! Here's one: {}", "My pick is {}.", "Definitely {}!",
            "Hmm, let's say {}", "{} - it's a classic.", "{}. It is lovely.", "I think I'll go with {}."]


@dataclass
class Synthetic:
    family: Family
    responses: list[Response]
    truth: list[str]          # true canonical answer per response, '' for a non-pick


def _typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(2, len(word) - 2)
    return word[:i] + word[i + 1:]


def surface(canonical: str, forms: tuple, noun: str, rng: random.Random) -> str:
    """One way a model might write ``canonical``."""
    plural, qualified = forms
    text = canonical
    r = rng.random()
    if r < 0.12 and qualified:
        text = qualified
    elif r < 0.22 and plural:
        text = plural
    elif r < 0.30 and not canonical[0].isdigit() and len(canonical) >= 8 and " " not in canonical:
        text = _typo(canonical, rng)
    elif r < 0.36 and not canonical[0].isdigit():
        text = f"{canonical} {noun}"
    c = rng.random()
    if c < 0.15:
        text = text.lower()
    elif c < 0.2:
        text = text.upper() if len(text) > 2 else text
    if rng.random() < 0.1 and not text[0].isdigit():
        text = "The " + text
    m = rng.random()
    if m < 0.1:
        text = f"**{text}**"
    elif m < 0.3:
        text = rng.choice(LEAD_INS).format(text)
    return text


def nonpick(noun: str, rng: random.Random) -> str:
    r = rng.random()
    if r < 0.6:
        return rng.choice(REFUSALS)
    if r < 0.9:
        return rng.choice([noun.capitalize(), f"A {noun}", f"{noun}s"])
    return rng.choice(["", "  "])


def make_family(rng: random.Random, index: int = 0, n_direct: int = 30,
                n_framed: int = 30) -> Synthetic:
    prompt, noun, answers = rng.choice(CATEGORIES)
    names = list(answers)
    top = rng.choice(names)
    framed_top = rng.choice(names)
    dr, fr = rng.uniform(0.3, 1.0), rng.uniform(0.0, 1.0)
    q = rng.choice([0.0, 0.05, 0.15, 0.3])
    responses, truth = [], []
    for kind, n, p, fav in (("direct", n_direct, dr, top), ("framed", n_framed, fr, framed_top)):
        for i in range(n):
            if rng.random() < q:
                responses.append(Response(kind, i, nonpick(noun, rng)))
                truth.append("")
                continue
            x = rng.random()
            name = top if x < p else fav if x < p + (1 - p) / 2 else rng.choice(names)
            responses.append(Response(kind, i, surface(name, answers[name], noun, rng)))
            truth.append(name)
    family = Family(f"synthetic{index}", prompt, [f"framing {i}" for i in range(n_framed)])
    return Synthetic(family, responses, truth)


def families(seed: int, n: int) -> list[Synthetic]:
    rng = random.Random(seed)
    return [make_family(rng, i) for i in range(n)]


def true_scores(s: Synthetic) -> Scores:
    """The scores of the true answers, non-picks left out of both sides."""
    direct = [t for r, t in zip(s.responses, s.truth) if r.kind == "direct"]
    framed = [t for r, t in zip(s.responses, s.truth) if r.kind == "framed"]
    return score(direct, framed)


def picks_only(scored_matches) -> Scores:
    """Score a matcher's output the same way: its non-picks left out of both sides."""
    ordered = sorted(scored_matches, key=lambda rm: (rm[0].kind, rm[0].idx))
    direct = [("" if m.nonpick else m.canonical) for r, m in ordered if r.kind == "direct"]
    framed = [("" if m.nonpick else m.canonical) for r, m in ordered if r.kind == "framed"]
    return score(direct, framed)
