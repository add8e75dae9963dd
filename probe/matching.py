"""Free-text answers → canonical forms.

Three steps (DESIGN.md): extract the answer from the response, normalise it to a
comparison key, then map it onto a canonical form — the family's own answers and
aliases first, then answers already seen — by exact key, containment over words
that are generic for the family, or a typo-sized edit. Every merge has a reason.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz.distance import Levenshtein

# ---------------------------------------------------------------- extraction

_LEAD_INS = re.compile(
    r"^(?:(?:ok(?:ay)?|sure|alright|great|well|hmm+)[,!.]?\s+)?"
    r"(?:(?:my|the|our)\s+(?:final\s+)?(?:pick|choice|answer|selection|favou?rite|suggestion|vote)"
    r"(?:\s+(?:would\s+be|will\s+be|is|be))?\s*[:\-–—]?\s+"
    r"|i(?:'d|’d| would| will|'ll|’ll)?\s+(?:pick|choose|select|go\s+with|say|suggest|recommend|"
    r"vote\s+for|opt\s+for|name)\s*[:\-–—]?\s*"
    r"|let'?s\s+go\s+with\s+|how\s+about\s+|(?:final\s+)?answer\s*[:\-–—]\s*|a\s*[:]\s+"
    r"|it(?:'s|’s| is| would be)\s+)",
    re.I,
)
_MARKUP = re.compile(r"[*_`~]+|^\s*#+\s*")
_LIST_MARK = re.compile(r"^\s*(?:[-•>]|\d+[.)])\s+")
_QUOTES = "\"'“”‘’«»„`"
_PAREN = re.compile(r"\s*[\(\[][^\)\]]*[\)\]]")
# Where an explanation starts after the answer.
_EXPLAIN = re.compile(
    r"(?:\s+[-–—]\s+|\s*[:;]\s+|,\s+(?:because|since|as|which|it|i|my|the|a|an|and|but)\b"
    r"|\s+(?:because|since)\b)",
    re.I,
)
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
_ABBREV = re.compile(r"(?:^|\s)(?:st|mt|dr|mr|mrs|ms|no|vs|jr|sr|ft|u\.s|d\.c)$", re.I)
_BRACE = re.compile(r"\{([^{}]*)\}")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def extract(response: str | None) -> str:
    """The answer inside a response: first line, markup and lead-ins removed."""
    if not response:
        return ""
    text = _ANSI.sub("", response).replace("\r", "\n")
    m = _BRACE.search(text)
    if m and m.group(1).strip():
        text = m.group(1)
    line = next((ln for ln in text.split("\n") if _MARKUP.sub("", ln).strip()), "")
    line = "".join(ch for ch in line if unicodedata.category(ch)[0] != "C" or ch == "\t")
    line = _LIST_MARK.sub("", line)
    line = _MARKUP.sub("", line).strip()
    for _ in range(2):
        line = _LEAD_INS.sub("", line).strip().strip(_QUOTES + " ")
    line = _PAREN.sub("", line)
    # First sentence, unless the period ends an abbreviation ("St. Louis").
    pos = 0
    while True:
        m = _SENTENCE_END.search(line, pos)
        if not m:
            break
        if _ABBREV.search(line[: m.start()]):
            pos = m.end()
            continue
        line = line[: m.start() + 1]
        break
    m = _EXPLAIN.search(line)
    if m and m.start() > 0:
        line = line[: m.start()]
    line = line.strip().strip(_QUOTES + " ").rstrip(".!?,;:…").strip().strip(_QUOTES + " ")
    return " ".join(line.split())


# ------------------------------------------------------------- normalisation

_ARTICLES = {"a", "an", "the"}
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
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_NUMBER_WORDS = set(_UNITS) | set(_TENS) | set(_SCALES)


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
            if w in _UNITS:
                current += _UNITS[w]
            elif w in _TENS:
                current += _TENS[w]
            elif w in _SCALES:
                current = max(current, 1) * _SCALES[w]
                if _SCALES[w] >= 1000:
                    total += current
                    current = 0
            j += 1
        out.append(str(total + current))
        i = j
    return out


def stem(word: str) -> str:
    """Fold plural and -ing forms onto one key ("wolves"/"wolf", "running"/"run")."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if len(word) >= 6 and word.endswith("ing"):
        word = word[:-3]
        if len(word) >= 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
            word = word[:-1]
        return word
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    if word.endswith("y") and len(word) > 3:
        word = word[:-1] + "i"
    elif word.endswith("f"):
        word = word[:-1] + "v"
    return word


