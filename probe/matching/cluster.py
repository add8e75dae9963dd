"""Step 3: comparison keys → canonical answers, the same whatever order answers arrive in.

Keys are joined by the symmetric rules of rules.py in a union-find, looked up through
indexes (the folded key, and typo slots: one word with one letter deleted), so matching
costs about one dictionary probe per word rather than a comparison with every answer seen.
Union-find components do not depend on arrival order; the few choices that could —
which family answer a key joins when it could join two, which qualified form a bare form
absorbs — are made over keys sorted the same way every time (family answers first, then by
count, then by key) by `cluster_answers`, which final scores use. A canonical answer is
named by the family's declared form, else its most frequent surface form (ties: the one
sorting first, so capitalised "Blue Morpho" over "blue morpho").
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from typing import Sequence

from probe.matching import rules
from probe.matching.anchor import (Decision, Frames, Vocabulary, decide_all, first_reading,
                                   question_words, reframed, revise)
from probe.matching.extract import extract
from probe.matching.knowledge import known_keyer
from probe.matching.nonpick import EMPTY, REFUSAL, generic_words, prompt_options
from probe.matching.normalise import normalise

Key = tuple[str, ...]
_NONPICK = "\x00"      # first word of a non-pick's key: non-picks never join picks


@dataclass
class Match:
    """Where one answer went and why."""

    answer: str           # the extracted surface form
    canonical: str        # display name of its canonical form ('' for empty)
    reason: str           # new | exact | alias | containment | compound | typo | place | qualifier | empty
    refusal: bool = False  # a non-pick that is not empty: a refusal or an echo of the question
    cluster: int = -1
    nonpick: str = ""     # '' for a pick, else 'empty', 'refusal' or 'echo'
    key: Key = field(default=(), repr=False)


class AnswerSet:
    """Comparison keys joined into canonical answers."""

    def __init__(self, generic: frozenset[str], answers: dict[str, list[str]] | None = None,
                 kinds_are_answers: bool = False, norm=normalise, years: bool = False):
        self.generic = generic
        # A question about breeds or cultivars asks for the very kinds a qualifier names:
        # a French bulldog is not a bulldog there.
        self.kinds_are_answers = kinds_are_answers
        # A question about years: "'89" is written for 1989.
        self.years = years
        self.keys: list[Key] = []
        self.index: dict[Key, int] = {}
        self.parent: list[int] = []
        self.how: list[str] = []
        # Each key's surface forms and counts: (form, count) while it has one, a Counter
        # once it has two (most keys of a big file never do).
        self.surfaces: list[tuple[str, int] | Counter | None] = []
        self.fixed: dict[int, str] = {}
        self._by_fold: dict[str, int] = {}
        self._by_slot: dict[int, int | list[int]] = {}
        # Full names by what their abbreviations look like ("js bach", "fdr", "vitamin _ v"),
        # kept as hashes like the typo slots (a hit is always checked again).
        self._by_full: dict[int, list[int]] = defaultdict(list)
        self._final: list[int] | None = None
        self._attached: dict[int, str] = {}
        self._names: dict[int, str] | None = None
        for canonical, aliases in (answers or {}).items():
            if not norm(canonical):
                continue          # "!!!" names nothing an answer could match
            i = self.add(norm(canonical))
            self.how[i] = "exact"
            self.fixed[self.find(i)] = canonical
            for alias in aliases:
                key = norm(extract(alias) or alias)
                if key:
                    j = self.add(key)
                    if self._union(i, j):
                        self.how[j] = "alias"

    # ---------------------------------------------------------- union-find
    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def _union(self, i: int, j: int) -> bool:
        ri, rj = self.find(i), self.find(j)
        if ri == rj:
            return True
        if ri in self.fixed and rj in self.fixed:
            return False          # two declared answers stay two
        if rj in self.fixed or (ri not in self.fixed and rj < ri):
            ri, rj = rj, ri
        self.parent[rj] = ri
        return True

    # ---------------------------------------------------------------- add
    def add(self, key: Key) -> int:
        """The index of ``key``, joining it to the answers it matches when it is new."""
        if key in self.index:
            return self.index[key]
        i = len(self.keys)
        self.keys.append(key)
        self.index[key] = i
        self.parent.append(i)
        self.how.append("new")
        self.surfaces.append(None)
        self._final = None
        if key[0] == _NONPICK:
            return i
        for sig in rules.initials_for(key):
            self._by_full[hash(("initials",) + sig)].append(i)
        for slot in rules.abbreviation_slots(key, short=False):
            self._by_full[hash(("abbreviation",) + slot)].append(i)
        # A new key joins at most one answer. One that would bridge two ("Grape fruit"
        # between Grape and Grapefruit, "Austraia" between Austria and Australia) keeps
        # the strongest join only — the whole key run together before the key without
        # its generic words — and a typo that fits two answers joins neither: a single
        # ambiguous form must never fuse two large answers into one.
        for folded in rules.folds(key, self.generic):
            j = self._by_fold.setdefault(folded, i)
            if j == i or (self.find(i) != i and self.find(j) != self.find(i)):
                continue
            if self._union(j, i) and self.how[i] == "new":
                self.how[i] = rules.fold_reason(self.keys[j], key, self.generic)
        typo_roots: dict[int, int] = {}
        for slot in rules.typo_slots(key):
            held = self._by_slot.get(slot)
            if held is None:          # most slots only ever hold one key: no list for it
                self._by_slot[slot] = i
                continue
            bucket = (held,) if isinstance(held, int) else held
            for j in bucket:
                if j != i and self.find(j) not in typo_roots and rules.is_typo(self.keys[j], key):
                    typo_roots[self.find(j)] = j
            if isinstance(held, int):
                if held != i:
                    self._by_slot[slot] = [held, i]
            elif held[-1] != i:
                held.append(i)
        if self.find(i) == i and len(typo_roots) == 1:
            (j,) = typo_roots.values()
            if self._union(j, i) and self.how[i] == "new":
                self.how[i] = "typo"
        return i

    def _lookup(self, key: Key) -> int | None:
        if key in self.index:
            return self.index[key]
        folded = rules.fold(key, self.generic)
        return self._by_fold.get(folded) if folded else None

    # ------------------------------------------------------------ resolve
    def _resolve(self) -> list[int]:
        """Final cluster of every key: union-find roots plus one-way qualifier attaches."""
        self._join_titles()
        roots = [self.find(i) for i in range(len(self.keys))]
        sources: dict[int, set[int]] = defaultdict(set)
        targets: dict[int, set[int]] = defaultdict(set)
        kinds: dict[int, list[tuple[int, str]]] = defaultdict(list)
        for i, key in enumerate(self.keys):
            if key[0] == _NONPICK:
                continue
            pointed = rules.bases_of(key)
            if not pointed:
                continue
            bases, kind = pointed
            if kind == "qualifier" and self.kinds_are_answers:
                continue
            if kind == "short name" and not self._written_as_name(i):
                continue          # "Matcha latte", "Guinea pig": a kind, not a full name
            j = next((j for j in (self._lookup(b) for b in bases) if j is not None), None)
            if j is None or roots[j] == roots[i]:
                continue
            sources[roots[j]].add(roots[i])
            targets[roots[i]].add(roots[j])
            kinds[roots[i]].append((i, kind))
        merged: dict[int, int] = {}
        self._attached = {}
        self._abbreviations(roots, merged)
        weight: Counter = Counter()
        for i, r in enumerate(roots):
            held = self.surfaces[i]
            weight[r] += held[1] if isinstance(held, tuple) else sum(held.values()) if held else 0
        for target, srcs in sources.items():
            if target in merged or any(s in merged for s in srcs):
                continue
            if len(srcs) != 1:
                # "Williams" next to Serena and Venus Williams: ambiguous — unless one of
                # them is given far more often, the name the short form most likely means.
                ranked = sorted(srcs, key=lambda r: (-weight[r], r))
                if weight[ranked[0]] < 3 * max(weight[ranked[1]], 1):
                    continue
                srcs = {ranked[0]}
            (src,) = srcs
            if len(targets[src]) != 1 or (src in self.fixed and target in self.fixed):
                continue
            if src in self.fixed:     # a declared answer keeps its name
                merged[target] = src
            else:
                merged[src] = target
            for i, kind in kinds[src]:
                self._attached[i] = kind
        final = []
        for r in roots:
            seen = 0
            while r in merged and seen < 4:   # a chain of two attaches at most in practice
                r, seen = merged[r], seen + 1
            final.append(r)
        return final

    def _join_titles(self) -> None:
        """A name with only a title before it ("Dr. Einstein", "Sir Isaac Newton", "Lt.
        Columbo") is the same answer as the name without it: joined outright, so it never
        makes a short name look ambiguous next to a full one ("Albert Einstein")."""
        for i, key in enumerate(self.keys):
            if key[0] == _NONPICK or len(key) < 2 or key[0] not in rules.HONORIFICS:
                continue
            k = 1
            while k < len(key) - 1 and key[k] in rules.HONORIFICS:
                k += 1
            base = key[k:]
            j = self._lookup(base)
            if j is None:
                # "President Lincoln" with no bare "Lincoln": the one full name it ends.
                fuller = {self.find(x) for x, other in enumerate(self.keys)
                          if len(other) > len(base) and other[-len(base):] == base
                          and other[0] != _NONPICK and other[0] not in rules.HONORIFICS}
                j = fuller.pop() if len(fuller) == 1 else None
            if j is not None and self.find(j) != self.find(i) and self._written_as_name(i):
                if self._union(j, i) and self.how[i] == "new":
                    self.how[i] = "short name"

    def _written_as_name(self, i: int) -> bool:
        """Whether key ``i`` is mostly written as a proper name: every word capitalised
        ("Niels Bohr", "Chicago Bulls", "Ludwig van Beethoven"), not "Guinea pig"."""
        held = self.surfaces[i]
        if not held:
            return False
        surface = held[0] if isinstance(held, tuple) else held.most_common(1)[0][0]
        words = [w for w in re.findall(r"[^\W\d_][\w'’.-]*", surface)
                 if w.casefold() not in rules.PARTICLES]
        return len(words) >= 2 and all(w[:1].isupper() for w in words)

    def _abbreviations(self, roots: list[int], merged: dict[int, int]) -> None:
        """Join answers written short to the one full answer they stand for: "J. S. Bach"
        and "JS Bach" to Johann Sebastian Bach, "FDR" to Franklin D. Roosevelt, "Vit K" to
        Vitamin K, "Weds" to Wednesday. A short form that fits two answers joins neither."""
        targets: dict[int, set[int]] = defaultdict(set)
        how: dict[int, list[tuple[int, str]]] = defaultdict(list)
        for i, key in enumerate(self.keys):
            if key[0] == _NONPICK:
                continue
            found: set[int] = set()
            for sig in rules.initials_of(key):
                found |= {roots[j] for j in self._by_full.get(hash(("initials",) + sig), ())
                          if sig in rules.initials_for(self.keys[j])}
                kind = "initials"
            for slot in rules.abbreviation_slots(key, short=True):
                hits = {roots[j] for j in self._by_full.get(hash(("abbreviation",) + slot), ())
                        if rules.is_abbreviation(key, self.keys[j])}
                if hits:
                    found |= hits
                    kind = "abbreviation"
            if self.years and len(key) == 1 and len(key[0]) == 2 and key[0].isdigit():
                found |= {roots[j] for j, other in enumerate(self.keys)
                          if len(other) == 1 and len(other[0]) == 4 and other[0].isdigit()
                          and other[0].endswith(key[0])}
                kind = "abbreviation"
            found.discard(roots[i])
            if found:
                targets[roots[i]] |= found
                how[roots[i]].append((i, kind))
        for src, tset in targets.items():
            if len(tset) != 1 or src in self.fixed:
                continue
            (target,) = tset
            if target in targets:          # a chain of short forms: keep it simple
                continue
            merged[src] = target
            for i, kind in how[src]:
                self._attached[i] = kind

    def cluster(self, i: int) -> int:
        if self._final is None or len(self._final) != len(self.keys):
            self._final = self._resolve()
            self._names = None
        return self._final[i]

    def reason(self, i: int) -> str:
        self.cluster(i)
        return self._attached.get(i, self.how[i])

    def name(self, cluster: int) -> str:
        self.cluster(cluster)
        if self._names is None:
            totals: dict[int, Counter] = defaultdict(Counter)
            for i, r in enumerate(self._final):
                held = self.surfaces[i]
                if isinstance(held, tuple):
                    totals[r][held[0]] += held[1]
                elif held:
                    totals[r].update(held)
            self._names = {r: min(c.items(), key=lambda kv: (-kv[1], kv[0].casefold(), kv[0]))[0]
                           for r, c in totals.items() if c}
            self._names.update(self.fixed)
        return self._names.get(cluster) or " ".join(self.keys[cluster]).lstrip(_NONPICK + " ")

    def count(self, i: int, surface: str, times: int = 1) -> None:
        held = self.surfaces[i]
        if held is None:
            self.surfaces[i] = (surface, times)
        elif isinstance(held, tuple):
            self.surfaces[i] = ((surface, held[1] + times) if held[0] == surface else
                                Counter({held[0]: held[1], surface: times}))
        else:
            held[surface] += times
        self._names = None


_KIND_QUESTIONS = frozenset({"breed", "cultivar", "subspecies", "cuisine", "dialect"})
# Questions whose answers are titles: a plural there is another work ("Aliens" is the sequel
# of "Alien"), so words keep their own form.
_TITLE_QUESTIONS = frozenset({"movie", "film", "book", "novel", "song", "album", "game", "show",
                              "series", "title", "play", "musical", "poem", "painting", "anime",
                              "manga", "sitcom", "videogame", "opera", "ballet", "franchise"})


def _titles(answer: str) -> tuple[str, ...]:
    return normalise(answer, lemmas=False)


def keyer(prompt: str):
    """The normaliser for a family: words lemmatised, except where answers are titles."""
    words = set(normalise(prompt or "", lemmas=False)) | set(normalise(prompt or ""))
    return known_keyer(words, _titles if _TITLE_QUESTIONS & words else normalise)


def asks_for_years(prompt: str) -> bool:
    return bool({"year", "decade", "vintage"} & set(normalise(prompt or "")))


def kinds_are_answers(prompt: str) -> bool:
    """Whether the question asks for kinds ("a random dog breed"): then "French bulldog"
    and "Bulldog" are two answers, not one answer and its qualified form."""
    return bool(_KIND_QUESTIONS & set(normalise(prompt or "")))


def _key_of(d: Decision) -> tuple[Key, str]:
    key = d.key
    if d.kind and key:
        key = (_NONPICK, d.kind) + key
    return key, d.kind


class Canonicalizer:
    """Maps answers of one family onto canonical forms as they arrive (the live view)."""

    def __init__(self, prompt: str = "", answers: dict[str, list[str]] | None = None,
                 answer_format: str = "words"):
        self.braces = answer_format == "braces"
        self.generic = generic_words(prompt)
        self.options = prompt_options(prompt)
        self.answers = answers or {}
        self.norm = keyer(prompt)
        self.set = AnswerSet(self.generic, answers, kinds_are_answers(prompt), self.norm,
                             years=asks_for_years(prompt))
        self.vocab = Vocabulary(self.generic, prompt, self.norm)
        self.question = question_words(prompt)
        self.frames = Frames()
        for i in range(len(self.set.keys)):
            self.vocab.add(self.set.keys[i], 2)

    def add(self, response: str | None) -> Match:
        """Place one response; later calls see it as an answer already seen (and read
        unsure responses against the answers seen so far)."""
        d = revise(first_reading(response, self.generic, self.options, self.question,
                                 self.norm, self.braces), self.vocab, self.generic, response)
        d = reframed(response, d, self.frames, self.vocab, self.generic, self.options,
                     self.question, self.norm, self.braces) or d
        if d.kind == "" and d.key and d.sure:
            self.vocab.add(d.key)
        self.frames.learn(response, d, self.vocab)
        answer = d.answer
        key, kind = _key_of(d)
        if not key:
            return Match(answer="", canonical="", reason="empty", refusal=kind == REFUSAL,
                         nonpick=kind or EMPTY)
        seen = key in self.set.index
        i = self.set.add(key)
        self.set.count(i, answer)
        reason = self.set.reason(i)
        if seen and reason == "new":
            reason = "exact"
        cluster = self.set.cluster(i)
        return Match(answer=answer, canonical=self.set.name(cluster), reason=reason,
                     refusal=bool(kind), cluster=cluster, nonpick=kind, key=key)

    def refresh(self, match: Match) -> Match:
        """Bring a match's cluster and name up to date with everything added since."""
        if match.key:
            match.cluster = self.set.cluster(self.set.index[match.key])
            match.canonical = self.set.name(match.cluster)
        return match

    def name_of(self, cluster_id: int) -> str:
        return self.set.name(cluster_id) if cluster_id >= 0 else ""


def cluster_answers(responses: Sequence[str | None], prompt: str = "",
                    answers: dict[str, list[str]] | None = None,
                    answer_format: str = "words") -> list[Match]:
    """Match a whole set of responses at once; the result does not depend on their order.
    With ``answer_format="braces"`` only an answer inside {braces} is a pick."""
    weight: Counter = Counter(responses)
    distinct = list(weight)
    matched = dict(zip(distinct, cluster_counted(distinct, [weight[r] for r in distinct],
                                                 prompt, answers, answer_format)))
    return [replace(matched[r]) for r in responses]


def cluster_counted(responses: Sequence[str | None], counts: Sequence[int], prompt: str = "",
                    answers: dict[str, list[str]] | None = None,
                    answer_format: str = "words") -> list[Match]:
    """One match per distinct response, given how often each was given: what
    ``cluster_answers`` gives every copy, at the cost of the distinct responses only (a
    file of a million rows holds far fewer)."""
    generic, options = generic_words(prompt), prompt_options(prompt)
    norm = keyer(prompt)
    declared = [norm(a) for canonical, aliases in (answers or {}).items()
                for a in [canonical, *aliases]]
    decisions = decide_all(responses, generic, options, prompt, [k for k in declared if k], norm,
                           answer_format == "braces", dict(zip(responses, counts)))
    seen = [(decisions[r].answer, *_key_of(decisions[r])) for r in responses]
    totals: Counter = Counter()
    for (_, key, _), n in zip(seen, counts):
        if key:
            totals[key] += n
    aset = AnswerSet(generic, answers, kinds_are_answers(prompt), norm,
                     years=asks_for_years(prompt))
    for key in sorted(totals, key=lambda k: (-totals[k], k)):
        aset.add(key)
    for (answer, key, _), n in zip(seen, counts):
        if key:
            aset.count(aset.index[key], answer, n)
    out = []
    for answer, key, kind in seen:
        if not key:
            out.append(Match(answer, "", "empty", refusal=kind == REFUSAL, nonpick=kind or EMPTY))
            continue
        i = aset.index[key]
        cluster = aset.cluster(i)
        reason = aset.reason(i)
        if reason == "new" and (totals[key] > 1 or aset.find(i) != i or cluster != i):
            reason = "exact"
        out.append(Match(answer, aset.name(cluster), reason, refusal=bool(kind),
                         cluster=cluster, nonpick=kind, key=key))
    return out


def same_answer(a: str, b: str, prompt: str = "",
                answers: dict[str, list[str]] | None = None) -> tuple[bool, str]:
    """Whether two answers are one canonical answer, and the rule that decided."""
    first, second = cluster_answers([a, b], prompt, answers)
    if not first.answer or not second.answer:
        return False, "empty"
    if first.cluster != second.cluster:
        return False, "different"
    reasons = [m.reason for m in (second, first) if m.reason not in ("new", "exact")]
    return True, reasons[0] if reasons else "exact"


def why_different(a: str, b: str, prompt: str = "") -> str:
    """Why ``same_answer`` keeps two answers apart, in a few words."""
    generic = generic_words(prompt)
    first, second = cluster_answers([a, b], prompt)
    for m, raw in ((first, a), (second, b)):
        if not m.answer:
            return f"'{raw}' has no answer in it"
        if m.nonpick:
            return f"'{m.answer}' is not a pick ({m.nonpick})"
    return rules.why_different(normalise(first.answer), normalise(second.answer), generic)
