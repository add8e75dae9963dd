"""Step 1: the answer inside a response, read from the shape of its sentences.

A response is cleaned (terminal escapes, a model's special tokens, markup), its first line
with content is cut into segments at sentence ends, dashes, colons, semicolons, ellipses and
"but", and each segment is read with word classes (`words.py`): a lead-in made only of
function words, praise and verbs of choosing is dropped ("I'd go with", "Random pick:",
"Easy —"), so is a trailer ("…, of course", "… it is!", "… would be perfect"), and a
segment with no word outside those classes carries no answer. A segment whose subject is a
pronoun or quantifier followed by a verb is a remark about the choice ("It depends on the
occasion", "Any of them would work"): a hedge. Several options side by side are a list.
`read` returns every segment so the family-aware steps (`anchor.py`) can choose among
them; `extract` is the first answer a response commits to.

Every step is linear in the text: the response is cut to MAX_RESPONSE_CHARS and a line to
MAX_LINE first, and no pattern can backtrack over a long run.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Iterator

from probe.limits import MAX_RESPONSE_CHARS
from probe.matching import words as W

# An answer is a few words; nothing past this in its line can change it.
MAX_LINE = 300

_ANSI = re.compile(r"\x1b\[[0-9;?]{0,32}[A-Za-z]|\x1b\][^\x07\x1b]{0,256}(?:\x07|\x1b\\)?")
# A model's own control tokens ("<start_of_image>", "<|im_end|>", "</s>"): nothing after one
# belongs to the answer's line.
_SPECIAL = re.compile(r"<\|[^|<>\s]{1,40}\|>|</?(?:s|eos|bos|pad|unk|mask|sep|cls)>"
                      r"|</?[a-z]+(?:_[a-z]+)+>")
# A placeholder left for the answer: "[name]", "<answer>", "{favorite_planet}",
# "[Insert holiday here]", "<soft drink>" (square and angle brackets never hold a real
# answer; braces do, unless what they hold is a slot's name).
_PLACEHOLDER = re.compile(r"_{3,}|\[[^\[\]]{1,60}\]|<[^<>]{1,60}>|\((?:write|insert|type|enter|your)\b[^()]{0,40}\)|\{[^{}]*(?:_|\b(?:your|insert|here|"
                          r"answer|choice|option|placeholder|blank|favou?rite)\b)[^{}]*\}", re.I)
_BRACE = re.compile(r"\{([^{}]*)\}")
_BOLD_END = re.compile(r"(?<=[^\s*_.!?:;,])(\*\*|__)[ \t]+(?=[A-Z][a-z']*\s+[a-z])")
# A list item marked as the one chosen: "Zion ← my pick!", "Willow (my choice)", "Kiwi ✅".
_MARKED = re.compile(r"^(?P<name>.*?\S)\s*(?:(?:←|<-+|⟵|⬅️?|👈|[-–—:]+|\(|\[)\s*(?:this\s+is\s+|that's\s+)?"
                     r"(?:my|our|the)\s+(?:final\s+|top\s+|own\s+)?(?:pick|choice|vote|winner|answer|"
                     r"recommendation)\b.*|\s*(?:✓|✔️?|✅|☑️?)\W*)$", re.I)
# Emoji after words on a line ("Nashville, TN 👍", "Spirited Away 😁 The nostalgia is
# real"): a voice's punctuation, never part of the answer. A run before a capital ends the
# sentence; at a line's end it goes; elsewhere it is a space. One that opens a line stays
# ("✅ My choice: X").
# Marks that choose ("Douro ✅", "Pegasus ⭐", "Zion 👈", "Gold 🏆") are kept for the list
# readers.
_EMOJI = (r"[\U0001F000-\U0001F3C5\U0001F3C7-\U0001F447\U0001F449-\U0001F450"
          r"\U0001F452-\U0001F946\U0001F948-\U0001FAFF\u2600-\u2604\u2606-\u2610"
          r"\u2612-\u2704\u2706-\u2712\u2715-\u27BF\u2B00-\u2B4F\u2B51-\u2BFF\uFE0F"
          r"\u200D\u20E3\U000E0020-\U000E007F]")
_EMOJI_RUN = re.compile(rf"(?<=[^\s{_EMOJI[1:-1]}])([ \t]*(?:{_EMOJI}[ \t]*)+)"
                        rf"(?:(?=[A-Z])|(?=\n|$))", re.M)
_EMOJI_MID = re.compile(rf"(?<=\S)[ \t]*(?:{_EMOJI})+[ \t]*(?=[^\s])")
_TURN = re.compile(r"(?<=[^\s.!?:])\s+([QA]):(?=\s)")
_MARKUP = re.compile(r"[*_`~]+|^\s*#+\s*")
# A list item's mark: "- ", "• ", "1. ", "2) ", "a. ", "(B) ".
_ITEM = re.compile(r"^\s*(?:[-•*>]|\d{1,2}[.)]|\(?[a-eA-E]\)|[a-e]\.)\s+(?=\S)")
# One line on its own loses only a bullet or a first item's mark: "7. It is lovely." is 7.
_LONE_ITEM = re.compile(r"^\s*(?:[-•*>]|1[.)]|\(?[a-eA-E]\)|[a-e]\.)\s+(?=\S)|^\s*[✅✔☑⭐👉]\s*(?=\S)")
QUOTES = "\"'“”‘’«»„`"
_TOKEN = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*|[#+]+", re.UNICODE)
# Where a line divides: a sentence end, a dash between spaces, a colon, a semicolon, an
# ellipsis, and "but" (what follows "but" is usually the choice).
_DIVIDE = re.compile(r"(?P<end>[.!?](?=\s|$)|…|\.{2,})|(?P<dash>\s[-–—]+\s|—|–)|(?P<colon>:(?=\s|$))"
                     r"|(?P<semi>;)|(?P<but>,?\s+but\s+|,?\s+and\s+(?=(?:finally|then|ultimately|so|"
                     r"i'll|i’ll|i'd|i’d|i|we|choose|chose|pick|picked|went|take|took)\b)"
                     r"|,\s+and\s+(?=\S+(?:\s+\S+){0,3}\s+wins\b))", re.I)
# A period that does not end a sentence: after an initial ("J. S. Bach", "A. Lincoln"), an
# abbreviation ("St. Louis"), or between initials ("J.S.").
_ABBREVIATIONS = {"st", "mt", "dr", "mr", "mrs", "ms", "no", "vs", "jr", "sr", "ft", "u.s", "d.c",
                  "e.g", "i.e", "etc", "vol", "pt", "ch", "op", "gen", "sgt", "capt", "lt", "col",
                  "prof", "rev", "hon", "fr", "sen", "gov", "pres"}


@dataclass(frozen=True)
class Segment:
    """One reading of part of a response."""

    answer: str             # the words left as the answer ('' when none)
    text: str = ""          # the segment as written, for showing a non-answer
    cue: bool = False       # a verb or noun of choosing, or a colon, introduced it
    whole: bool = False     # nothing but filler was cut from its segment
    listed: bool = False    # several options side by side
    remark: bool = False    # a sentence about the choice ("it depends"), no answer in it
    complement: str = ""    # what follows "is" after the answer ("My favourite number is 7")
    negated: bool = False   # an option turned down ("Not Ping-Pong, not Baseball: tennis")
    after_but: bool = False  # it follows "but": usually the choice after a concession
    indefinite: bool = False  # "a …", "some …": a description, when its head is the category
    titled: bool = False    # the whole response is a name in Title Case ("Anything Goes")
    corrected: bool = False  # it takes back an earlier answer ("Kale? No, wait. Broccoli.")
    exclaim: bool = False   # praise of the question, not an answer ("Great project!")
    conditional: bool = False   # offered to one kind of user ("If you like tall ones, X")


@dataclass(frozen=True)
class Reading:
    segments: tuple[Segment, ...]
    scan: str               # the text an answer may be mentioned in (the answer line)
    braced: bool = False    # the answer stood in {braces}

    @property
    def first(self) -> Segment:
        """The segment a response commits to, before anything is known of its family."""
        return choose(self.segments, lambda s: False)


# A reasoning model's thinking before its answer: "<think>…</think>\n\nTable Mountain".
_THOUGHT = re.compile(r"<(think|thinking|thought|reasoning)>(.*?)(?:</\1>|$)", re.S | re.I)


def _after_thinking(text: str) -> str:
    """What a reply says after its thinking; the thinking itself when nothing follows
    (the answer may close it)."""
    last = None
    for last in _THOUGHT.finditer(text):
        pass
    if last is None:
        return text
    after = text[last.end():]
    return after if after.strip() else last.group(2)


@lru_cache(maxsize=4096)
def _clean(response: str) -> str:
    text = _ANSI.sub("", _after_thinking(response[:MAX_RESPONSE_CHARS]))
    special = _SPECIAL.search(text)
    if special and text[:special.start()].strip():
        text = text[:special.start()]     # "Monarch<end_of_turn>…": the rest is not the answer
    text = _SPECIAL.sub("\n", text.replace("\r", "\n"))
    if "*" in text or "(" in text:
        text = _STAGE.sub(_stage_cut, text)
    text = _EMOJI_RUN.sub(_emoji_stop, text)
    text = _EMOJI_MID.sub(" ", text)
    text = re.sub(r"\bTL\s*;\s*DR\b", "TLDR", text, flags=re.I)
    # A closing "**" before a new sentence ends one ("**My choice: Iron** It's a classic").
    text = _BOLD_END.sub(r"\1. ", text)
    # A base model's "A: X Q: … A: X" loop: each "Q:" or "A:" starts a sentence of its own.
    text = _TURN.sub(r". \1:", text)
    if not text.replace("\n", "").isprintable():      # line breaks stay; nothing else to do
        text = "".join(ch if ch == "\n" or unicodedata.category(ch)[0] != "C" else " "
                       for ch in text)
    return text


# A stage direction of role-play: an action between single asterisks or in brackets, in
# lower case, a few words with a verb ("*pats your hand*", "*a soft chime sounds*",
# "(strokes beard)"). "*Minecraft*" and "**Heron**" are an answer set in italics or bold.
_STAGE = re.compile(r"(?<![*\w])\*(?!\*)([a-z][^*\n]{2,80}?)\*(?![*\w])"
                    r"|(?<!\w)[(\[]([a-z][^()\[\]\n]{2,80}?)[)\]]")


def _stage_cut(m: re.Match) -> str:
    """A stage direction read as the end of a sentence; anything else as it was."""
    from probe.matching import lexicon

    inner = m.group(1) or m.group(2)
    words = [_lower(t) for t in _tokens(inner)]
    rest = (m.string[:m.start()] + m.string[m.end():]).strip()
    opens = not m.string[:m.start()].strip() or m.string[:m.start()].endswith("\n")
    if not words or len(words) < 2 and not opens or not _content(_tokens(rest)):
        return m.group(0)         # one word in a sentence ("I pick *running*") is a name
    acting = any(w.endswith(("s", "ing")) and "VERB" in lexicon.parts_of_speech(w)
                 for w in words[:3] if w not in W.FUNCTION)
    return " . " if acting else m.group(0)


def _emoji_stop(m: re.Match) -> str:
    end = m.end()
    return ". " if end < len(m.string) and m.string[end] != "\n" else ""


def _first_line_of(text: str) -> str:
    return next((ln for ln in text.split("\n") if ln.strip()), "")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


@lru_cache(maxsize=65536)
def _lower(tok: str) -> str:
    low = tok.casefold().replace("’", "'")
    return "not" if low.endswith("n't") and len(low) > 3 else low      # "haven't", "isn't"


def _content(tokens: list[str]) -> list[str]:
    """Tokens that are not filler: the words an answer is made of. A word the dictionary
    knows only as an adverb ("naturally", "frankly") is filler too."""
    return [t for t in tokens if not W.is_filler(_lower(t)) and not _apostrophe_filler(t)
            and not _adverb(_lower(t))]


def _adverb(word: str) -> bool:
    from probe.matching import lexicon

    return word.endswith("ly") and lexicon.parts_of_speech(word) == frozenset({"ADV"})


def _apostrophe_filler(tok: str) -> bool:
    # "I'd", "it's", "that's", "they're", "we'll": a pronoun with its auxiliary.
    head, _, tail = _lower(tok).partition("'")
    return bool(tail) and head in W.PRONOUNS | W.HEDGE_SUBJECTS | {"let", "here", "there", "what",
                                                                   "who", "how"}


_TRAILING_MARKS = re.compile(r"(?:\s*(?:[.!?,;:…)(\]\[<>=^~-]+|[:;]-?[()DPp]))+\s*$")


def _strip(text: str) -> str:
    text = text.strip().strip(QUOTES + " ")
    if "(" not in text or ")" not in text:
        text = _TRAILING_MARKS.sub("", text) if not re.search(r"[+#]$", text) else text
    return " ".join(text.rstrip(".!?,;:…").strip().strip(QUOTES + " ").split())


def _first_content_lines(text: str) -> tuple[list[str], bool]:
    """The answer line, or the items of a list, and whether it is a list of options."""
    lines = [ln[:MAX_LINE] for ln in text.split("\n")]
    content = [ln for ln in lines if _MARKUP.sub("", ln).strip(" " + QUOTES + ".!?,;:-–—")]
    if not content:
        return [], False
    # Skip lines that are only filler ("Sure!", "Hmm, let me think."), unless one is all there is.
    start = 0
    while start < len(content) - 1 and not _ITEM.match(content[start]) and (
            not _content(_tokens(_MARKUP.sub("", content[start])))
            or _answerless(content[start])):
        start += 1                # "Oh, I love this." / "Sure!" before the answer's line
    head = content[start]
    if head.lstrip().startswith("|"):
        cells = _table_cells(content[start:start + 24])
        if len(cells) >= 2:
            return cells, True        # a table lays its options out side by side
    items = [ln for ln in content[start:start + 12] if _ITEM.match(ln)]
    following = content[start + 1:start + 3]
    if _ITEM.match(head) and following and _ITEM.match(following[0]):
        return [_ITEM.sub("", ln) for ln in items], True
    if head.rstrip().endswith(":") and following and all(_ITEM.match(f) for f in following[:1]) \
            and len(items) >= 2:
        return [_ITEM.sub("", ln) for ln in items], True
    return [_LONE_ITEM.sub("", head)], False


def _option_name(item: str) -> str:
    """A list item's option without its description: "Imagine: a true classic" and
    "Petra — distinctive, though divisive" offer Imagine and Petra."""
    m = re.match(r"(.+?)(?::\s|\s[—–-]\s)(.+)$", item)
    if m and len(_tokens(m.group(1))) <= 6 and len(_tokens(m.group(2))) >= 2:
        return _strip(m.group(1))
    return item


def _table_cells(lines: list[str]) -> list[str]:
    """The first cell of each data row of a Markdown table (its header row, the one above
    the |---| rule, is not an option)."""
    rows = []
    for ln in lines:
        if not ln.lstrip().startswith("|"):
            break
        rows.append(ln.strip().strip("|").split("|")[0].strip())
    rule = next((i for i, r in enumerate(rows) if r and set(r) <= set("-: ")), None)
    if rule is not None:
        rows = rows[rule + 1:]
    return [r for r in rows if r and not set(r) <= set("-: ")]


_ITEM_REF = re.compile(r"^(?:#|no\.\s*|option\s+|item\s+)(\d{1,2})\b", re.I)


def _item_named(seg: Segment, items: list[str]) -> Segment:
    """A choice that points into the list ("I'd go with #3", "option 2, Kotlin") is the
    item it points at."""
    m = _ITEM_REF.match(seg.answer or "")
    if m is None:
        return seg
    k = int(m.group(1)) - 1
    if not 0 <= k < len(items):
        return seg
    return replace(seg, answer=items[k], whole=True, cue=True, listed=False)


def _answerless(line: str) -> bool:
    """A line that names nothing: remarks, praise and filler only."""
    text = " ".join(_MARKUP.sub("", line).split())
    return not any(seg.answer for seg in _read_line(text))


def _divisions(line: str) -> list[tuple[str, str]]:
    """(text, the mark that ends it) pieces of a line."""
    out: list[tuple[str, str]] = []
    start = 0
    for m in _DIVIDE.finditer(line):
        kind = m.lastgroup or ""
        if kind == "end" and m.group() == ".":
            before = line[:m.start()]
            word = before[before.rfind(" ") + 1:].lstrip(QUOTES + "(")
            nxt = line[m.end():].split(None, 1)
            nxt_word = nxt[0].strip(QUOTES + ",") if nxt else ""
            name_follows = (nxt_word[:1].isupper() and not W.is_filler(_lower(nxt_word))
                            and not _apostrophe_filler(nxt_word))
            if (word.casefold() in _ABBREVIATIONS
                    or (len(word) == 1 and word.isalpha() and (name_follows or not nxt_word))
                    or re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]", word)
                    or (len(word) <= 3 and word[:1].isupper() and word.isalpha() and name_follows
                        and not W.is_filler(word.casefold()))
                    or (word[-1:].isdigit() and line[m.end():m.end() + 1].isdigit())):
                continue
        out.append((line[start:m.start()], kind))
        start = m.end()
    out.append((line[start:], ""))
    kept: list[tuple[str, str]] = []
    for t, k in out:
        if t.strip(" " + QUOTES):
            kept.append((t, k))
        elif k == "but" and kept:
            kept[-1] = (kept[-1][0], k)   # "X is nice… but really it's Y": the turn stays
    return kept or [("", "")]


def _is_title_like(text: str) -> bool:
    toks = _tokens(text)
    return (bool(toks) and len(toks) <= 8 and (toks[0][:1].isupper() or toks[0][:1].isdigit())
            and _lower(toks[0]) not in W.PRONOUNS | W.HEDGE_SUBJECTS
            and not any(_lower(t) in W.PREDICATE_VERBS - {"be"} for t in toks[1:])
            and sum(t[:1].isupper() or t[:1].isdigit() for t in toks) * 2 >= len(toks))


@lru_cache(maxsize=65536)
def read(response: str | None) -> Reading:
    """Every segment of a response's answer line, read for an answer (cached: a sweep sees
    the same short responses in many families)."""
    if not response:
        return Reading((Segment(""),), "")
    text = _clean(response)
    slot = _PLACEHOLDER.search(text)
    if slot and not _content(_tokens(_PLACEHOLDER.sub(" ", _first_line_of(text)))) \
            or slot and re.search(r"(?:\b(?:is|go with|pick|choose|say)|:)\s*[*\"'“]*[\[<{_]", text, re.I):
        return Reading((Segment("", text=_strip(slot.group()), remark=True),), slot.group())
    m = _BRACE.search(text)
    if m and m.group(1).strip():
        inner = _strip(_MARKUP.sub("", m.group(1)))
        return Reading((Segment(inner, cue=True, whole=True),), inner, braced=True)
    lines, listed = _first_content_lines(text)
    if not lines:
        return Reading((Segment(""),), "")
    if listed:
        items = [_option_name(_strip(" ".join(_MARKUP.sub("", ln).split()))) for ln in lines]
        items = [i for i in items if i]
        scan = " , ".join(items)
        marked = [m.group("name") for m in (_MARKED.match(" ".join(_MARKUP.sub("", ln).split()))
                                            for ln in lines) if m]
        if len(marked) == 1 and _tokens(marked[0]):
            chosen = _strip(marked[0])          # "* Zion ← my pick!": the item marked
            return Reading((Segment(chosen, text=chosen, cue=True, whole=True),), chosen)
        if len({i.casefold() for i in items}) > 1:
            # A list of options, unless a line after it commits to one ("If I have to
            # commit to one, Blue").
            after = _lines_after_list(text)
            later = tuple(_item_named(s, items) for s in _announced(after)
                          if s.cue and s.answer)
            return Reading((Segment(items[0], listed=True),) + later[:1], scan)
        lines = items[:1]
    line = " ".join(_MARKUP.sub("", lines[0]).split())
    if line[:1] in QUOTES and line.count(line[0]) == 1:
        line = line[1:]
    quoted = re.match(r"\s*([\"“‘«])([^\"”’»]{1,60}?)[,.!]?([\"”’»])\s*(?:[,—–-]\s*)?(\w.*)?$", line)
    if quoted and quoted.group(4) and not _content(_tokens(quoted.group(4))[:1]) is None:
        inner = _strip(quoted.group(2))
        if _content(_tokens(inner)) and (quoted.group(4).split()[0].casefold() in
                                         ("said", "says", "he", "she", "they", "i", "we")):
            return Reading((Segment(inner, text=inner, whole=True),), line)
    line = re.sub(r"^[→⇒➜>*•·]+\s*", "", line)
    options = _semicolon_options(line) or _inline_items(_first_line_of(text))
    line = _collapse_repeats(line)
    if not options and _title_case(line) and len(lines) == 1:
        name = _strip(line)
        return Reading((Segment(name, text=name, whole=True, titled=True),), line)
    approved = _approved_pick(line)
    if approved is not None:
        return approved
    if options:
        return Reading((Segment(options[0], text=line, listed=True),), " , ".join(options))
    segments = _read_line(line)
    if not _committed(segments):
        # The answer line commits to nothing ("Honestly, I could talk about rivers all
        # day."; a hedge): a later line that does ("My pick is **the Danube**") answers.
        # A line that is a name alone ("Lisbon!") stays first, the later line after it
        # (for an echo such as "Ooh, rivers!", which the family's reading passes over).
        later = _committed_line(text, lines[0])
        if later is not None:
            if _name_alone(segments, line):
                segments, line = segments + later[0], line + " " + later[1]
            else:
                segments, line = later
    asked = [s for s in segments if s.answer and _asked_in(s, line)]
    answered = [s for s in segments if s.answer and not s.remark]
    if len(asked) >= 2 and len(asked) == len(answered) \
            and len({a.answer.casefold() for a in asked}) >= 2:
        # "Burger? Pizza? Risotto?": names put as questions, none chosen.
        names = [a.answer for a in asked]
        return Reading((Segment(names[0], text=line, listed=True),), " , ".join(names))
    return Reading(segments, line)


_NEW_TURN = re.compile(r"(?:^|(?<=[\s.!?]))[*_#]*(?:Q|Question|User|Human)[*_]*:", re.M)


def _name_alone(segments: tuple[Segment, ...], line: str) -> bool:
    """The line is a name and little else ("Lisbon!", "**Monarch** — lovely"): it stays
    the answer even when a later line commits to one."""
    answered = [s for s in segments if s.answer and not s.remark]
    return len(answered) == 1 and answered[0].whole and not answered[0].listed \
        and not answered[0].exclaim and len(_tokens(line)) <= 6


def _announced(lines: list[str]) -> list[Segment]:
    """The segments of ``lines``, the first one after a line that only announces a choice
    ("## Recommendation", "Final choice:") read as chosen."""
    return [s for _, segments in _read_lines(lines) for s in segments]


def _read_lines(lines) -> Iterator[tuple[str, tuple[Segment, ...]]]:
    """Each line (already cleaned of markup) with its segments; the first segment of a
    line after one that only announces a choice is read as chosen, and a table's rows
    are passed over (they lay options out side by side)."""
    announced = False
    for ln in lines:
        if ln.startswith("|"):
            announced = False
            continue
        segments = _read_line(ln)
        if announced and segments[0].answer and not segments[0].remark:
            segments = (replace(segments[0], cue=True),) + segments[1:]
        yield ln, segments
        announced = _announces(ln, segments)


def _announces(line: str, segments: tuple[Segment, ...]) -> bool:
    """A short line that only announces a choice: "## Recommendation", "✅ Final choice",
    "My pick:"."""
    toks = _tokens(line)
    return 1 <= len(toks) <= 4 and all(not s.answer for s in segments) and any(
        _lower(t) in W.CHOICE_NOUNS | W.CHOICE_VERBS | W.LABELS for t in toks)


def _committed(segments: tuple[Segment, ...]) -> bool:
    """Some segment commits to an answer: chosen in so many words, or a correction."""
    return any(s.answer and (s.cue or s.corrected) and not (s.remark or s.negated or s.listed
                                                             or s.conditional or s.exclaim
                                                             or s.indefinite and s.answer[:1].islower())
               and not _alternative(s) and name_like(s.answer) for s in segments)


def name_like(answer: str) -> bool:
    """Whether a reading can be a name at all: a few words, none of them a word for the
    choice itself ("go with the most popular answer"), not ending on a determiner ("walk
    through a few"). A title in Title Case always can."""
    toks = _tokens(answer)
    if not toks:
        return False
    if _is_title_like(answer):
        return True
    lows = [_lower(t) for t in toks]
    return len(toks) <= 6 and not set(lows) & (W.CHOICE_NOUNS - {"one", "fan", "money"}) \
        and lows[-1] not in W.DETERMINERS | {"few", "couple", "bit", "lot"}


def _committed_line(text: str, answer_line: str) -> tuple[tuple[Segment, ...], str] | None:
    """The first line after the answer line that commits to an answer, read."""
    if _NEW_TURN.search(text):
        return None               # a base model's "Q: … A: …" loop: later turns are others
    lines = [ln for ln in text.split("\n") if _MARKUP.sub("", ln).strip()]
    try:
        at = lines.index(answer_line)
    except ValueError:
        return None
    cleaned = (" ".join(_MARKUP.sub("", _ITEM.sub("", raw[:MAX_LINE])).split())
               for raw in lines[at + 1:at + 40])
    for ln, segments in _read_lines(cleaned):
        if _committed(segments):
            return segments, ln
    return None


_FAINT = frozenset("obvious safe tough hard easy first random final big huge massive total "
                   "popular fine".split())
_APPROVALS = frozenset("yes yep yeah yup bingo perfect winner sold done ideal exactly absolutely "
                       "definitely".split())


def _approved_pick(line: str) -> Reading | None:
    """"Rome? Too obvious. Venice? Perfect.": of names put as questions, the one approved
    right after it is the pick."""
    if line.count("?") < 2:
        return None
    segments = _read_line(line)
    asked = [s for s in segments if s.answer and _asked_in(s, line)]
    judged = [s for s in asked if _approved_after(s, segments)]
    if len(asked) < 2 or len(judged) != 1:
        return None
    chosen = replace(judged[0], cue=True, whole=True)
    verdicts = {i + 1 for i, s in enumerate(segments) if s in asked and i + 1 < len(segments)
                and len(_tokens(segments[i + 1].text or segments[i + 1].answer)) <= 3}
    out = []
    for i, s in enumerate(segments):
        if s is judged[0]:
            out.append(chosen)
        elif s in asked:
            out.append(replace(s, negated=True))           # "Rome? Too obvious."
        elif i in verdicts:
            out.append(Segment("", text=s.text or s.answer, remark=True))   # "Close."
        else:
            out.append(s)
    return Reading(tuple(out), line)


def _approved_after(seg: Segment, segments: tuple[Segment, ...]) -> bool:
    """The segment after ``seg`` approves of it in a word or two ("Perfect.", "Yes!")."""
    at = next((i for i, s in enumerate(segments) if s is seg), None)
    if at is None or at + 1 >= len(segments):
        return False
    words = [_lower(t) for t in _tokens(segments[at + 1].text or segments[at + 1].answer)]
    return 1 <= len(words) <= 3 and (words[0] in _APPROVALS or words[0] in W.PRAISE - _FAINT)


def _asked_in(seg: Segment, line: str) -> bool:
    at = line.find(seg.text or seg.answer)
    return at >= 0 and line[at + len(seg.text or seg.answer):].lstrip(" *_\"'”’")[:1] == "?"


_SMALL_WORDS = frozenset("a an the of for and or nor but to in on at by with from as vs".split())


def _title_case(line: str) -> bool:
    """A whole response written as a title: two to eight words, every word but the small
    ones capitalised, no sentence inside ("Anything Goes", "No Country for Old Men",
    "Both Sides Now") — a name even when its words would make a hedge."""
    text = _strip(line)
    if re.search(r"[.!?;:,—–()\[\]]|\s-\s", text) or text.isupper():
        return False
    toks = _tokens(text)
    if not 2 <= len(toks) <= 8 or not toks[0][:1].isupper() or is_list(text):
        return False
    first = _lower(toks[0])
    if first in W.DISCOURSE | W.PRAISE | W.CHOICE_VERBS or W.is_filler(first) and \
            first not in W.FILLER:
        return False              # "Definitely Monarch", "Hmm Monarch": a lead-in and a name
    big = [t for t in toks[1:] if _lower(t) not in _SMALL_WORDS]
    return bool(big) and all(t[:1].isupper() or t[:1].isdigit() for t in big)


def _correction(text: str) -> tuple[bool, str]:
    """Whether a piece opens by taking back an earlier answer ("no, David Bowie", "wait",
    "actually, Saturn", "on second thought, …"), and the piece without that opening."""
    toks = _tokens(text)
    k = 0
    while k < len(toks) and _lower(toks[k]) in ("oh", "hmm", "um", "well", "but", "on", "second",
                                               "further", "or", "make", "that"):
        k += 1
    if k >= len(toks) or _lower(toks[k]) not in W.CORRECTIONS:
        return False, text
    if _lower(toks[k]) in ("no", "nah", "nope") and not re.match(
            r"\s*(?:\w+[\s,]+)*?(?:no|nah|nope)\s*(?:[,—–-]|$|(?=(?:wait|actually|scratch)\b))",
            text, re.I):
        return False, text        # "No preference" is not a correction
    if _lower(toks[k]) == "thought" and not (k and _lower(toks[k - 1]) == "second"):
        return False, text
    rest = text[_offset(text, toks, k + 1):] if k + 1 < len(toks) else ""
    rest = re.sub(r"^[\s,—–-]+", "", rest)
    while _correction(rest)[0] and rest:
        rest = _correction(rest)[1]
    return True, rest


def _label(head: list[str], tail: str) -> bool:
    """A short label before a colon ("Update: we went with Kotlin", "Mine: ametrine",
    "EDIT: decided on Earth") when what follows names something rather than remarks on it
    ("Green: it's calming" keeps Green)."""
    if head and all(_lower(t) in W.LABELS | {"related", "questions", "question", "posted",
                                             "reply", "comments", "source"} for t in head):
        return True               # "Edit: thanks all", "Related questions: …"
    choice_head = any(_lower(t) in W.CHOICE_VERBS | W.CHOICE_NOUNS for t in head)
    if not 1 <= len(head) <= (4 if choice_head else 3) \
            or _is_title_like(tail.split(",")[0]) and len(head) > 1 and not choice_head:
        return False
    toks = _tokens(tail)
    if not toks or _remark(toks) or not _content(toks):
        return False
    if _lower(toks[0]).partition("'")[0] in ("it", "that", "this", "they") \
            and _apostrophe_filler(toks[0]):
        return False              # "Parmesan: it's a solid pick": said of the name before
    if any(_lower(t) in W.CHOICE_VERBS | W.CHOICE_NOUNS for t in head + toks[:4]) \
            or _lower(head[0]) in W.PRONOUNS or (len(head) == 1 and head[0].isupper()
                                                 and len(head[0]) > 1):
        return True               # "Update: we went with …", "Mine: …", "EDIT: …"
    # "Output: Comic Sans": a name follows; "Green: it's calming" keeps Green.
    name = [t for t in toks if _lower(t) not in W.DISCOURSE and not _adverb(_lower(t))]
    return (len(head) == 1 and 1 <= len(name) <= 4 and name[0][:1].isupper()
            and not any(_lower(t) in W.PREDICATE_VERBS or _apostrophe_filler(t) for t in name))


def _clause_before_name(head_text: str, tail: str) -> bool:
    """A sentence with its own subject before a colon, and a short name alone after it,
    ending the sentence: "The clues all pointed one way: June.", "I finally figured it out:
    Kyoto." The sentence leads in to the name. Not a heading or a list's head ("A few
    thoughts: …", "Runner-up: …"), a scene ("First, 10 AM: …"), a sentence that declines
    ("It depends on one thing: budget"), or a name followed by what is said of it
    ("Mandarin is popular")."""
    from probe.matching.nonpick import declines

    head = _tokens(head_text)
    toks = _tokens(tail)
    if len(head) < 3 or not 1 <= len(toks) <= 4 or re.search(r"[,(\[]", head_text + tail) \
            or not _content(toks) or re.search(r"\s(?:and|or|nor|&|vs\.?|versus)\s", tail, re.I):
        return False
    lows = [_lower(t).partition("'")[0] for t in head]
    if lows[0] not in W.PRONOUNS | W.DETERMINERS - {"a", "an", "some", "any"} | {"let"} \
            or set(lows) & (W.CHOICE_NOUNS - {"one"} | W.LABELS | W.QUANTIFIERS) \
            or _lower(toks[0]).partition("'")[0] in W.PRONOUNS | W.HEDGE_SUBJECTS \
            or any(_lower(t) in W.PREDICATE_VERBS and not t[:1].isupper() for t in toks):
        return False              # ("15 May": a month, not the verb)
    if _is_title_like(head_text) or declines(head_text):
        return False
    return name_like(tail)


def _lines_after_list(text: str) -> list[str]:
    """The content lines after a response's list of options."""
    lines = [ln for ln in text.split("\n") if _MARKUP.sub("", ln).strip()]
    seen_item = False
    out: list[str] = []
    for ln in lines:
        option = _ITEM.match(ln) or ln.lstrip().startswith("|")
        if option and not out:
            seen_item = True      # still in the list of options
        elif seen_item and not ln.lstrip().startswith("|"):
            # After the options: what follows, later lists (reasons, runners-up) included.
            out.append(" ".join(_MARKUP.sub("", _ITEM.sub("", ln)).split()))
    return out[:12]


@lru_cache(maxsize=65536)
def _read_line(line: str) -> tuple[Segment, ...]:
    """The segments of one line."""
    pieces = _divisions(line)
    segments: list[Segment] = []
    pending_cue = False
    correction = False
    i = 0
    while i < len(pieces):
        text_i, mark = pieces[i]
        # A title with a colon ("Zelda: Breath of the Wild", "Star Wars: A New Hope").
        head_toks = _tokens(text_i)
        head_rest = text_i[_offset(text_i, head_toks, _lead_in(head_toks)[0]):] if head_toks else ""
        if mark == "colon" and i + 1 < len(pieces) and _content(_tokens(head_rest)) \
                and "," not in text_i and _lower(head_toks[0]) not in W.NEGATIONS \
                and _is_title_like(head_rest) and _is_title_like(pieces[i + 1][0].split(",")[0]) \
                and not any(_lower(t) in W.CHOICE_NOUNS | W.LABELS for t in _tokens(head_rest)) \
                and not _HERE_IT_IS.search(head_rest):
            text_i, mark = text_i + ": " + pieces[i + 1][0], pieces[i + 1][1]
            i += 1
        toks_i = _tokens(text_i)
        correcting, text_i = _correction(text_i)
        if correcting:
            correction = True
            toks_i = _tokens(text_i)
            if not toks_i:
                i += 1
                continue
        if mark in ("colon", "dash") and toks_i and (
                (len(toks_i) == 1 and len(toks_i[0]) == 1 and toks_i[0] in "AQaq")
                or _lower(toks_i[0]) in W.PREPOSITIONS | W.SUBORDINATORS
                or (mark == "colon" and _lower(toks_i[-1]) in W.CHOICE_NOUNS and len(toks_i) <= 4)
                or (mark == "colon" and _HERE_IT_IS.search(text_i) is not None)
                # "Some faves: A, B, C": a head before a list labels the list.
                or (mark == "colon" and i + 1 < len(pieces) and pieces[i + 1][0].count(",") >= 2
                    and not any(t[:1].isupper() for t in toks_i[1:]) and len(toks_i) <= 4)
                or (mark == "colon" and _label(toks_i, pieces[i + 1][0] if i + 1 < len(pieces)
                                               else ""))
                or (mark == "colon" and i + 1 < len(pieces) and pieces[i + 1][1] == "end"
                    and _clause_before_name(text_i, pieces[i + 1][0]))):
            # "A: Monet", "Quick pick: Obsidian" (labels), "Without overthinking it: …" (a
            # scene set): not answers.
            segments.append(Segment("", text=_strip(text_i), cue=True))
            pending_cue = True
            i += 1
            continue
        if len(toks_i) == 1 and i + 1 < len(pieces) and _adverb_asked(text_i, line):
            # "Today? X": one adverb put as a question leads in to the answer.
            segments.append(Segment("", text=_strip(text_i), cue=True))
            pending_cue = True
            i += 1
            continue
        suggested = _SUGGESTION.match(text_i.strip())
        if suggested and _content(_tokens(suggested.group(1))):
            seg = replace(_read_segment(suggested.group(1), True), cue=True)
        else:
            seg = _read_segment(text_i, pending_cue)
            if _asks_back(text_i, line) or (mark == "end" and _context_question(text_i, line)):
                seg = Segment("", text=_strip(text_i), remark=True)
        if correction and seg.answer and not seg.remark:
            seg = replace(seg, corrected=True)
            correction = False
        if i > 0 and (pieces[i - 1][1] == "but" or re.match(r"\s*but\s", pieces[i][0], re.I)):
            seg = replace(seg, after_but=True)
        segments.append(seg)
        if not seg.answer and not seg.remark:
            # A filler-only piece before a colon or dash announces what follows.
            pending_cue = seg.cue or mark in ("colon", "dash") or pending_cue
        else:
            pending_cue = False
        i += 1
    for k, seg in enumerate(segments):
        if k and not seg.answer and POINTER.match(seg.text or ""):
            # "That leaves October, which is lovely. That's my pick.": the name before.
            prev = next((j for j in range(k - 1, -1, -1) if segments[j].answer
                         and not segments[j].remark), None)
            if prev is not None:
                segments[prev] = replace(segments[prev], cue=True)
    # A line of take-backs alone ("Wait", "Nope!") names nothing; it is still read as text.
    return tuple(segments) or (Segment("", text=_strip(line), remark=True),)


# A choice described before it is named: "The one that stands out is Kyoto".
_DESCRIBED = re.compile(r"\s*(?:the|my|our)?\s*(?:\w+\s+){0,2}?(?:one|first|pick|choice|answer|winner|"
                        r"favou?rite|option)(?:\s+\w+)?\s+(?:that|which|who|where|with|i'd|i would|i'll|i’d|i|we)\b.{0,60}?"
                        r"\b(?:is|would be|has to be|will be|was)\s+(.+)$", re.I)
# "Hard to single one out", "Tough to narrow it down": no answer follows.
_HARD_TO = re.compile(r"\s*(?:(?:it's|it is|that's|that is|it’s|that’s)\s+)?(?:really\s+|so\s+|very\s+)?"
                      r"(?:hard|difficult|tough|impossible|tricky)\s+to\s+\w+", re.I)
_WH = frozenset("which what who whom whose why where when how".split())
# A question that offers an answer: "What do you think of Jane Eyre?", "Have you
# considered Monte Cervino?", "Why not Oslo?".
_SUGGESTION = re.compile(r"(?:have you (?:considered|tried|thought (?:of|about))|(?:how|what) (?:do|would) "
                         r"you (?:think|feel|say) (?:of|about|to)|would you (?:consider|try|like)|"
                         r"do you (?:like|fancy)|how about|what about|why not(?: try| go with)?|"
                         r"(?:may|could|can) i suggest)\s+(.+)$", re.I)


_ASKING_VERBS = frozenset("want need would shall should do does did can could are is any".split())


def _context_question(piece: str, line: str) -> bool:
    """A question that is not a name put as one: the occasion said back ("For the
    poster?", "On the stamp?") or an offer ("Want a backup option?")."""
    toks = _tokens(piece)
    at = line.find(piece.strip())
    if len(toks) < 2 or at < 0 or line[at + len(piece.strip()):].lstrip(" *_\"'”’")[:1] != "?":
        return False
    first = _lower(toks[0])
    return first in W.PREPOSITIONS or first in _ASKING_VERBS


def _put_as_question(piece: str, line: str) -> bool:
    """The piece of ``line`` ends on a question mark."""
    end = line.find(piece) + len(piece)
    return line[end:end + 1] == "?"


def _adverb_asked(piece: str, line: str) -> bool:
    """"Today?", "Now?": an adverb alone as a question, the answer to follow."""
    from probe.matching import lexicon

    word = _lower(piece.strip())
    if word in ("me", "mine", "moi", "us", "ours", "myself") and _put_as_question(piece, line):
        return True               # "Me? Italy.": the speaker asked, the answer to follow
    parts = lexicon.parts_of_speech(word)
    return _put_as_question(piece, line) and "ADV" in parts and "ADJ" not in parts


def _asks_back(piece: str, line: str) -> bool:
    """A question back to the user ("Which dinosaur is your favourite?", "What's it
    for?"), not a suggestion ("How about a Monarch?", "What about Rome?")."""
    toks = _tokens(piece)
    if not toks or not _put_as_question(piece, line):
        return False
    lows = [_lower(t) for t in toks]
    while len(lows) > 1 and lows[0] not in _WH and (W.is_filler(lows[0])
                                                    or lows[0] in W.DISCOURSE):
        lows, toks = lows[1:], toks[1:]       # "Hmm, what kind are you into?"
    if len(lows) == 1 or lows[-1] in _WH and not any(t[:1].isupper() for t in toks[1:]):
        return lows[-1] in _WH    # "Why?", "Meaning what?", "For what?"
    if lows[0] in W.AUXILIARIES | {"want", "any", "anything"} and not any(
            t[:1].isupper() for t in toks[1:] if _lower(t) != "i") \
            and {"you", "me", "your", "you've", "you'd", "you're"} & set(lows):
        return True               # "Do you want something well known?", "Want me to narrow it?"
    if lows[0].partition("'")[0] not in _WH:
        return False
    return lows[1] not in ("about", "if")


def _inline_items(line: str) -> list[str]:
    """"- Rembrandt - Frida - Monet" or "1) Sax 2) Cello" on one line: a list flattened by
    a newline cut."""
    lettered = re.split(r"(?:^|\s)\(?[A-Ea-e]\)\s+", line)
    if len(lettered) >= 3 and not lettered[0].strip():
        parts = [_strip(p) for p in lettered[1:] if _strip(p)]
        if len(parts) >= 2 and all(len(_tokens(p)) <= 6 for p in parts):
            return parts          # "A) Hermes B) Athena C) Artemis"
    numbered = re.split(r"(?:^|\s)\d{1,2}[.)]\s+", line)
    if len(numbered) >= 3 and not numbered[0].strip():
        parts = [_strip(p) for p in numbered[1:] if _strip(p)]
        return parts if len(parts) >= 2 and all(len(_tokens(p)) <= 6 for p in parts) else []
    m = re.match(r"\s*([-•*])\s+", line)
    if not m:
        return []
    parts = [_strip(p) for p in re.split(r"\s+" + re.escape(m.group(1)) + r"\s+", " " + line.strip()[1:])]
    parts = [p for p in parts if p]
    return parts if len(parts) >= 2 and all(1 <= len(_tokens(p)) <= 6 for p in parts) else []


def _semicolon_options(line: str) -> list[str]:
    """"Options: Manet; da Vinci; Monet" — short names between semicolons are options."""
    if ";" not in line:
        return []
    parts = [_strip(p.split(":")[-1]) for p in line.split(";")]
    def short_name(p: str) -> bool:
        toks = _tokens(p)
        return 1 <= len(toks) <= 5 and bool(_content(toks)) and \
            _lower(toks[0]).partition("'")[0] not in W.HEDGE_SUBJECTS | W.PRONOUNS
    if any(_lower((_tokens(p) or [""])[0]) in W.NEGATIONS for p in parts):
        return []                 # "Not Silver; Gold."
    return parts if len(parts) >= 2 and all(short_name(p) for p in parts) else []


def _lead_in(tokens: list[str]) -> tuple[int, bool]:
    """How many tokens open the segment without being the answer, and whether a verb or
    noun of choosing was among them."""
    cue = False
    n = 0
    chose = False                     # a verb or noun of choosing was just seen
    for n, tok in enumerate(tokens):
        low = _lower(tok)
        prev = _lower(tokens[n - 1]) if n else ""
        if chose and tok[:1].isupper() and n + 1 < len(tokens) \
                and all(t[:1].isupper() for t in tokens[n:]):
            break                     # "I would choose Let It Be": a title, whatever its words
        if n == 0 and low == "being" and len(tokens) > 1:
            break                     # "Being kind": the answer, a gerund
        if chose and low not in W.DETERMINERS and low not in W.PARTICLES_AFTER_CHOICE \
                and low not in W.AUXILIARIES and low not in W.DISCOURSE \
                and low not in W.NEGATIONS and not _apostrophe_filler(tok) \
                and not (low in W.CHOICE_VERBS and (prev in ("to", "gonna", "going")
                                                    or prev in W.CHOICE_NOUNS)) \
                and not (low in ("me", "it", "us") and tok.islower()):
            break                     # "I'll go with Go", "let's say go": the answer starts
        if not (W.is_filler(low) or _apostrophe_filler(tok) or low in W.NEGATIONS):
            break
        if (low in W.AUXILIARIES or low in W.PRONOUNS) and tok[:1].isupper() and n + 1 < len(tokens) \
                and (tokens[n + 1][:1].isupper() and not W.is_filler(_lower(tokens[n + 1]))
                     or low == "may" and tokens[n + 1][:1].isdigit()):
            break                     # "Will Smith", "May Day", "It Follows", "May 5th"
        if n > 0 and tok[:1].isupper() and low.partition("'")[0] != "i" and n + 1 < len(tokens) \
                and tokens[n + 1][:1].isupper() and low not in W.DISCOURSE:
            return _article_start(tokens, n), cue    # "The One Ring"
        if low in W.CHOICE_VERBS or low in W.CHOICE_NOUNS:
            chose = low not in ("one",)
        cue = cue or low in W.CHOICE_VERBS or low in W.CHOICE_NOUNS or (
            low == "about" and n > 0 and _lower(tokens[n - 1]) in ("how", "what"))
    else:
        return len(tokens), cue
    # Praise opens a reply only on its own ("Easy —", "Great question!"): inside a
    # segment it belongs to the name ("The Great Gatsby", "Good Will Hunting").
    for k in range(n):
        low = _lower(tokens[k])
        if low in W.PRAISE and low not in W.CHOICE_NOUNS:
            if not any(_lower(t) in W.CHOICE_VERBS | W.CHOICE_NOUNS for t in tokens[k + 1:n]):
                return _article_start(tokens, k), cue
    return n, cue


def _article_start(tokens: list[str], k: int) -> int:
    """Back up over the article before position ``k`` ("the Great Gatsby")."""
    while k > 0 and _lower(tokens[k - 1]) in ("the", "a", "an"):
        k -= 1
    return k


_OBJECT_PRONOUNS = frozenset("this that it these those them".split())


_GENERIC_SUBJECTS = frozenset("people everyone everybody nobody kids folks adults fans most".split())
_CHOSEN = frozenset("chosen picked gone settled landed opted selected decided gone gotten got".split())


def _remark(tokens: list[str]) -> bool:
    """A sentence about the choice: a pronoun or quantifier subject and then a verb that is
    not "to be" ("It depends", "Any of them would work", "They vary") — unless what follows
    is written as a name ("It Follows")."""
    while len(tokens) > 1 and _lower(tokens[0]) in W.DISCOURSE \
            and (_lower(tokens[0]).partition("'")[0] not in W.HEDGE_SUBJECTS
                 or _lower(tokens[1]).partition("'")[0] in W.HEDGE_SUBJECTS | W.PRONOUNS):
        tokens = tokens[1:]           # "Honestly, that's subjective", "honestly it's Heron"
    if not tokens:
        return False
    lows = [_lower(t) for t in tokens]
    if lows[-1:] == ["one"] and len(lows) > 2 and lows[-2] in ("this", "that"):
        lows = lows[:-1]              # "I adore this one"
    if 2 <= len(lows) <= 8 and lows[-1] in _OBJECT_PRONOUNS and lows[0] in ("i", "we") \
            and not any(t[:1].isupper() for t in tokens[1:]) \
            and not any(w in W.CHOICE_VERBS | W.NEGATIONS for w in lows):
        return True                   # "I love this", "We adore it": about the question
    if len(lows) > 1 and lows[0] in _GENERIC_SUBJECTS and not tokens[1][:1].isupper():
        return True                   # "People rarely regret choosing it"
    if len(lows) > 2 and lows[0] in ("their", "its", "his", "her") and any(
            w in W.AUXILIARIES or w in W.PREDICATE_VERBS for w in lows[2:5]):
        return True                   # "their work can feel intimidating at first"
    if len(lows) > 2 and lows[0] in ("i", "we") and lows[1] in ("have", "had") \
            and tokens[2][:1].islower() and lows[2] not in W.CHOICE_VERBS | _CHOSEN | {"to"}:
        return True                   # "I have a soft spot for it": about the speaker
    first = _lower(tokens[0])
    head, _, clitic = first.partition("'")
    if first in ("this", "the") and len(tokens) > 2 and _lower(tokens[1]) in ("question", "quiz",
                                                                              "prompt", "task"):
        return True                   # "This question is part of a quiz on …"
    if head in W.PREDICATE_VERBS - W.AUXILIARIES and len(tokens) > 1 \
            and _lower(tokens[1]) in W.PRAISE:
        return True                   # "Sounds fun!", "Seems fair"
    if head in W.CHOICE_NOUNS and len(tokens) > 2 and _lower(tokens[1]) in W.AUXILIARIES \
            and _lower(tokens[2]) not in W.AUXILIARIES and not W.is_filler(_lower(tokens[2])):
        return True                   # "Answers will vary", "Options may differ"
    if head not in W.HEDGE_SUBJECTS:
        return False
    rest = tokens[1:]
    if head in W.QUANTIFIERS and rest and not rest[0][:1].isupper() \
            and (_lower(rest[0]) in W.AUXILIARIES or _lower(rest[0]) in ("of", "have", "has")):
        return True                   # "Both have their charm", "All are great", "Any of them …"
    if head == "there" and (clitic in ("s", "re") or (rest and _lower(rest[0]) in
                                                       ("is", "are", "was", "were", "be"))):
        return True       # "There are so many to choose from", "There's no right answer"
    if clitic:
        if clitic == "re" and head in ("they", "we", "you") and not (rest and rest[0][:1].isupper()):
            return True               # "They're all great", "You're spoilt for choice"
        from probe.matching import lexicon

        if clitic in ("d", "ll") and head in ("it", "that", "this", "they") and rest \
                and rest[0][:1].islower() and _lower(rest[0]) not in W.AUXILIARIES | W.CHOICE_VERBS \
                and "VERB" in lexicon.parts_of_speech(_lower(rest[0])):
            return True               # "That'd help a lot", "It'll depend" ("That'd be X" names)
        return clitic not in ("s", "re", "d", "ll", "m") and bool(rest)
    while rest and (_lower(rest[0]) in W.DISCOURSE or _lower(rest[0]) in ("of", "them", "these",
                                                                          "those", "one", "all")):
        rest = rest[1:]
    if not rest:
        return False
    verb = _lower(rest[0])
    after = [_lower(t) for t in rest[:4]]
    if any(w in W.CHOICE_VERBS for w in after) and all(
            w in W.AUXILIARIES | W.DISCOURSE | W.CHOICE_VERBS | W.NEGATIONS | {"to"}
            for w in after[:next(i for i, w in enumerate(after) if w in W.CHOICE_VERBS)]):
        return False                  # "You should go with …", "We'd pick …"
    if verb in ("has", "have", "had") and len(rest) > 1 and _lower(rest[1]) != "to" \
            and not rest[1][:1].isupper():
        return True                   # "It has a ton of character": said of the answer
    if verb in W.CHOICE_VERBS or (verb in W.AUXILIARIES and head in ("it", "that", "this",
                                                                      "i", "my")):
        return False                  # "It would be the Monarch", "That is Monarch"
    if verb in W.AUXILIARIES and head not in W.QUANTIFIERS and len(rest) > 1 \
            and rest[1][:1].isupper():
        return False
    return not all(t[:1].isupper() for t in rest[:3])


# A refusal in so many words: "I can't choose", "I'll not be choosin'", "can't settle on
# one", "refusing to pick", "As an AI…".
HARD_REFUSAL = re.compile(
    r"\b(?:i\s?(?:can(?:not|'t|’t)|am unable|'m unable|’m unable|am not able|'m not able|"
    r"won'?t|will not|['’]ll not|shan['’]?t|do not|don'?t)\s(?:really\s)?(?:be\s)?(?:to\s)?"
    r"(?:choos(?:e|ing|in['’])|pick(?:ing|in['’])?|select|decid(?:e|ing|in['’])|provide|have (?:a |any )?"
    r"(?:personal )?(?:preference|opinion|favou?rite)s?|make (?:a )?choices?|answer)"
    r"|\b(?:i\s?(?:do not|don'?t|don’t)|dunno)\s(?:really\s)?know\b|\bno idea\b"
    r"|\bcan(?:not|'t|’t)\s(?:\w+ly\s)?(?:land|settle|narrow|decide|commit|break\s(?:the|a|this)\stie)\b"
    r"|\brefus(?:e|es|ing)\sto\s(?:pick|choose|decide|play\sfavou?rites)\b"
    r"|\b(?:isn'?t|is not|isn’t)\s(?:really\s)?(?:something|a thing)\si\s(?:can|could)\b"
    r"|\bbe the one (?:deciding|choosing|picking|to (?:decide|choose|pick))\b"
    r"|\bget back to you\b|\bleave (?:that|this|it|the)\s?(?:choice|decision|one|call|pick)?\s?(?:up\s)?to you\b"
    r"|as an (?:ai|artificial intelligence|ai language model|assistant)\b|"
    r"as a (?:language model|large language model))",
    re.I,
)


def _place_after_comma(rest: str) -> bool:
    from probe.matching import lexicon

    return bool(lexicon.place_id(_strip(rest)))


def _exclamation(tokens: list[str]) -> bool:
    """Praise of the question or the task ("Great project", "How exciting", "What a lovely
    idea", "That's a fun problem to have"): lower-case dictionary words around praise."""
    from probe.matching import lexicon

    lows = [_lower(t) for t in tokens]
    if not 1 <= len(lows) <= 7 or any(t[:1].isupper() for t in tokens[1:]):
        return False
    if lows[0] in ("how", "what") and len(lows) <= 4 and lows[1:2] not in (["about"], ["if"]):
        return True               # "How exciting!", "What a question!"
    praised = any(w in W.PRAISE or _adjective_only(w) for w in lows)
    opener = lows[0] in ("how", "what") or lows[0].partition("'")[0] in ("that", "it", "this") \
        or lows[0] in W.PRAISE
    rest = [w for w in lows if not W.is_filler(w) and not _apostrophe_filler(w)
            and w not in ("to", "have")]
    return praised and opener and all(lexicon.parts_of_speech(w) and w.isalpha() for w in rest) \
        and len(rest) <= 2 and not (lows[0].partition("'")[0] in ("that", "it", "this")
                                    and not (set(lows) & W.PRAISE))


def _adjective_only(word: str) -> bool:
    from probe.matching import lexicon

    return lexicon.parts_of_speech(word) == frozenset({"ADJ"})


# Several answers offered by name: "Some popular picks are X and Y", "Good options include …".
_OFFERED = re.compile(r"\s*(?:[\w'’-]+\s+){0,3}?(?:picks|options|choices|favou?rites|suggestions|"
                      r"ideas|candidates|contenders|examples)\s+(?:are|include|would be|could be)\s+"
                      r"(.+)$", re.I)
# "I'd be glad to help", "I'm happy to share some": an offer of help, not an answer.
_OFFER_OF_HELP = re.compile(r"\s*(?:i'm|i’m|i am|i'd be|i’d be|i would be|we're|we'd be)\s+"
                            r"(?:\w+\s+)?(?:glad|happy|able|delighted|pleased|here)\s+to\b", re.I)
# "Different sports appeal to different people", "Many people love …": a general remark.
_GENERAL = re.compile(r"\s*(?:different|many|most|various|lots of|plenty of)\s+[a-z][\w-]*s\s+[a-z]",
                      re.I)
_WH_ANSWER = frozenset("which what who whom whose whichever whatever whoever wherever "
                       "however".split())


# A first-person clause of choosing anywhere in a segment ("…, I'll go with X", "in the end
# I'm going with X", "my final answer is X"): what it introduces is the answer, whatever
# scene, concession or condition comes before it.
_CHOICE_CLAUSE = re.compile(
    r"(?<![\w'’])(?:(?:i|we)(?:['’](?:ll|d|m)|\s+(?:will|would|am|shall))?|let['’]?s|let\s+me)"
    r"(?:\s+(?:just|probably|definitely|totally|really|personally|still|then|gonna|going\s+to|"
    r"have\s+to|has\s+to|must|ultimately|finally|eventually|happily|confidently))*"
    r"\s+(?:go(?:ing)?\s+with|say|pick|choose|opt\s+for|vote\s+for|settle\s+on|land\s+on|"
    r"lean(?:ing)?\s+towards?|recommend|suggest|stick\s+with|nominate)\b"
    r"|\bmy\s+(?!(?:second|backup|other|next|alternative|runner)\b)(?:[a-z]+\s+){0,2}?(?:pick|choice|answer|vote|"
    r"recommendation|suggestion)\s+(?:is|would\s+be|has\s+to\s+be|will\s+be)\b", re.I)
_HARD_CHOICE = re.compile(r"\s*(\w+ing)\b[^.!?]{0,60}?\b(?:is|was|'s|are)\s+(?:never|not|always|so|really|"
                          r"quite|truly|pretty|much|way|a\s+lot|a\s+bit)?\s*(?:easy|hard|difficult|tough|impossible|"
                          r"tricky|easier|harder|tougher|trickier|more\s+difficult|a\s+challenge)\b",
                          re.I)
_SWITCH = re.compile(r"\s*(?:(?:let\s+me|i['’]ll|i\s+will|i['’]d|i\s+would|i['’]m\s+going\s+to)\s+)?"
                     r"(?:change|switch|swap|update)\s+(?:that|it|this|my\s+(?:answer|pick|choice|mind))\s+"
                     r"(?:to|for)\s+(.+)$|\s*make\s+(?:that|it)\s+(?!a\b|an\b|the\b|one\b)(.+)$", re.I)
_PRAISE_BY_DENIAL = re.compile(r"\b(?:(?:you|one)\s+(?:can(?:not|'t|’t)|could(?:n't|n’t)|won(?:'t|’t))\s+"
                               r"(?:really\s+|possibly\s+)?(?:go\s+wrong\s+with|beat|top|resist)|"
                               r"nothing\s+(?:beats|tops|compares\s+to|comes\s+close\s+to))\s+(.+)$",
                               re.I)
# The request said back: "You'd like me to pick a random font", "You asked for a city".
_RESTATED = re.compile(r"\s*(?:so\s+)?you(?:['’]d\s+like|\s+would\s+like|\s+want|['’]re\s+asking|\s+are\s+asking|"
                       r"\s+asked|['’]re\s+looking|\s+are\s+looking|\s+need|\s+mentioned)\b", re.I)
_THE_TASK = re.compile(r"\s*(?:picking|choosing|selecting|finding|naming)\s+(?:a|an|the|one|your|just\s+one)\s+"
                       r"[^.!?:]{0,40}$", re.I)
_DEPENDS = re.compile(r"\b(?:depends|depend)\s+(?:\w+\s+){0,3}?(?:on|upon)\b", re.I)
# Choosing as the subject of a remark: "Picking a font at random is more fun when …".
_CHOOSING_IS = re.compile(r"\s*(\w+ing)\b(?:\s+(?:a|an|the|one|just|only|some|your|my)\b)[^.!?]{0,60}?\b"
                          r"(?:is|was|are|can\s+be|feels?|seems?|makes?)\s+(?:a\s+|more\s+|much\s+|so\s+)?[a-z]",
                          re.I)
_RELATIVE = re.compile(r",\s*(?:which|who|whose|that|because|since|as|though|although)\b", re.I)
_HERE_IT_IS = re.compile(r"\b(?:here\s+it\s+is|here\s+goes|here\s+you\s+go|here['’]s\s+(?:mine|my\s+\w+|the\s+\w+))\s*$|"
                         # Openers of casual talk before a colon: "Hot take: X", "Real talk: X".
                         r"^\W*(?:hot|real|honest|quick|unpopular|spicy)\s+(?:take|talk|opinion|answer)\s*$",
                         re.I)
_OPENING_CONJUNCTION = re.compile(r"^\s*(?:but|and|so|yet|still)\b[\s,]+", re.I)


def _about_choosing(tokens: list[str]) -> bool:
    """A condition about making the choice itself ("if I had to pick one", "if you're
    asking me to choose just one"), which commits rather than offers."""
    lows = {_lower(t) for t in tokens}
    return bool(lows & W.CHOICE_VERBS) and bool(lows & {"one", "me", "single", "only", "just"})


@lru_cache(maxsize=65536)
def _read_segment(text: str, cue_before: bool) -> Segment:
    """A segment's answer: read from its shape, then from a clause of choosing inside it,
    and a verb with its pronoun ("Love it", "I get it") is a remark, not a name."""
    denial = _PRAISE_BY_DENIAL.search(text)
    if denial and _content(_tokens(denial.group(1))):
        named = _named_in(denial.group(1), text)                # "…, you can't beat X"
        if named is not None:
            return named
    switched = _SWITCH.match(text)
    if switched and _content(_tokens(switched.group(1) or switched.group(2) or "")):
        # "let me change that to Hamlet", "make that Oslo": the answer it becomes.
        named = _named_in(switched.group(1) or switched.group(2), text)
        if named is not None:
            return named
    if _RESTATED.match(text) or _THE_TASK.match(text):
        # "You'd like me to pick a …", "## Picking a Greek god": the task, not a choice.
        return Segment("", text=_strip(text), remark=True)
    leaves = _LEAVES.match(text)
    if leaves and _tokens(leaves.group(1)):
        named = _named_in(leaves.group(1), text)                # "That leaves October"
        if named is not None:
            return named
    if _DEPENDS.search(text) and not _is_title_like(text):
        return Segment("", text=_strip(text), remark=True)      # "Choosing one depends on …"
    hard = _HARD_CHOICE.match(text) or _CHOOSING_IS.match(text)
    if hard and (_lower(hard.group(1)) in W.CHOICE_VERBS
                 or _lower(hard.group(1)) in ("narrowing", "deciding", "committing")):
        return Segment("", text=_strip(text), remark=True)    # "Choosing one is never easy"
    opening = _OPENING_CONJUNCTION.match(text)
    if opening and opening.end() < len(text) and _tokens(text[opening.end():]):
        text = text[opening.end():]          # "But if I had to pick one, it'd be X"
    seg = _read_segment_shape(text, cue_before)
    if not (seg.cue and seg.answer and not seg.remark):
        clause = _CHOICE_CLAUSE.search(text)
        if clause is not None and clause.start() > 0 and _tokens(text[:clause.start()]):
            chosen = _read_segment_shape(text[clause.start():], True)
            words = _content(_tokens(chosen.answer))
            if chosen.answer and words and not (chosen.remark or chosen.negated or chosen.listed) \
                    and _lower(words[0]) not in W.INDEFINITE_PRONOUNS | W.NON_ANSWERS:
                before = _tokens(_OPENING_CONJUNCTION.sub("", text[:clause.start()]))
                lows = [_lower(t) for t in before]
                negated = bool(set(lows) & W.NEGATIONS)
                offer = bool(lows) and lows[0] in ("if", "for", "when") and len(lows) > 1 \
                    and lows[1].partition("'")[0] in ("you", "your") and not _about_choosing(before)
                if not negated:
                    return replace(chosen, cue=True, conditional=offer or chosen.conditional,
                                   text=_strip(text))
    toks = _tokens(text)
    if seg.answer and 1 <= len(toks) <= 3 and all(
            _lower(t) in W.LABELS | W.CHOICE_NOUNS or W.is_filler(_lower(t)) for t in toks) \
            and any(_lower(t) in (W.LABELS | W.CHOICE_NOUNS) - {"one", "fan", "fans", "money", "go-to"}
                    for t in toks) and seg.answer[:1] not in "0123456789":
        return Segment("", text=_strip(text), cue=True)           # "## Verdict", "Final pick"
    if seg.answer and seg.answer.islower() and len(_tokens(seg.answer)) == 1 \
            and _lower(seg.answer) in W.PREPOSITIONS | W.PARTICLES_AFTER_CHOICE | {"through", "out", "over"}:
        return Segment("", text=_strip(text), remark=True)        # "Let me think it through"
    if seg.answer and all(_lower(t) in W.NON_ANSWERS for t in _tokens(seg.answer)):
        return Segment("", text=_strip(text), remark=True)        # "So many choices!"
    if seg.answer and not seg.cue and not seg.remark:
        named = _NAMED_CHOICE.match(text)
        if named and seg.answer in named.group("name"):
            return replace(seg, cue=True)      # "Fusilli is the one I'd put my money on"
    if seg.answer and not seg.cue and not seg.titled and _verb_clause(seg.answer, text):
        return Segment("", text=_strip(text), remark=True)
    if seg.answer and seg.cue and seg.answer[:1].islower() and _STATED.match(text) \
            and (_describing(_tokens(seg.answer)[0]) or seg.indefinite
                 or _adjective_not_noun(_tokens(seg.answer)[0])):
        # "It's beautifully made", "It's a genuine crowd-pleaser": said of the answer.
        return Segment("", text=_strip(text), remark=True)
    return seg


def _named_in(part: str, text: str) -> Segment | None:
    """``part`` of ``text`` read as the answer chosen, when it names one."""
    named = _read_segment_shape(part, True)
    if named.answer and not named.remark:
        return replace(named, cue=True, text=_strip(text))
    return None


def _adjective_not_noun(word: str) -> bool:
    """"accessible", "exciting": an adjective the dictionary never gives as a noun (colours,
    which are both, stay names: "it's magenta")."""
    from probe.matching import lexicon

    pos = lexicon.parts_of_speech(_lower(word))
    return "ADJ" in pos and "NOUN" not in pos


_STATED = re.compile(r"\s*(?:it|that|this)(?:['’]s|\s+is|\s+was)\b", re.I)


def _describing(word: str) -> bool:
    """A word that describes rather than names: an adverb ("beautifully") or a
    participle the dictionary knows only as a verb ("made", "loved")."""
    from probe.matching import lexicon

    pos = lexicon.parts_of_speech(_lower(word))
    return pos == frozenset({"ADV"}) or (pos == frozenset({"VERB"}) and word.endswith(("ed", "en")))


_SUBJECTS = frozenset("i we you they".split())
_RUN_ON = frozenset("it this that they we you he she there".split())
# An adverbial of time after a name: "NZ this time", "Oslo all the way".
_WHEN = re.compile(r"(?<=\S)\s+(?:all\s+the\s+way|this\s+time|every\s+time|today|tonight|for\s+now|"
                   r"right\s+now)\s*$")
# The name as the subject of a commitment: "Fusilli is the one I'd put my money on",
# "Kyoto is my pick", "Rigatoni would be my choice".
_NAMED_CHOICE = re.compile(r"(?P<name>.+?)\s+(?:is|was|would\s+be|will\s+be|['’]s)\s+(?:definitely\s+|easily\s+|"
                           r"clearly\s+|probably\s+|still\s+)?(?:my|our|the)\s+(?:\w+\s+){0,2}?"
                           r"(?:pick|choice|answer|vote|winner|recommendation|one\s+(?:i|we)\b|one\s+i['’]d\b|"
                           r"one\s+i['’]ll\b)", re.I)
# A choice by elimination: "That leaves October", "which leaves us with Kyoto".
_LEAVES = re.compile(r"\s*(?:and\s+)?(?:that|which|this)\s+leaves\s+(?:(?:us|me|just|only)\s+)*(?:with\s+)?(.+)$",
                     re.I)
# A sentence that points back at the answer just named: "That's my pick.", "It gets my vote."
POINTER = re.compile(r"\s*(?:that|this|it|which)(?:['’]s|\s+is|\s+was|\s+would\s+be|\s+gets|\s+has)\s+"
                     r"(?:definitely\s+|officially\s+)?(?:my|our)\s+(?:final\s+|top\s+)?(?:pick|choice|answer|vote|"
                     r"winner|recommendation)\s*[.!]*\s*$", re.I)
_OBJECTS = frozenset("it this that them me us".split())


def _verb_clause(answer: str, text: str) -> bool:
    """The answer read is a verb with its pronoun ("Love it!", "I appreciate the
    question", "so I get it right"): a clause about the conversation, not a name. A title
    in Title Case ("Love It or List It") is left alone."""
    from probe.matching import lexicon

    atoks = _tokens(answer)
    toks = _tokens(text)
    if not atoks or _is_title_like(text) and len(toks) > 1 \
            and sum(t[:1].isupper() for t in toks) > 1:
        return False
    lows = [_lower(t) for t in toks]
    first = _lower(atoks[0])
    at = next((i for i, w in enumerate(lows) if w == first), None)
    if at is None or "VERB" not in lexicon.parts_of_speech(first):
        return False
    before = lows[at - 1].partition("'")[0] if at else ""
    after = lows[at + 1] if at + 1 < len(lows) else ""
    if before in W.AUXILIARIES and at > 1:
        before = lows[at - 2]          # "I could chat about rivers forever"
    before = before.partition("'")[0]  # "I'll treat it like …"
    return before in _SUBJECTS or (after in _OBJECTS and len(atoks) == 1)


def _addressed(text: str) -> int:
    """Where the answer may start after an opening that only calls the listener, up to a
    comma ("Oh sweetie, …", "Well partner, …", "Listen, kid, …", "My dear friend, …"); 0
    when the text does not open so."""
    at = 0
    called = False
    while True:
        m = _CALLED.match(text, at)
        if not m:
            break
        words = [_lower(t) for t in _tokens(m.group(1))]
        k = 0
        while k < len(words) and (W.is_filler(words[k]) or words[k] in _ATTENTION) \
                and words[k] not in W.ADDRESS_LEADS:
            k += 1
        n = W.address_words(words[k:])
        if k + n != len(words):
            break
        called = called or n > 0
        at = m.end()
    rest = _tokens(text[at:])
    if not called:
        # Without a comma: "bestie it's X", "hun I'd say X" — a term of address, then a
        # clause of the speaker's.
        lows = [_lower(t) for t in rest[:4]]
        k = 0
        while k < len(lows) and W.is_interjection(lows[k]):
            k += 1
        n = W.address_words(lows[k:])
        if not n or k + n >= len(lows) \
                or lows[k + n].partition("'")[0].partition("’")[0] not in _SUBJECTS_AFTER_CALL \
                or text[at:][:1].isupper():
            return 0
        return at + _offset(text[at:], rest, k + n)
    if len(rest) >= 3 and all(t[:1].isupper() or t in _SMALL_WORDS for t in rest):
        return 0                  # "Honey, I Shrunk the Kids": a title that opens so
    if not _content(rest):
        return 0                  # "Honey, hands down": the word was the answer
    return at


# Up to four words before a comma, each a letter then letters or apostrophes (one way to
# match them, so no backtracking on a long sentence).
_CALLED = re.compile(r"\s*([^\W\d_][\w'’]*(?:\s+[^\W\d_][\w'’]*){0,3})\s*,\s*(?=\S)")
# "…, bless it", "…, trust me": a clause after a comma ends on one of these.
_CLAUSE_END_PRONOUNS = frozenset("it me you them us him her".split())


def _short_clause(tokens: list[str]) -> bool:
    """Two or three words ending on an object pronoun: a clause ("bless it", "trust me")."""
    return 2 <= len(tokens) <= 3 and _lower(tokens[-1]) in _CLAUSE_END_PRONOUNS
# Subjects that open the speaker's clause after a term of address: "bestie it's X".
_SUBJECTS_AFTER_CALL = frozenset("i it you u we they he she".split())
# Words that only ask for the listener's attention before a comma: "Listen, kid, …".
_ATTENTION = frozenset("listen look hey see say yo psst behold".split())


def _read_segment_shape(text: str, cue_before: bool) -> Segment:
    offered = _OFFERED.match(text)
    if offered and _content(_tokens(offered.group(1))):
        names = [p for p in (_strip(x) for x in _OR_SPLIT.split(offered.group(1))) if p]
        return Segment(names[0] if names else "", text=_strip(text), listed=True)
    if _OFFER_OF_HELP.match(text) or (_GENERAL.match(text) and not any(
            t[:1].isupper() for t in _tokens(text)[1:])):
        return Segment("", text=_strip(text), remark=True)
    m = re.match(r"\s*([^\W\d_]+)\s*,\s*(?=\S)", text)
    if m and (W.is_filler(_lower(m.group(1))) or _adverb(_lower(m.group(1)))) \
            and _lower(m.group(1)) not in W.PRONOUNS | W.DETERMINERS \
            and not _place_after_comma(text[m.end():]):
        text = text[m.end():]         # "Easy, Allosaurus", "Honestly, Kotlin"
    addressed = _addressed(text)
    if addressed:
        text = text[addressed:]       # "Oh sweetie, the Ganges", "Well partner, I reckon X"
    head, comma, tail = text.rpartition(",")
    if comma and head.strip() and _tokens(tail) \
            and W.address_words([_lower(t) for t in _tokens(tail)]) == len(_tokens(tail)):
        text = head                   # "…, dear.", "…, ye scallywag": the listener
    described = _DESCRIBED.match(text)
    if described and _content(_tokens(described.group(1))):
        # "The one that stands out is Kyoto", "The first that comes to mind is X".
        return replace(_read_segment(described.group(1), True), cue=True)
    tokens = _tokens(text)
    if not tokens:
        return Segment("")
    if _exclamation(tokens):
        return Segment("", text=_strip(text), exclaim=True)
    if HARD_REFUSAL.search(text) or _HARD_TO.match(text):
        return Segment("", text=_strip(text), remark=True)
    lows = [_lower(t) for t in tokens]
    while len(lows) > 2 and lows[0] in W.DISCOURSE:
        lows = lows[1:]               # "Just choose something…"
    if lows[0] in W.INSTRUCTION_VERBS and len(lows) > 1 and (
            lows[1] in ("a", "an", "another", "any", "some", "one") or lows[1] in W.INDEFINITE_PRONOUNS):
        # "Name a random bird. Name another…", "Just choose something with dice".
        return Segment("", text=_strip(text), remark=True)
    first_content = next((w for w in lows if w not in W.FUNCTION | W.DISCOURSE
                          and not _apostrophe_filler(w)), "")
    if first_content in W.DECLINE_VERBS:
        return Segment("", text=_strip(text), remark=True)     # "I'll sit this one out"
    if _remark(tokens):
        return Segment("", text=_strip(text), remark=True)
    # A phrase that sets the scene before a comma ("For a birthday card, a Monarch would be
    # lovely"; "In summer, go with yellow") is context, not the answer.
    song_title = len(tokens) >= 3 and tokens[-1][:1].isupper() \
        and all(t[:1].isupper() or t in _SMALL_WORDS for t in tokens) \
        and re.search(r"n['’]t$", tokens[0], re.I) is not None      # "Don't Stop Me Now"
    if song_title:
        return Segment(_strip(text), text=_strip(text), whole=True, titled=True)
    if _lower(tokens[0]) in W.NEGATIONS or (_lower(tokens[0]) in ("rather", "prefer")
                                           and len(tokens) > 1
                                           and _lower(tokens[1]) in W.NEGATIONS):
        return Segment("", text=_strip(text), negated=True)
    if (_lower(tokens[0]) in W.PREPOSITIONS or _lower(tokens[0]) in W.SUBORDINATORS) \
            and "," in text:
        context, rest = text.split(",", 1)
        if _content(_tokens(rest)):
            # "If I have to commit to one, Blue": a choosing clause makes what follows a pick.
            chosen = any(_lower(t) in W.CHOICE_VERBS for t in _tokens(context))
            # "If you like tall ones, X": an answer for one kind of user, an offer.
            # "If you're asking me to choose just one, X" commits all the same.
            offer = _lower(tokens[0]) == "if" and len(tokens) > 1 and \
                _lower(tokens[1]).partition("'")[0] in ("you", "your") \
                and not _about_choosing(_tokens(context))
            return replace(_read_segment(rest, cue_before or chosen), conditional=offer)
    head = text.split(",")[0]
    htoks = _tokens(head)
    if 2 <= len(htoks) <= 6 and all(t[:1].isupper() for t in htoks) and not head.isupper() \
            and all(W.is_filler(_lower(t)) or _apostrophe_filler(t) for t in htoks):
        # "Let It Be", "Let It Be, because it's unforgettable": a title of small words.
        return Segment(_strip(head), text=_strip(text), whole=head == text, titled=True)
    n, cue = _lead_in(tokens)
    if re.match(r"\s*[A-Z]\.\s*[A-Z]", text):
        n, cue = 0, False         # "A. Lincoln": an initial, not an article
    if 0 < n < len(tokens) and _lower(tokens[n - 1]) in ("your", "yours") \
            and not tokens[n][:1].isupper():
        return Segment("", text=_strip(text), remark=True)    # "it's your project"
    stated = 0 < n < len(tokens) and any(_lower(t) in ("it's", "that's", "it’s", "that’s")
                                         for t in tokens[:n])
    if stated and not tokens[n][:1].isupper() and not tokens[n][:1].isdigit() \
            and len(tokens) - n >= 3:
        # "It's beloved by so many people", "that's a classic for a reason": a remark on
        # the answer, not one.
        return Segment("", text=_strip(text), remark=True)
    if stated:
        cue = True                # "…but really it's the Crane": stated as the answer
    if 0 < n < len(tokens) and _lower(tokens[0]) in ("i", "we") and not tokens[n][:1].isupper() \
            and not text.isupper():
        # "I keep coming back to Baobab", "We always end up at Nando's": the speaker's own
        # verb phrase, lower case, and then a name written as one.
        k = next((k for k in range(n, min(len(tokens), n + 6)) if tokens[k][:1].isupper()
                  or tokens[k][:1].isdigit()), None)
        if k is not None and _lower(tokens[k - 1]) in W.PREPOSITIONS | W.CHOICE_VERBS \
                and all(t.islower() and _lower(t) not in W.PASSED_OVER | W.NEGATIONS
                        for t in tokens[n:k]):
            n, cue = k, True
    if n == len(tokens) and len(tokens) >= 2 and _lower(tokens[-1]) in W.AUXILIARIES \
            and tokens[-1][:1].isupper() and _lower(tokens[-2]) in ("be", "is", "say", "pick",
                                                                   "choose", "with", "go"):
        # "That has to be May", "I'd say May": the month, not the verb.
        return Segment(tokens[-1], text=_strip(text), cue=True)
    if n == len(tokens):
        lows_all = [_lower(t) for t in tokens]
        if len(tokens) <= 3 and lows_all != ["i"] \
                and not (len(tokens) > 1 and lows_all[-1] in ("a", "an", "the")) \
                and not (len(tokens) > 1 and set(lows_all) & W.AUXILIARIES
                         and not all(t[:1].isupper() for t in tokens)) and not any(_lower(t) in W.DISCOURSE | W.PRAISE or W.is_filler(
                _lower(t)) and _lower(t) not in W.FILLER for t in tokens) \
                and not W.NON_ANSWERS & {_lower(t) for t in tokens} \
                and not any(_lower(t) in W.CHOICE_NOUNS for t in tokens) \
                and not all(_lower(t) in W.DETERMINERS - {"a"} for t in tokens):
            # A short name made of function words: "The Who", "Her", "Us", "Go".
            return Segment(_strip(text), whole=True)
        return Segment("", text=_strip(text), cue=cue)
    lows = [_lower(t) for t in tokens[:n + 2]]
    praise_by_denial = any(w in W.NEGATIONS and {"wrong", "beat", "top", "miss", "resist"}
                           & set(lows[k + 1:k + 4]) for k, w in enumerate(lows))
    if praise_by_denial:
        # "You can't go wrong with Java", "You can't beat Monarch": a recommendation.
        k = max(i for i, w in enumerate(lows) if w in ("wrong", "beat", "top", "miss", "resist"))
        rest = text[_offset(text, tokens, k + 1):]
        if _content(_tokens(rest)):
            return replace(_read_segment(rest, True), cue=True)
    if any(_lower(t) in W.NEGATIONS for t in tokens[:n]) or (
            n < len(tokens) and _lower(tokens[n]) in W.PASSED_OVER):
        return Segment("", text=_strip(text), negated=True)
    between = n > 0 and (_lower(tokens[n - 1]) in ("between", "among")
                         or bool({"both", "either"} & {_lower(t) for t in tokens[:n]}))
    cue = cue or cue_before
    # Keep the segment's own characters from its first answer word on.
    # (all of it when nothing was dropped: "$5 bill", "#1 Fan" keep their first character)
    start = _offset(text, tokens, n) if n else len(text) - len(text.lstrip())
    # An article or demonstrative just before the answer stays with it ("The Who").
    body = text[start:]
    cut = False
    toks = tokens[n:]
    # The answer ends where its predicate or an explanation begins: "Spinosaurus would be
    # perfect", "Monarch, because …", "Poodle, of course", "Monarch it is".
    end = len(toks)
    complement = ""
    upper = text.isupper()
    for j in range(1, len(toks)):
        low = _lower(toks[j])
        if toks[j][:1].isupper() and not upper and low.partition("'")[0] in _RUN_ON \
                and j + 1 < len(toks) and toks[j + 1][:1].islower():
            end, cut = j, True        # "My pick: Hephaestus It fits the mood": a new sentence
            break
        if toks[j][:1].isupper() and not upper and low not in ("is", "are", "was", "were") \
                and low.partition("'")[0] != "i":
            continue                  # "The month of May", "Vitamin D", "Will Smith"
        if low in ("am", "pm") and toks[j - 1][:1].isdigit():
            continue                  # "7 AM": a time, not a verb
        clause = low in ("and", "but", "so") and j + 1 < len(toks) and not toks[j + 1][:1].isupper() \
            and _lower(toks[j + 1]) in W.PRONOUNS | W.DISCOURSE | W.AUXILIARIES
        # "I'd pick Heron over Egret", "Heron rather than Egret": the one preferred.
        clause = clause or (cue or cue_before) and (low == "over" or (
            low in ("rather", "instead") and j + 1 < len(toks) and _lower(toks[j + 1]) in ("than", "of")))
        if low in W.PREDICATE_VERBS or low in ("because", "since", "which", "who", "whose",
                                               "that", "as", "if", "though", "although",
                                               "while", "when", "where", "for") \
                or _apostrophe_filler(toks[j]) or clause:
            end, cut = j, True
            if low in ("wins", "win", "takes", "gets"):
                cue = True            # "… and Oct wins", "Monarch takes it"
            copula = next((c for c in range(j, len(toks)) if _lower(toks[c]) in
                           ("is", "was", "be", "'s") or _lower(toks[c]).endswith("'s")), None)
            if copula is not None and (copula == j or _apostrophe_filler(toks[j])
                                       or low in ("would", "will", "that", "which", "who")):
                after = toks[copula + 1:]
                skip = 0
                while skip < len(after) and _lower(after[skip]) in W.AUXILIARIES | W.DETERMINERS \
                        | W.DISCOURSE:
                    skip += 1
                if skip < len(after):
                    complement = _strip(_read_segment(
                        body[_offset(body, toks, copula + 1 + skip):], False).answer)
            break
    several = False
    if end < len(toks) and all(W.is_filler(_lower(t)) or _apostrophe_filler(t)
                               for t in toks[end:]):
        # Only filler followed ("Monarch it is"): the answer is still the whole segment —
        # unless it speaks of several ("X and Y are both great").
        several = bool({_lower(t) for t in toks[end:]} & {"both", "all", "each"})
        cut = several
    body = _upto(body, toks, end)
    # A comma ends the answer when what follows is filler or a clause ("Poodle, of course",
    # "Monarch, it is lovely"); a place after a comma stays ("Austin, TX").
    head, comma, tail = body.partition(",")
    if comma:
        tail_toks = _tokens(tail)
        if not _content(tail_toks) or (tail_toks and (_lower(tail_toks[0]) in W.FUNCTION
                                                      or _lower(tail_toks[0]) in W.NEGATIONS
                                                      or _apostrophe_filler(tail_toks[0]))) \
                or W.address_words([_lower(t) for t in tail_toks]) \
                or _short_clause(tail_toks):
            # "… , honey", "…, ye scallywag": the listener, not part of the name.
            body = head
            cut = cut or bool(_content(tail_toks))
    # Trailing filler ("Monarch it is", "Poodle for sure", "Monarch all the way"), and an
    # adverbial of time after the name ("NZ this time", "Q♠ all the way", "Tuesday today"
    # keeps its day: only lower-case words go).
    timeless = _WHEN.sub("", body)
    body = timeless if _tokens(timeless) else body
    btoks = _tokens(body)
    k = len(btoks)
    while k > 1 and (W.is_filler(_lower(btoks[k - 1])) or _apostrophe_filler(btoks[k - 1])) \
            and not (_lower(btoks[k - 1]) in ("am", "pm") and btoks[k - 2][-1:].isdigit()) \
            and _lower(btoks[k - 1]) not in W.DETERMINERS - {"all", "both"} \
            and (not btoks[k - 1][:1].isupper() or body.isupper()):
        k -= 1
    if k < len(btoks) and _content(btoks[:k]):
        body = _upto(body, btoks, k)
    answer = _strip(_collapse_repeats(_drop_brackets(body)))
    picked_word = cue and n > 0 and 1 <= len(_tokens(answer)) <= 3 and not any(
        _lower(t) in W.PRONOUNS | W.DISCOURSE | W.PRAISE | W.NON_ANSWERS | W.CHOICE_NOUNS
        for t in _tokens(answer))         # "let's say go": the word after the verb
    lead = [_lower(t) for t in tokens[:n] if _lower(t) not in W.DISCOURSE]
    first = lead[0].partition("'")[0] if lead else ""
    if first in W.HEDGE_SUBJECTS and answer[:1].islower() \
            and all(_adjective_only(_lower(t)) for t in _content(_tokens(answer))):
        # "That's subjective", "It's personal": a judgement of the question, not a name.
        return Segment("", text=_strip(text), remark=True)
    subject = [_lower(t) for t in tokens[:n] + toks[:end]]
    if complement and (not _content(_tokens(answer)) or any(
            w in W.CHOICE_VERBS or w in W.INDEFINITE_PRONOUNS or w in ("mine",) for w in subject)):
        # "The first that comes to mind is Matrix Reloaded": the subject names nothing;
        # "The breed I chose is Beagle": the subject describes the choice.
        return Segment(complement, text=_strip(text), cue=True, whole=True,
                       listed=is_list(complement))
    words = _content(_tokens(answer))
    if words and all(_adjective_only(_lower(t)) for t in words) and any(
            _lower(t) in W.CHOICE_NOUNS or _lower(t) in ("question", "thing") for t in tokens):
        # "Tricky one", "Interesting question": a judgement of the question.
        return Segment("", text=_strip(text), remark=True)
    atoks = _tokens(answer)
    titled = len(atoks) > 1 and all(t[:1].isupper() for t in atoks) and not answer.isupper()
    if not _content(_tokens(answer)) and not picked_word and not titled:
        # Nothing but filler, or praise alone: no answer here ("Great!", "Easy").
        return Segment("", text=_strip(text), cue=cue)
    whole_text = _strip(text)
    described = cut and end < len(toks) and _lower(toks[end]).partition("'")[0] == "i"
    if complement and (any(_lower(t) in ("my", "our") for t in tokens[:n]) or described) \
            and len(_tokens(answer)) <= 3:
        # "My number is 42", "My favourite butterfly is the Monarch": the complement answers.
        return Segment(complement, text=_strip(text), cue=True, whole=True,
                       listed=is_list(complement))
    listed = is_list(answer) or (len(_tokens(whole_text)) <= 8 and is_list(whole_text)
                                 and not _RELATIVE.search(whole_text)) or bool((between or several or re.search(r"\bbetween\b", answer, re.I))
                                 and bool(re.search(r"\s(?:and|&)\s", answer)))
    indefinite = n > 0 and _lower(tokens[n - 1]) in ("a", "an", "some", "any", "another",
                                                      "something", "somewhere", "someone")
    if n > 0 and (any(_lower(t) in W.INDEFINITE_PRONOUNS for t in tokens[:n]) or (
            _lower(tokens[n - 1]) == "some" and all(_adjective_only(_lower(t)) or _lower(t) in W.PRAISE
                                                    for t in _content(_tokens(answer))))):
        # "something tasty", "somewhere abroad", "something with milk": no name in it —
        # unless a copula follows with one ("Someone who comes to mind is Darwin").
        at = next((k for k in range(n, len(tokens) - 1) if _lower(tokens[k]) in ("is", "was")), None)
        if at is not None:
            named = _read_segment(text[_offset(text, tokens, at + 1):], True)
            if named.answer and not named.remark and not named.listed:
                return Segment(named.answer, text=_strip(text), cue=True, whole=True)
        return Segment("", text=_strip(text), remark=True)
    if not complement and (atoks and _lower(atoks[0]) in _WH_ANSWER and not answer[:1].isupper()
                           or (len(atoks) == 1 and _lower(atoks[0]) in _WH_ANSWER)):
        # "Let me think about which", "go with whichever speaks to you": no name.
        return Segment("", text=_strip(text), remark=True)
    return Segment(answer, text=_strip(text), cue=cue, whole=not cut, listed=listed,
                   complement=complement, indefinite=indefinite)


def _drop_brackets(text: str) -> str:
    """Remove "(…)" and "[…]" asides in one pass ("Star Wars (1977)", "C (the language)");
    an unclosed one ends the answer."""
    if "(" not in text and "[" not in text:
        return text
    out: list[str] = []
    depth, closer = 0, ""
    for ch in text:
        if depth:
            if ch == closer:
                depth = 0
            continue
        if ch in "([":
            depth, closer = 1, ")" if ch == "(" else "]"
            continue
        out.append(ch)
    kept = " ".join("".join(out).split())
    return kept if _content(_tokens(kept)) else text


def _collapse_repeats(text: str) -> str:
    """A base model's loop ("Marie Curie Marie Curie Marie Curie", "'8' '8' '8'") is one
    answer."""
    if any(q in text for q in QUOTES):
        # Quotes go; an apostrophe inside a word ("don't") stays.
        bare = " ".join(_QUOTE_MARK.sub(" ", text).split())
        if bare != text and _repeats(bare) != bare:
            return _repeats(bare)
    return _repeats(text)


_QUOTE_MARK = re.compile(rf"(?<!\w)[{re.escape(QUOTES)}]|[{re.escape(QUOTES)}](?!\w)")


def _repeats(text: str) -> str:
    parts = [p.strip(" .!?…") for p in re.split(r"\s*[,;]\s*", text.strip(" ,;.!?…"))]
    parts = [p for p in parts if p]
    if len(parts) >= 2 and len({p.casefold() for p in parts}) == 1:
        return parts[0]           # "Gregor Mendel, Gregor Mendel, Gregor Mendel"
    toks = text.split()
    for size in range(1, len(toks) // 2 + 1):
        unit = toks[:size]
        if all(toks[i:i + size] == unit[:len(toks[i:i + size])] for i in range(0, len(toks), size)):
            return " ".join(unit)
    return text


def _offset(text: str, tokens: list[str], n: int) -> int:
    pos = 0
    for tok in tokens[:n]:
        pos = text.index(tok, pos) + len(tok)
    if n < len(tokens):
        return text.index(tokens[n], pos)
    return len(text)


def _upto(text: str, tokens: list[str], k: int) -> str:
    """``text`` up to the end of its ``k``-th token."""
    if k >= len(tokens):
        return text
    pos = 0
    for tok in tokens[:k]:
        pos = text.index(tok, pos) + len(tok)
    return text[:pos]


_OR_SPLIT = re.compile(r"\s+(?:or|vs\.?|versus)\s+|\s*/\s*(?=\S{2})|\s*;\s*|\s*,\s*(?:(?:and|or)\s+)?"
                       r"|\s+and\s+(?=[^,]*$)", re.I)


@lru_cache(maxsize=65536)
def is_list(answer: str) -> bool:
    """Several options instead of one, by one rule: two or more parts, each a few words with
    an answer word in it, joined by "or", "vs", a slash, or commas ("Monarch or Morpho",
    "Either Monarch or Morpho", "Cat/Dog", "Red, blue, green"; "and" counts only after a
    comma list). A part after a comma that names a place qualifies the one before it
    ("Portland, Oregon"); "AC/DC" has parts too short to be options; three or more bare
    numbers side by side are a list too ("1 100 101")."""
    from probe.matching import lexicon

    answer = re.sub(r"(?<=\d),(?=\d{3}\b)", "", answer)    # 1,000,000 is one number
    said = answer.split()
    if len(said) > 1 and len(set(said)) == 1:
        return False              # "7 7 7 7": one answer said again
    if re.fullmatch(r"\s*\d+(?:\s*[, ]\s*\d+){2,}\s*", answer):
        return True
    if len(re.findall(r"(?:^|\s)\d{1,2}[.)]\s+\S", answer)) >= 2:
        return True               # "1) sax 2) cello 3) bass"
    text = re.sub(r"^\s*(?:either|both)\s+", "", answer, flags=re.I)
    text = re.sub(r"(?<=\d)/(?=\d)", "-", text)       # 3/14 is a date, not two options
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)    # 1,000 is one number
    has_comma = "," in text
    if not re.search(r"\s(?:or|vs\.?|versus)\s|/|,|;", text, re.I):
        return False
    parts = [p.strip(" .!?…" + QUOTES) for p in _OR_SPLIT.split(text)]
    parts = [p for p in parts if p]
    if len(parts) < 2:
        return False
    def option(part: str) -> bool:
        toks = _tokens(part)
        while len(toks) > 1 and _lower(toks[0]) in W.DISCOURSE:
            toks = toks[1:]               # "maybe blue, maybe purple"
        if not 1 <= len(toks) <= 5:
            return False
        if toks[0][:1].islower() and _short_clause(toks):
            return False          # "…, bless it", "…, trust me": a clause, not an option
        first = _lower(toks[0])
        if first not in ("a", "an", "the") and (W.is_filler(first) or first in W.SUBORDINATORS
                                                 or _apostrophe_filler(toks[0])) \
                and not (toks[0][:1].isupper() and (first in W.AUXILIARIES | W.PRONOUNS)
                         and len(toks) > 1 and toks[1][:1].isupper()) \
                and not (toks[0][:1].isupper() and first in W.AUXILIARIES) \
                and not (len(toks) > 1 and all(t[:1].isupper() for t in toks)):
            return False          # "…, because it's lovely", "Hmm, Apple": not an option
        return bool(_content(toks)) or all(t[:1].isupper() and len(t) > 2 for t in toks) \
            or (len(toks) > 1 and all(t[:1].isupper() for t in toks))    # "Among Us"

    if not all(option(p) for p in parts):
        return False
    if has_comma and not re.search(r"\s(?:or|and|vs\.?|versus)\s|/", text, re.I):
        first_place = lexicon.place_id(parts[0])
        if any(lexicon.place_id(p) for p in parts[1:]) and not (first_place and len(first_place) == 2):
            return False          # "Portland, Oregon, USA"; but "Madagascar, Greenland" is a list
    return True


def _alternative(seg: Segment) -> bool:
    """Offered as a second thought ("You could also try X", "X works too") — not "I'll go
    with X instead", where the word after the answer seals the choice."""
    text = seg.text or seg.answer
    words = [_lower(t) for t in _tokens(text)]
    if seg.cue and words and words[-1] == "instead":
        words = words[:-1]
    return bool(set(words) & W.ALTERNATIVES)


def choose(segments: tuple[Segment, ...], skip) -> Segment:
    """The segment a response commits to. The first segment with an answer that ``skip``
    does not reject (an echo of the question, say) when nothing was cut from it ("Monarch!
    I'd pick it every time"); otherwise the first one a verb of choosing introduced ("They
    all look great, but I'd go with the Morpho"; "Monarch or Morpho… I'll go with Monarch"),
    unless it offers a second thought ("You could also try …"); else the first answer."""
    answered = []
    for s in segments:
        if s.answer and skip(s) and s.complement:
            s = Segment(s.complement, text=s.text, cue=True, whole=True,
                        listed=is_list(s.complement))
        if s.answer and not s.remark and not s.negated and not s.exclaim and not skip(s):
            answered.append(s)
    if not answered:
        # No answer: an echo the caller skipped, else the first remark or filler as written.
        return (next((s for s in segments if s.answer), None)
                or next((s for s in segments if s.remark), None)
                or next((Segment("", text=s.text, remark=True) for s in segments if s.text),
                        segments[0]))
    corrected = [s for s in answered if s.corrected and not s.listed]
    if corrected:
        return corrected[-1]      # "Kale? No, wait. Broccoli."
    first = answered[0]
    turn = next((s for s in answered[1:] if s.after_but and s.cue and not s.listed
                 and not _alternative(s)), None)
    if turn is not None and first.listed:
        return turn               # "X or Y? X is tempting, but I'll settle on Y"
    if first.listed:
        options = {" ".join(_tokens(p)).casefold() for p in _OR_SPLIT.split(
            re.sub(r"^\s*(?:either|both|between)\s+", "", first.answer, flags=re.I))}
        again = next((s for s in answered[1:] if not s.listed
                      and " ".join(_tokens(s.answer)).casefold() in options), None)
        if again is not None:
            return again          # "Manta ray or Octopus... Octopus."
    turn = next((s for s in answered[1:] if s.after_but and s.cue and not s.listed
                 and not _alternative(s)), None)
    if turn is not None:
        return turn               # "I considered B6, but Vit K fits better"
    if first.whole and not first.listed:
        return first
    chosen = next((s for s in answered if s.cue and not s.listed and not _alternative(s)), None)
    return chosen or first


def extract(response: str | None) -> str:
    """The answer a response commits to: a few words, or '' when it names none."""
    return read(response).first.answer
