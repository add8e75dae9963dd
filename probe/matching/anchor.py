"""Answers read against the family's own vocabulary.

A family's responses share their answers: the short, clean ones (a response that is its
answer, or one a verb of choosing introduced) give the family's candidates. A response
whose own reading is unsure — a base model's run-on sentence, a reply whose sentence shape
hides the answer, a remark — is then read for the candidates it mentions:
- one candidate: that is its pick ("Ah, the classic Monarch…");
- two or more, with none singled out by a verb of choosing: a list of options, not a pick;
- none: its own reading stands.
A response that reads cleanly keeps its own answer even when it is new to the family: a
model that names something once has still named it.

The same function serves the final, order-free scores (`cluster_answers`, which builds the
vocabulary from every response first) and the live view (which grows it as samples come).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Iterable

from probe.matching import words as W
from probe.matching.extract import Reading, Segment, choose, is_list, read
from probe.matching.extract import _clean, _first_line_of, _strip
from probe.matching.longreply import (LONG_REPLY, SEVERAL_SENTENCES, _SPEAKERS as _PEOPLE,
                                      _UNDECIDED, _second_place,
                                      _described, _markup_free, _sentences, _words, committed,
                                      laid_out)
from probe.matching.nonpick import ECHO, EMPTY, REFUSAL, classify, declines, is_echo
from probe.matching.normalise import normalise

Key = tuple[str, ...]
# A candidate is a name: a few words at most.
MAX_CANDIDATE_WORDS = 6


@dataclass
class Decision:
    """What one response answers: its surface form, key, and '' for a pick or the kind of
    non-pick."""

    answer: str
    key: Key
    kind: str
    sure: bool = False          # the response is its answer, or a verb of choosing named it
    reading: Reading | None = field(default=None, repr=False)
    segment: Segment | None = field(default=None, repr=False)
    unformatted: bool = False   # `--answer-format braces` and no braces: stays a non-pick


def _core(key: Key, generic: frozenset[str]) -> Key:
    return tuple(w for w in key if w not in generic)


_LINKS = frozenset("over or and vs versus than not instead nor".split())
_PARTS = re.compile(r"[,;/]|\s(?:or|and|&)\s", re.I)


class Vocabulary:
    """The family's candidate answers, as keys without the family's generic words."""

    def __init__(self, generic: frozenset[str], prompt: str = "", norm=normalise):
        self.generic = generic
        self.norm = norm
        self.counts: Counter = Counter()
        self.replies: Counter = Counter()         # replies giving each, duplicates too
        self._by_first: dict[str, set[Key]] = defaultdict(set)
        self._prompt = _core(norm(prompt), frozenset()) if prompt else ()
        self._said: dict[str, list[Key]] = {}     # mentions by text, while the candidates stand

    def add(self, key: Key, weight: int = 1, replies: int | None = None) -> None:
        core = _core(key, self.generic)
        if not core or len(core) > MAX_CANDIDATE_WORDS or core[0] == "\x00" \
                or all(w in W.CHOICE_NOUNS or w in W.DETERMINERS or w in W.PREPOSITIONS
                       for w in core):
            return                # "recommendation", "the pick": words about choosing, no name
            # (a pronoun or a modal may be one: "It", "Us", the month of May)
        self.counts[core] += weight
        self.replies[core] += weight if replies is None else replies
        self._by_first[core[0]].add(core)
        self._said.clear()

    def discard(self, core: Key) -> int:
        """Take a candidate out; its weight (0 when it was not one)."""
        self._by_first[core[0]].discard(core)
        self._said.clear()
        self.replies.pop(core, None)
        return self.counts.pop(core, 0)

    def drop_composites(self) -> None:
        """A reading that links two of the family's answers ("Heron over Egret", "Heron or
        Egret") is not a candidate of its own; a name made of two ("Frida Kahlo" beside
        "Kahlo" and "Frida") is."""
        for core in [c for c in self.counts if len(c) >= 3 and _LINKS & set(c[1:-1])]:
            weight = self.discard(core)
            if len(self.mentions(" ".join(core))) < 2:
                self.add(core, weight)

    def __contains__(self, key: Key) -> bool:
        return _core(key, self.generic) in self.counts

    def widened(self, names: Iterable[str]) -> "Vocabulary":
        """This vocabulary with a reply's own options added, for reading that reply alone."""
        wide = Vocabulary(self.generic, norm=self.norm)
        wide._prompt = self._prompt
        wide.counts = Counter(self.counts)
        wide.replies = Counter(self.replies)
        wide._by_first = defaultdict(set, {k: set(v) for k, v in self._by_first.items()})
        for name in names:
            wide.add(self.norm(name))
        return wide

    def _in_prompt(self, core: Key) -> bool:
        n = len(core)
        p = self._prompt
        return any(p[i:i + n] == core for i in range(len(p) - n + 1))

    def mentions(self, text: str, besides: Key | None = None) -> list[Key]:
        """The distinct candidates ``text`` names, longest first where they overlap; a
        candidate the question itself names ("between 1 and 100") is not a mention.
        ``besides``: a candidate left out, as if it were none (a reply read around its own
        reading)."""
        if besides is not None and besides in self.counts:
            return self._mentions(text, besides)
        if text not in self._said:
            if len(self._said) > 4096:
                self._said.clear()
            self._said[text] = self._mentions(text)
        return list(self._said[text])

    def attested(self, text: str, besides: Key | None = None) -> list[Key]:
        """The candidates ``text`` names that two or more replies give."""
        return [c for c in self.mentions(text, besides) if self.replies.get(c, 0) >= 2]

    def _mentions(self, text: str, besides: Key | None = None) -> list[Key]:
        # Each part between commas, slashes and "or" is read alone, so a part never reads
        # as the place of the one before it ("Istanbul, Rio de Janeiro" names two cities).
        words: list[str] = []
        for part in _PARTS.split(text):
            words.extend(w for w in self.norm(part) if w not in self.generic)
            words.append("\x01")
        found: list[Key] = []
        i = 0
        while i < len(words):
            best = max((c for c in self._by_first.get(words[i], ())
                        if c != besides and tuple(words[i:i + len(c)]) == c), key=len, default=None)
            if best is None:
                i += 1
                continue
            if best not in found and not self._in_prompt(best):
                found.append(best)
            i += len(best)
        return found


