"""Names a reference table knows, for the questions that ask for them.

Some everyday aliases are not spellings but knowledge: "Cu" is copper, "Deutsch" is
German. Where the question asks for chemical elements or languages, an answer written as an
element's symbol or a language's own name is keyed as the English name, from a library's
table (periodictable, Babel's CLDR data) rather than a list kept here. Only those questions
are touched: "He" stays a pronoun and "C" a programming language everywhere else.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Callable

Key = tuple[str, ...]

ELEMENT_WORDS = frozenset({"element", "elements"})
LANGUAGE_WORDS = frozenset({"language", "languages", "tongue"})
CODE_WORDS = frozenset({"programming", "program", "coding", "code", "computer", "scripting"})


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.strip().casefold())
    return "".join(c for c in text if not unicodedata.combining(c))


@lru_cache(maxsize=1)
def element_names() -> dict[str, str]:
    """Symbol (folded) → the element's English name: "cu" → "copper"."""
    import periodictable

    return {e.symbol.casefold(): e.name for e in periodictable.elements if e.number > 0}


@lru_cache(maxsize=1)
def language_names() -> dict[str, str]:
    """A language's own name (folded) → its English name: "deutsch" → "german",
    "español" → "spanish", "kiswahili" → "swahili"."""
    from babel import Locale, UnknownLocaleError
    from babel.localedata import locale_identifiers

    out: dict[str, str] = {}
    for code in locale_identifiers():
        if len(code) != 2:
            continue              # the languages with ISO 639-1 codes: the ones people name
        try:
            locale = Locale.parse(code)
            own, english = locale.get_display_name(code), locale.get_display_name("en")
        except (UnknownLocaleError, ValueError):
            continue
        if own and english and _fold(own) != _fold(english):
            out.setdefault(_fold(own), english.casefold())
    return out


def known_keyer(prompt_words: set[str], norm: Callable[[str], Key]) -> Callable[[str], Key]:
    """``norm`` with the tables the question calls for, or ``norm`` itself."""
    tables = []
    if prompt_words & ELEMENT_WORDS:
        tables.append(element_names)
    if prompt_words & LANGUAGE_WORDS and not prompt_words & CODE_WORDS:
        tables.append(language_names)
    if not tables:
        return norm

    @lru_cache(maxsize=65536)
    def named(answer: str) -> str | None:
        folded = _fold(answer.strip(" .!?*_\"'“”‘’"))
        return next((name for table in tables if (name := table().get(folded))), None)

    @lru_cache(maxsize=65536)
    def keyed(answer: str) -> Key:
        name = named(answer)
        return norm(name) if name else norm(answer)

    keyed.named = named           # "Na" is sodium here, not "n/a"
    return keyed