def _strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@lru_cache(maxsize=65536)
def normalise(answer: str) -> tuple[str, ...]:
    """Comparison key: a tuple of folded words. Empty for an empty answer."""
    text = _strip_accents(unicodedata.normalize("NFKC", answer)).casefold()
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)          # 1,000 → 1000
    text = text.replace("&", " and ")
    text = re.sub(r"[-_/]+", " ", text)
    text = re.sub(r"[^\w\s+#']", " ", text)
    text = text.replace("'", "")
    words = [_ABBREVIATIONS.get(w, w) for w in text.split() if w not in _ARTICLES]
    words = _numbers_to_digits(words)
    return tuple(stem(w) for w in words)


# ------------------------------------------------------- family-generic words

_STOPWORDS = {
    "choose", "pick", "name", "select", "give", "tell", "me", "random", "randomly", "any", "one",
    "a", "an", "the", "of", "to", "for", "from", "in", "on", "at", "between", "and", "or",
    "with", "your", "you", "my", "some", "single", "just", "please", "what", "which", "is",
    "are", "that", "this", "it", "be", "can", "could", "would", "should", "do", "visit",
}
# Category nouns and words that only restate the category ("Caffe latte", "colour").
_SYNONYMS = {
    "coffee": ["cafe", "caffe", "coffee", "drink"],
    "color": ["colour", "shade", "hue"],
    "colour": ["color", "shade", "hue"],
    "music": ["genre", "style"],
    "genre": ["music", "style"],
    "movie": ["film"],
    "film": ["movie"],
    "number": ["no", "num", "digit"],
    "city": ["town", "city"],
    "language": ["lang", "programming"],
    "cat": ["cat"],
    "dog": ["breed", "dog"],
    "type": ["kind", "sort", "variety"],
    "car": ["brand", "make"],
}
_ALWAYS_GENERIC = {"type", "kind", "sort", "variety", "species", "random", "popular"}


def generic_words(prompt: str) -> frozenset[str]:
    """Words that only restate a family's category, as comparison keys."""
    words: set[str] = set()
    for w in normalise(prompt or ""):
        if w in _STOPWORDS or w.isdigit():
            continue
        words.add(w)
    for raw in re.findall(r"[a-z]+", (prompt or "").casefold()):
        for syn in _SYNONYMS.get(raw, []):
            words.add(stem(syn))
    words |= {stem(w) for w in _ALWAYS_GENERIC}
    return frozenset(words)


# ------------------------------------------------------------------ refusals

_REFUSAL = re.compile(
    r"\b(?:i\s+(?:can(?:not|'t|’t)|am\s+unable|'m\s+unable|am\s+not\s+able|'m\s+not\s+able|"
    r"won'?t|do\s+not|don'?t)\s+(?:choose|pick|select|decide|provide|have|help|answer|make)"
    r"|as\s+an\s+ai|it\s+depends|depends\s+on|no\s+preference|not\s+(?:possible|sure)|"
    r"i'?m\s+sorry|sorry,|cannot\s+(?:choose|pick|decide)|can'?t\s+(?:choose|pick|decide)|"
    r"unable\s+to|i\s+(?:don'?t|do\s+not)\s+know)",
    re.I,
)


def is_refusal(response: str | None) -> bool:
    """A refusal or a hedge rather than a choice ("I can't choose", "it depends")."""
    return bool(response and _REFUSAL.search(response))


# ------------------------------------------------------------- canonical forms


@dataclass
class Match:
    """Where one answer went and why."""

    answer: str           # the extracted surface form
    canonical: str        # display name of its canonical form ('' for empty)
    reason: str           # new | exact | alias | containment | typo | empty
    refusal: bool = False  # a refusal, or an echo of the question's own words
    cluster: int = -1


@dataclass
class _Cluster:
    id: int
    keys: set[tuple[str, ...]]
    surfaces: Counter = field(default_factory=Counter)
    fixed_name: str | None = None   # a family-declared canonical answer
    order: int = 0

    @property
    def name(self) -> str:
        if self.fixed_name:
            return self.fixed_name
        if not self.surfaces:
            return ""
        best = max(self.surfaces.values())
        return next(s for s, c in self.surfaces.items() if c == best)


def _has_digit(key: tuple[str, ...]) -> bool:
    return any(ch.isdigit() for w in key for ch in w)


def _typo_limit(a: str, b: str) -> int:
    n = min(len(a), len(b))
    if n < 5:
        return 0          # short words need an exact match: Iran ≠ Iraq, Jon ≠ John
    return 1 if n < 12 else 2


