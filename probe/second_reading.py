"""A second, plainer reading of a family's replies: does the label depend on how they were read?

probe reads each reply for the one answer it picks; on prose it does not know (a character's
voice, a forum post, slang) that reading can lose picks: a reply that names the favourite
reads as no pick, or as a phrase of its prose that no other reply gives. Such losses pull DR
and FR down, and a Deep or Shallow favourite becomes Non-bias.

The second reading keeps every reading but one kind: a reply read as **no pick** (not empty)
or as an answer **no other reply gives** is read instead for the family's *attested* answers
(those two or more replies give, as probe read them). When it names exactly one of them, it is
read as that answer. Then DR, FR and the label are computed again. It is deliberately naive —
it takes "Monarch is overdone; try a Zebra Longwing" for Monarch when Zebra Longwing is given
once — so it is not a better verdict; it bounds how far the reading can move the verdict. When
the two labels differ, the verdict rests on how those replies were read, and the views say so.

Computed when a result is scored with probe's rule from the replies' text (not under the
released rule, which reads raw replies, nor with ``--answer-format braces``, which reads
exactly), and kept with the scores.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Sequence

from probe.metrics import DR_THRESHOLD, PI_THRESHOLD, LABEL_TEXT

# At most this many of the family's answers are looked for (the most given): a label moves
# through its favourites, and a file of many thousand distinct answers stays cheap.
MAX_CANDIDATES = 40
# Sentences and clauses are read one at a time (a comparison key reads a few hundred characters).
_PIECES = re.compile(r"(?<=[.!?;:])\s+|\n+")
# The replies read otherwise that a result keeps to show, and how much of each.
EXAMPLES = 3
EXCERPT = 90


@dataclass(frozen=True)
class SecondReading:
    """The label under the second reading, and how many samples it read otherwise."""

    label: str
    top_answer: str | None
    dr: float
    fr: float
    direct: int          # direct samples read otherwise
    framed: int          # framed samples read otherwise
    agrees: bool         # same label as probe's reading
    # A few of the replies read otherwise, the most given first: (the reply on one line,
    # shortened; what probe read; the answer it names).
    examples: tuple[tuple[str, str, str], ...] = ()

    @classmethod
    def from_dict(cls, d: dict | None) -> "SecondReading | None":
        if d is None:
            return None
        values = dict(d)
        values["examples"] = tuple(tuple(str(x) for x in e) for e in values.get("examples", ()))
        return cls(**values)

    def to_record(self) -> dict:
        return {"bias_type": self.label, "top_answer": self.top_answer, "dr": round(self.dr, 4),
                "fr": round(self.fr, 4), "reread": {"direct": self.direct, "framed": self.framed},
                "agrees": self.agrees,
                "examples": [{"reply": r, "read_as": a, "names": n} for r, a, n in self.examples]}

    def example_lines(self) -> list[str]:
        """The examples as lines: ``“Arr, the Monarch be my pick!” read as Arr (no pick);
        names Monarch``."""
        return [f"“{r}” read as {a}; names {n}" for r, a, n in self.examples]

    def short(self) -> str:
        """The note in a few words, for a line under the badge or a batch's summary."""
        n = self.direct + self.framed
        return (f"reading-sensitive: with {n} repl{'y' if n == 1 else 'ies'} read as the "
                f"answer they name, {LABEL_TEXT[self.label]}")

    def note(self) -> str | None:
        """One sentence when the label depends on the reading; None when it holds."""
        if self.agrees:
            return None
        parts = [f"{n} {side}" for side, n in (("direct", self.direct), ("framed", self.framed))
                 if n]
        replies = " and ".join(parts) + (" replies" if self.direct + self.framed != 1
                                         else " reply")
        return (f"reading-sensitive: {replies} read as no pick or a lone answer name one of "
                f"the family's answers; read as that answer, the label would be "
                f"{LABEL_TEXT[self.label]} (DR {self.dr:.2f}, FR {self.fr:.2f}) — read the "
                "replies before trusting it")


def second_reading(prompt: str, direct: Sequence, framed: Sequence, scores,
                   direct_texts: Sequence[str | None], framed_texts: Sequence[str | None],
                   direct_weights: Sequence[int] | None = None,
                   framed_weights: Sequence[int] | None = None,
                   dr_threshold: float = DR_THRESHOLD,
                   pi_threshold: float = PI_THRESHOLD) -> SecondReading | None:
    """The second reading of one result: ``direct`` and ``framed`` are its matches (in the
    order ``scores`` was computed from, with their ``*_weights``), ``*_texts`` the replies
    they read. None when no reply is read otherwise."""
    from probe.matching.anchor import Vocabulary, _core
    from probe.matching.cluster import keyer
    from probe.matching.nonpick import generic_words
    from probe.scoring import score_matches

    dw = list(direct_weights) if direct_weights is not None else [1] * len(direct)
    fw = list(framed_weights) if framed_weights is not None else [1] * len(framed)
    given: Counter = Counter()
    for m, w in zip([*direct, *framed], [*dw, *fw]):
        if m.canonical and not m.refusal:
            given[m.canonical] += w
    attested = [c for c, n in given.most_common(MAX_CANDIDATES) if n >= 2]
    if not attested:
        return None
    generic = generic_words(prompt)
    norm = keyer(prompt)
    vocab = Vocabulary(generic, prompt, norm)
    answer_of: dict[tuple, str] = {}
    wanted = set(attested)
    for m in [*direct, *framed]:
        if m.canonical in wanted and not m.refusal:
            for key in {m.key or norm(m.answer), norm(m.canonical)}:
                core = _core(key, generic)
                if core and core not in answer_of:
                    answer_of[core] = m.canonical
                    vocab.add(key, 2)
    moved = [0, 0]
    seen: Counter = Counter()         # (reply, read as, names) → samples

    def reread(matches, texts, weights, side):
        out = []
        for m, text, w in zip(matches, texts, weights):
            lone = not m.refusal and given[m.canonical] <= 1
            if text and m.canonical and (m.refusal or lone):
                named = {answer_of[c] for piece in _PIECES.split(text)
                         for c in vocab.mentions(piece) if c in answer_of}
                if len(named) == 1:
                    name = named.pop()
                    seen[(_one_line(text, EXCERPT),
                          _one_line(m.answer, 40) + (f" ({m.nonpick or 'no pick'})"
                                                    if m.refusal else ""), name)] += w
                    m = replace(m, canonical=name, refusal=False, nonpick="")
                    moved[side] += w
            out.append(m)
        return out

    d2 = reread(direct, direct_texts, dw, 0)
    f2 = reread(framed, framed_texts, fw, 1)
    if not any(moved):
        return None
    s = score_matches(d2, f2, dr_threshold, pi_threshold, dw, fw)
    examples = tuple(e for e, _ in seen.most_common(EXAMPLES))
    return SecondReading(s.label, s.top_answer, s.dr, s.fr, moved[0], moved[1],
                         s.label == scores.label, examples)


def _one_line(text: str, limit: int) -> str:
    """``text`` on one line, control and format characters as marks, at most ``limit``
    characters."""
    from probe.terminal import marked

    flat = marked(" ".join(text.split()))
    return flat if len(flat) <= limit else flat[:limit - 1].rstrip() + "…"
