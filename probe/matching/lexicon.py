"""What the matcher knows about English words and places, from real word lists.

Word frequencies (wordfreq) decide whether a spelling is a misspelling, lemmas come from
lemminflect's dictionary, British → American spellings from breame, and countries and
their subdivisions from pycountry. Each list loads on first use, so importing the matcher
(and `probe --help`) stays instant.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

# Frequencies are Zipf values: 3 is once per million words, 0 means never seen.
# A typo needs its rarer side below RARE and the other side at least GAP more frequent:
# "Capuccino" (1.0) vs "Cappuccino" (2.9) is a typo; "Karin" (3.0) vs "Karen" (4.1) is not.
RARE = 2.5
GAP = 1.0


# Letters that Unicode does not decompose into a base letter and a mark.
_UNDECOMPOSED = str.maketrans({"Đ": "D", "đ": "d", "Ł": "L", "ł": "l", "Ø": "O", "ø": "o",
                               "ß": "ss", "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe",
                               "Þ": "Th", "þ": "th", "ð": "d", "ı": "i", "Ħ": "H", "ħ": "h"})


def strip_accents(text: str) -> str:
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text.translate(_UNDECOMPOSED))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@lru_cache(maxsize=65536)
def frequency(word: str) -> float:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


# Two long words no word list knows, one edit apart, are one word spelled two ways:
# "Xylocopa" / "Xylocpa". Shorter unknown words may be different names.
UNKNOWN_LONG = 8


def is_misspelling_of(rare: str, common: str) -> bool:
    """Evidence that ``rare`` is a misspelling: it is rare and the other form is not."""
    fr, fc = frequency(rare), frequency(common)
    if fr > fc:
        fr, fc = fc, fr
    if fc == 0.0:
        return max(len(rare), len(common)) >= UNKNOWN_LONG
    return fr < RARE and fc - fr >= GAP


# Irregular forms the lemma dictionary lacks.
_IRREGULAR = {"oxen": "ox", "doughnut": "donut", "doughnuts": "donut"}


@lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """The dictionary lemma of a noun ("mice" → "mouse"); a gerund's verb ("running" → "run").

    Words outside the dictionary (names, places) stay as they are, so "Rome" is never "ROM";
    a plural of an unknown word loses its "s" only when the singular is the commoner word.
    """
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 2 or not word.isalpha():
        return word
    from lemminflect import getLemma

    nouns = getLemma(word, "NOUN", lemmatize_oov=False)
    if word.endswith("ing") and len(word) > 5:
        verbs = getLemma(word, "VERB", lemmatize_oov=False)
        if verbs and (not nouns or nouns == (word,)):
            return verbs[0]
    if nouns:
        # Two readings ("movies": movie or movies): the singular, the commoner case.
        return min(nouns, key=lambda w: (len(w), w))
    if (word.endswith("s") and not word.endswith(("ss", "us", "is", "ous")) and len(word) > 4
            and frequency(word[:-1]) > frequency(word)):
        return word[:-1]
    return word


@lru_cache(maxsize=65536)
def parts_of_speech(word: str) -> frozenset[str]:
    """The parts of speech the lemma dictionary knows a word as (empty for names)."""
    from lemminflect import getAllLemmas

    return frozenset(getAllLemmas(word))


@lru_cache(maxsize=1)
def _british() -> dict[str, str]:
    from breame.data.spelling_constants import BRITISH_ENGLISH_SPELLINGS

    return BRITISH_ENGLISH_SPELLINGS


def american(word: str) -> str:
    """The American spelling of a British one ("colour" → "color"), else the word."""
    return _british().get(word, word)


# ------------------------------------------------------------------- places

# Names pycountry does not hold, as the ids of the places they name.
_EXTRA_PLACES = {"uk": "GB", "britain": "GB", "great britain": "GB", "usa": "US", "us": "US",
                 "america": "US", "united states": "US", "united states of america": "US"}
_CONTINENTS = ["europe", "asia", "africa", "oceania", "north america", "south america",
               "latin america", "middle east", "antarctica"]
# Languages whose country names count as the country ("Brasil" is Brazil).
_ENDONYM_LANGUAGES = ["de", "es", "fr", "it", "pt", "nl", "sv", "pl", "tr", "id"]


def _fold(text: str) -> str:
    return " ".join(strip_accents(text).casefold().replace("-", " ").replace(".", "").split())


@lru_cache(maxsize=1)
def _place_ids() -> dict[str, str]:
    """Folded place names → ids: ISO country codes ("US") and subdivision codes ("US-TX")."""
    import pycountry

    out = dict(_EXTRA_PLACES)
    out.update({c: "@" + c for c in _CONTINENTS})
    for c in pycountry.countries:
        for attr in ("name", "common_name", "official_name"):
            if getattr(c, attr, None):
                out.setdefault(_fold(getattr(c, attr)), c.alpha_2)
        out.setdefault(c.alpha_3.casefold(), c.alpha_2)
    for sub in pycountry.subdivisions:
        out.setdefault(_fold(sub.name), sub.code)
        if sub.country_code in ("US", "CA", "AU"):
            out.setdefault(sub.code.split("-")[1].casefold(), sub.code)
    return out


@lru_cache(maxsize=1)
def _country_names() -> dict[str, str]:
    import pycountry

    return {c.alpha_2: _fold(getattr(c, "common_name", None) or c.name).split(",")[0]
            for c in pycountry.countries}


def country_short_name(text: str) -> str | None:
    """A country's everyday name for a longer one ("Republic of South Sudan" → south
    sudan), else None."""
    pid = place_id(text)
    if not pid or len(pid) != 2:
        return None
    name = _country_names().get(pid)
    return name if name and name != _fold(text) else None


def place_id(text: str) -> str | None:
    """The id of the country or subdivision ``text`` names: "Texas" and "TX" → "US-TX"."""
    return _place_ids().get(_fold(text))


@lru_cache(maxsize=1)
def _endonyms() -> dict[str, str]:
    import gettext

    import pycountry

    english = {_fold(c.name) for c in pycountry.countries}
    # Places of their own: Spanish "Granada" is Grenada, but Granada is also a Spanish city.
    subdivisions = {_fold(s.name) for s in pycountry.subdivisions}
    out: dict[str, str] = {}
    for lang in _ENDONYM_LANGUAGES:
        try:
            tr = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[lang])
        except OSError:
            continue
        for c in pycountry.countries:
            name, local = _fold(getattr(c, "common_name", None) or c.name), _fold(tr.gettext(c.name))
            # A local name that is also an English word, another country or a place of its
            # own stays itself: German "Island" is not Iceland.
            if (local != name and local not in english and local not in subdivisions
                    and "," not in name
                    and frequency(local) < 3.5):
                out.setdefault(local, name)
    return out


def country_in_english(folded: str) -> str:
    """A country's English name for its name in another language, else the text."""
    return _endonyms().get(folded, folded)
