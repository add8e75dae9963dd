"""Dates and ordinals in answers, so that "July 4th", "4th of July", "the Fourth of July",
"Jul 4" and "7/4" are one answer, and "Henry the Eighth" is "Henry 8th".

Month names come from the standard library's calendar; ordinal words are spelled out from
the normaliser's own number words (inflect can do it, but importing it costs seconds). A date becomes one token, "date0704"; a
slash date is read month first, as US answers write it. Only a month name or a d/d pattern
sends an answer here, so other answers pay nothing.
"""

from __future__ import annotations

import calendar
import re
from functools import lru_cache

_ORDINAL_SUFFIX = re.compile(r"^(\d{1,3})(?:st|nd|rd|th)$")
_SLASH = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})(?![\d/])")


@lru_cache(maxsize=1)
def _months() -> dict[str, int]:
    out: dict[str, int] = {}
    for i in range(1, 13):
        out[calendar.month_name[i].casefold()] = i
        out[calendar.month_abbr[i].casefold()] = i
    out["sept"] = 9
    return out


_ORDINAL_UNITS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
                  "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11,
                  "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15,
                  "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}


@lru_cache(maxsize=1)
def _ordinal_words() -> dict[str, int]:
    """"first" → 1 … "ninety ninth" → 99 (and "twentieth", "twenty-first" run together)."""
    out = dict(_ORDINAL_UNITS)
    for word, tens in _TENS.items():
        out[word[:-1] + "ieth"] = tens
        for unit, n in list(_ORDINAL_UNITS.items())[:9]:
            out[f"{word} {unit}"] = tens + n
            out[f"{word}{unit}"] = tens + n
    out["hundredth"] = 100
    return out


def ordinals_to_digits(words: list[str]) -> list[str]:
    """Ordinal words and suffixed numbers as digits: "eighth", "8th" → "8"; "twenty first"
    → "21"."""
    table = _ordinal_words()
    out: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        if i + 1 < len(words) and f"{w} {words[i + 1]}" in table:
            out.append(str(table[f"{w} {words[i + 1]}"]))
            i += 2
            continue
        m = _ORDINAL_SUFFIX.match(w)
        if m:
            out.append(m.group(1))
        elif w in table and w not in ("second",):
            out.append(str(table[w]))
        elif w == "second" and out and (out[-1].isalpha() or out[-1] == "the"):
            out.append("2")              # "Elizabeth the Second", never "a second"
        else:
            out.append(w)
        i += 1
    return out


def _day(token: str) -> int | None:
    m = re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)?", token)
    if m and 1 <= int(m.group(1)) <= 31:
        return int(m.group(1))
    n = _ordinal_words().get(token)
    return n if n and n <= 31 else None


def as_date_tokens(text: str) -> str:
    """Folded text with each day-and-month written as one token "dateMMDD"."""
    months = _months()
    if "/" in text:
        text = _SLASH.sub(lambda m: (f" date{int(m.group(1)):02d}{int(m.group(2)):02d} "
                                     if 1 <= int(m.group(1)) <= 12 and 1 <= int(m.group(2)) <= 31
                                     else m.group()), text)
    tokens = re.findall(r"\w+|[^\w\s]", text)
    if not any(t.rstrip(".") in months for t in tokens):
        return text
    words = [t for t in tokens if t not in (".", ",")]
    out: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        month = months.get(w)
        if month:
            # "july 4", "july 4th", "july the 4th"
            j = i + 1 + (i + 1 < len(words) and words[i + 1] == "the")
            day = _day(words[j]) if j < len(words) else None
            if day:
                out.append(f"date{month:02d}{day:02d}")
                i = j + 1
                continue
            # "4th of july", "the fourth of july", "4 july"
            if out and _day(out[-1]):
                day = _day(out.pop())
                if out and out[-1] == "the":
                    out.pop()
                out.append(f"date{month:02d}{day:02d}")
                i += 1
                continue
        if w == "of" and i + 1 < len(words) and months.get(words[i + 1]) and out and _day(out[-1]):
            i += 1
            continue
        out.append(w)
        i += 1
    return " ".join(out)
