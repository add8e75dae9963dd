"""Answers that are not picks: empty, refusals, and echoes of the question.

A refusal declines to choose: a hard refusal ("I can't choose", "As an AI…", "I'm sorry"),
an answer that is only a non-choice word ("neither", "both", "none", "any", "all of them"),
a subjectivity hedge ("it depends", "personal preference", "up to you"), or a template
echoed back ("{your_choice}", "[answer]", "<option>"). Whole answers are compared, so
"None" is a refusal and "Nonet" is not, "Both" is and "Bothell" is not. An echo is an answer
made only of the family's generic words ("Butterfly", "a number", "A music").
"""

from __future__ import annotations

import re
from functools import lru_cache

from probe.matching.normalise import normalise

EMPTY, REFUSAL, ECHO = "empty", "refusal", "echo"

# Whole answers (folded, punctuation removed) that are not a choice.
_NON_CHOICES = {
    # not one option
    "neither", "none", "both", "either", "all", "any", "all of them", "all of the above",
    "none of the above", "none of them", "neither of them", "both of them", "any of them",
    "anything", "nothing", "whatever", "everything", "every one", "no one",
    "several", "many", "multiple", "various", "varies", "mixed", "random", "yes", "no",
    # no preference / abstaining
    "no preference", "no opinion", "no choice", "no answer", "no comment", "pass",
    "skip", "abstain", "decline", "neutral", "n a", "na", "not applicable", "tbd", "unknown",
    # it depends / subjective
    "it depends", "depends", "subjective", "personal preference", "personal choice",
    "up to you", "your call", "hard to say", "hard to choose", "difficult to say",
    "difficult to choose", "context dependent",
    # uncertainty
    "unsure", "undecided", "not sure", "no idea", "i dont know", "dont know", "idk",
    "cannot decide", "cant decide", "cannot choose", "cant choose", "unable to choose",
    # template words echoed back
    "your choice", "your answer", "your option", "your pick", "choice", "option", "answer",
    "answer here", "your choice here", "insert answer", "fill in", "blank", "placeholder",
}
_NON_CHOICE_OPENINGS = (
    "it depends", "depends on", "depending on", "this depends", "that depends",
    "as an ai", "as a language model", "as an assistant", "as a neutral", "as an artificial",
    "i cannot", "i cant", "i can not", "i wont", "i am unable", "im unable", "i am not able",
    "im not able", "i am sorry", "im sorry", "sorry", "i dont have", "i do not have",
    "i dont know", "i do not know", "i have no", "there is no", "theres no", "no single",
    "no specific", "no best", "no right", "no correct", "none of", "neither of",
    "neither is", "both are", "all are", "it is subjective", "its subjective",
    "this is subjective", "that is subjective", "its a matter of", "it is a matter of",
    "this is a personal", "its up to", "it is up to", "thats up to", "the choice depends",
    "im not sure", "i am not sure", "not sure", "impossible to", "too many to", "hard to pick",
    "the answer depends", "i prefer not", "i would rather not", "id rather not",
)
# A refusal anywhere near the start of the response, whatever the answer extracted.
_HARD_REFUSAL = re.compile(
    r"\b(?:i\s?(?:can(?:not|'t|’t)|am unable|'m unable|’m unable|am not able|'m not able|"
    r"won'?t|will not|['’]ll not|shan['’]?t|do not|don'?t)\s(?:be\s)?"
    r"(?:choos(?:e|ing|in['’])|pick(?:ing|in['’])?|select|decide|provide|have (?:a |any )?"
    r"(?:personal )?(?:preference|opinion|favou?rite)s?|make (?:a )?choices?|answer)"
    r"|\bcan(?:not|'t|’t)\s(?:\w+ly\s)?(?:land on|settle on|decide|commit to)\s(?:one|a single|just one)\b"
    r"|as an (?:ai|artificial intelligence|ai language model|assistant)\b|"
    r"as a (?:language model|large language model))",
    re.I,
)
# A placeholder left as the answer: {your_choice}, [answer], <option>, {…}.
_TEMPLATE = re.compile(
    r"^\W*[\{\[<(]\s*(?:your[ _-]?(?:choice|answer|option|pick|selection)|answer|choice|"
    r"option|pick|selection|insert[ _-]?\w{0,12}|\.\.\.|…|x|_+)?\s*[\}\]>)]\W*$",
    re.I,
)


@lru_cache(maxsize=65536)
def _folded(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", "", text.casefold().replace("’", "'")
                           .replace("-", " ")).split())


def _first_line(response: str) -> str:
    for line in response[:2000].split("\n"):
        if line.strip():
            return line[:300]
    return ""


