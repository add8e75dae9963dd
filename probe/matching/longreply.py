"""Long replies: the one answer a reply of several sentences or paragraphs commits to.

A long reply is read as a whole, not from its first line. Its candidates are the family's
answers together with the options the reply itself lays out — list items, table rows,
headings, bold names — so a family made only of long replies still has its options. Each
sentence, cut into clauses at turns ("…, though", "…, but", "rather than", "over"), is
scored for the one candidate it names: it counts when it commits in the first person or
as a label ("I'd go with X", "Final answer: X", "X takes it"), the more when it is the
last word ("ultimately", "on reflection"), and not at all when it passes the candidate over
("X would be my second choice", "I was tempted by X", "rather than X", "if you'd prefer,
X"). A clear winner is the pick. A long reply that commits to nothing is no pick of its own
reading's junk: it keeps a reading only when that reading is one of the candidates or a
choice it states.
"""

from __future__ import annotations

import re
from functools import lru_cache

from probe.matching import words as W
from probe.matching.nonpick import declines

# A reply this long is read sentence by sentence for the candidate it commits to.
LONG_REPLY = 160
# A reply this long may hold a few sentences; one that commits among them is read for it.
SEVERAL_SENTENCES = 60
# A new name stated by a closing line: a few words at most.
MAX_NAME_WORDS = 4
_SENTENCE = re.compile(r"(?<=[.!?…])\s+|\n+|;\s")
# A dash ends a clause, not a sentence: "…actually, no — X is the better fit" concludes.
_DASH = re.compile(r"\s[—–]\s")
# Where a sentence turns: the clause after sets a name aside or starts afresh.
_TURN = re.compile(r",\s*(?:but|though|although|however|while|whereas)\b|\s(?:but|though|although|"
                   r"however|whereas)\s|,\s*(?=not\s)|,\s*and\s|\s[—–]\s", re.I)
_SET_ASIDE = re.compile(r"\b(?:rather\s+than|instead\s+of|over|than|ahead\s+of|beats?|edges?\s+out)\b|"
                        r",\s*with\b(?=[^,.;]*\bas\s+(?:(?:a|an|the|my)\s+)?(?:close\s+)?(?:runner|backup|"
                        r"second|fallback|alternative|honou?rable|plan\s+b)\b)", re.I)
# The speaker and the listener: a phrase that names them ("your gut", "what I love") is no name.
_SPEAKERS = frozenset("i me my we us our you your i'd i'll i'm i've you're you'll you'd".split())
_FIRST_PERSON = frozenset("i i'd i'll i'm i've me my mine we we'd we'll we're our us let's".split())
_COMMITTING = frozenset("""pick picks picked picking choose chose chosen choosing choice recommend
recommending recommendation recommendations verdict winner answer vote settle settling settled
land landing go going decision final favourite favorite tldr bottom backing back opt opting
selecting commit commits committing recommended say suggest suggesting prefer nominate stick
sticking lean leaning take taking switch switching grab""".split())
# Words that make a short line a label of the choice: "Winner: X", "TL;DR: X".
_LABELLING = frozenset("pick choice winner verdict answer recommendation tldr final decision".split())
# Words that commit by themselves, whoever speaks: "Earth takes it", "Acadia comes out ahead".
_WINNING = frozenset("wins win takes ahead edge edges prevails winner triumphs".split())
# A judgement that singles a name out: "X is the better fit", "X is the best bet".
_BEST = frozenset("better best ideal perfect strongest safest top".split())
# The last word on it: a commitment after these outranks one before.
_CONCLUDING = frozenset("""final finally ultimately actually rather reflection end overall
considered verdict bottom conclusion decided instead tldr summary scratch wait
correction switch switching""".split())
_DEMURRING = frozenset("""alternative alternatives alternatively runner runner-up backup honorable
honourable mention mentions also too downside otherwise second another else not no never nor
rule ruled cross crossed skip skipping obvious overrated close maybe perhaps could might
instinct initially originally avoid cannot""".split()) | W.PASSED_OVER
# Indecision names an option without choosing it: "I went back and forth on X".
_UNDECIDED = re.compile(r"\bback\s+and\s+forth\b|\btorn\b|\bon\s+the\s+fence\b|"
                        r"\b(?:was|were)\s+(?:going|about|tempted)\s+to\b|\bwanted\s+to\b|"
                        r"\bpart\s+of\s+me\b|\bbefore\s+(?:i|we)\b|\bat\s+first\b|"
                        r"\b(?:i['’]d|i\s+would|would|might|could)\s+have\b", re.I)
