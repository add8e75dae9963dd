"""Responses files (``probe score``) read as tallies: each family's samples kept per
distinct response.

A file of a million rows holds far fewer distinct answers. Each row costs a few packed
integers; the text of a response is kept once however often it was given; matching and
scoring cost per distinct response; and the cap on rows (``MAX_SCORE_SAMPLES``) is checked
as each row is read, before it is kept.
"""

from __future__ import annotations

import time
from array import array
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Callable, Iterator, Sequence

from probe.errors import BadInput
from probe.family import Family
from probe.jsonl import iter_objects
from probe.limits import MAX_INT_DIGITS, MAX_RESPONSE_CHARS, MAX_SCORE_SAMPLES
from probe.matching import Match, cluster_counted
from probe.metrics import DR_THRESHOLD, PI_THRESHOLD, Scores
from probe.paths import resolved
from probe.reading import clean_text
from probe.scoring import Response, score_matches
from probe.second_reading import second_reading

Progress = Callable[[str], None]
_NONE = -1                      # no sample_idx given / not a framed sample


class RowGroup:
    """One family id's sample rows as read, before it is known which family they are."""

    def __init__(self) -> None:
        self.forms: dict[str, int] = {}         # distinct response → its number
        self.form = array("l")
        self.sample_idx = array("q")
        self.framing_idx = array("q")
        self.line = array("q")
        self.file = array("h")

    def __len__(self) -> int:
        return len(self.form)

    def add(self, text: str, sample_idx: int, framing_idx: int, line: int, file: int) -> None:
        self.form.append(self.forms.setdefault(text, len(self.forms)))
        self.sample_idx.append(sample_idx)
        self.framing_idx.append(framing_idx)
        self.line.append(line)
        self.file.append(file)


def _row_id(obj: dict, where: str) -> str | None:
    """A sample's family id: the released raw files say ``id``, its samplers ``entry_id``.
    An integer and its digits are one id (as import-dataset reads them); anything else that
    is not a string is refused rather than read as "no id"."""
    for key in ("id", "entry_id"):
        value = obj.get(key)
        if value is None:
            continue
        if type(value) is int or (isinstance(value, str) and value.strip()):
            return str(value)
        raise BadInput(f"{where}: '{key}' must be a string or an integer.")
    return None


def _index(obj: dict, key: str, where: str) -> int:
    value = obj.get(key)
    if value is None:
        return _NONE
    if type(value) is not int or value < 0:
        raise BadInput(f"{where}: '{key}' must be an integer (0 or more).")
    if value >= 10 ** MAX_INT_DIGITS:
        raise BadInput(f"{where}: '{key}' has more than {MAX_INT_DIGITS} digits.")
    if value >= 2 ** 31:
        raise BadInput(f"{where}: '{key}' is {value}, more than the largest index, "
                       f"{2 ** 31 - 1:,}.")
    return value


def read_groups(paths: Sequence[str | Path], progress: Progress | None = None
                ) -> dict[str | None, RowGroup]:
    """Every sample row of the files, grouped by family id (None: no id). Rows that record
    a failed call (an ``error`` key, as the paper's samplers write) are not samples."""
    groups: dict[str | None, RowGroup] = {}
    seen: dict[Path, Path] = {}
    rows = 0
    shown_at = time.monotonic()
    for number, path in enumerate(map(Path, paths)):
        real = resolved(path)
        if real in seen:
            raise BadInput(f"{path}: is given twice (as {seen[real]}); its samples would "
                           "count twice.")
        seen[real] = path
        for lineno, obj in iter_objects(path, "responses file"):
            if obj.get("error"):
                continue          # a failed call, with or without a 'response'
            where = f"{path}, line {lineno}"
            if "response" not in obj:
                raise BadInput(f"{where}: missing 'response'.")
            text = obj["response"]
            if text is not None and not isinstance(text, str):
                raise BadInput(f"{where}: 'response' must be a string.")
            rows += 1
            if rows > MAX_SCORE_SAMPLES:
                raise BadInput(f"{where}: more than the limit of {MAX_SCORE_SAMPLES:,} "
                               "samples in one `probe score`; split the file.")
            family_id = _row_id(obj, where)
            group = groups.get(family_id)
            if group is None:
                group = groups[family_id] = RowGroup()
            # A runaway response is cut, lone surrogates replaced, before it is kept.
            group.add(clean_text(text or "", MAX_RESPONSE_CHARS),
                      _index(obj, "sample_idx", where), _index(obj, "framing_idx", where),
                      lineno, number)
            if progress and rows % 16384 == 0 and time.monotonic() - shown_at > 0.25:
                shown_at = time.monotonic()
                progress(f"reading {path}: {rows:,} samples")
    return groups