# ------------------------------------------------------------------- frames

# A reply short enough to be one frame around its answer.
FRAMED_REPLY = 200


def _folded_chars(text: str) -> str:
    """``text`` with each letter in lower case, character for character (so a position in
    it is a position in ``text``)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def _one_line_reply(response: str | None) -> bool:
    """A reply short enough, and on one line, to be one frame around its answer."""
    return bool(response) and len(response) <= FRAMED_REPLY and "\n" not in response.strip()


@lru_cache(maxsize=8192)
def _one_line(response: str) -> tuple[str, str]:
    """A reply with its spaces collapsed, as written and folded."""
    written = " ".join(response.split())
    return written, _folded_chars(written)


class Frames:
    """A model's habits of phrasing within a family: the words around the answer of a reply
    that reads cleanly ("pick ___ and thank me later", "Saddle up for ___, friend.",
    "me? ___. every time."). Another reply made of the same words around something else
    ("pick back to the future and thank me later") answers that something, however its own
    sentence reads. Frames are learned only from replies whose answer two or more replies
    give, and only hold when the words around the answer include a word."""

    def __init__(self) -> None:
        # The words after the answer, by the words before it (folded).
        self._after: dict[str, set[str]] = defaultdict(set)

    def learn(self, response: str | None, d: Decision, vocab: Vocabulary) -> None:
        if not _one_line_reply(response) or d.kind or not d.key or d.reading is None \
                or d.reading.braced:
            return
        core = _core(d.key, vocab.generic)
        if vocab.replies.get(core, 0) < 2:
            return
        written, text = _one_line(response)
        answer = _folded_chars(" ".join(d.answer.split()))
        if not answer or text.count(answer) != 1:
            return
        before, _, after = text.partition(answer)
        if after in self._after.get(before, ()):
            return
        context = re.findall(r"[^\W_]+", before + " " + after)
        if (len(context) >= 2 or any(w not in W.FUNCTION for w in context)) \
                and _bounded(before, after) \
                and not _name_goes_on(written[len(before) + len(answer):]) \
                and not vocab.mentions(before + " , " + after):
            # Words around it that name another answer are a choice, not a habit
            # ("X is the best, Y is mid").
            self._after[before].add(after)

    def slot(self, response: str | None) -> str | None:
        """What fills the most specific frame ``response`` is made of, as it wrote it."""
        if not self._after or not _one_line_reply(response):
            return None
        written, text = _one_line(response)
        best = None
        for n in {len(b) for b in self._after}:
            before = text[:n]
            for after in self._after.get(before, ()):
                if len(text) > n + len(after) and text.endswith(after) \
                        and (best is None or n + len(after) > best[0]
                             or n + len(after) == best[0] and (before, after) < best[1]):
                    best = (n + len(after), (before, after))
        if best is None:
            return None
        before, after = best[1]
        inside = written[len(before):len(written) - len(after)].strip()
        return inside if 0 < len(inside.split()) <= MAX_CANDIDATE_WORDS else None


def _bounded(before: str, after: str) -> bool:
    """The answer stood as words of its own: a space, a quote or a bracket before it, and a
    space or a mark after it ("#FFD700" is one name, not "#" before "FFD700")."""
    return (not before or before[-1] in " \"'“‘*_([") and (not after or after[0] in " .,!?;:\"'”’*_)]…")


def _name_goes_on(after: str) -> bool:
    """The word after a reading is capitalised: the name may go on ("Elizabeth I")."""
    word = after.lstrip(" ").split(" ", 1)[0]
    return after[:1] == " " and word[:1].isupper()


def _as_written(response: str | None, reading: Reading, norm, unformatted: bool = False
                ) -> Decision:
    """A non-pick kept as the response wrote it."""
    text = " ".join((response or "").split())[:80]
    return Decision(text, norm(text) or ("braces",), REFUSAL, False, reading,
                    Segment("", text=text, remark=True), unformatted=unformatted)


def first_reading(response: str | None, generic: frozenset[str],
                  options: frozenset[str], question: frozenset[str] = frozenset(),
                  norm=normalise, braces: bool = False) -> Decision:
    """A response's answer from its own sentences alone. ``question`` holds the words of
    the direct prompt: a segment made of them repeats the question ("Pick a number between
    1 and 10? 3.")."""
    reading = read(response)
    if not braces and reading.braced and reading.first.answer.islower() \
            and len(reading.first.answer.split()) <= 3 and (response or "").strip()[:1] == "{":
        # "{author}": a template's slot left unfilled, where no braces were asked for.
        return _as_written(response, reading, norm)
    if braces and response and not reading.braced:
        # `--answer-format braces`: an answer outside braces was not given in the format.
        return _as_written(response, reading, norm, unformatted=True)

    def echo(seg: Segment) -> bool:
        key = norm(seg.answer)
        if _folded_option(seg.answer, options) is not None:
            return False
        return (is_echo(key, generic) or is_echo(normalise(seg.answer), generic)
                or (len(key) >= 2 and all(w in question or w in generic or w in W.FILLER
                                          for w in key)))

    seg = choose(reading.segments, echo)
    if seg.cue and ", " in seg.answer and not (seg.listed and (
            seg.answer.count(",") > 1 or re.search(r"\s(?:or|and|&)\s", seg.answer))):
        # "Go with rigatoni, wide ridged tubes made for ragù": the name, not its description.
        head = _described(seg.answer)
        # A short tail may be part of the name ("Ada, Countess of Lovelace").
        if head != seg.answer and len(head.split()) <= 4 \
                and len(seg.answer[len(head):].strip(" ,").split()) >= 4:
            seg = replace(seg, answer=head, listed=False)
    answer = seg.answer or seg.text
    key = norm(seg.answer) if seg.answer else ()
    kind = classify(response, answer, key, generic, options, segment=seg)
    if kind == REFUSAL and seg.answer and not (seg.listed or seg.remark) \
            and getattr(norm, "named", lambda a: None)(seg.answer):
        kind = ""                 # a symbol the question's table knows ("Na" for an element)
    if kind == "" and key and is_echo(normalise(seg.answer), generic) \
            and _folded_option(seg.answer, options) is None:
        kind = ECHO                   # "movies" for a movie question, whatever the key keeps
    if kind == "" and key and seg.indefinite and _vague(normalise(seg.answer), generic) \
            and _folded_option(seg.answer, options) is None:
        kind = ECHO                   # "a German brand", "some winter holiday": the category
    if not key and answer and (kind or _folded_option(answer, options) is not None):
        key = norm(answer)        # a non-pick as written, or an option the prompt offers
    sure = bool(seg.answer) and (seg.whole or seg.cue) and not seg.listed
    return Decision(answer if (seg.answer or kind or key) else "", key, kind, sure, reading, seg)


_SEASONS = frozenset("spring summer autumn fall winter".split())


def _vague(key: Key, generic: frozenset[str]) -> bool:
    """A description of the category rather than a member of it: its head is the category
    and every other word only describes ("a German brand", "a winter holiday", "a big
    club"), where "a monarch butterfly" names one."""
    from probe.matching import lexicon

    head = _head(key)
    if head not in generic:
        return False
    others = [w for w in key[:key.index(head)] if w not in generic and w not in W.FUNCTION]
    return all("ADJ" in lexicon.parts_of_speech(w) or w in _SEASONS or w in W.PRAISE
               for w in others)


def _head(key: Key) -> str:
    """The head noun of a description: its last word before a preposition ("team from LA")."""
    for i, w in enumerate(key):
        if i and w in W.PREPOSITIONS:
            return key[i - 1]
    return key[-1] if key else ""


def question_words(prompt: str) -> frozenset[str]:
    return frozenset(normalise(prompt or "")) if prompt else frozenset()


def _folded_option(answer: str, options: frozenset[str]) -> str | None:
    from probe.matching.nonpick import _folded

    folded = _folded(answer)
    return folded if folded in options else None


def _surface(text: str, core: Key, generic: frozenset[str], norm=normalise) -> str:
    """The words of ``text`` that spell ``core`` (for showing the answer as written)."""
    tokens = text.replace(",", " ").split()
    for i in range(len(tokens)):
        for j in range(i + 1, min(len(tokens), i + 3 * len(core) + 2) + 1):
            piece = " ".join(tokens[i:j]).strip(".!?;:\"'“”‘’()*")
            if _core(norm(piece), generic) == core:
                return piece
    return " ".join(core)


def revise(d: Decision, vocab: Vocabulary, generic: frozenset[str],
           response: str | None = None) -> Decision:
    """A first reading checked against the family's candidates."""
    if d.reading is None or d.kind == EMPTY or d.reading.braced or d.unformatted:
        return d
    if response and len(response) >= LONG_REPLY:
        return _long(d, response, vocab, generic)
    if response and len(response) >= SEVERAL_SENTENCES and (
            d.kind == "" or d.segment is not None and d.segment.listed):
        # A reply of a few sentences is read for the one it commits to as well ("Tough
        # call. X crossed my mind, and so did Y. In the end I'd pick Z").
        text = _clean(response)
        found = committed(text, vocab)
        if found is not None:
            return _committed_to(d, found, vocab, generic)
        if _uncommitted(d, text, response, vocab):
            return _refused(d)
    elif _prose_reading(d, response, vocab):
        return _refused(d)
    return _revise(d, vocab, generic)


def _uncommitted(d: Decision, text: str, response: str, vocab: Vocabulary) -> bool:
    """A reply that commits to nothing is no pick when it declines in a sentence of its own
    that names no candidate, or two or more ("Tough one. X and Y both have strong cases. It
    depends on the vibe you want."; "I'd narrow it down to X or Y, and I'd be happy with
    either"), or when its reading is a phrase of its prose ("Go with your gut!")."""
    return any(prose and declines(_CONCEDED.split(sentence)[-1])
               and len(vocab.mentions(sentence)) != 1
               for sentence, prose in _sentences(text)) or _prose_reading(d, response, vocab)


def _prose_reading(d: Decision, response: str, vocab: Vocabulary) -> bool:
    """The reading is no family candidate and only a phrase of its reply's prose."""
    return d.kind == "" and d.key not in vocab and _prose(response, d)


def _refused(d: Decision) -> Decision:
    """The same reading, as a non-pick."""
    return Decision(d.answer, d.key, REFUSAL, False, d.reading, d.segment)


# A hedge conceded in the same sentence declines nothing ("There isn't a wrong answer, but
# you asked for one, so here it is"); one after the turn does ("Good question, but I can't
# pick for you").
_CONCEDED = re.compile(r"\b(?:but|though|however|still|yet)\b", re.I)


def _long(d: Decision, response: str, vocab: Vocabulary, generic: frozenset[str]) -> Decision:
    """A long reply: the candidate it commits to; else its own reading, when that reading is
    one of the candidates or a choice it states; else a list when it offers two or more,
    and no pick when its reading is only a phrase of its prose."""
    text = _clean(response)
    offered = laid_out(text)
    found = committed(text, vocab, offered)
    if found is not None:
        return _committed_to(d, found, vocab, generic)
    if _uncommitted(d, text, response, vocab):
        return _refused(d)
    d = _revise(d, vocab, generic, attest=False)
    if d.kind or not d.key:
        return d
    wide = vocab.widened(offered) if offered else vocab
    if d.key in wide or d.sure and len(d.reading.scan.split()) <= 6:
        return d
    if len(wide.mentions(text)) >= 2 or not d.sure:
        return _refused(d)
    return d


def _committed_to(d: Decision, found: tuple[Key, str], vocab: Vocabulary,
                  generic: frozenset[str]) -> Decision:
    core, sentence = found
    if not core:                  # committed to a placeholder or to the category itself
        return Decision(sentence[:80], vocab.norm(sentence[:80]) or ("void",), ECHO, False,
                        d.reading, Segment("", text=sentence[:80], remark=True))
    return _picked(d, core, sentence, generic, vocab.norm)


def _revise(d: Decision, vocab: Vocabulary, generic: frozenset[str],
            attest: bool = True) -> Decision:
    """``attest``: the reading covers the reply (not a long reply's answer line alone), so
    its other clauses can be read for the answer other replies give."""
    seg = d.segment
    if d.kind == REFUSAL and seg is not None and not (seg.listed or seg.remark or not seg.answer):
        return d                  # refused in so many words, or a hedge word: stays
    if d.kind == REFUSAL and any(s.remark and s.text and _hard(s.text) for s in d.reading.segments) \
            and not any(s.cue and s.answer for s in d.reading.segments):
        return d
    if d.kind == "" and re.search(r"\s(?:&|and)\s", d.answer) and len(vocab.mentions(d.answer)) >= 2 \
            and d.key not in vocab:
        # "Blue & purple", "Sudan and Nigeria": two of the family's answers side by side.
        return _refused(d)
    alone = vocab.counts.get(_core(d.key, generic), 0) <= 1     # no other reply gives it
    if d.kind == "" and alone and seg is not None \
            and not seg.cue and not (seg.whole and seg.answer[:1].isupper()):
        # A reading no other reply gives, after a remark that names a candidate.
        before = _voiced(d, vocab, seg)
        if len(before) == 1:      # "I keep coming back to X here. Have a great trip!"
            return _picked(d, before[0], d.reading.scan, generic, vocab.norm)
    if attest and d.kind == "" and alone \
            and seg is not None and not (seg.listed or seg.whole or seg.corrected or seg.after_but):
        # A reading no other reply gives, whose words beside a name are all prose ("I'm a
        # sucker for X" read as "sucker", "X all the way", "Sooo X"), in a reply that names
        # exactly one answer other replies give: that answer.
        attested = None if _chosen_by_verb(seg) or re.search(r"\d", d.answer) \
            else _attested(d, vocab, generic)
        if attested is not None:
            return _picked(d, attested, d.reading.scan, generic, vocab.norm)
    if d.kind == "" and d.key in vocab and not (seg is not None and seg.listed):
        # The response names a family answer: that is its pick, unless it names others
        # beside it without choosing between them.
        return _among(d, vocab, generic)
    if d.kind == "" and d.sure and d.key not in vocab:
        inner = vocab.mentions(d.answer)
        if len(inner) == 1 and _only_praise_around(d.key, inner[0], generic):
            return _picked(d, inner[0], d.answer, generic, vocab.norm)
        if len(inner) < 2:
            return d
    # Unsure, a remark, an echo or several options: what does the response mention?
    texts = [_said(s) for s in d.reading.segments if not s.remark]
    if not texts and d.kind == REFUSAL and any(_UNDECIDED.search(s.text or "")
                                               for s in d.reading.segments):
        return d                  # "I'm torn between X and Y, tbh. Both would be great."
    texts = texts or [d.reading.scan]
    named = vocab.mentions(" , ".join(texts))
    if not named:
        named = _voiced(d, vocab)
        texts = [d.reading.scan]
    listed = seg is not None and seg.listed
    if len(named) == 1 and not listed:    # a list stays a list unless one option is chosen
        return _picked(d, named[0], " , ".join(texts), generic, vocab.norm)
    if len(named) >= 2 or listed:
        return _among(d, vocab, generic, offered=True)
    return d


# Words that open a clause granting something else: a name there is not the pick.
_GRANTING = re.compile(r"\b(?:though|although|even|unless|except|if|while|whereas)\b", re.I)
# A word drawn out for effect ("Sooo", "okayyy", "Yesss"): a voice, never part of a name.
_DRAWN_OUT = re.compile(r"([^\W\d_])\1\1", re.I)


def _attested(d: Decision, vocab: Vocabulary, generic: frozenset[str]) -> Key | None:
    """The one answer other replies give that this reply names, when its own reading is
    only prose around it: every word of the reading outside that answer is in lower case
    or drawn out ("weirdly underrated", "sucker", "X every single time", "Sooo X"). None
    when the reply declines or asks back, or names two such answers; names in a clause
    that turns them down, supposes or grants ("not X", "if you like X", "though X…") do
    not count."""
    if any(s.text and (declines(s.text) or _asked(s, d.reading) or _UNDECIDED.search(s.text))
           for s in d.reading.segments):
        return None
    own = _core(d.key, generic)
    named = []
    for s in d.reading.segments:
        text = _GRANTING.split(_named(s), 1)[0]
        if s.negated or s.conditional or not text.strip():
            continue
        named += [c for c in vocab.attested(text, own)
                  if c not in named and not _second_place(s.text or s.answer, c)]
    if len(named) != 1:
        return None
    return named[0] if _prose_beside(d.answer, named[0], vocab.norm, generic) else None


def _chosen_by_verb(seg: Segment) -> bool:
    """A verb of choosing put the segment's answer ("I'd choose 64 for the lock")."""
    before = (seg.text or "").split(seg.answer, 1)[0] if seg.answer else ""
    return seg.cue and bool(set(_words(before)) & W.CHOICE_VERBS)


def _prose_beside(answer: str, core: Key, norm, generic: frozenset[str],
                  contrast: bool = False) -> bool:
    """Every word of ``answer`` outside the candidate ``core`` is prose: in lower case, a
    number, or drawn out ("X all the way", "X every single time", "X 100%", "Sooo X") —
    no capitalised word of a name of its own. ``contrast``: lower-case words beside it are
    prose only when the candidate's own words are written as a name (capitalised or
    numbers); "chocolate chip cookie dough" is one name, not "chocolate chip" padded."""
    inside = set(core) | generic
    tokens = re.findall(r"[^\W_]+(?:['’][^\W_]+)*", re.sub(r"\d+\s*%", " ", answer))
    own = [t for t in tokens if norm(t) and set(norm(t)) <= inside]
    rest = [t for t in tokens if t not in own]
    if any(t[:1].isupper() and not _DRAWN_OUT.search(t) for t in rest):
        return False              # a capitalised word of its own: a name, not prose
    if contrast and any(t[:1].isdigit() for t in rest):
        return False              # "Super Mario Bros 3": a sequel's number is its name
    return not contrast or all(_DRAWN_OUT.search(t) for t in rest) \
        or all(t[:1].isupper() or t[:1].isdigit() for t in own)


def _voiced(d: Decision, vocab: Vocabulary, upto: Segment | None = None) -> list[Key]:
    """The candidates named by the reply's remarks in the speaker's voice ("If it were me,
    I'd grab X", "I keep picturing X for this"), before ``upto`` when given — none when
    the reply declines anywhere or asks back about named options, and none from a remark
    that only supposes."""
    segments = d.reading.segments
    if upto is not None:
        segments = segments[:next((i for i, s in enumerate(segments) if s is upto), len(segments))]
    if any(s.text and (declines(s.text) or _asked(s, d.reading) and vocab.mentions(s.text))
           for s in d.reading.segments):
        return []                 # "…are you after X, or more like Y?"
    return vocab.mentions(" , ".join(s.text for s in segments if s.remark and s.text and not (
        s.negated or s.conditional or _UNDECIDED.search(s.text))))


def _among(d: Decision, vocab: Vocabulary, generic: frozenset[str],
           offered: bool = False) -> Decision:
    """A response naming two or more of the family's answers picks one only when it commits
    to it: a correction ("X… actually, Y"), a turn ("…, but really it's Y"), or a verb or
    label of choosing before it ("I'd go with Y", "Final choice: Y") — and then the one it
    committed to. Two commitments to different answers ("If you want famous, X; if you
    want unusual, Y") offer both. Without one, a reply that opens with its answer alone
    ("Monarch! The Morpho is lovely too") keeps it; anything else offers options.
    ``offered``: the response is already known to offer options (a list)."""
    segments = d.reading.segments
    named = vocab.mentions(" , ".join(_named(s) for s in segments if not s.remark))
    if len(named) < 2 and not offered:
        return d
    firm: list[tuple[Segment, Key]] = []
    for s in segments:
        if not s.answer or s.remark or s.negated or s.conditional or s.listed \
                or not (s.cue or s.corrected or s.after_but):
            continue
        inner = vocab.mentions(s.answer)
        if inner and s.after_but and _RUNNER_UP.search(s.text or ""):
            continue                       # "…, but Puma is a close second"
        if len(inner) == 1 or (len(inner) > 1 and not is_list(s.answer)
                               and not _PARTS.search(s.answer)):
            firm.append((s, inner[0]))     # "Monarch over the Morpho": the first one
    final = [f for f in firm if f[0].corrected or f[0].after_but]
    if final:
        s, core = final[-1]
        return _picked(d, core, s.answer, generic, vocab.norm)
    if firm and len({core for _, core in firm}) == 1:
        s, core = firm[0]
        return _picked(d, core, s.answer, generic, vocab.norm)
    if firm:
        return _refused(d)
    first = next((s for s in segments if s.answer and not s.remark), None)
    if not offered and first is not None and first is d.segment and first.whole \
            and not first.conditional and not first.listed \
            and len(vocab.mentions(first.answer)) == 1 and not _asked(first, d.reading):
        return d
    return _refused(d)


# A name put in second place after "but": "…, but Puma is a close second".
_RUNNER_UP = re.compile(r"\b(?:(?:close|strong|near) )?(?:second|runner[- ]up|backup|fallback)\b",
                        re.I)
_SET_ASIDE = re.compile(r"\b(?:not|never|rather than|instead of|over|unlike)\b", re.I)


def _named(seg: Segment) -> str:
    """What a segment offers: its text up to a name it sets aside ("Lakers, not to be
    confused with the Clippers"; "Venice over Kyoto")."""
    from probe.matching.extract import _drop_brackets

    text = _drop_brackets(seg.text or seg.answer)      # "Carbon (though Iridium is close)"
    return _SET_ASIDE.split(text, 1)[0]


def _asked(seg: Segment, reading: Reading) -> bool:
    """The segment's answer was put as a question ("Viola? Violin? Both work")."""
    text = seg.text or seg.answer
    at = reading.scan.find(text)
    return at >= 0 and reading.scan[at + len(text):].lstrip()[:1] == "?"


def _said(seg: Segment) -> str:
    """What a segment names: its text up to the end of its answer ("L.A. Lakers, not to be
    confused with the Clippers" names the Lakers), or all of it when it has none."""
    if seg.answer and seg.text and seg.answer in seg.text:
        return seg.text[:seg.text.index(seg.answer) + len(seg.answer)]
    return seg.text or seg.answer


def _hard(text: str) -> bool:
    from probe.matching.extract import HARD_REFUSAL

    return bool(HARD_REFUSAL.search(text))


def _many(d: Decision, vocab: Vocabulary) -> bool:
    return len(vocab.mentions(d.reading.scan)) >= 2 if d.reading else False


def _only_praise_around(key: Key, core: Key, generic: frozenset[str]) -> bool:
    extra = list(_core(key, generic))
    for w in core:
        if w in extra:
            extra.remove(w)
    return all(w in W.PRAISE or w in W.FUNCTION for w in extra)


def _picked(d: Decision, core: Key, text: str, generic: frozenset[str],
            norm=normalise) -> Decision:
    surface = _surface(text, core, generic, norm)
    key = norm(surface)
    if _core(key, generic) != core:
        key = core
    return Decision(surface, key, "", True, d.reading, d.segment)


def decide_all(responses: Iterable[str | None], generic: frozenset[str],
               options: frozenset[str], prompt: str = "",
               declared: Iterable[Key] = (), norm=normalise,
               braces: bool = False,
               weights: dict | None = None) -> dict[str | None, Decision]:
    """Every distinct response's decision, reading each against the whole family: the
    result does not depend on the order the responses come in."""
    first: dict[str | None, Decision] = {}
    question = question_words(prompt)
    for r in responses:
        if r not in first:
            first[r] = first_reading(r, generic, options, question, norm, braces)
    vocab = Vocabulary(generic, prompt, norm)
    for key in declared:
        vocab.add(key, 2)
    # How often each key was given (a responses file passes each distinct response's count).
    seen: Counter = Counter()
    for r, d in first.items():
        if d.kind == "" and d.key:
            seen[d.key] += (weights or {}).get(r, 1)
    for r, d in first.items():
        # A long reply's unsure reading is often a phrase of its prose, repeated by a
        # model's habits across the family ("…hold up better than others once…"): only
        # a reading it states as its answer is a candidate.
        if d.kind == "" and d.key and (d.sure and _as_stated(r, d) or seen[d.key] >= 2
                                       and len(r or "") < LONG_REPLY) and not _prose(r, d):
            vocab.add(d.key, replies=(weights or {}).get(r, 1))
    vocab.drop_composites()
    _drop_padded(first, vocab)
    for r, d in _set_phrases(first, vocab, weights).items():
        first[r] = d
    out = {r: revise(d, vocab, generic, r) for r, d in first.items()}
    out.update(_framed(out, vocab, generic, options, question, norm, braces))
    return out


def _framed(decided: dict, vocab: Vocabulary, generic: frozenset[str], options: frozenset[str],
            question: frozenset[str], norm, braces: bool) -> dict:
    """Replies made of another reply's frame around something else, read for what fills it.
    Frames come from the replies' final readings, so a frame that every reply wraps in an
    idiom is learned from a reply whose answer the family attests ("crown X and thank me
    later" read as X)."""
    frames = Frames()
    for r, d in decided.items():
        frames.learn(r, d, vocab)
    out = {}
    for r, d in decided.items():
        own = reframed(r, d, frames, vocab, generic, options, question, norm, braces)
        if own is not None:
            out[r] = own
    return out


def reframed(response: str | None, d: Decision, frames: Frames, vocab: Vocabulary,
             generic: frozenset[str], options: frozenset[str], question: frozenset[str],
             norm=normalise, braces: bool = False) -> Decision | None:
    """The reading of what fills a frame ``response`` is made of, when that is a pick other
    than ``d``'s; else None."""
    inside = frames.slot(response)
    if inside is None or d.kind == "" and vocab.replies.get(_core(d.key, generic), 0) >= 2:
        return None               # no frame, or a reading the family already attests
    own = first_reading(inside, generic, options, question, norm, braces)
    if own.kind or not own.key or own.key == d.key:
        return None
    own = revise(replace(own, sure=True), vocab, generic, inside)
    return own if own.kind == "" and own.key and own.key != d.key else None


# Words that make a reading a phrase of a reply's prose, not a name: the speaker and the
# listener ("Trust your instincts", "Once I"), and question words ("Which is why…").
_SPEAKERS = _PEOPLE | {"which"}


def _prose(response: str | None, d: Decision) -> bool:
    """A reading of a reply of a few sentences that is a phrase of its prose rather than
    a name: it speaks to or of the speaker, or is made only of small words."""
    if not response or d.reading is None:
        return False
    said = _words(d.answer)
    if len(response) < SEVERAL_SENTENCES:
        # A short reply's name may hold them ("Your Name", "My Girl"); in lower case,
        # it is its prose ("go with your gut").
        return d.answer.islower() and len(said) >= 2 and bool(set(said) & _SPEAKERS)
    return bool(set(said) & _SPEAKERS) or all(W.is_filler(w) for w in said)


def _drop_padded(first: dict, vocab: Vocabulary) -> None:
    """A reading only one reply gives that is another reply's answer padded with prose
    ("Spirited Away all the way", "Toy Story 3 every single time", "Sooo Up") is no
    candidate of its own: the reply's reading is that answer."""
    for r, d in list(first.items()):
        if d.kind or not d.key or d.segment is None:
            continue
        core = _core(d.key, vocab.generic)
        if vocab.counts.get(core, 0) != 1:
            continue
        inner = vocab.attested(d.answer, core)
        if len(inner) != 1 or not _prose_beside(d.answer, inner[0], vocab.norm, vocab.generic,
                                                contrast=True):
            continue
        surface = _surface(d.answer, inner[0], vocab.generic, vocab.norm)
        key = vocab.norm(surface)
        if _core(key, vocab.generic) == inner[0]:
            vocab.discard(core)
            seg = replace(d.segment, answer=surface)
            reading = replace(d.reading, segments=tuple(
                seg if s is d.segment else s for s in d.reading.segments))
            first[r] = replace(d, answer=surface, reading=reading, segment=seg, key=key)


def _as_stated(response: str | None, d: Decision) -> bool:
    """A sure reading is a candidate; a long reply's only when it is one of the options the
    reply lays out, or a short line of its own ("Tiger — and here's why.")."""
    if not response or len(response) < LONG_REPLY:
        return True
    if len(d.reading.scan.split()) <= 6 and d.segment is not None and d.segment.whole:
        return True
    if d.segment is not None and d.segment.whole and normalise(d.answer) == normalise(
            _strip(_markup_free(_first_line_of(_clean(response))))):
        return True               # "Teal." on the reply's first line, the reasons below
    return normalise(d.answer) in {normalise(name) for name in laid_out(_clean(response))}


def _set_phrases(first: dict, vocab: Vocabulary, weights: dict | None) -> dict:
    """Readings that are a reply's set phrase, not its answer: a word read as the answer
    of two or more replies that, every time, also name another of the family's answers
    ("Drumroll, please… the trumpet!", "Drumroll… Tuba!"). The phrase leaves the
    vocabulary and those replies are read for what they name."""
    by_core: dict[Key, list] = defaultdict(list)
    for r, d in first.items():
        if d.kind == "" and d.key and d.key in vocab and r and d.segment is not None \
                and not (d.segment.cue or d.segment.corrected or d.segment.after_but):
            by_core[_core(d.key, vocab.generic)].append(r)
    phrases = set()
    for core, rs in by_core.items():
        if sum((weights or {}).get(r, 1) for r in rs) < 2 \
                or len(core) > MAX_CANDIDATE_WORDS:
            continue
        if all(any(m != core and not set(m) & set(core) for m in vocab.mentions(r)) for r in rs) \
                and not any(r.casefold().count(first[r].answer.casefold()) >= 2 for r in rs) \
                and not any(core in vocab.mentions(r) for r, d in first.items()
                            if r and d.kind == "" and r not in rs):
            # A set phrase is said once, and only to open replies; a name said again is
            # the answer ("Mekong." atop an essay that ends "…but the Mekong suits this
            # best"), and so is one another reply mentions ("I also weighed the Mekong").
            phrases.add(core)
    out = {}
    for core in phrases:
        vocab.discard(core)
        for r in by_core[core]:
            out[r] = Decision(first[r].answer, first[r].key, first[r].kind, False,
                              first[r].reading, first[r].segment)
    return out