_SO = re.compile(r"\s*(?:so|thus|therefore|hence)\b", re.I)
# A question asks; it commits to nothing ("Should I go with X?"), while "Final choice: X.
# Why? …" does.
_QUESTION = re.compile(r"^\W*(?:would|should|shall|do|does|did|is|are|can|could|what|which|how|why|"
                       r"want|fancy|may|might|will|or)\b[^?]*\?\s*$", re.I)
_CONDITION = re.compile(r"\b(?:if|unless)\b", re.I)
_CONDITIONS = frozenset("if unless when for with".split())
# A condition about the choice itself commits: "if I had to pick one", "if you want just one".
_CHOICE_CONDITION = re.compile(r"\b(?:if|when)\b[^,.:]{0,40}?\b(?:one|had\s+to|have\s+to|must|forced|"
                               r"pushed|pressed|pick|choose|commit|decide|narrow|up\s+to\s+me|"
                               r"ask|asks|asked)\b", re.I)
_MAKE_IT = re.compile(r"\bthe\s+one\s+(?:i|we)\b|\bhands\s+down\b|\bis\s+the\s+one\W*$|\b(?:make\s+it|it\s+has\s+to\s+be|it['’]s\s+got\s+to\s+be|goes\s+to|"
                      r"stands?\s+out|comes?\s+out\s+on\s+top)\b|\bit\s+is\W*$|"
                      r"\b(?:nothing|no\s*one|nobody|can['’]?t|cannot)\s+(?:\w+\s+)?(?:beats?|tops?)\b|"
                      r"\bcan['’]?t\s+go\s+wrong\s+with\b|\bmakes?\s+(?:the\s+)?most\s+sense\b|"
                      r"\bpoints?\s+(?:to|towards)\b|\bthe\s+more\s+(?:i|we)\s+think\b",
                      re.I)
_HEADING = re.compile(r"^\s*#{1,6}\s+(.+?)\s*#*\s*$")
_BOLD = re.compile(r"\*\*([^*\n]{1,80}?)\*\*|__([^_\n]{1,80}?)__|(?<![*\w])\*([^*\n]{1,60}?)\*(?![*\w])"
                   r"|(?<![_\w])_([^_\n]{1,60}?)_(?![_\w])")


@lru_cache(maxsize=4096)
def laid_out(text: str) -> tuple[str, ...]:
    """The options a cleaned reply lays out: its list items' names, its table's first
    cells, its headings and its bold phrases, each a name of a few words."""
    from probe.matching.extract import (_ITEM, _drop_brackets, _option_name, _strip, _table_cells,
                                        name_like)

    found: list[str] = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if _ITEM.match(line):
            found.append(_described(_option_name(_strip(_markup_free(_ITEM.sub("", line))))))
        elif (m := _HEADING.match(line)) is not None:
            found.append(_option_name(_strip(_markup_free(m.group(1)))))
        elif line.lstrip().startswith("|") and (i == 0 or not lines[i - 1].lstrip().startswith("|")):
            found.extend(_table_cells(lines[i:i + 24]))
    for m in _BOLD.finditer(text):
        for part in next(g for g in m.groups() if g).split(":"):
            found.append(_strip(part))
    out = []
    for name in found:
        # "Ursa Minor (the Little Bear)": the name, not its gloss.
        name = _strip(_markup_free(_drop_brackets(name) or name))
        if name and "?" not in name and name_like(name) and len(name.split()) <= 6 \
                and not set(_words(name)) & (_LABELLING | W.CHOICE_NOUNS | _FIRST_PERSON | _WH
                                             | _SPEAKERS | _IT) \
                and not _gerund(name.split()[0]) and name not in out:
            out.append(name)
    return tuple(out)


_WH = frozenset("what which who why how where when".split())
# "Sleep on it", "Narrow it down to two": a piece of advice laid out, not an option.
_IT = frozenset("it its it's".split())


def _gerund(word: str) -> bool:
    """A heading that opens on a verb's -ing form ("Finding the best topping") names the
    task, not an option."""
    from probe.matching import lexicon

    low = word.casefold()
    return low.endswith("ing") and len(low) > 5 and any(
        "VERB" in lexicon.parts_of_speech(stem) for stem in (low[:-3], low[:-3] + "e", low[:-4]))


