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

from functools import lru_cache

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
    the key's words run together, and the same without the family's generic words (and
    without a name's particles: "Atlético de Madrid" is "Atlético Madrid")."""
    full = fold(key, frozenset())
    without = fold(key, generic)
    bare = [w for w in key if w not in PARTICLES or w == key[0]]
    plain = fold(tuple(bare), generic) if len(bare) >= 2 and len(bare) < len(key) else None
    # A middle initial is optional in a name: "Ulysses S. Grant" is "Ulysses Grant".
    middle = [w for i, w in enumerate(bare) if not (0 < i < len(bare) - 1 and len(w) == 1
                                                   and w.isalpha())]
    unmiddled = fold(tuple(middle), generic) if len(middle) >= 2 and len(middle) < len(bare) \
        and not has_digit(key) and all(len(w) >= 3 for w in middle) else None
    return [f for f in dict.fromkeys(("=" + full if full else None, without, plain, unmiddled))
            if f]


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


# Words that can stand before or after a name without changing whom it names.
HONORIFICS = frozenset("""
sir saint st dr doctor king queen lord lady emperor empress president general captain pope
prince princess dame mr mrs ms miss professor prof tsar czar sultan pharaoh chancellor
madame madam mme monsieur senor senora signor signora herr frau
senator sen governor gov mayor judge inspector detective sergeant sgt lieutenant lt colonel
admiral coach reverend rev
republic kingdom federation commonwealth principality sultanate emirate democratic federal
""".split())
# Words that name what kind of place a name is: "Mount Kilimanjaro" is Kilimanjaro.
FEATURES = frozenset("mount mt mont lake loch cape isle river".split())
PARTICLES = frozenset("van von de da di del della der den du la le el al bin ibn y dos das "
                      "the of".split())


def _name_word(word: str) -> bool:
    """A word that only narrows down a name: a given name or other word no dictionary holds
    ("Niels", "Frida", "Chicago"), an honorific, or a particle ("van")."""
    if word in HONORIFICS or word in PARTICLES:
        return True
    return word.isalpha() and len(word) > 1 and not lexicon.parts_of_speech(word)


def _place_prefix(key: Key) -> int:
    """How many leading words of ``key`` name a place ("New York Knicks" → 2)."""
    for k in range(min(3, len(key) - 1), 0, -1):
        if lexicon.place_id(" ".join(key[:k])):
            return k
    return 0


def short_names(key: Key) -> list[Key]:
    """The shorter forms a full name may go by, nearest first: "Sir Isaac Newton" →
    Isaac Newton, Newton; "Frida Kahlo" → Kahlo; "Chicago Bulls" → Bulls; "Los Angeles
    Lakers" → Lakers. Only leading name words, honorifics, particles and a place are
    dropped: a dictionary word makes a different thing (Sea lion, New York ≠ York,
    Snow leopard), and numbers never go (Toy Story 3)."""
    if len(key) < 2 or any(w.startswith("@") for w in key) or lexicon.place_id(" ".join(key)):
        return []                 # North Korea is not Korea
    out: list[Key] = []
    lead = _place_prefix(key)
    digits = has_digit(key)
    for k in range(1, len(key)):
        titles = all(w in HONORIFICS or w in PARTICLES or w in FEATURES for w in key[:k])
        if titles or (not digits and (k == lead or all(_name_word(w) for w in key[:k]))):
            out.append(key[k:])   # "King Louis 16" → Louis 16; never "Toy Story 3" → 3
    # A given name that no dictionary holds may stand alone for the person ("Frida" for
    # Frida Kahlo, "Mycroft" for Mycroft Holmes) when the surname is a name word too.
    if len(key) == 2 and not digits and all(_name_word(w) and w not in HONORIFICS
                                            and w not in PARTICLES for w in key) \
            and len(key[0]) >= 3:
        out.append(key[:1])
    out = [b for b in out if b[-1] not in PARTICLES and any(
        len(w) >= 3 and w not in HONORIFICS and w not in PARTICLES for w in b)]
    return sorted(dict.fromkeys(out), key=len, reverse=True)


_NOT_A_CREDIT = frozenset("me you us them him her it the a an my your this that".split())


def _describes(word: str) -> bool:
    """A word the dictionary knows as an adjective and never as a noun ("dry", "fresh",
    "acoustic"): put before a name it describes one of the same thing ("dry martini" is a
    martini), where a noun makes another ("sea lion", "bass guitar")."""
    pos = lexicon.parts_of_speech(word)
    return "ADJ" in pos and "NOUN" not in pos


def bases_of(key: Key) -> tuple[list[Key], str] | None:
    """The keys a qualified key points at, nearest first: ("austin", "@us-tx") → Austin, USA,
    then Austin ("place"); ("indian", "elephant") → Elephant ("qualifier")."""
    if len(key) >= 2 and key[-1].startswith("@"):
        head, place = key[:-1], key[-1]
        wider = [head + (place.split("-")[0],)] if "-" in place else []
        return wider + [head], "place"
    if len(key) >= 2 and (key[0] in QUALIFIERS or _describes(key[0])) and not has_digit(key) \
            and not lexicon.place_id(" ".join(key)):     # North Korea is not Korea
        return [key[1:]], "qualifier"
    if "by" in key[1:-1] and not has_digit(key[key.index("by"):]) \
            and key[key.index("by") + 1] not in _NOT_A_CREDIT:
        # "Dune by Frank Herbert", "Wonderwall by Oasis": the work, credited.
        return [key[:key.index("by")]], "qualifier"
    names = short_names(key)
    if names:
        return names, "short name"
    return None


# ------------------------------------------------------- initials and abbreviations

def _rare(word: str) -> bool:
    """Not a word of its own: outside the dictionary, or seldom written."""
    return not lexicon.parts_of_speech(word) or lexicon.frequency(word) < 3.5


def initials_of(key: Key) -> list[tuple]:
    """What an abbreviated name is indexed by: "J. S. Bach" and "JS Bach" → ("js", "bach");
    "FDR", "NYE" → ("fdr", ""); "GTA 5" → ("gta", "5"). Empty when the key is not written
    with initials."""
    if len(key) == 2 and key[1].isdigit() and 2 <= len(key[0]) <= 5 and key[0].isalpha() \
            and _rare(key[0]):
        return [(key[0], key[1])]     # "GTA V" (V is 5 by then) for Grand Theft Auto V
    if not key or has_digit(key):
        return []
    head, last = key[:-1], key[-1]
    if head and all(len(w) == 1 and w.isalpha() for w in head) and len(last) >= 3:
        return [("".join(head), last)]
    if len(head) == 1 and 2 <= len(head[0]) <= 3 and head[0].isalpha() and _rare(head[0]) \
            and len(last) >= 3:
        return [(head[0], last)]
    if not head and 2 <= len(last) <= 5 and last.isalpha() and _rare(last):
        return [(last, "")]
    return []


def initials_for(key: Key) -> list[tuple]:
    """What a full name offers to abbreviations: "Johann Sebastian Bach" → ("js", "bach")
    and ("jsb", "")."""
    words = [w for w in key if w not in PARTICLES] or list(key)
    if len(words) >= 3 and words[-1].isdigit() and all(w.isalpha() for w in words[:-1]):
        return [("".join(w[0] for w in words[:-1]), words[-1])]   # Grand Theft Auto 5
    if len(words) < 2 or has_digit(key) or not all(w.isalpha() for w in words):
        return []
    out = [("".join(w[0] for w in words), "")]
    if len(words) >= 3 or all(len(w) > 1 for w in words[:-1]):
        out.append(("".join(w[0] for w in words[:-1]), words[-1]))
    return [o for o in out if len(o[0]) >= 2 or o[1]]


# Abbreviations the calendar knows ("Sun" for Sunday, "Sept" for September): the short
# form may be a common word of its own.
@lru_cache(maxsize=1)
def _calendar_abbreviations() -> frozenset[tuple[str, str]]:
    import calendar

    pairs = {(calendar.day_abbr[i].casefold(), calendar.day_name[i].casefold()) for i in range(7)}
    pairs |= {(calendar.month_abbr[i].casefold(), calendar.month_name[i].casefold())
              for i in range(1, 13)}
    pairs |= {("tues", "tuesday"), ("weds", "wednesday"), ("thurs", "thursday"),
              ("thur", "thursday"), ("sept", "september")}
    return frozenset(pairs)


def abbreviates(short: str, full: str) -> bool:
    """``short`` is written for ``full``: a prefix ("Vit" vitamin, "Man" Manchester, "Oct"),
    or a prefix and the last letter of a word at least twice as long ("Pt" part, "Dr"
    doctor) — never a word of its own inside another ("Bern" is not Berlin)."""
    if (short, full) in _calendar_abbreviations():
        return True
    if not (short.isalpha() and full.isalpha() and 2 <= len(short) <= 5
            and len(full) >= len(short) + 2):
        return False
    if full.startswith(short):
        return True
    if len(full) >= 2 * len(short) and full.startswith(short[:-1]) and full[-1] == short[-1]:
        return True
    # Written without its vowels: "Mtn" mountain, "Intl" international, "Dept" department.
    it = iter(full)
    return len(short) >= 3 and short[0] == full[0] and short[-1] == full[-1] \
        and not set(short) & set("aeiou") and all(c in it for c in short)


def abbreviation_slots(key: Key, short: bool) -> list[tuple]:
    """Index entries joining keys that differ in one word written short and in full."""
    out = []
    for i, w in enumerate(key):
        if not w.isalpha():
            continue
        if (short and 2 <= len(w) <= 5) or (not short and len(w) >= 4):
            out.append((key[:i] + ("",) + key[i + 1:], w[0]))
    return out


def is_abbreviation(a: Key, b: Key) -> bool:
    """``a`` and ``b`` differ in one word that one writes short for the other; a short
    word that is common English on its own joins only a longer key ("Man City") or the
    calendar's own abbreviations."""
    pair = typo_word(a, b)
    if not pair:
        return False
    x, y = sorted(pair, key=len)
    if (x, y) in _calendar_abbreviations():
        return True               # "Mon" is Monday, whatever else the word names
    if not abbreviates(x, y) or lexicon.place_id(x) or lexicon.place_id(y):
        return False              # Niger is not short for Nigeria
    return len(a) > 1 or _rare(x) or (x, y) in _calendar_abbreviations()


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
