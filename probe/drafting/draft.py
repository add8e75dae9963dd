"""Draft a family's reframings from scenario templates: offline, no chat model, seeded.

The category phrase fills every template; templates that would read wrongly for this
question are left out (one that already mentions the category's noun, one whose text
would contain the direct question itself); the rest are drawn scene by scene, so thirty
framings spread over every kind of situation before any scene repeats.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from probe import family as fam_mod
from probe.atomic import ensure_folder
from probe.drafting.phrase import Category, CategoryNotFound, find_category, parse_category
from probe.drafting.templates import TEMPLATES, Template
from probe.errors import BadInput
from probe.family import Family
from probe.provenance import Drafted
from probe.reading import shown
from probe.terminal import first_unsafe
from probe.textfold import is_blank

DEFAULT_FRAMINGS = 30
# Words a drafted framing never contains: they ask for chance, not a preference.
_CHANCE = re.compile(r"\b(?:random(?:ly)?|arbitrar(?:y|ily)|at random)\b", re.I)


@dataclass
class Draft:
    category: Category
    family: Family


def wording(text: str) -> str:
    """A question as compared for "contains the direct question": case, spacing, quotes
    and the closing punctuation do not count."""
    text = text.replace("’", "'").casefold()
    return " ".join(re.sub(r"[.?!…\"]+", " ", text).split())


def contains_direct(direct: str, framing: str) -> bool:
    """Does ``framing`` contain the direct question's wording verbatim?"""
    core = wording(direct)
    return bool(core) and core in wording(framing)


def category_for(direct: str, category: str | None = None) -> Category:
    """The category to draft with: the user's own phrase when given, else the one the
    finder reads from the direct question."""
    if category is None or not category.strip():
        return find_category(direct)
    parsed = parse_category(category.strip())
    if parsed is None:
        raise CategoryNotFound(category, f"{shown(repr(category.strip()), 80)} is not a "
                               "category probe can use; give a noun phrase such as "
                               "\"popular butterfly\".")
    return parsed


def _fill(template: Template, cat: Category) -> str:
    return template.text.format(a_cat=cat.a_phrase, cats=cat.plural, noun=cat.noun,
                                nouns=cat.nouns)


def _fits(template: Template, cat: Category, direct: str) -> str | None:
    """The filled template, or None when it would read wrongly for this category."""
    if _lemmas_of(re.sub(r"\{\w+\}", " ", template.text)) & (
            _lemmas_of(cat.noun) - {"of", "the", "a", "an"}):
        return None         # "name the boat after a boat", "rename it after a name"
    text = _fill(template, cat)
    if contains_direct(direct, text) or _CHANCE.search(text):
        return None
    return text


def _lemmas_of(text: str) -> set[str]:
    """Every dictionary form of every word, and the word without a "re-" ("renaming" →
    "rename" → "name")."""
    from lemminflect import getAllLemmas

    out = set()
    for word in re.findall(r"[\w']+", text.casefold()):
        forms = {word} | {lemma for lemmas in getAllLemmas(word).values() for lemma in lemmas}
        out |= forms | {f[2:] for f in forms if f.startswith("re") and len(f) > 5}
    return out


def _by_scene(pool: list[tuple[Template, str]], n: int, rng: random.Random
              ) -> list[tuple[Template, str]]:
    scenes: dict[str, list[tuple[Template, str]]] = {}
    for item in pool:
        scenes.setdefault(item[0].scene, []).append(item)
    order = list(scenes)
    rng.shuffle(order)
    for items in scenes.values():
        rng.shuffle(items)
    chosen: list[tuple[Template, str]] = []
    for round_ in range(max(len(v) for v in scenes.values())):
        for scene in order:
            if round_ < len(scenes[scene]) and len(chosen) < n:
                chosen.append(scenes[scene][round_])
    return chosen