def _described(item: str) -> str:
    """A list item's name before a description after a comma ("Subaru, a favourite with a
    lot of people"); "Portland, Oregon" stays whole."""
    name, comma, rest = item.partition(", ")
    return name if comma and rest[:1].islower() and len(rest.split()) >= 2 else item


def _words(text: str) -> list[str]:
    from probe.matching.extract import _lower, _tokens

    return [_lower(t) for t in _tokens(text)]


def _clauses(sentence: str) -> list[tuple[str, bool]]:
    """A sentence's clauses, each with whether it only sets a name aside ("…rather than X",
    "…over X", "…, not X")."""
    out: list[tuple[str, bool]] = []
    for part in _TURN.split(sentence):
        m = _SET_ASIDE.search(part)
        if m is not None and _UNBEATEN.search(part[:m.end()]):
            m = None              # "nothing beats X": X is not set aside, it wins
        if m is not None and part[:m.start()].strip():
            # "X edges out Y", "X beats Y": the verb stays with the winner.
            cut = m.end() if _WINNING & set(_words(m.group())) or m.group().lower().startswith("beat") \
                else m.start()
            out.append((part[:cut], False))
            out.append((part[m.end():], True))
        else:
            out.append((part, False))
    return [(c, aside or bool(re.match(r"\s*not\b", c, re.I))) for c, aside in out if c.strip()]


_PARALLEL = re.compile(r"\b(?:while|whereas)\b|,\s*and\s", re.I)
# "Nothing beats X", "you can't beat X", "no one tops X": X wins.
_UNBEATEN = re.compile(r"\b(?:nothing|no\s*one|nobody|none|can['’]?t|cannot|hard\s+to)\s+"
                       r"(?:\w+\s+)?(?:beats?|tops?|compares?|outdo(?:es)?)\W*$", re.I)
_PRAISING_NOT = re.compile(r"\b(?:can['’]?t|cannot|could\s*n['’]?t)\s+(?:\w+\s+)?(?:beat|top|go\s+wrong)\b|"
                           r"\b(?:nothing|no\s*one|nobody)\s+(?:\w+\s+)?(?:beats|tops)\b", re.I)
_ALL_CONSIDERED = re.compile(r"\b(?:all\s+things\s+considered|having\s+considered\s+\w+)", re.I)


# What follows a named choice explains it: "…go with X: it never feels dated".
_EXPLANATION = re.compile(r"(?<=\S):\s+|\s[-—–]\s|,\s*(?:because|since|as|which|who|so)\b|"
                          r"\s(?:because|since)\s", re.I)


def _described_after(clause: str) -> str:
    """A clause up to a description in lower case after a colon or dash ("it'd be X: the
    best-selling novelist of all time"); the whole clause when none follows."""
    for m in _EXPLANATION.finditer(clause):
        if m.group().strip() in (":", "—", "–", "-") and clause[m.end():m.end() + 1].islower():
            return clause[:m.start()]
    return clause


def _up_to(clause: str, look) -> str:
    """The clause up to the part that names its candidate, without the reason after it."""
    ends = [m.start() for m in _EXPLANATION.finditer(clause)] + [len(clause)]
    for end in ends:
        if look.mentions(clause[:end]):
            return clause[:end]
    return clause


# How strongly a clause commits: said by the speaker (first person, a short label, an
# imperative) outranks a name singled out in the third person ("X takes it", "X stands
# out"), which options' descriptions also use; the last word adds to either.
SPOKEN, SINGLED, LAST_WORD = 4, 2, 3
# How many words before a name may pass it over ("the runner-up, in my view, is X").
_NEAR = 6
_IMPERATIVE = re.compile(r"^\W*(?:[\w'’ ]{1,40}:\s*)?(?:just\s+)?(?:go|pick|choose|opt|try|get|take|grab|"
                         r"book|order|name|make)\b|"
                         # "Going with X", "Switching to X"; "Choosing a bar" titles a task.
                         r"^\W*(?:going|opting|settling|landing|sticking|switching)\s+(?:with|for|on|to)\b",
                         re.I)


