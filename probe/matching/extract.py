"""Step 1: the answer inside a response.

First line, markup, lead-ins ("Sure! Here's one:", "I think I'll go with", "My number is")
and explanations removed, `{…}` brace answers unwrapped. Every step is linear in the text:
the response is cut to MAX_RESPONSE_CHARS and the chosen line to MAX_LINE first, whitespace
runs are collapsed before any pattern runs, and no pattern can backtrack over a long run.
"""

from __future__ import annotations

import re
import unicodedata

from probe.limits import MAX_RESPONSE_CHARS

# An answer is a few words; nothing past this in its line can change it.
MAX_LINE = 300

_ANSI = re.compile(r"\x1b\[[0-9;?]{0,32}[A-Za-z]|\x1b\][^\x07\x1b]{0,256}\x07")
_BRACE = re.compile(r"\{([^{}]*)\}")
_MARKUP = re.compile(r"[*_`~]+|^\s*#+\s*")
# A list's first item ("1. Monarch") or a lettered option ("a. Monarch", "(B) Viceroy");
# "7. It is lovely." is the answer 7, and "A. Lincoln" keeps its initial.
_LIST_MARK = re.compile(r"^(?:[-•>]|1[.)]|\(?[a-eA-E]\)|[a-e]\.)\s+(?=\S)")
QUOTES = "\"'“”‘’«»„`"

# Words that open a reply without being the answer ("Sure!", "Hmm,", "Definitely"). Those
# that could start an answer ("Great Dane") count only when punctuation follows them.
_FILLER = re.compile(
    r"^(?:(?:ok(?:ay)?|sure|alright|all right|great|well|yes|yeah|oh|of course|certainly|"
    r"absolutely|interesting|(?:that's|that’s|that is|what) an? (?:tough|hard|great|good|fun|"
    r"difficult|interesting|nice) (?:one|question|choice)|(?:tough|good|great|fun) (?:one|question)"
    r")[,!.:;…-]+ ?"
    r"|(?:hmm+|um+|uh+|sure thing|definitely|probably|maybe|perhaps|honestly|i think|i guess|"
    r"i suppose|i believe|let me think|let me see)(?:[,!.:;…-]+ ?| (?=\S)))",
    re.I,
)
_VERB = (r"(?:pick|choose|select|go with|say|suggest|recommend|vote for|opt for|name|"
         r"have to say|have to go with|answer|take)")
_NOUN = r"(?:pick|choice|answer|selection|favou?rite|suggestion|vote|number|guess|option)"
_COPULA = r"(?:would be|will be|is|be|has to be|must be)"
# Phrases that introduce the answer. Anchored, with bounded gaps: no backtracking.
_LEAD_IN = re.compile(
    r"^(?:"
    r"here(?:'s| is|’s) (?:one|mine|my (?:pick|choice|answer)|a (?:random |good )?(?:one|pick|choice)"
    r"|what i(?:'d| would|’d) (?:pick|choose))(?: for you)?\s?[:\-–—!.]? ?"
    r"|(?:my|our)(?: [a-z]+){0,2}? " + _NOUN + r"(?: " + _COPULA + r")?(?: ?[:\-–—] ?| )"
    r"|the(?: final| random| best)? " + _NOUN + r"(?: " + _COPULA + r" ?| ?[:\-–—] ?)"
    r"|(?:i(?:'d|’d| would| will|'ll|’ll|'m going to|’m going to| am going to| shall)?"
    r"|let me|let's|let’s|lets) (?:just )?" + _VERB + r"(?: with)?(?: ?[:\-–—] ?| )"
    r"|(?:i(?:'m|’m| am) going with|going with|how about|what about) "
    r"|(?:final )?answer ?[:\-–—] ?|a ?: "
    r"|it(?:'s|’s| is| would be| has to be) "
    r")",
    re.I,
)
_SENTENCE_END = re.compile(r"[.!?…](?= |$)")
_ABBREVIATIONS = {"st", "mt", "dr", "mr", "mrs", "ms", "no", "vs", "jr", "sr", "ft", "u.s", "d.c",
                  "e.g", "i.e", "etc"}
_EXPLAIN = re.compile(
    r" [-–—] | ?[:;] |, (?:because|since|as|which|it|i|my|the|a|an|and|but|though|although)\b"
    r"| (?:because|since)\b",
    re.I,
)


def _drop_brackets(text: str) -> str:
    """Remove "(…)" and "[…]" asides in one pass; an unclosed one ends the answer."""
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
    return "".join(out)


def _first_sentence(line: str) -> str:
    for m in _SENTENCE_END.finditer(line):
        start = line.rfind(" ", 0, m.start()) + 1
        word = line[start:m.start()]
        if word.casefold() in _ABBREVIATIONS or (len(word) == 1 and word.isupper()
                                                 and m.end() < len(line)):
            continue           # "St. Louis", "J. S. Bach", "A. Lincoln"
        return line[:m.start()]
    return line


def _strip(line: str) -> str:
    return line.strip().strip(QUOTES + " ").rstrip(".!?,;:…").strip().strip(QUOTES + " ")


def _drop_lead_ins(line: str) -> str:
    for _ in range(4):
        before = line
        for pattern in (_FILLER, _LEAD_IN):
            m = pattern.match(line)
            if m and line[m.end():].strip(QUOTES + " .!?"):
                line = line[m.end():].lstrip(QUOTES + " ")
        if line == before:
            break
    return line


def extract(response: str | None) -> str:
    """The answer inside a response: first line, markup and lead-ins removed."""
    if not response:
        return ""
    text = _ANSI.sub("", response[:MAX_RESPONSE_CHARS]).replace("\r", "\n")
    m = _BRACE.search(text)
    if m and m.group(1).strip():
        text = m.group(1)
    line = ""
    for candidate in text.split("\n"):
        candidate = candidate[:MAX_LINE]
        if _MARKUP.sub("", candidate).strip():
            line = candidate
            break
    if not line.isprintable():
        line = "".join(ch if unicodedata.category(ch)[0] != "C" else " " for ch in line)
    line = " ".join(line.split())
    line = _LIST_MARK.sub("", line)
    line = " ".join(_MARKUP.sub("", line).split())
    line = _strip(line) if line[:1] in QUOTES else line
    line = _drop_lead_ins(line)
    line = " ".join(_drop_brackets(line).split())
    line = _first_sentence(line)
    # A filler may have ended its own sentence ("Sure! Frozen."): look again.
    line = _drop_lead_ins(line)
    m = _EXPLAIN.search(line)
    if m and m.start() > 0:
        line = line[: m.start()]
    return " ".join(_strip(line).split())
