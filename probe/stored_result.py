"""A stored run's result as it was kept: its scores and every sample's match read back,
never matched again.

A run keeps one scored result per version (``Store.save_result``): the scores, and the
match of each sample that they count (in the samples table for a result as sampled, in the
version's ``canonicals`` for a re-score). Every view of a stored run reads that — the run
view, the answers, copies, exports, figures, History and Compare — so none can disagree
with another because the matcher changed since the run was scored, or because the samples
arrived in another order. Only a database from before scores were kept is scored again.
"""

from __future__ import annotations

from probe.matching import Match
from probe.metrics import Scores
from probe.scoring import Response, Scored
from probe.store import SampleRow, Store


def match_rows(scored: Scored) -> list[list]:
    """The matches of a re-score as its version keeps them: [kind, idx, canonical, reason,
    refusal, nonpick, answer] (a version from before kept only the first four)."""
    return [[r.kind, r.idx, m.canonical, m.reason, bool(m.refusal), m.nonpick, m.answer]
            for r, m in scored.matches]


def _nonpick(s: SampleRow) -> str:
    if s.nonpick:
        return s.nonpick
    if not s.canonical:
        return "empty"
    return "refusal" if s.refusal else ""


def _match(s: SampleRow, row: list | None) -> Match:
    answer, canonical, reason = s.answer, s.canonical, s.reason
    refusal, nonpick = bool(s.refusal), _nonpick(s)
    if row is not None:
        canonical, reason = row[2], row[3]
        if len(row) >= 7:
            refusal, nonpick, answer = bool(row[4]), row[5] or "", row[6]
    return Match(answer, canonical, reason, refusal, nonpick=nonpick)


def _agree(matches: list[tuple[Response, Match]], scores: Scores) -> list[tuple[Response, Match]]:
    """Each match's pick or non-pick as its side's kept distribution counts it, where that
    is plain (its answer is listed only as a pick, or only as a non-pick). A run finished
    by an older probe kept a sample's pick flag from the live pass, not the final one."""
    kinds: dict[tuple[str, str], set[bool]] = {}
    for side, dist in (("direct", scores.direct_distribution),
                       ("framed", scores.framed_distribution)):
        for ac in dist:
            kinds.setdefault((side, "" if ac.answer == "(empty)" else ac.answer),
                             set()).add(ac.refusal)
    out = []
    for r, m in matches:
        flags = kinds.get((r.kind, m.canonical))
        if m.canonical and flags is not None and len(flags) == 1:
            nonpick = next(iter(flags))
            if nonpick != bool(m.refusal):
                m = Match(m.answer, m.canonical, m.reason, nonpick,
                          nonpick="refusal" if nonpick else "")
        out.append((r, m))
    return out


def kept_scored(store: Store, run_id: int, version: dict | None = None) -> Scored | None:
    """The result ``version`` of the run (the newest by default) with each sample's match
    as it was kept; None when the run has no samples or no kept scores (a database from
    before they were kept: score it again, ``probe.services.score_samples``)."""
    if version is None:
        versions = store.result_versions(run_id)
        version = versions[-1] if versions else None
    if version is None or not version.get("scores"):
        return None
    try:
        scores = Scores.from_dict(version["scores"])
    except (TypeError, KeyError, ValueError, RecursionError):
        return None
    samples = store.samples(run_id)
    if not samples:
        return None
    rows = {(row[0], row[1]): row for row in version.get("canonicals") or []
            if isinstance(row, list) and len(row) >= 4}
    seen: set[tuple[str, int]] = set()
    matches = []
    for s in sorted(samples, key=lambda x: (x.kind != "direct", x.idx)):
        if (s.kind, s.idx) in seen:
            continue
        seen.add((s.kind, s.idx))
        matches.append((Response(s.kind, s.idx, s.response),
                        _match(s, rows.get((s.kind, s.idx)))))
    return Scored(scores, _agree(matches, scores))


__all__ = ["kept_scored", "match_rows"]