def _score(clause: str, name: tuple[str, ...], sentence: str) -> int:
    # "All things considered, X takes it" concludes; "I considered X" passes X over.
    clause, sentence = _ALL_CONSIDERED.sub("overall", clause), _ALL_CONSIDERED.sub("overall", sentence)
    words = _words(clause)
    rest = set(w for w in words if w not in set(name))
    singled = bool(rest & _WINNING) or bool(_MAKE_IT.search(clause)) or bool(rest & _BEST) \
        or bool(_CHOICE_CONDITION.search(clause))       # "So if you want just one: X"
    committing = bool(rest & _COMMITTING) or singled
    at = _where(words, name)
    # A label comes before its name ("Answer: X"); "X is the classic answer" describes.
    spoken = bool(rest & _FIRST_PERSON) or (len(rest) <= 4 and bool(set(words[:at]) & _LABELLING)) \
        or bool(_IMPERATIVE.match(clause)) and bool(rest & _COMMITTING)
    conditional = bool(_CONDITION.search(sentence)) and not _CHOICE_CONDITION.search(sentence)
    # "You can't beat X", "you can't go wrong with X": the "not" in them praises X.
    # Only words near the name pass it over: "…without trying too hard, which is why my
    # choice is X" commits to X; "X would be my second choice" does not.
    plain = _around(_words(_PRAISING_NOT.sub(" ", clause)), name)
    demurring = bool(plain & _DEMURRING) or conditional or bool(_UNDECIDED.search(clause))
    points = 0
    if committing and (spoken or singled) and not demurring and not _QUESTION.match(clause):
        points = (SPOKEN if spoken else SINGLED) + _last_word(sentence)
    if _taken_back(clause, name) and not conditional and not _QUESTION.match(clause):
        points = max(points, SPOKEN)      # "Let's say X — actually no, Y!"
    return points


# Words that put a name in second place: "Y is a fun runner-up", "Y is nice too" — the
# demurring words but negations and hedges ("X, never gets old!" praises X).
_SECOND = _DEMURRING - frozenset("""alternatives downside another else not no never nor skipping
maybe perhaps could might instinct initially originally avoid cannot""".split())


def _second_place(clause: str, name: tuple[str, ...]) -> bool:
    return bool(_around(_words(clause), name) & _SECOND) or bool(_UNDECIDED.search(clause))


def _where(words: list[str], name: tuple[str, ...]) -> int:
    """Where the name's first word is among ``words`` (their length when it is not)."""
    said = set(name)
    return next((i for i, w in enumerate(words) if w in said), len(words))


def _around(words: list[str], name: tuple[str, ...]) -> set[str]:
    """The words from a few before the name on, without the name's own."""
    return set(words[max(0, _where(words, name) - _NEAR):]) - set(name)


def _taken_back(clause: str, name: tuple[str, ...] = ()) -> bool:
    """A clause that opens by taking back what came before ("actually no, Y", "wait — Y",
    "scratch that, Y"), with ``name`` (when given) said first after it — not "wait, let
    me double-check"."""
    from probe.matching.extract import _correction

    taken, rest = _correction(_markup_free(clause).strip(" ,.!—–-"))
    if not taken or not name:
        return taken
    words = _words(rest)
    at = _where(words, name)
    return at <= 2 and not set(words[:at]) & (_FIRST_PERSON | _SPEAKERS)


def _last_word(sentence: str) -> int:
    """What a commitment gains as the last word ("ultimately", "on reflection", a sentence
    opened by "So")."""
    return LAST_WORD if set(_words(sentence)) & _CONCLUDING or _SO.match(sentence) else 0


# A pointer back to the name just said: "…is BMW, so that's where I land", "X ticks every
# box, so that's my pick".
_POINTER = re.compile(r"\b(?:that['’]?s|that\s+is|it['’]?s)\s+(?:my\s+(?:pick|choice|answer|vote)|"
                      r"where\s+i\s+(?:land|come\s+down)|the\s+one\s+i['’]?d|what\s+i['’]?d\s+(?:go|pick|choose))|"
                      r"\b(?:let['’]?s|i['’]ll|i\s+will|i['’]m\s+going\s+to)\s+go\s+with\s+(?:that|it|this)\b",
                      re.I)


def _pointed(after: str, sentence: str) -> int:
    if _POINTER.search(after) is None:
        return 0
    # "…, so that's my pick": the "so" before the pointer concludes too.
    return SPOKEN + (LAST_WORD if _SO.match(after.lstrip(" ,")) else _last_word(sentence))


