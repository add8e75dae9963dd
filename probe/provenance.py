"""Where a family's framings came from: the optional ``[drafted]`` table of a family file.

A family drafted from scenario templates (``probe new``, the app's quick family) says so,
with the category it filled in, the seed that chose the templates, and the template of
each framing, so a result can be read knowing its framings were not written by hand::

    [drafted]
    method = "templates"
    category = "popular butterfly"
    seed = 7
    templates = ["gift-mug", "story-bedtime", ...]    # one per framing; "" = by hand

A framing edited or added by hand later has "" in ``templates``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from probe.errors import BadInput
from probe.reading import shown

DRAFTED_KEYS = ("method", "category", "seed", "templates")
METHODS = ("templates",)
MAX_TEMPLATE_ID = 80


@dataclass
class Drafted:
    method: str
    category: str
    seed: int | None
    templates: list[str]

    @property
    def drafted_count(self) -> int:
        return sum(1 for t in self.templates if t)

    def to_dict(self) -> dict:
        return {"method": self.method, "category": self.category, "seed": self.seed,
                "templates": list(self.templates)}

    def toml_lines(self) -> list[str]:
        lines = ["", "[drafted]", f"method = {json.dumps(self.method)}",
                 f"category = {json.dumps(self.category, ensure_ascii=False)}"]
        if self.seed is not None:
            lines.append(f"seed = {self.seed}")
        lines.append(f"templates = [{', '.join(json.dumps(t) for t in self.templates)}]")
        return lines

    def summary(self) -> str:
        """One line for the terminal and the app."""
        n, total = self.drafted_count, len(self.templates)
        seed = f", seed {self.seed}" if self.seed is not None else ""
        share = f"{n} of {total}" if n != total else f"all {total}"
        return f"{share} framings drafted from templates (category '{self.category}'{seed})"

    def realigned(self, old_framings: list[str], new_framings: list[str]) -> "Drafted | None":
        """The record after the framings were edited: a framing keeps its template while
        its text is unchanged; one written or changed by hand has none. None when no
        drafted framing is left."""
        by_text: dict[str, str] = {}
        for text, template in zip(old_framings, self.templates):
            if template:
                by_text.setdefault(_key(text), template)
        templates = [by_text.get(_key(text), "") for text in new_framings]
        if not any(templates):
            return None
        return Drafted(self.method, self.category, self.seed, templates)


def join_drafts(first: "tuple[Drafted, list[str]] | None", drafted: Drafted,
                framings: list[str]) -> tuple[Drafted, list[str]]:
    """Templates drafted again, added to those drafted before: one record over both sets
    of framings (the seed only while every draft used the same one)."""
    if first is None:
        return drafted, list(framings)
    before, texts = first
    seed = before.seed if before.seed == drafted.seed else None
    return (Drafted(drafted.method, drafted.category, seed,
                    before.templates + drafted.templates), texts + list(framings))


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


def read_drafted(value: object, n_framings: int, where) -> Drafted:
    """Validate a parsed ``[drafted]`` table; ``where(key)`` names the file and line."""
    if not isinstance(value, dict):
        raise BadInput(f"{where('drafted')}: 'drafted' must be a table "
                       "(method, category, seed, templates).")
    for key in value:
        if key not in DRAFTED_KEYS:
            raise BadInput(f"{where(key)}: unknown key 'drafted.{shown(key)}' "
                           f"(allowed: {', '.join(DRAFTED_KEYS)}).")
    method = value.get("method")
    if method not in METHODS:
        raise BadInput(f"{where('method')}: drafted.method must be "
                       f"{' or '.join(repr(m) for m in METHODS)}.")
    category = value.get("category")
    if not isinstance(category, str) or not category.strip() or len(category) > 200:
        raise BadInput(f"{where('category')}: drafted.category must be the category phrase "
                       "(a non-empty string of at most 200 characters).")
    seed = value.get("seed")
    if seed is not None and (type(seed) is not int or not 0 <= seed < 2 ** 31):
        raise BadInput(f"{where('seed')}: drafted.seed must be an integer between 0 and "
                       f"{2 ** 31 - 1}.")
    templates = value.get("templates")
    if not isinstance(templates, list) or not all(
            isinstance(t, str) and len(t) <= MAX_TEMPLATE_ID for t in templates):
        raise BadInput(f"{where('templates')}: drafted.templates must be a list of template "
                       f"names (at most {MAX_TEMPLATE_ID} characters each).")
    if len(templates) != n_framings:
        raise BadInput(f"{where('templates')}: drafted.templates has {len(templates)} entries "
                       f"for {n_framings} framings (one per framing, \"\" for one written by "
                       "hand).")
    return Drafted(method, category.strip(), seed, [t.strip() for t in templates])


def from_stored(text: str | None) -> Drafted | None:
    """A snapshot's drafted record as the store keeps it (JSON), or None."""
    if not text:
        return None
    try:
        data = json.loads(text)
        return read_drafted(data, len(data.get("templates") or []), lambda key: "stored family")
    except (ValueError, AttributeError, BadInput):
        return None          # provenance is a note: a damaged one is dropped, not fatal