# Hedges that decline wherever they stand in the extracted answer: "That's a matter of
# personal preference", "Any fruit is fine!", "I'll leave that to you", "There are so many
# to choose from". Matched on the answer only, so "Monarch, but it's up to you" is a pick.
_HEDGE = re.compile(
    r"\bmatter of (?:personal |individual )?(?:taste|preference|opinion|choice)?\b"
    r"|\b(?:up to you|(?:your|personal|own|individual) (?:own )?(?:call|choice|preference|decision|taste"
    r"|thing|matter)"
    r"|you (?:choose|decide|pick))\b"
    r"|\bleave (?:it|that|this|the choice|the decision) (?:up )?to you\b"
    r"|^(?:there are )?(?:so|too) many (?:to|options|choices|great|good|wonderful|amazing"
    r"|lovely|beautiful)\b|^there are (?:many|lots|plenty)\b"
    r"|^(?:any|every|each)(?: \w+){0,3} (?:is|are|would be|will be) (?:fine|ok|okay|good|great"
    r"|lovely|perfect|acceptable)\b|^any(?: \w+){0,3} (?:works|will do)\b"
    r"|^(?:whatever|whichever) (?:you|your|is|works|one)\b|^(?:neither|none|both) (?:really|of them|is|are|works)\b"
    r"|\b(?:impossible|hard|difficult|tough) to (?:choose|pick|say|decide|name)\b"
    r"|\bthe one (?:that|which) .{0,40}\byou\b"
    r"|\bno (?:single |one )?(?:right|correct|best|wrong) (?:answer|choice|option)\b"
    r"|^(?:i|id|i would|ill|i will) (?:rather not|prefer not|leave)\b"
    # A pick put off until the user answers: "Tell me that and I'll pick."
    r"|\b(?:tell me|let me know)\b.{0,60}\b(?:and|then) (?:ill|i will|i can) (?:pick|choose|decide"
    r"|narrow|recommend|suggest|tailor)"
    r"|\b(?:happy|fine|good|content) with (?:either|any of them|any of these|both)\b"
    r"|\bit (?:really |all |just |honestly )?(?:depends|comes down to what you)\b"
    r"|\bwhichever (?:of these |of them |one )?(?:you|speaks|feels|works|suits)\b"
    r"|\b(?:need|have) to (?:decide|choose|pick) between\b"
    # Indecision by its own words: a tie, a toss-up, a refusal to choose.
    r"|\btoss ?up\b|\bcant break (?:the|a|this) tie\b|\b(?:tied|a tie|neck and neck) (?:for me|between)\b"
    r"|\brefus(?:e|es|ing) to (?:pick|choose|decide|play favou?rites)\b"
)


_MARKUP_CHARS = re.compile(r"[*_`~#>]+")
# Where a list in the first line would end: a sentence end or an explanation ("Monarch,
# because it is pretty, bright and big" is one pick with reasons, not a list).
_LIST_HEAD_END = re.compile(r"[.!?](?:\s|$)|,? (?:because|since|which|as|but|though|although)\b"
                            r"| [-–—] | ?[:;] ", re.I)
_LIST_SPLIT = re.compile(r"\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+", re.I)


def is_list(answer: str) -> bool:
    """Several options instead of one: "Banana, apple, orange, pear" or "Red, blue or
    green". Three comma-separated words with no "and"/"or" may be one name ("Portland,
    Oregon, USA"; "Rock, Paper, Scissors"), so a list needs four items or a conjunction."""
    if "," not in answer:
        return False
    parts = [p for p in _LIST_SPLIT.split(answer.strip(" .…")) if p]
    if len(parts) < 3 or not all(1 <= len(p.split()) <= 4 for p in parts):
        return False
    return len(parts) >= 4 or bool(re.search(r"\b(?:and|or)\b", answer, re.I))


def refuses(response: str | None, answer: str) -> bool:
    """Whether a response (and the answer extracted from it) declines to choose — a list
    of options included."""
    head = _first_line(response or "")
    if _TEMPLATE.match(head.strip()) or _HARD_REFUSAL.search(head):
        return True
    if is_list(answer) or is_list(_LIST_HEAD_END.split(_MARKUP_CHARS.sub("", head))[0]):
        return True
    folded = _folded(answer)
    return bool(folded) and (folded in _NON_CHOICES or folded.startswith(_NON_CHOICE_OPENINGS)
                             or bool(_HEDGE.search(folded)))


_OPENING_WORDS = re.compile(r"^(?:(?:honestly|frankly|truthfully|really|well|o+h+|a+h+|h+m+|u+m+|so|ok|okay|look|"
                            r"i think|i mean|to be honest|in the end|ultimately|sorry)\s+)+")


def _openings_dropped(folded: str) -> list[str]:
    """The sentence after each word of its opening voice: interjections ("ooh", "ugh",
    "lol") and adverbs ("literally", "seriously"): "ooh so many good ones", "so many good
    ones", "many good ones"."""
    from probe.matching.words import is_interjection

    words = folded.split()
    out = []
    for i, w in enumerate(words[:4]):
        if not (is_interjection(w) or w.endswith("ly") and len(w) > 4 or w in ("so", "like")):
            break
        out.append(" ".join(words[i + 1:]))
    return out