def _markup_free(text: str) -> str:
    from probe.matching.extract import _MARKUP

    return _MARKUP.sub("", text)


_ANNOUNCING = _LABELLING | _FIRST_PERSON | _CONCLUDING | frozenset("the a and is are here".split())


_MARK = re.compile(r"[⭐★✅✔☑🏆👑🥇]|←|\b(?:recommended|my\s+pick|top\s+pick|my\s+choice|winner)\b", re.I)


def _marked(row: str, look) -> tuple[str, ...] | None:
    """The candidate of a table row or list item whose option itself carries a mark of
    choosing (a star, a tick, "recommended"); marks in other cells rate, they do not choose."""
    from probe.matching.extract import _option_name

    head = row.strip().strip("|").split("|")[0] if row.lstrip().startswith("|") else _option_name(row)
    if not _MARK.search(head):
        return None
    named = look.mentions(head)
    return named[0] if len(named) == 1 else None


def _alone(sentence: str, look, labelled: bool = False) -> tuple[str, ...] | None:
    """The candidate of a sentence that is one candidate and nothing but small words; with
    ``labelled``, or a short label before it ("Easy: Sodium.") — in a reply of a few
    sentences, where a long reply's "Budget: X" lines lay options out."""
    if sentence.rstrip()[-1:] in ("?", ":"):
        return None               # a question, or a label that introduces what follows
    head = _HEAD.match(sentence)
    if labelled and head is not None and not set(_words(head.group(1))) & (_DEMURRING | _CONDITIONS):
        sentence = sentence[head.end():]
    named = look.mentions(sentence)
    if len(named) != 1 or set(named[0]) & (_DEMURRING | _COMMITTING):
        return None
    rest = [w for w in _words(sentence) if w not in set(look.norm(" ".join(named[0])))
            and w not in set(named[0])]
    return named[0] if all(w in W.FUNCTION or w in _SMALL for w in rest) else None


# A label that concludes: "Therefore: X", "In short: X", "Bottom line: X" — the last word, in
# a reply of any length (where "Budget: X" lines only lay options out).
_CONCLUSION = _CONCLUDING | _LABELLING | frozenset("""in short sum so thus therefore hence upshot
takeaway line net the my all result outcome decision""".split())


def _concluding(sentence: str) -> bool:
    head = _HEAD.match(sentence)
    if head is None:
        return False
    said = set(_words(head.group(1)))
    return said <= _CONCLUSION and bool(said - frozenset("in the my all so line net".split()))


_SMALL = frozenset("so yes yeah then well ok okay here here's there why final finally still anyway "
                   "end".split())
# A short head before a colon that labels the name after it: "Easy: X.", "In the end: X."
_HEAD = re.compile(r"^\W*((?:[\w'’]+\s+){0,2}[\w'’]+)\s*:\s+(?=\S)")


def _stated(sentence: str) -> str | None:
    """What a sentence that commits (in the first person, or as a short label: "Final
    answer: X") states, when it names none of the candidates yet, read from the shape of
    the sentence: a name, or a placeholder or the category itself."""
    if _QUESTION.match(sentence):
        return None               # "Would you like me to pick again for comparison?"
    words = set(_words(sentence))
    personal = words & _FIRST_PERSON or len(words) <= 7 and words & _LABELLING \
        or _IMPERATIVE.match(sentence)
    if not (words & _COMMITTING or _MAKE_IT.search(sentence)) or not personal \
            or words & _DEMURRING:
        return None
    from probe.matching.extract import _read_line, name_like

    named = [s.answer for s in _read_line(" ".join(sentence.split())) if s.answer and s.cue
             and not (s.remark or s.negated or s.conditional or s.listed or s.exclaim)
             and not all(w in W.FILLER or _only_describes(w) for w in _words(s.answer))]
    if len(named) != 1 or named[0].islower() and len(named[0].split()) > 2 \
            or set(_words(named[0])) & _SPEAKERS or _verb_only(named[0]):
        return None               # "…is choosing purely on reputation", "go with your gut",
        # "Before settling, I asked myself…"
    return named[0] if name_like(named[0]) or _placeholder(named[0]) else None


def _verb_only(stated: str) -> bool:
    """A word in lower case that is only ever a verb ("asked", "went"): no name."""
    from probe.matching import lexicon

    if not stated.islower() or len(stated.split()) != 1:
        return False
    parts = lexicon.parts_of_speech(stated)
    return bool(parts) and parts <= {"VERB", "ADV"}


