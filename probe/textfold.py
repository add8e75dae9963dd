"""Text as a reader sees it: the folded form two framings (or two aliases) are compared in,
and whether a text shows anything at all.

Some characters draw nothing. Unicode names them *default-ignorable*: zero-width spaces and
joiners, bidi marks, variation selectors (U+FE00–FE0F, U+E0100–E01EF), the combining
grapheme joiner (U+034F), tag characters, the Hangul fillers (U+3164, U+FFA0, U+115F,
U+1160). Others draw a blank: the Braille blank (U+2800). A framing that differs from
another only by these is the same scenario; a ``direct`` made only of them is empty.
"""

from __future__ import annotations

import re
import unicodedata

from probe.terminal import UNSAFE

# Default_Ignorable_Code_Point, Unicode 15 (DerivedCoreProperties.txt): Python's
# unicodedata does not carry the property. A test checks it covers every format
# character that draws nothing.
_IGNORABLE = ("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
              "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
              "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff")
# Characters that draw a blank cell without being whitespace to str.split().
_BLANK = "\u2800"
INVISIBLE = re.compile(f"[{_IGNORABLE}{_BLANK}]")


def visible(text: str) -> str:
    """``text`` without the characters that draw nothing or a blank, nor controls."""
    if text.isascii():
        return UNSAFE.sub("", text) if UNSAFE.search(text) else text
    return INVISIBLE.sub("", UNSAFE.sub("", text))


def is_blank(text: str) -> bool:
    """Does ``text`` show nothing: only spaces, controls and invisible characters?"""
    return not visible(text).strip()


def fold(text: str) -> str:
    """The form two framings are compared in: NFKC (fullwidth letters, ligatures, composed
    accents), invisible, blank and control characters removed, casefolded, runs of spaces
    as one. Two framings with one key read the same to a reader: one scenario, sampled
    twice."""
    text = visible(" ".join(text.split()))   # every kind of space and line break as one
    if text.isascii():                       # NFKC changes no ASCII: the common case, fast
        return " ".join(text.split()).lower()
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    # NFKC can make an ignorable character from a visible one's compatibility form
    # (U+FFA0 → U+1160): removed again.
    return " ".join(visible(text).split())