def declines(sentence: str) -> bool:
    """A sentence that, by itself, declines to choose: "It depends on the vibe you're going
    for.", "Both are excellent choices.", "Honestly, there's no single right answer.",
    "Tough to say without knowing more.", "I'd rather not pick for you."""
    if _HARD_REFUSAL.search(sentence):
        return True
    whole = _folded(sentence)
    for folded in {whole, _OPENING_WORDS.sub("", whole)}:
        if folded and (folded in _NON_CHOICES or folded.startswith(_NON_CHOICE_OPENINGS)
                       or folded.startswith(_DECLINING_OPENINGS) or _HEDGE.search(folded)):
            return True
    return False


# A sentence of a reply that opens so offers every option, or denies there is one best:
# "Any of them, really.", "Each has its own strengths.", "There isn't really a best bread."
_DECLINING_OPENINGS = (
    "any of them", "any of these", "any of those", "any one of", "either of them", "either one",
    "all of them", "all of these", "all of those", "each has", "each one has", "each of them",
    "they all", "they are all", "theyre all", "both have", "both of them", "both would",
    "there isnt", "there is not", "there really isnt", "there arent", "there are no",
    "whichever", "whatever you",
)


def is_refusal(response: str | None) -> bool:
    """A refusal or a hedge rather than a choice ("I can't choose", "it depends", "neither")."""
    from probe.matching.extract import extract

    return bool(response) and refuses(response, extract(response))


# ------------------------------------------------------- family-generic words

# Verbs that open a prompt ("Name a random city": "name" is the verb, not the category).
_IMPERATIVES = {"choose", "pick", "name", "select", "give", "tell", "list", "suggest",
                "recommend", "say", "think"}
_STOPWORDS = {
    "choose", "pick", "select", "give", "tell", "me", "random", "randomly", "any", "one",
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
    "dog": ["breed", "dog"],
    "type": ["kind", "sort", "variety"],
    "car": ["brand", "make"],
}
_ALWAYS_GENERIC = {"type", "kind", "sort", "variety", "species", "random", "popular"}


_OR = re.compile(r"\b(?:or|vs|versus)\b")
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


@lru_cache(maxsize=4096)
def prompt_options(prompt: str) -> frozenset[str]:
    """The options a prompt lists itself ("Tea or coffee?", "cats, dogs, or birds", "yes or
    no"), folded: answering one of them is a pick, never an echo or a refusal. Each piece of
    an "or" list gives its first and last one to three words; taking a few words too many
    ("which is better") only keeps them out of the generic words."""
    options: set[str] = set()
    for clause in re.split(r"[?.!:;()]", (prompt or "").casefold()):
        if not _OR.search(clause):
            continue
        for piece in re.split(r",|\b(?:or|vs|versus)\b", clause):
            words = _WORD.findall(piece)
            for n in range(1, min(3, len(words)) + 1):
                options.add(" ".join(words[:n]))
                options.add(" ".join(words[-n:]))
    return frozenset(_folded(o) for o in options if o)


@lru_cache(maxsize=4096)
def generic_words(prompt: str) -> frozenset[str]:
    """Words that only restate a family's category, as comparison keys; never the options
    the prompt lists ("Tea or coffee?": neither word is generic)."""
    key = list(normalise(prompt or ""))
    while key and key[0] in _IMPERATIVES:
        key.pop(0)
    words = {w for w in key if w not in _STOPWORDS and not w.isdigit()}
    for raw in re.findall(r"[a-z]+", (prompt or "").casefold()):
        for syn in _SYNONYMS.get(raw, []):
            words.update(normalise(syn))
    for w in _ALWAYS_GENERIC:
        words.update(normalise(w))
    for option in prompt_options(prompt or ""):
        words.difference_update(normalise(option))
    return frozenset(words)


def is_echo(key: tuple[str, ...], generic: frozenset[str]) -> bool:
    """An answer made only of the family's generic words: the question, not a choice."""
    return bool(key) and all(w in generic for w in key)


def classify(response: str | None, answer: str, key: tuple[str, ...],
             generic: frozenset[str], options: frozenset[str] = frozenset(),
             segment=None) -> str:
    """'' for a pick, else 'empty', 'refusal' or 'echo'. ``segment`` is the reading the
    answer came from: a list of options, a remark ("It depends") or a response with no
    answer in it is a refusal."""
    if options and _folded(answer) in options:
        return ""                 # "Both" is a pick when the prompt offers "both"
    if segment is not None and getattr(segment, "titled", False):
        return EMPTY if not key else (ECHO if is_echo(key, generic) else "")
    if segment is not None:
        if not segment.cue and _HARD_REFUSAL.search(_first_line(response or "")) \
                and not segment.whole:
            return REFUSAL
        if segment.listed or segment.remark or (not segment.answer and answer):
            return REFUSAL
        if _TEMPLATE.match(_first_line(response or "").strip()):
            return REFUSAL
        for text in (segment.answer, segment.text):
            whole = _folded(text)
            if any(folded and (folded in _NON_CHOICES or folded.startswith(_NON_CHOICE_OPENINGS)
                               or bool(_HEDGE.search(folded)))
                   for folded in (whole, *_openings_dropped(whole))):
                return REFUSAL
    elif refuses(response, answer):
        return REFUSAL
    if not key:
        return EMPTY
    if is_echo(key, generic):
        return ECHO
    return ""
