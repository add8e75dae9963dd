"""Find what kind of answer a direct question asks for: its category phrase.

"Choose a random popular butterfly." asks for a *popular butterfly*; "Pick a number between
1 and 100." for a *number between 1 and 100*. The phrase is what every drafted reframing
must name, so the finder reads the question's shape (imperative, wh-question, fragment,
"if you could …") down to one noun phrase, drops what only says how to choose ("random",
"good", "your favourite", "two", "one of the"), and keeps what narrows the category
("popular", "between 1 and 100", "that lives in the ocean"). A question it cannot read
raises ``CategoryNotFound``: the caller asks the user for the category rather than
drafting from a guess.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from probe.errors import BadInput
from probe.reading import shown

# Verbs that ask for one choice ("Name a fruit", "Think of an animal").
_ASKING_VERBS = (r"choose|pick|select|name|give(?: me| us)?|tell(?: me| us)|suggest|"
                 r"recommend|think of|come up with|generate|say|list|mention|propose|"
                 r"provide|offer|guess|imagine|share")
_MODALS = (r"would|should|do|does|did|can|could|will|is|are|was|were|might|must|shall|"
           r"has|have|makes?|goes|go|tastes?|sounds?|looks?|comes?")
# Subject pronouns open a clause about the asker ("a country you would like to visit"):
# it says why, not what, and the templates bring their own why.
_PRONOUNS = {"you", "i", "we", "they", "he", "she", "people", "someone", "everyone"}
# Words that start the part of a phrase after its noun: the constraint.
_POSTMODIFIERS = {"between", "from", "in", "on", "at", "by", "for", "with", "without", "that",
                  "which", "who", "whose", "where", "to", "under", "below", "over", "above",
                  "less", "more", "fewer", "near", "except", "starting", "beginning",
                  "ending", "containing", "within", "outside", "inside", "among",
                  "than", "like", "about"}
_PREPOSITIONS = _POSTMODIFIERS | {"of", "and", "or", "yourself", "myself", "it", "this",
                                  "that", "these", "those", "there", "here"}
# Leading words that say how many or how to choose, never what.
_QUANTIFIERS = {"a", "an", "the", "one", "any", "some", "several", "few", "many", "couple",
                "single", "each", "every", "another", "other", "your", "my", "our", "their",
                "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "dozen", "handful", "all", "these", "those", "both", "more"}
_PLURAL_QUANTIFIERS = {"some", "several", "few", "many", "couple", "two", "three", "four",
                       "five", "six", "seven", "eight", "nine", "ten", "dozen", "handful",
                       "all", "these", "those", "both"}
_CHOOSING_WORDS = {"random", "randomly", "arbitrary", "chosen", "selected", "favourite",
                   "favorite", "good", "great", "nice", "best", "better", "cool", "top",
                   "perfect", "ideal", "decent", "suitable", "most", "absolute", "personal",
                   "all-time", "possible", "particular", "specific", "new", "different", "own"}
_EXAMPLE_HEADS = ("example of", "examples of", "name of", "names of", "instance of")


class CategoryNotFound(BadInput):
    """The question's shape is not one the finder reads; the user names the category."""

    def __init__(self, question: str, message: str | None = None):
        self.question = question.strip()
        super().__init__(message or (
            f"probe cannot tell what kind of answer {shown(repr(self.question), 80)} asks "
            "for; name the category (for example \"popular butterfly\")."))


@dataclass(frozen=True)
class Category:
    """A category phrase split where the templates need it.

    ``phrase`` is singular with its constraint ("number between 1 and 100"); ``noun`` is
    the part a second mention repeats ("number"); ``plural`` and ``nouns`` are their
    plurals; ``a_phrase`` carries the right article ("an Olympic sport")."""

    phrase: str
    noun: str
    plural: str
    nouns: str
    a_phrase: str

    @property
    def head(self) -> str:
        """The last word of the noun before any "of" part: "type" of "type of coffee"."""
        return self.noun.split(" of ")[0].split()[-1]


@lru_cache(maxsize=1)
def _inflect():
    """inflect's engine. inflect wraps its methods in typeguard's ``@typechecked``, which
    re-reads and recompiles their source at import: seconds on a busy 2-core machine (10 s
    measured), more than drafting and running a family. Its checks only guard argument
    types probe always passes right, so inflect is imported with the decorator as a no-op,
    restored straight after (modules imported before or after keep their checks)."""
    import sys

    if "inflect" not in sys.modules:
        import typeguard

        real = typeguard.typechecked
        typeguard.typechecked = _unchecked
        try:
            import inflect  # noqa: F401
        finally:
            typeguard.typechecked = real
    return sys.modules["inflect"].engine()