@dataclass
class Tally:
    """One family's samples, each kind in index order, as numbers of distinct responses."""

    family: Family
    forms: list[str]
    direct_idx: array
    direct_form: array
    framed_idx: array           # positions in ``family.framings``
    framed_form: array

    def __len__(self) -> int:
        return len(self.direct_form) + len(self.framed_form)

    def samples(self) -> Iterator[tuple[str, int, str]]:
        """(kind, index, response) of every sample: direct ones, then framed."""
        forms = self.forms
        for idx, form in zip(self.direct_idx, self.direct_form):
            yield "direct", idx, forms[form]
        for idx, form in zip(self.framed_idx, self.framed_form):
            yield "framed", idx, forms[form]

    def responses(self) -> list[Response]:
        return [Response(kind, idx, text) for kind, idx, text in self.samples()]

    def prompt(self, kind: str, idx: int) -> str:
        return self.family.direct if kind == "direct" else self.family.framings[idx]


def tally(group: RowGroup, family: Family, names: Sequence[str | Path]) -> Tally:
    """A group's rows as ``family``'s samples: direct ones numbered by ``sample_idx`` (else
    in file order), framed ones by the dataset's ``framing_idx``; a number given twice,
    or a framing the family does not have, is one sentence naming the lines."""
    def where(row: int) -> str:
        return f"{names[group.file[row]]}, line {group.line[row]}"

    direct_rows = array("l", (r for r in range(len(group)) if group.framing_idx[r] == _NONE))
    numbers = _number_direct(group, direct_rows, where)
    # Sorted as one packed integer per row (index, then place): a million rows sort
    # without a million-entry key list beside them.
    order = sorted((n << 21) | i for i, n in enumerate(numbers)) \
        if any(a > b for a, b in zip(numbers, numbers[1:])) else range(len(numbers))
    if isinstance(order, list):
        order = array("l", (packed & 0x1FFFFF for packed in order))
    for a, b in zip(order, order[1:]):
        if numbers[a] == numbers[b]:
            first, again = sorted((direct_rows[a], direct_rows[b]))
            raise BadInput(f"{where(again)}: sample_idx {numbers[a]} appears again "
                           f"(first at {where(first)}).")
    first_at = [_NONE] * len(family.framings)
    for row in range(len(group)):
        fidx = group.framing_idx[row]
        if fidx == _NONE:
            continue
        position = family.framing_index(fidx)
        if position is None:
            raise BadInput(f"{where(row)}: framing_idx {fidx} is out of range: not a framing "
                           f"of family '{family.name}' ({len(family.framings)} framings).")
        if first_at[position] != _NONE:
            raise BadInput(f"{where(row)}: framing_idx {fidx} appears again "
                           f"(first at {where(first_at[position])}).")
        first_at[position] = row
    framed = [(p, row) for p, row in enumerate(first_at) if row != _NONE]
    forms = list(group.forms)
    return Tally(family, forms, array("q", (numbers[i] for i in order)),
                 array("l", (group.form[direct_rows[i]] for i in order)),
                 array("q", (p for p, _ in framed)), array("l", (group.form[r] for _, r in framed)))


def _number_direct(group: RowGroup, rows: list[int], where) -> array:
    """Each direct row's index: its ``sample_idx``, or for a row without one the next
    index no earlier row took (in a file without any, its place among the direct rows)."""
    given = [group.sample_idx[r] for r in rows]
    if all(i == _NONE for i in given):
        return array("q", range(len(rows)))
    if all(i != _NONE for i in given):
        return array("q", given)
    taken: set[int] = set()
    out = array("q")
    for n, (row, idx) in enumerate(zip(rows, given)):
        if idx == _NONE:
            idx = n
            while idx in taken:
                idx += 1
        elif idx in taken:
            first = next(r for r, i in zip(rows, out) if i == idx)
            raise BadInput(f"{where(row)}: sample_idx {idx} appears again "
                           f"(first at {where(first)}).")
        taken.add(idx)
        out.append(idx)
    return out


@dataclass
class TallyScored:
    scores: Scores
    matches: Callable[[], Iterator[Match]]     # one per sample, in ``Tally.samples`` order


def score_tally(t: Tally, rule: str = "probe", dr_threshold: float = DR_THRESHOLD,
                pi_threshold: float = PI_THRESHOLD) -> TallyScored:
    """Scores as ``rescore`` gives them for the same samples, matched once per distinct
    response (probe's rule); the released rule reads every response, as its code does."""
    if rule != "probe":
        from probe.reference import rescore_with

        scored = rescore_with(t.family, t.responses(), rule, dr_threshold, pi_threshold)
        return TallyScored(scored.scores, lambda: (m for _, m in scored.matches))
    return scored_from(t, *match_tally(t, dr_threshold, pi_threshold))