def _only_describes(word: str) -> bool:
    """A word that only describes ("all-time", "timeless"): no name by itself."""
    from probe.matching.extract import _adjective_only

    return word.islower() and all(_adjective_only(part) for part in word.split("-"))


def _placeholder(stated: str) -> bool:
    return bool(set(stated) & set("[]<>{}_"))


def _void(stated: str, look) -> bool:
    """A commitment to no answer: a placeholder ("[your mountain here]") or the category
    itself ("My recommendation, then: a month")."""
    return _placeholder(stated) or not [w for w in look.norm(stated)
                                        if w not in look.generic and w not in W.FUNCTION]


def _announcing(line: str) -> int:
    """A line that only announces the choice ("## My pick", "Final verdict:") commits the
    next sentence to its one candidate: how strongly."""
    words = _words(line)
    if not words or len(words) > 4 or not set(words) <= _ANNOUNCING or not set(words) & _LABELLING:
        return 0
    return SPOKEN + (LAST_WORD if set(words) & _CONCLUDING else 0)


def _sentences(text: str) -> list[tuple[str, bool]]:
    """A reply's sentences, each with whether it is prose (not a list item, heading or
    table row); a list item is one sentence, dash and all ("Sphynx — ✅ my pick")."""
    from probe.matching.extract import _ITEM

    out: list[tuple[str, bool]] = []
    for line in text.split("\n"):
        if _ITEM.match(line):
            out.append((_markup_free(_ITEM.sub("", line)), False))
        elif line.lstrip().startswith("|"):
            out.append((line, False))
        else:
            prose = not _HEADING.match(line)
            out.extend((piece, prose) for piece in _joined(_SENTENCE.split(_markup_free(line))))
    return out


# A period that ends an initial or an abbreviation ends no sentence: "W. A. Mozart", "St. Ives".
_INITIAL = re.compile(r"(?:^|[\s(])(?:[A-Z]|[A-Za-z]{2,4}\.(?=[a-z]))\.$|\b(?:St|Mt|Dr|Mr|Mrs|Ms|Jr|Sr|"
                      r"Ft|vs|No|Gen|Prof|Capt|Lt|Col|Rev|Hon|Sen|Gov|Pres)\.$")


def _joined(pieces: list[str]) -> list[str]:
    out: list[str] = []
    for piece in pieces:
        if out and _INITIAL.search(out[-1]):
            out[-1] += " " + piece
        else:
            out.append(piece)
    return out


# What heads a reply's closing line: "Easy call, then: X", "So — X", "→ X".
_CLOSING_HEAD = re.compile(r"^\W*(?:[\w'’#,.]+\s+){0,3}[\w'’#,.]*\s*(?::|[—–]|->|→)\s*|^\W*(?:->|→)\s*")
_BEHIND = frozenset("behind worth consider considering".split())
_NOT_A_VERDICT = frozenset("not no never nor if unless maybe perhaps could might would should "
                           "or".split())


def _verdict(sentence: str, look) -> tuple[tuple[str, ...], str] | None:
    """The name a reply's closing line states on its own, the verdict of reasoning that
    came before ("Easy call, then: X.", "So, X.", "X by a nose.", "→ **X**", "X (with Y
    as runner-up)."): one candidate, or a new name in title case, with a few small words
    and no verb, hedge or condition beside it."""
    from probe.matching.extract import _drop_brackets, _strip, _tokens

    if "?" in sentence or sentence.lstrip(" *_").startswith("("):
        return None               # a question, or an aside "(Danube fans, sorry!)"
    said = _drop_brackets(_markup_free(sentence)).strip()
    head = _CLOSING_HEAD.match(said)
    if head is not None and head.end() < len(said):
        if set(_words(head.group())) & (_DEMURRING | _CONDITIONS | _BEHIND):
            return None           # "Also worth considering: X", "Close behind: X"
        said = said[head.end():]
    words = _words(said)
    if not words or len(words) > 8 or set(words) & _NOT_A_VERDICT:
        return None
    named = look.mentions(said)
    tokens = _tokens(_strip(said))
    if len(named) > 1 or _not_a_name(tokens):
        return None
    if named:
        name = set(named[0]) | set(look.norm(" ".join(named[0])))
        rest = [w for w in words if w not in name]
    else:
        toks = [t for t in tokens if t.casefold() not in _SMALL]
        if not toks or len(toks) > 4 or not all(t[:1].isupper() or t[:1].isdigit() for t in toks):
            return None
        rest = []
        new = _words(" ".join(toks))
        if set(new) & (_SPEAKERS | _WH | W.CHOICE_NOUNS) or all(W.is_filler(w) for w in new):
            return None
        named = [look.norm(" ".join(toks))]
        if not named[0]:
            return None
    if len(rest) > 4 or any(w in W.PREDICATE_VERBS and w not in _COMMITTING or w in _DEMURRING
                            and w != "still" or w in W.CHOICE_NOUNS or w in _SPEAKERS
                            or w.partition("'")[0] in W.PRONOUNS or _verb(w) for w in rest):
        return None
    return named[0], said