def _unchecked(target=None, **_options):
    """``@typechecked`` and ``@typechecked(...)`` that change nothing."""
    return target if target is not None else (lambda function: function)


def _lemmas(word: str) -> dict:
    from lemminflect import getAllLemmas

    return getAllLemmas(word)


def _tidy(question: str) -> str:
    text = unicodedata.normalize("NFKC", question)
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    text = " ".join(text.split()).strip(" \"'")
    text = re.sub(r"[.?!…]+$", "", text).strip(" \"'")
    text = re.sub(r",?\s*please$", "", text, flags=re.I)
    text = re.sub(r"^(please|now|ok|okay|so|hey)\b,?\s*", "", text, flags=re.I)
    text = re.sub(r"^(?:can|could|would|will) you(?: please)?\s+", "", text, flags=re.I)
    text = re.sub(r"^(?:i'd like you to|i would like you to|i want you to|i need you to|"
                  r"help me|let's|let us)\s+", "", text, flags=re.I)
    text = re.sub(r"\b(?:at random|randomly)\b", " ", text, flags=re.I)
    text = re.sub(r"\bfor (?:me|us)\b", " ", text, flags=re.I)
    return " ".join(text.split()).strip(" ,")


def _noun_phrase(text: str) -> str | None:
    """The noun phrase a question's shape points at, still with its leading words."""
    if re.match(r"^(?:why|how|when|where|whose|whom|is|are|do|does|did|was|were|has|have|"
                r"explain|describe|write|translate|summari[sz]e|hello|hi|hey|thanks?|thank you|"
                r"good (?:morning|afternoon|evening|night|day))\b", text, re.I):
        return None
    if re.match(r"^(?:what|which) \w+ (?:is|was) (?:it|this|that)(?: now| today)?$", text,
                re.I):
        return None         # "What time is it?": a fact, not a choice
    m = re.match(r"^if (?:you|i|we)\b(.*?),\s*(?:which|what|who)\b", text, re.I)
    if m:
        inner = re.search(r"\b(?:a|an|any|one|your|the)\s+(.+)$", m.group(1), re.I)
        return inner.group(0) if inner else None
    m = re.match(rf"^(?:{_ASKING_VERBS})\s+(.+)$", text, re.I)
    if m:
        return m.group(1)
    m = re.match(r"^(?:what|which|who)(?:'s|'re| is| are| was| would be| could be| might be|"
                 r" will be| should be)\s+(.+)$", text, re.I)
    if m:
        return m.group(1)
    m = re.match(rf"^(?:what|which)\s+(?!(?:{_MODALS}|i|you|we)\b)(.+?)\s+(?:{_MODALS})\b",
                 text, re.I)
    if m:
        return m.group(1)
    m = re.match(r"^(?:what|which)\s+(.+)$", text, re.I)
    if m:                   # no auxiliary: "Which flower smells the nicest?"
        return _before_verb(m.group(1))
    m = re.match(r"^(?:i need|i want|i'd like|i would like|i'm looking for|i am looking for|"
                 r"we need|we want|looking for)\s+(.+)$", text, re.I)
    if m:
        return m.group(1)
    words = text.split()
    # A fragment: "Random butterfly?", "Your favourite season?", "A random animal".
    if len(words) <= 10 and words[0].lower() in _QUANTIFIERS | _CHOOSING_WORDS:
        return text
    return None


def _before_verb(words_text: str) -> str:
    """"flower smells the nicest" → "flower": the words before the first verb ending in
    -s that follows a noun (the question's own verb)."""
    words = words_text.split()
    for i in range(1, len(words)):
        word = words[i].lower()
        verbs = _lemmas(word).get("VERB", ())
        if word.endswith("s") and verbs and word not in verbs and _is_noun(words[i - 1]):
            return " ".join(words[:i])
    return words_text


def _strip_leading(words: list[str]) -> tuple[list[str], bool]:
    """Drop the words before the category that only say how many or how to choose;
    True when they asked for several ("three fruits", "one of the planets")."""
    plural = False
    while words:
        low = words[0].lower()
        rest = " ".join(w.lower() for w in words[:2])
        if rest in _EXAMPLE_HEADS:
            words = words[2:]
            continue
        if low in ("one", "any", "each") and len(words) > 2 and words[1].lower() == "of":
            words = words[2:]
            plural = True
            continue
        if low == "of":
            words = words[1:]
            plural = True
            continue
        if low in _QUANTIFIERS or low in _CHOOSING_WORDS or re.fullmatch(r"\d+", low):
            plural = plural or low in _PLURAL_QUANTIFIERS or low.isdigit() and low != "1"
            words = words[1:]
            continue
        if low.endswith("est") and len(words) > 1 and _is_superlative(low):
            words = words[1:]
            continue
        break
    return words, plural


