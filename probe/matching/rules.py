"""The rules that join two comparison keys, each with the reason the UI shows.

Symmetric rules (an answer and its variant are one answer, whoever came first):
- exact: the same key;
- containment: the same key once the family's generic words are dropped ("Monarch
  butterfly" = "Monarch" for a butterfly question);
- compound: the same letters written apart or together ("blue bird" = "bluebird");
- typo: one word differs by one edit (two from 12 letters), both words have 5+ letters,
  start alike, and word frequencies say one side is a misspelling ("Capuccino"), or both are
  long words no list knows ("Xylocopa"/"Xylocpa") — two real
  words ("Karen"/"Karin", "Austin"/"Austen") or any number are never typos.
Directed rules, applied only when they point one way (see cluster.py):
- place: "Rome, Italy" is "Rome" unless "Rome" also has another qualifier, and "Austin, TX"
  is "Austin, USA";
- qualifier: "Indian elephant" is "Elephant" for a geographic or size qualifier that
  names a kind of the same animal — "Sea lion" is not a lion.
"""

from __future__ import annotations

from rapidfuzz.distance import OSA

from probe.matching import lexicon
from probe.matching.normalise import has_digit

Key = tuple[str, ...]

# Words that make a kind of the same thing when put before it: places and demonyms,
# compass points, habitat and size. Nouns that make a different thing ("sea", "snow",
# "mountain", "guinea") are not here.
QUALIFIERS = frozenset("""
african american asian european australian indian chinese japanese korean bengal siberian
russian german french italian spanish english british scottish irish welsh canadian
mexican brazilian egyptian persian arabian turkish greek himalayan malayan sumatran
javan caspian amur indochinese tibetan mongolian nordic norwegian swedish finnish danish
dutch swiss austrian polish hungarian thai vietnamese indonesian peruvian chilean
argentine colombian cuban jamaican hawaiian alaskan texan californian kenyan ethiopian
nigerian moroccan andean amazonian atlantic pacific mediterranean caribbean arabic
north south east west northern southern eastern western central
polar arctic antarctic tropical alpine common wild domestic giant dwarf pygmy lesser greater
""".split())


def core(key: Key, generic: frozenset[str]) -> Key:
    return tuple(w for w in key if w not in generic)


def folds(key: Key, generic: frozenset[str]) -> list[str]:
    """What two keys share when they are one answer by exact, containment or compound:
    the key's words run together, and the same without the family's generic words."""
    full = fold(key, frozenset())
    without = fold(key, generic)
    return [f for f in dict.fromkeys(("=" + full if full else None, without)) if f]


def fold(key: Key, generic: frozenset[str]) -> str | None:
    c = core(key, generic)
    if not c:
        return None
    if has_digit(c) or any(w.startswith("@") for w in c):
        return " ".join(c)          # 1 2 is not 12
    return "".join(c)


def fold_reason(a: Key, b: Key, generic: frozenset[str]) -> str:
    if a == b:
        return "exact"
    return "containment" if core(a, generic) == core(b, generic) else "compound"


def typo_limit(n: int) -> int:
    if n < 5:
        return 0          # short words need an exact match: Iran ≠ Iraq, Jon ≠ John
    return 1 if n < 12 else 2


def _deletions(word: str, depth: int) -> set[str]:
    out = {word}
    for _ in range(depth):
        out |= {w[:i] + w[i + 1:] for w in out for i in range(len(w))}
    return out


def typo_slots(key: Key) -> list[int]:
    """Index entries: two keys share one only if they may differ by a typo in one word
    (the other words, the word's place and a deletion variant agree). Each is kept as its
    hash: a family scored from a file can have hundreds of thousands of distinct answers
    with a dozen entries each, and a rare collision only costs one ``is_typo`` check."""
    slots = []
    for i, w in enumerate(key):
        if w.isalpha() and typo_limit(len(w)):
            rest = "\x1f".join(key[:i] + ("",) + key[i + 1:]) + "\x1e"
            slots.extend(hash(rest + v) for v in _deletions(w, typo_limit(len(w))))
    return slots


def typo_word(a: Key, b: Key) -> tuple[str, str] | None:
    """The one differing word pair of two same-length keys, else None."""
    if len(a) != len(b):
        return None
    diff = [(x, y) for x, y in zip(a, b) if x != y]
    return diff[0] if len(diff) == 1 else None


def close_spelling(x: str, y: str) -> bool:
    limit = typo_limit(min(len(x), len(y)))
    return (limit > 0 and x.isalpha() and y.isalpha() and x[0] == y[0]
            and OSA.distance(x, y, score_cutoff=limit) <= limit)


def is_typo(a: Key, b: Key) -> bool:
    """One word of two keys differs by a misspelling; the rest are equal."""
    pair = typo_word(a, b)
    return bool(pair) and close_spelling(*pair) and lexicon.is_misspelling_of(*pair)


def bases_of(key: Key) -> tuple[list[Key], str] | None:
    """The keys a qualified key points at, nearest first: ("austin", "@us-tx") → Austin, USA,
    then Austin ("place"); ("indian", "elephant") → Elephant ("qualifier")."""
    if len(key) >= 2 and key[-1].startswith("@"):
        head, place = key[:-1], key[-1]
        wider = [head + (place.split("-")[0],)] if "-" in place else []
        return wider + [head], "place"
    if len(key) >= 2 and key[0] in QUALIFIERS and not has_digit(key) \
            and not lexicon.place_id(" ".join(key)):     # North Korea is not Korea
        return [key[1:]], "qualifier"
    return None


def why_different(a: Key, b: Key, generic: frozenset[str]) -> str:
    """A short reason two non-empty pick keys stay apart, for `probe match`."""
    ca, cb = core(a, generic), core(b, generic)
    if has_digit(ca) or has_digit(cb):
        return "the numbers differ"
    if len(a) == len(b) and a[:-1] == b[:-1] and a[-1].startswith("@") and b[-1].startswith("@"):
        return "they name different places"
    pair = typo_word(ca, cb)
    if pair:
        x, y = pair
        if min(len(x), len(y)) < 5:
            return f"'{x}' and '{y}' are too short to call one a typo of the other"
        if close_spelling(x, y):
            return f"'{x}' and '{y}' are both real words, not a typo"
    return "no rule joins them"
