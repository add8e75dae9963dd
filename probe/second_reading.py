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
from functools import cached_property
from typing import Callable, Iterable, Sequence

from probe.metrics import DR_THRESHOLD, PI_THRESHOLD, LABEL_TEXT

# At most this many of the family's answers are looked for (the most given): a label moves
# through its favourites, and a file of many thousand distinct answers stays cheap.
MAX_CANDIDATES = 40
# Sentences and clauses are read one at a time (a comparison key reads a few hundred characters).
_PIECES = re.compile(r"(?<=[.!?;:])\s+|\n+")
# The replies read otherwise that a result keeps to show, and how much of each.
EXAMPLES = 3
EXCERPT = 90
# The samples read otherwise that a result lists by index (a file of many thousand samples
# keeps the first).
MAX_LISTED = 500


@dataclass(frozen=True)
class SecondReading:
    """The label under the second reading, and the samples it read otherwise."""

    label: str
    top_answer: str | None
    dr: float
    fr: float
    direct: int          # direct samples read otherwise
    framed: int          # framed samples read otherwise
    agrees: bool         # same label as probe's reading
    # A few of the replies read otherwise, the most given first: (the reply on one line,
    # shortened; what probe read — "Arr (no pick)", "Came here to say a Griffin (given
    # once)"; the answer it names).
    examples: tuple[tuple[str, str, str], ...] = ()
    # The samples read otherwise (up to MAX_LISTED): (kind, index, the answer it names).
    samples: tuple[tuple[str, int, str], ...] = ()

    @classmethod
    def from_dict(cls, d: dict | None) -> "SecondReading | None":
        if d is None:
            return None
        values = dict(d)
        values["examples"] = tuple(tuple(str(x) for x in e) for e in values.get("examples", ()))
        values["samples"] = tuple((str(k), int(i), str(n)) for k, i, n in values.get("samples", ()))
        return cls(**values)

    def to_record(self) -> dict:
        return {"bias_type": self.label, "top_answer": self.top_answer, "dr": round(self.dr, 4),
                "fr": round(self.fr, 4), "reread": {"direct": self.direct, "framed": self.framed},
                "agrees": self.agrees,
                "examples": [{"reply": r, "read_as": a, "names": n} for r, a, n in self.examples],
                "samples": [{"kind": k, "idx": i, "names": n} for k, i, n in self.samples]}

    @cached_property
    def _named(self) -> dict[tuple[str, int], str]:
        return {(k, i): n for k, i, n in self.samples}

    def names(self, kind: str, idx: int) -> str | None:
        """The answer sample ``idx`` of ``kind`` names, when the second reading read it so
        (a lookup: every sample line of a result asks)."""
        return self._named.get((kind, idx))

    def example_lines(self) -> list[str]:
        """The examples as lines: ``“Arr, the Monarch be my pick!” → taken as “Arr” (no
        pick); names Monarch``."""
        out = []
        for reply, read_as, name in self.examples:
            taken, _, why = read_as.partition(" (")
            out.append(f"“{reply}” → taken as “{taken}”" + (f" ({why}" if why else "")
                       + f"; names {name}")
        return out

    def _count(self) -> str:
        n = self.direct + self.framed
        return f"{n} repl{'y' if n == 1 else 'ies'}"

    def short(self) -> str:
        """The note in a few words, for a line under the badge or a batch's summary."""
        return (f"reading-sensitive: counting {self._count()} as the answer they name, "
                f"{LABEL_TEXT[self.label]}")

    def sentence(self) -> str:
        """What was read otherwise and what the label would be, in one sentence."""
        sides = [f"{k} {side}" for side, k in (("direct", self.direct), ("framed", self.framed))
                 if k]
        return (f"{self._count()} ({', '.join(sides)}) were taken as no pick or as an answer "
                "given once, but each names one of the family's answers; counting them as that "
                f"answer, the label would be {LABEL_TEXT[self.label]} (DR {self.dr:.2f}, FR "
                f"{self.fr:.2f}). Check those replies before trusting this label")

    def note(self) -> str | None:
        """One sentence when the label depends on the reading; None when it holds."""
        return None if self.agrees else f"reading-sensitive — {self.sentence()}"


def second_reading(prompt: str, direct: Sequence, framed: Sequence, scores,
                   direct_texts: Sequence[str | None], framed_texts: Sequence[str | None],
                   direct_weights: Sequence[int] | None = None,
                   framed_weights: Sequence[int] | None = None,
                   dr_threshold: float = DR_THRESHOLD,
                   pi_threshold: float = PI_THRESHOLD,
                   ids: Callable[[str, int], Iterable[int]] | None = None
                   ) -> SecondReading | None:
    """The second reading of one result: ``direct`` and ``framed`` are its matches (in the
    order ``scores`` was computed from, with their ``*_weights``), ``*_texts`` the replies
    they read; ``ids(kind, position)``: the sample indices the match at ``position`` of
    that side stands for (by default the position itself). None when no reply is read
    otherwise."""
    from probe.matching.anchor import Vocabulary, _core
    from probe.matching.cluster import keyer
    from probe.matching.longreply import _markup_free
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
    where: dict[tuple[str, int], str] = {}     # (kind, position) → the answer it names

    def reread(matches, texts, weights, side):
        out = []
        for pos, (m, text, w) in enumerate(zip(matches, texts, weights)):
            lone = not m.refusal and given[m.canonical] <= 1
            if text and m.canonical and (m.refusal or lone):
                named = {answer_of[c] for piece in _PIECES.split(text)
                         for c in vocab.mentions(piece) if c in answer_of}
                if len(named) == 1:
                    name = named.pop()
                    how = f"no pick: {m.nonpick or 'refusal'}" if m.refusal else "given once"
                    seen[(_one_line(_markup_free(text), EXCERPT),
                          f"{_one_line(m.answer, 40)} ({how})", name)] += w
                    m = replace(m, canonical=name, refusal=False, nonpick="")
                    moved[side] += w
                    where[("direct", "framed")[side], pos] = name
            out.append(m)
        return out

    d2 = reread(direct, direct_texts, dw, 0)
    f2 = reread(framed, framed_texts, fw, 1)
    if not any(moved):
        return None
    s = score_matches(d2, f2, dr_threshold, pi_threshold, dw, fw)
    examples = tuple(e for e, _ in seen.most_common(EXAMPLES))
    listed: list[tuple[str, int, str]] = []
    for (kind, pos), name in where.items():
        listed += [(kind, i, name) for i in (ids(kind, pos) if ids else (pos,))]
    listed.sort(key=lambda x: (x[0] != "direct", x[1]))
    return SecondReading(s.label, s.top_answer, s.dr, s.fr, moved[0], moved[1],
                         s.label == scores.label, examples, tuple(listed[:MAX_LISTED]))


def _one_line(text: str, limit: int) -> str:
    """``text`` on one line, control and format characters as marks, at most ``limit``
    characters."""
    from probe.terminal import marked

    flat = marked(" ".join(text.split()))
    return flat if len(flat) <= limit else flat[:limit - 1].rstrip() + "…"