def match_tally(t: Tally, dr_threshold: float = DR_THRESHOLD,
                pi_threshold: float = PI_THRESHOLD) -> tuple[Scores, list[Match]]:
    """probe's rule: the scores, and the match of each distinct response (what a worker
    process sends back)."""
    weight = [0] * len(t.forms)
    for form in chain(t.direct_form, t.framed_form):
        weight[form] += 1
    matched = cluster_counted(t.forms, weight, t.family.direct, t.family.answers)
    direct, direct_n = _first_seen(t.direct_form)
    framed, framed_n = _first_seen(t.framed_form)
    d_matches, f_matches = [matched[f] for f in direct], [matched[f] for f in framed]
    scores = score_matches(d_matches, f_matches, dr_threshold, pi_threshold, direct_n, framed_n)
    scores.second = second_reading(t.family.direct, d_matches, f_matches, scores,
                                   [t.forms[f] for f in direct], [t.forms[f] for f in framed],
                                   direct_n, framed_n, dr_threshold, pi_threshold,
                                   ids=_SampleIds(t, direct, framed))
    return scores, matched


class _SampleIds:
    """The sample indices of a side's distinct response at a position: what the second
    reading lists (each side scanned once, on the first question)."""

    def __init__(self, t: Tally, direct: list[int], framed: list[int]):
        self.t = t
        self.forms = {"direct": direct, "framed": framed}
        self.by_form: dict[str, dict[int, list[int]]] = {}

    def __call__(self, kind: str, pos: int) -> list[int]:
        if kind not in self.by_form:
            idx, form = ((self.t.direct_idx, self.t.direct_form) if kind == "direct"
                         else (self.t.framed_idx, self.t.framed_form))
            table: dict[int, list[int]] = {}
            for i, f in zip(idx, form):
                table.setdefault(f, []).append(i)
            self.by_form[kind] = table
        return self.by_form[kind].get(self.forms[kind][pos], [])


def scored_from(t: Tally, scores: Scores, matched: list[Match]) -> TallyScored:
    def each() -> Iterator[Match]:
        for form in chain(t.direct_form, t.framed_form):
            yield matched[form]
    return TallyScored(scores, each)


def _first_seen(forms: array) -> tuple[list[int], list[int]]:
    """Each distinct response of one side once, in the order first seen, and how many
    samples gave it: what scoring needs (counts, and first-seen order for ties)."""
    counts: dict[int, int] = {}
    for form in forms:
        counts[form] = counts.get(form, 0) + 1
    return list(counts), list(counts.values())


def group_for(groups: dict[str | None, RowGroup], family: Family, label: str) -> RowGroup:
    """The rows of ``family`` in files that may hold several families: never pooled; only
    the family's own id is read, or the files are refused naming the ids."""
    if not groups:
        raise BadInput(f"{label}: has no responses.")
    if family.dataset_id is not None and family.dataset_id in groups:
        return groups[family.dataset_id]
    if len(groups) == 1:
        return next(iter(groups.values()))
    raise BadInput(
        f"{label}: holds responses of {len(groups)} families (ids {_id_list(groups)}); "
        f"family '{family.name}' has " + (f"id {family.dataset_id}, which is not among them"
                                          if family.dataset_id else "no dataset id")
        + ". Score a folder of their family files (probe import-dataset writes one) "
          "or split the file.")


def families_for_groups(groups: dict, families: Sequence[Family], label: str
                        ) -> list[tuple[Family, RowGroup]]:
    """Pair each family id in the responses with the family file of that id."""
    by_id: dict[str, Family] = {}
    for fam in families:
        if fam.dataset_id is None:
            continue
        if fam.dataset_id in by_id:
            first = by_id[fam.dataset_id]
            raise BadInput(f"{first.path or first.name} and {fam.path or fam.name} both have "
                           f"id {fam.dataset_id!r}; which one the responses are of is unclear.")
        by_id[fam.dataset_id] = fam
    missing = [i for i in groups if i not in by_id]
    if missing:
        raise BadInput(f"{label}: no family file for id(s) {_id_list(missing)} "
                       f"among {len(by_id)} families with a dataset id.")
    return [(by_id[i], g) for i, g in sorted(groups.items(), key=lambda kv: str(kv[0]))]


def _id_list(ids, limit: int = 5) -> str:
    shown = sorted(str(i) if i is not None else "(none)" for i in ids)
    more = f" and {len(shown) - limit} more" if len(shown) > limit else ""
    return ", ".join(shown[:limit]) + more