def usable_templates(cat: Category, direct: str, avoid: Iterable[str] = ()
                     ) -> list[tuple[Template, str]]:
    """Every template that reads well for this question, filled in, except those whose
    text is in ``avoid`` (framings the family has already)."""
    pool = []
    seen = {wording(text) for text in avoid}
    for template in TEMPLATES:
        text = _fits(template, cat, direct)
        if text is not None and wording(text) not in seen:
            seen.add(wording(text))
            pool.append((template, text))
    return pool


def _checked(direct: str, category: str | None) -> str:
    """The question with its spaces collapsed, or one sentence for what drafting cannot
    use, said before any template is tried (a 100,000-character question cost 75 s)."""
    direct = " ".join(direct.split())
    if is_blank(direct):
        raise BadInput("the direct question is empty.")
    if len(direct) > fam_mod.MAX_PROMPT_CHARS:
        raise BadInput(f"the direct question is longer than {fam_mod.MAX_PROMPT_CHARS} "
                       f"characters ({len(direct):,}).")
    found = first_unsafe(category) if category else None
    if found:
        # The category is written into every framing, so it would be sent to the model.
        raise BadInput(f"the category holds a control or invisible character ({found[1]} at "
                       f"position {found[0] + 1}); give a phrase without one.")
    return direct


def draft_family(direct: str, n: int = DEFAULT_FRAMINGS, seed: int | None = None,
                 category: str | None = None, name: str | None = None,
                 avoid: Iterable[str] = ()) -> Draft:
    """A family whose ``n`` framings are drafted from templates (none of them in
    ``avoid``); the same seed drafts the same family. Raises BadInput (CategoryNotFound
    when the question is unreadable)."""
    direct = _checked(direct, category)
    cat = category_for(direct, category)
    pool = usable_templates(cat, direct, avoid)
    if n < 1:
        raise BadInput(f"--framings must be at least 1 (got {n}).")
    if n > len(pool):
        raise BadInput(f"only {len(pool)} templates fit '{shown(cat.phrase, 80)}'; ask for at "
                       f"most {len(pool)} framings.")
    if seed is None:
        from probe.runner import fresh_seed

        seed = fresh_seed()
    chosen = _by_scene(pool, n, random.Random(seed))
    family = fam_mod.validate({
        "name": name.strip() if name and name.strip() else default_name(cat),
        "direct": direct,
        "framings": [text for _, text in chosen],
        "drafted": Drafted("templates", cat.phrase, seed, [t.id for t, _ in chosen]).to_dict(),
    }, "drafted family")
    return Draft(cat, family)


def draft_more(direct: str, have: list[str], category: str | None = None,
               total: int = DEFAULT_FRAMINGS, at_least: int = 10) -> Draft:
    """More framings for a family that has ``have`` already: up to ``total`` in all (at
    least ``at_least`` more while templates last), none it has. A fresh seed each time."""
    pool = usable_templates(category_for(_checked(direct, category), category), direct, have)
    if not pool:
        raise BadInput("every template that fits this question is in the family already.")
    wanted = min(max(total - len(have), at_least), len(pool))
    return draft_family(direct, wanted, category=category, name="draft", avoid=have)


def default_name(cat: Category) -> str:
    """A family name from the category ("popular butterfly"), as the file name allows."""
    name = re.sub(r"[^\w .\-]+", "", cat.phrase).strip(" .-_")
    return (name[:60].rstrip(" .-") or "drafted family")


def save_new(family: Family, families_dir: str | Path, numbered: bool = True) -> Path:
    """Write a drafted family into ``families_dir`` without replacing any file there: a
    taken name gets " 2", " 3", … when ``numbered``; otherwise it is one sentence."""
    ensure_folder(Path(families_dir))
    base = family.name
    for i in range(1, 1000):
        if i > 1:
            if not numbered:
                break
            family.name = f"{base[:74]} {i}"
        target = fam_mod.path_for(family.name, families_dir)
        if not target.exists():
            return fam_mod.save(family, target)
    raise BadInput(f"{fam_mod.path_for(base, families_dir)} already exists; choose another "
                   "name (--name).")