def _is_superlative(word: str) -> bool:
    adj = _lemmas(word).get("ADJ", ())
    return bool(adj) and word not in adj


def _is_noun(word: str) -> bool:
    bare = word.strip("'\"")
    if not re.search(r"[^\W\d_]", bare):
        return False
    lemmas = _lemmas(bare.lower())
    if not lemmas:              # unknown to the lexicon ("emoji", "Pokémon"): a name
        return True
    return "NOUN" in lemmas or "PROPN" in lemmas or bare[:1].isupper()


def _is_adjective(word: str) -> bool:
    lemmas = _lemmas(word.lower())
    return "ADJ" in lemmas and "NOUN" not in lemmas and not word[:1].isupper()


def _singular(word: str) -> str:
    nouns = _lemmas(word.lower()).get("NOUN", ())
    if nouns:
        return word if word.lower() in nouns else _match_case(nouns[0], word)
    single = _inflect().singular_noun(word)
    return single if isinstance(single, str) and single else word


def _match_case(lemma: str, like: str) -> str:
    return lemma[:1].upper() + lemma[1:] if like[:1].isupper() else lemma


def _split(words: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(words up to the head noun, its "of …" part, the constraint)."""
    for i, w in enumerate(words):
        low = w.lower()
        if i == 0:
            continue
        if low in _PRONOUNS:
            return words[:i], [], []
        if low == "of":
            # "type of coffee", "day of the week": the noun goes on to the next modifier.
            for j in range(i + 1, len(words)):
                if words[j].lower() in _POSTMODIFIERS or words[j].lower() in _PRONOUNS:
                    tail = [] if words[j].lower() in _PRONOUNS else words[j:]
                    return words[:i], words[i:j], tail
            return words[:i], words[i:], []
        if low in _POSTMODIFIERS or (low.endswith("ed") and i + 1 < len(words)
                                     and words[i + 1].lower() in _POSTMODIFIERS):
            return words[:i], [], words[i:]
    while len(words) > 1 and set(_lemmas(words[-1].lower())) == {"ADV"}:
        words = words[:-1]      # "one food forever"
    return words, [], []


def find_category(question: str) -> Category:
    """The category phrase of a direct question, or ``CategoryNotFound``."""
    text = _tidy(question)
    np = _noun_phrase(text) if text else None
    if np is not None and re.search(r"\b(?:or|versus|vs)\b", np, re.I):
        np = None           # "cats or dogs": the options are given, not a category
    if np is not None:
        np = re.split(r"\s*[,;:(]\s*|\s+-\s+", np)[0]
    category = parse_category(np) if np else None
    if category is None:
        raise CategoryNotFound(question)
    return category


def parse_category(np: str, plural_hint: bool = False) -> Category | None:
    """A noun phrase ("a random popular butterfly", "three fruits") as a Category, or
    None when it has no noun to name."""
    words = [w for w in np.replace('"', " ").split() if w]
    if re.search(r"\b(?:or|versus|vs)\b", np, re.I):
        return None         # "tea or coffee": the options are given, not a category
    words, plural = _strip_leading(words)
    plural = plural or plural_hint
    if not words or words[0].lower() in _PREPOSITIONS:
        return None
    core, of_part, tail = _split(words)
    if not core or not _is_noun(core[-1]) or len(core) > 6 or len(of_part) > 6 \
            or len(tail) > 12:
        return None
    if of_part and len(of_part) < 2:
        return None
    head = core[-1]
    if plural or (not of_part and head.lower() != _singular(head).lower()
                  and np.split()[0].lower() not in ("a", "an", "one")):
        head = _singular(head)
    core = core[:-1] + [head]
    phrase = " ".join(core + of_part + tail)
    plural_core = core[:-1] + [_plural(head)]
    # A second mention drops describing adjectives ("Which butterfly …?" after "a popular
    # butterfly"), never a noun that makes the kind ("programming language").
    short = len(core) - 1
    while short > 0 and _is_adjective(core[len(core) - 1 - short]):
        short -= 1
    keep = len(core) - 1 - short
    return Category(phrase=phrase, noun=" ".join(core[keep:] + of_part),
                    plural=" ".join(plural_core + of_part + tail),
                    nouns=" ".join(plural_core[keep:] + of_part),
                    a_phrase=_article(phrase) + " " + phrase)


def _plural(word: str) -> str:
    return _inflect().plural_noun(word) or word


def _article(phrase: str) -> str:
    return _inflect().a(phrase).split(" ", 1)[0]