def is_typo(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """A typo-sized difference between two non-numeric keys."""
    if _has_digit(a) or _has_digit(b) or len(a) != len(b):
        return False
    sa, sb = " ".join(a), " ".join(b)
    if sa[0] != sb[0] or sa.startswith(sb) or sb.startswith(sa):
        return False      # a longer word is a different word: Niger ≠ Nigeria
    limit = _typo_limit(sa, sb)
    return limit > 0 and Levenshtein.distance(sa, sb, score_cutoff=limit) <= limit


def is_contained(a: tuple[str, ...], b: tuple[str, ...], generic: frozenset[str]) -> bool:
    """One key is the other plus only words generic for the family."""
    if a == b or not a or not b:
        return False
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    if len(short) == len(long_):
        return False
    n = len(short)
    for start in range(len(long_) - n + 1):
        if long_[start:start + n] == short:
            extra = long_[:start] + long_[start + n:]
            if all(w in generic for w in extra):
                return True
            # A trailing version number names the same thing: "Python 3" is Python.
            if (start == 0 and len(extra) == 1 and extra[0].isdigit()
                    and not _has_digit(short)):
                return True
    return False


class Canonicalizer:
    """Maps answers of one family onto canonical forms, remembering what it has seen."""

    def __init__(self, prompt: str = "", answers: dict[str, list[str]] | None = None):
        self.generic = generic_words(prompt)
        self.clusters: list[_Cluster] = []
        self._by_key: dict[tuple[str, ...], tuple[_Cluster, str]] = {}
        self._compact: dict[str, _Cluster] = {}
        self._family_count = 0
        for canonical, aliases in (answers or {}).items():
            cluster = self._new_cluster(normalise(canonical), fixed=canonical)
            self._by_key[normalise(canonical)] = (cluster, "exact")
            for alias in aliases:
                key = normalise(extract(alias) or alias)
                if key:
                    cluster.keys.add(key)
                    self._by_key.setdefault(key, (cluster, "alias"))
                    self._compact.setdefault("".join(key), cluster)
        self._family_count = len(self.clusters)

    def _new_cluster(self, key: tuple[str, ...], fixed: str | None = None) -> _Cluster:
        cluster = _Cluster(id=len(self.clusters), keys={key}, fixed_name=fixed,
                           order=len(self.clusters))
        self.clusters.append(cluster)
        self._compact.setdefault("".join(key), cluster)
        return cluster

    def _find(self, key: tuple[str, ...]) -> tuple[_Cluster, str] | None:
        hit = self._by_key.get(key)
        if hit:
            return hit
        compact = self._compact.get("".join(key))
        if compact:
            return compact, "exact"
        # Containment, then typos; family answers come first in self.clusters.
        if not self._is_echo(key):
            for cluster in self.clusters:
                if any(is_contained(key, k, self.generic) and not self._is_echo(k)
                       for k in cluster.keys):
                    return cluster, "containment"
        for cluster in self.clusters:
            if any(is_typo(key, k) for k in cluster.keys):
                return cluster, "typo"
        return None

    def _is_echo(self, key: tuple[str, ...]) -> bool:
        return bool(key) and all(w in self.generic for w in key)

    def add(self, response: str | None, *, extracted: str | None = None) -> Match:
        """Place one response; later calls see it as an answer already seen."""
        answer = extract(response) if extracted is None else extracted
        key = normalise(answer) if answer else ()
        if not key:
            return Match(answer="", canonical="", reason="empty",
                         refusal=is_refusal(response))
        found = self._find(key)
        if found:
            cluster, reason = found
        else:
            cluster, reason = self._new_cluster(key), "new"
        cluster.keys.add(key)
        self._by_key.setdefault(key, (cluster, "exact"))
        self._compact.setdefault("".join(key), cluster)
        cluster.surfaces[answer] += 1
        refusal = is_refusal(response) or is_refusal(answer) or self._is_echo(key)
        return Match(answer=answer, canonical=cluster.name, reason=reason,
                     refusal=refusal, cluster=cluster.id)

    def name_of(self, cluster_id: int) -> str:
        return self.clusters[cluster_id].name if cluster_id >= 0 else ""


def same_answer(a: str, b: str, prompt: str = "",
                answers: dict[str, list[str]] | None = None) -> tuple[bool, str]:
    """Whether two answers are one canonical answer, and the rule that decided."""
    canon = Canonicalizer(prompt, answers)
    first = canon.add(a)
    second = canon.add(b)
    if not first.answer or not second.answer:
        return False, "empty"
    if first.cluster == second.cluster:
        reason = second.reason if second.reason != "new" else first.reason
        if reason == "new":
            reason = "exact"
        return True, reason
    return False, "different"