def _verb(word: str) -> bool:
    """A word that is a verb and never a noun ("disappoints"): beside a name, it says
    something of it rather than naming it (a word of choosing or winning aside)."""
    return word not in _COMMITTING and word not in _WINNING and _only_verb(word)


def _only_verb(word: str) -> bool:
    from probe.matching import lexicon

    parts = lexicon.parts_of_speech(word)
    return "VERB" in parts and "NOUN" not in parts


def _not_a_name(tokens: list[str]) -> bool:
    """Words in title case that are no name: a verb to open ("Enjoy", "Have fun"), or
    words that only describe ("Good luck")."""
    from probe.matching import lexicon

    if not tokens:
        return True
    return _only_verb(tokens[0].casefold()) or all(
        (parts := lexicon.parts_of_speech(t.casefold())) and "NOUN" not in parts for t in tokens) \
        or W.is_filler(tokens[-1].casefold())


_NEXT_TURN = re.compile(r"^\W*(?:q|question|user|human|prompt|input)\s*\d*\s*[:.)]", re.I)


def _closing(sentences: list[tuple[str, bool]], look) -> int:
    """Where a reply's closing line is: its last prose sentence that names something, or
    -1 (sign-offs after it — "Hope that helps!" — name nothing). A reply that ends by
    declining, or on a row of labelled lines ("Classic: X. Unusual: Y."), has none."""
    # A base model's run-on ("…Q: Name a bird. A: Robin") is no longer the reply.
    end = next((at for at, (x, _) in enumerate(sentences) if _NEXT_TURN.match(x)), len(sentences))
    for at in range(end - 1, -1, -1):
        sentence, prose = sentences[at]
        if not sentence.strip():
            continue
        if not prose or declines(sentence):
            return -1
        if look.mentions(sentence) or _verdict(sentence, look) is not None:
            before = next((x for x, p in reversed(sentences[:at]) if x.strip()), "")
            if _HEAD.match(sentence) and _HEAD.match(before) and look.mentions(before) \
                    and not _concluding(sentence):
                return -1
            return at
    return -1


