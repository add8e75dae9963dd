"""The released pipeline's answer keys: lemmas, cluster keys, stems and `surface_match`.

Two normalisations exist in the paper's code and both are reproduced here:

* the **cluster key** (`cluster_key`) buckets answers within one side: lowercase ASCII
  letter/digit runs, a short stopword list dropped, each all-letter token lemmatised; when
  nothing is left the lowercased text itself is the key;
* the **lemma string** (`lemma_string`) compares answers across sides (`surface_match`):
  hyphens and underscores split words, ordinals 1st–20th and numbers 0–20 become words,
  letter runs and digit runs are separate tokens, and a fixed table maps some nouns onto
  their verbs (decision → decide).

A token's lemma is lemminflect's noun or verb lemma, whichever changed the word (the
shorter, then alphabetically first, when both did).
"""

from __future__ import annotations

import re
from functools import lru_cache

STOPWORDS = frozenset("a an the of to in on at and or is are its this that".split())

# Derivational endings tried longest-first; a stem keeps at least four letters.
SUFFIXES = ("istic", "ative", "ation", "ical", "ism", "ist", "ity", "ize", "ise", "ive")
MIN_STEM = 4

_SMALL_NUMBERS = ("zero one two three four five six seven eight nine ten eleven twelve "
                  "thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty").split()
NUMBER_WORDS = {str(i): w for i, w in enumerate(_SMALL_NUMBERS)}
_ORDINAL_WORDS = ("first second third fourth fifth sixth seventh eighth ninth tenth eleventh "
                  "twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth "
                  "nineteenth twentieth").split()


def _ordinal_suffix(n: int) -> str:
    return {1: "st", 2: "nd", 3: "rd"}.get(n, "th") if n not in (11, 12, 13) else "th"


ORDINALS = {f"{n}{_ordinal_suffix(n)}": w for n, w in enumerate(_ORDINAL_WORDS, start=1)}
_ORDINAL_RE = re.compile(r"\b(" + "|".join(sorted(ORDINALS, key=len, reverse=True)) + r")\b")

# Nouns the released code maps onto their verb (lemmas cannot cross parts of speech).
_NOUN_VERB_PAIRS = """
defense defend · offense offend · pretense pretend · expense expend · decision decide ·
incision incise · destruction destroy · construction construct · production produce ·
reduction reduce · introduction introduce · instruction instruct · obstruction obstruct ·
deduction deduce · education educate · investigation investigate · preparation prepare ·
examination examine · explanation explain · translation translate · evaluation evaluate ·
violation violate · creation create · imagination imagine · operation operate ·
presentation present · transportation transport · registration register ·
preservation preserve · concentration concentrate · comparison compare ·
competition compete · completion complete · selection select · election elect ·
rejection reject · protection protect · detection detect · infection infect ·
correction correct · connection connect · permission permit · admission admit ·
submission submit · transmission transmit · emission emit · omission omit ·
expansion expand · extension extend · intention intend · ascension ascend ·
discussion discuss · discovery discover · recovery recover · delivery deliver ·
argument argue · agreement agree · judgment judge · encouragement encourage ·
improvement improve · achievement achieve · involvement involve · requirement require ·
treatment treat · enjoyment enjoy · settlement settle · development develop ·
movement move · payment pay · removal remove · approval approve · denial deny ·
trial try · refusal refuse · survival survive · arrival arrive · betrayal betray ·
censorship censor · membership member · sponsorship sponsor · leadership lead ·
ownership own · partnership partner · writer write · speaker speak · reader read ·
teacher teach · advisor advise · investor invest · creator create · performer perform ·
publisher publish
"""
NOUN_TO_VERB = dict(pair.split() for pair in _NOUN_VERB_PAIRS.replace("\n", " ").split("·"))

_KEY_TOKENS = re.compile(r"[a-z0-9]+")          # on lowercased text: ASCII runs only
_LEMMA_TOKENS = re.compile(r"[a-zA-Z]+|\d+")     # letters and (any) digits apart


@lru_cache(maxsize=65536)
def word_lemma(word: str) -> str:
    """lemminflect's noun or verb lemma of one lowercase word, as the released code picks."""
    from lemminflect import getLemma

    noun = (getLemma(word, upos="NOUN") or (word,))[0].lower()
    verb = (getLemma(word, upos="VERB") or (word,))[0].lower()
    changed = [form for form in (noun, verb) if form != word]
    if len(changed) == 2:
        return min(changed, key=lambda f: (len(f), f))
    return changed[0] if changed else noun


@lru_cache(maxsize=65536)
def cluster_key(text: str) -> str:
    """The key answers are bucketed by within one side (direct or framed)."""
    if not text:
        return ""
    lowered = text.lower()
    parts = []
    for tok in _KEY_TOKENS.findall(lowered):
        if tok in STOPWORDS:
            continue
        parts.append(word_lemma(tok) if tok.isalpha() else tok)
    return " ".join(parts) if parts else lowered


@lru_cache(maxsize=65536)
def lemma_string(text: str) -> str:
    """The normal form `surface_match` compares."""
    if not text:
        return ""
    s = text.replace("-", " ").replace("_", " ").lower()
    s = _ORDINAL_RE.sub(lambda m: ORDINALS[m.group(0)], s)
    parts = []
    for tok in _LEMMA_TOKENS.findall(s):
        if tok.isalpha():
            lemma = word_lemma(tok)
            parts.append(NOUN_TO_VERB.get(lemma, lemma))
        else:
            parts.append(NUMBER_WORDS.get(tok, tok))
    return " ".join(parts)


def strip_suffix(token: str) -> str:
    """At most one derivational ending off a token (modernism → modern, fist stays)."""
    for suffix in SUFFIXES:
        if token.endswith(suffix) and len(token) - len(suffix) >= MIN_STEM:
            return token[:-len(suffix)]
    return token


def stem_of(words: str) -> str:
    """Every space-separated token of ``words`` with one ending stripped."""
    return " ".join(strip_suffix(t) for t in words.split())


def surface_match(a: str, b: str) -> bool:
    """Same answer by wording: equal lemmas, equal stems, or one word set inside the other."""
    if not a or not b:
        return False
    la, lb = lemma_string(a), lemma_string(b)
    if la and la == lb:
        return True
    sa, sb = stem_of(la), stem_of(lb)
    if sa and sa == sb:
        return True
    wa, wb = set(la.split()), set(lb.split())
    return bool(wa and wb and (wa <= wb or wb <= wa))
