"""Step 2: an answer → its comparison key, a tuple of folded words.

Unicode NFKC, accents and case folded, a leading article dropped (only when words follow:
"A" and "Vitamin A" keep their letter), "&" and "'n'" as "and", hyphens as spaces, number
words and roman numerals after a word as digits ("Rocky IV" → rocky 4), British spellings
as American, each word to its dictionary lemma, a country's foreign name as its English
one. A place qualifier after a comma ("Springfield, Illinois") becomes a final word naming the
place's ISO code ("@us-il"; "Austin, TX" and "Austin, Texas" both "@us-tx"), so the cluster
step can compare the place itself and its qualifier apart.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from probe.matching import dates, lexicon

# A key never needs more than this much of an answer.
MAX_ANSWER = 200

ARTICLES = {"a", "an", "the"}
# Abbreviations in place names: St. Petersburg is Saint Petersburg.
_ABBREVIATIONS = {"st": "saint", "mt": "mount", "ft": "fort"}
_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60,
         "seventy": 70, "eighty": 80, "ninety": 90}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
_NUMBER_WORDS = set(_UNITS) | set(_TENS) | set(_SCALES)
# Roman numerals made of I, V and X only (II … XXXIX): "C", "D", "L", "M" are letters and
# languages far more often than numbers.
_ROMAN = re.compile(r"^(?=[ivx]{2,6}$)x{0,3}(?:ix|iv|v?i{0,3})$")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10}
_TOKEN = re.compile(r"\d+(?:\.\d+)+|[^\s.]+")


def _numbers_to_digits(words: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(words):
        if words[i] not in _NUMBER_WORDS:
            out.append(words[i])
            i += 1
            continue
        total, current, j = 0, 0, i
        while j < len(words) and (words[j] in _NUMBER_WORDS or
                                  (words[j] == "and" and j + 1 < len(words)
                                   and words[j + 1] in _NUMBER_WORDS and j > i)):
            w = words[j]
            if w in _TENS or w in _UNITS and _UNITS[w] >= 10:
                if 10 <= current <= 99 and (current % 10 == 0 or current < 20 or w in _TENS):
                    # A second pair of digits: "nineteen sixty-nine" is 1969,
                    # "twenty twenty-four" 2024 (a year said as two numbers).
                    total, current = total + current * 100, 0
            if w == "and":
                pass              # "three hundred and twelve"
            elif w in _UNITS:
                current += _UNITS[w]
            elif w in _TENS:
                current += _TENS[w]
            else:
                current = max(current, 1) * _SCALES[w]
                if _SCALES[w] >= 1000:
                    total += current
                    current = 0
            j += 1
        out.append(str(total + current))
        i = j
    return out


_NUMBER_LABELS = {"number", "no", "num", "nr", "#"}


def _drop_number_labels(words: list[str]) -> list[str]:
    """"Number 7", "No. 7", "#7" are 7; a regnal "the" before an ordinal goes ("Henry the
    8" is Henry 8)."""
    out: list[str] = []
    for i, w in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w.startswith("#") and w[1:].isdigit():
            w = w[1:]
        elif (w in _NUMBER_LABELS and nxt.isdigit()) or (
                w == "the" and out and out[-1].isalpha() and nxt.isdigit() and i + 1 == len(words) - 1):
            continue
        out.append(w)
    return out


def roman_value(word: str) -> int | None:
    if not _ROMAN.match(word):
        return None
    total = 0
    for a, b in zip(word, word[1:] + " "):
        v = _ROMAN_VALUES[a]
        total += -v if b != " " and _ROMAN_VALUES[b] > v else v
    return total


def _word(w: str) -> str:
    # Spelling both sides of the lemma: "programming" lemmatises to British "programme".
    return lexicon.american(lexicon.lemma(lexicon.american(w)))


# A ruler's number at the end of a name: "Louis XIV", "Henry the Eighth", "Charles 2nd".
_REGNAL_END = re.compile(r"(?:\b[IVXLC]+|\d+(?:st|nd|rd|th)?|\b\w+(?:st|nd|rd|th))$", re.I)


def _qualifier(text: str) -> tuple[str, str]:
    """Split "Rome, Italy" into ("Rome", "@it") when the part after the comma is a place."""
    for mark in (",", " of "):
        head, sep, tail = text.rpartition(mark)
        if sep and head.strip() and tail.strip() and len(tail) < 60:
            place = lexicon.place_id(tail)
            if place and (mark == "," or _REGNAL_END.search(head)):
                return head, "@" + place.casefold()     # "Rome, Italy"; "Louis XIV of France"
    return text, ""


_UPPER_ROMAN = re.compile(r"(?<![\w'])(?:[IVXLCDM]{4,12}|[IVXLC]{2,7}|(?<=[a-z] )I)(?![\w'])")


def _upper_romans(text: str) -> str:
    """Roman numerals written in capitals ("XXVII", "LXXIII", "Elizabeth I") as digits,
    checked by the roman library; lower-case letters stay letters ("C", "vi")."""
    import roman

    def value(m: re.Match) -> str:
        try:
            return str(roman.fromRoman(m.group()))
        except roman.InvalidRomanNumeralError:
            return m.group()

    return _UPPER_ROMAN.sub(value, text)


_CLOCK = re.compile(r"\b0?(\d{1,2})(?::(\d{2}))?\s?([ap])\.?\s?m\b\.?")
_ERA = re.compile(r"(?<=\d)\s*(?:a\.?d\.?|c\.?e\.?)(?=\s*$)|^\s*a\.?d\.?\s+(?=\d)")
_DECADE_WORDS = {"twenties": 2, "thirties": 3, "forties": 4, "fifties": 5, "sixties": 6,
                 "seventies": 7, "eighties": 8, "nineties": 9}
_DECADE = re.compile(r"(?:\b(?:19)?|')([2-9]0)'?s\b|\b(" + "|".join(_DECADE_WORDS) + r")\b")


def _clock(m: re.Match) -> str:
    return f"{int(m.group(1))} {m.group(2) or '00'} {m.group(3)}m"


# A 24-hour time ("18:30", "07:00") or noon and midnight, as the 12-hour clock says it.
_CLOCK_24 = re.compile(r"^\s*(?:(\d{2}):(\d{2})|(?:12\s*)?(noon|midday|midnight))\s*$")


def _clock_24(text: str) -> str:
    m = _CLOCK_24.match(text)
    if not m:
        return text
    if m.group(3):
        return "12:00 pm" if m.group(3) in ("noon", "midday") else "12:00 am"
    hours, minutes = int(m.group(1)), m.group(2)
    if hours > 23 or int(minutes) > 59 or (hours >= 1 and not m.group(1).startswith("0")
                                            and hours <= 12):
        return text               # "10:30" says nothing of morning or evening
    return f"{hours % 12 or 12}:{minutes} {'pm' if hours >= 12 else 'am'}"


# A time said in words, as the 12-hour clock writes it: "nine at night" and "9 pm" are
# 9:00 pm, "three in the morning" 3:00 am, "half past six in the evening" 6:30 pm.
_PART_OF_DAY = {("am",): "am", ("pm",): "pm", ("in", "the", "morning"): "am",
                ("in", "the", "afternoon"): "pm", ("in", "the", "evening"): "pm",
                ("at", "night"): "pm", ("tonight",): "pm", ("this", "evening"): "pm"}
_PAST = {"half": 30, "quarter": 15}


def _times(words: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(words):
        hour, minutes, j = _clock_words(words, i)
        if hour is None:
            out.append(words[i])
            i += 1
            continue
        part = next((p for p in _PART_OF_DAY if tuple(words[j:j + len(p)]) == p), None)
        if part is not None:
            half = _PART_OF_DAY[part]
            if part == ("at", "night") and (hour == 12 or hour <= 4):
                half = "am"       # "twelve at night" is midnight, "three at night" small hours
            out += [str(hour), f"{minutes:02d}", half]
            i = j + len(part)
        elif j > i + 1:           # "seven o'clock", "half past six": the hour, no half of day
            out += [str(hour), f"{minutes:02d}"]
            i = j
        else:
            out.append(words[i])
            i += 1
    return out


def _clock_words(words: list[str], i: int) -> tuple[int | None, int, int]:
    """An hour at ``words[i]`` ("9", "9 oclock", "half past 6", "quarter to 7"): the hour,
    its minutes and where the words after it start; no hour when none is there."""
    w = words[i]
    if w in _PAST and i + 2 < len(words) and words[i + 1] in ("past", "to") \
            and words[i + 2].isdigit() and 1 <= int(words[i + 2]) <= 12:
        hour, minutes = int(words[i + 2]), _PAST[w]
        if words[i + 1] == "to":
            hour, minutes = (hour - 2) % 12 + 1, 60 - minutes
        return hour, minutes, i + 3
    if not (w.isdigit() and 1 <= int(w) <= 12 and len(w) <= 2) or i and words[i - 1] == "00":
        return None, 0, i
    j = i + 1
    minutes = 0
    if j < len(words) and words[j] in ("oclock", "o'clock"):
        j += 1
    elif j < len(words) and len(words[j]) == 2 and words[j].isdigit() and int(words[j]) < 60:
        minutes, j = int(words[j]), j + 1
    return int(w), minutes, j


def _decade(m: re.Match) -> str:
    tens = m.group(1) or str(_DECADE_WORDS[m.group(2)] * 10)
    return f"19{tens}s"


@lru_cache(maxsize=65536)
def normalise(answer: str, lemmas: bool = True) -> tuple[str, ...]:
    """Comparison key: a tuple of folded words. Empty for an empty answer. ``lemmas=False``
    keeps each word's own form: titles, where "Aliens" is not "Alien"."""
    text = unicodedata.normalize("NFKC", answer[:MAX_ANSWER])
    text, qualifier = _qualifier(text)
    if re.search(r"[IVXLCDM]", text):
        text = _upper_romans(text)
    text = lexicon.strip_accents(text).casefold()
    text = _CLOCK.sub(_clock, _clock_24(text))                # 7am, 7:00 a.m., 07:00 → 7 00 am
    text = _ERA.sub("", text)                                  # 1969 AD is 1969
    text = _DECADE.sub(_decade, text)                         # the '60s, the sixties → 1960s
    text = dates.as_date_tokens(text)
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)          # 1,000 → 1000
    text = text.replace("&", " and ").replace("’", "'")
    text = re.sub(r"(?<=\w) ?'n'? (?=\w)", " and ", text)    # rock 'n' roll, rock n' roll
    text = re.sub(r"[-_/]+", " ", text)
    text = re.sub(r"\b([a-z]{1,2})(\d{1,3})\b", r"\1 \2", text)   # B12 is B 12, as B-12
    text = re.sub(r"\b(\d{1,4})(?!(?:st|nd|rd|th|s)\b)([a-z]{2,})\b", r"\1 \2", text)  # 7UP is 7 Up
    text = re.sub(r"[^\w\s+#'.]", " ", text).replace("'", "")
    words = _TOKEN.findall(text)
    if len(words) > 1 and words[0] in ARTICLES:
        words = words[1:]
    words = ["and" if w == "n" and 0 < i < len(words) - 1 else _ABBREVIATIONS.get(w, w)
             for i, w in enumerate(words)]
    words = _numbers_to_digits(dates.ordinals_to_digits(words))
    words = _drop_number_labels(_times(words))
    out = []
    for i, w in enumerate(words):
        value = roman_value(w) if i > 0 and words[i - 1].isalpha() else None
        if value is None and i > 0 and i == len(words) - 1 and w in ("v", "x") \
                and words[i - 1].isalpha():
            value = _ROMAN_VALUES[w]          # "Rocky V"
        if value is not None:
            out.append(str(value))
        else:
            out.append(_word(w) if lemmas or w.startswith("@") else lexicon.american(w))
    if out and not qualifier:
        english = lexicon.country_in_english(" ".join(out))
        if english != " ".join(out):
            out = english.split()
        elif len(out) >= 2:
            short = lexicon.country_short_name(" ".join(out))
            if short:
                out = short.split()   # "Republic of the Sudan" is Sudan
    return tuple(out) + ((qualifier,) if qualifier else ())


_DIGIT = re.compile(r"\d")


def has_digit(key: tuple[str, ...]) -> bool:
    return bool(_DIGIT.search(" ".join(key)))