def committed(text: str, vocab, extra: tuple[str, ...] = ()) -> tuple[tuple[str, ...], str] | None:
    """The one candidate a cleaned long reply commits to, with the sentence that did;
    ``None`` when no sentence commits or two candidates are committed to alike; an empty
    key when the strongest commitment is to no answer (a placeholder, the category).
    ``vocab``: the family's candidates; ``extra``: names the reply lays out itself."""
    look = vocab.widened(extra) if extra else vocab
    # Each candidate's strongest commitment; a candidate passed over elsewhere ("too
    # obvious") still counts when a later sentence commits to it.
    best: dict[tuple[str, ...], int] = {}
    said: dict[tuple[str, ...], str] = {}
    announced = 0
    nothing = (0, 0, "")          # the strongest commitment to no answer at all
    last = 0                      # where the strongest commitment to a candidate was made
    passed: set = set()           # candidates set aside or put second
    kept: dict = {}               # candidates named plainly, with the sentence
    sentences = _sentences(text)
    closing = _closing(sentences, look)
    for at, (sentence, prose) in enumerate(sentences):
        if not sentence.strip():
            continue
        if at == closing and (verdict := _verdict(sentence, look)) is not None:
            name, said_as = verdict
            wide = look.widened([said_as]) if name not in look.counts \
                and len(name) <= MAX_NAME_WORDS else look
            earlier = " , ".join(x for x, _ in sentences[:at])
            found = wide.mentions(said_as)
            # A verdict names again one of the options the reasoning weighed; a sign-off
            # in title case ("Cheers!") names nothing said before.
            if found and found[0] in wide.mentions(earlier):
                look = wide
                name = found[0]
                points = SPOKEN + LAST_WORD
                if points > best.get(name, 0):
                    best[name] = points
                    said[name] = said_as
                    last = at
                continue
        if not prose:
            marked = _marked(sentence, look)
            if marked is not None:        # "| **Pegasus** ⭐ | …", "- Zion ✅"
                best[marked] = max(SPOKEN, best.get(marked, 0))
                said.setdefault(marked, _markup_free(sentence.strip().strip("|").split("|")[0]))
                continue
        if sentence.lstrip().startswith("|"):
            announced = 0
            continue              # a table's row lays out an option, it does not choose it
        plain = sentence
        if not look.mentions(plain):
            stated = next((x for x in map(_stated, _DASH.split(plain)) if x is not None), None)
            if stated is None:
                announced = _announcing(plain)
                continue
            if _void(stated, look):
                nothing = (SPOKEN + (LAST_WORD if set(_words(plain)) & _CONCLUDING else 0), at, plain)
                continue
            look = look.widened([stated])     # "In the end, I'd land on a jellyfish"
            if not look.mentions(plain):
                continue
        alone = next(((piece, name) for piece in _DASH.split(plain) if prose and (name := _alone(
            piece, look, len(text) < LONG_REPLY or _concluding(piece)))), None)
        if alone is not None:     # a name said alone in the prose: "So — Pterodactyl."
            alone, name = alone
            points = max(announced, SPOKEN + (LAST_WORD if _concluding(alone) else 0))
            if points > best.get(name, 0):
                best[name] = points
                if points >= max(best.values()):
                    last = at
            said.setdefault(name, alone)
            announced = 0
            continue
        clauses = _clauses(plain)
        # Clauses side by side ("X is perfect for A, while Y suits B") describe options:
        # only the speaker's own commitment counts among them.
        parallel = _PARALLEL.search(plain) is not None and len(
            {n for c, aside in clauses if not aside for n in look.mentions(c)}) >= 2
        for k, (clause, aside) in enumerate(clauses):
            if k + 1 < len(clauses) and _taken_back(clauses[k + 1][0]):
                continue          # "Let's say X — actually no, Y": X is taken back
            named = look.mentions(clause)
            if len(named) > 1:    # "it'd be X: the Y of all time" — up to the description
                named = look.mentions(_described_after(clause))
            if len(named) != 1:
                continue
            if named[0] not in vocab:             # a laid-out name holding a family answer:
                inner = vocab.mentions(" ".join(named[0]))      # "The case for a ruby"
                named = inner if len(inner) == 1 else named
            # The last word is judged on the sentence up to this clause: in "I was going
            # to say X, but actually Y" the "actually" concludes Y, not X.
            upto = plain[:plain.find(clause) + len(clause)] if clause in plain else plain
            head = _up_to(clause, look)
            points = 0 if aside else max(_score(head, named[0], upto), announced,
                                         _pointed(clause[len(head):], upto))
            if parallel and points < SPOKEN:
                points = 0
            if prose and "?" not in plain and not aside:
                if _second_place(head, named[0]):
                    passed.add(named[0])
                elif vocab.counts.get(named[0], 0) >= 2:      # an answer of other replies
                    kept.setdefault(named[0], plain)
            if points > best.get(named[0], 0):
                best[named[0]] = points
                said[named[0]] = plain
                if points >= max(best.values()):
                    last = at
        announced = 0
    left = [n for n in kept if n not in passed]
    if not best and passed and len(text) < LONG_REPLY and len(left) == 1 \
            and not any(declines(x) for x, _ in sentences):
        # Every option named but one was set aside or put in second place ("**X**, never
        # gets old! Y is a fun runner-up though"): the one left is the pick.
        return left[0], kept[left[0]]
    top_points = max(best.values(), default=0)
    if nothing[0] > top_points or nothing[0] and nothing[0] == top_points and nothing[1] > last:
        return (), nothing[2]     # the last word was a placeholder or the category
    if not best:
        return None
    ranked = sorted(best.items(), key=lambda kv: -kv[1])
    top_name, top = ranked[0]
    if len(ranked) > 1 and ranked[1][1] >= top:
        return None
    return top_name, said[top_name]
