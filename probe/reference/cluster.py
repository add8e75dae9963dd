"""The released clustering of one side's answers (direct or framed).

Answers sharing a cluster key form a bucket. Two buckets join when
  * their keys have the same derivational stem and embedding cosine ≥ 0.55 ("stem"),
  * one key's word set (at most three words) lies inside the other's and cosine ≥ 0.55
    ("containment"), or
  * their cosine is ≥ 0.85 whatever the wording ("cosine");
joins are transitive (connected components), so the result does not depend on the order
the pairs are examined in. A cluster is named by its most frequent surface form (ties: the
alphabetically first); clusters are ranked by count, ties going to the one seen first.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from probe.reference.keys import cluster_key, stem_of, surface_match

WORDING_FLOOR = 0.55     # stem and containment joins
SYNONYM_COSINE = 0.85    # joins on meaning alone
MAX_CONTAINED_WORDS = 3


@dataclass
class Cluster:
    keys: list[str]                       # cluster keys, first seen first
    surfaces: Counter = field(default_factory=Counter)
    first: int = 0                        # position of its earliest answer

    @property
    def count(self) -> int:
        return sum(self.surfaces.values())

    @property
    def name(self) -> str:
        return min(self.surfaces.items(), key=lambda kv: (-kv[1], kv[0]))[0]

    def candidates(self) -> list[str]:
        return [self.name, *self.keys]

    def matches(self, other: "Cluster") -> bool:
        """The released FR test: any name or key of one surface-matches any of the other."""
        return any(surface_match(a, b) for a in self.candidates() for b in other.candidates())


@dataclass
class Side:
    clusters: list[Cluster]               # ranked
    placement: list[tuple[int, str]]      # per answer: (rank of its cluster, why it is there)

    @property
    def total(self) -> int:
        return len(self.placement)


def _join_reason(a: str, b: str, cos: float) -> str | None:
    """Why keys ``a`` and ``b`` belong together, or None."""
    if cos >= WORDING_FLOOR and stem_of(a) == stem_of(b) and stem_of(a):
        return "stem"
    wa, wb = set(a.split()), set(b.split())
    small, large = sorted((wa, wb), key=len)
    if (cos >= WORDING_FLOOR and small and len(small) <= MAX_CONTAINED_WORDS
            and small <= large):
        return "containment"
    if cos >= SYNONYM_COSINE:
        return "cosine"
    return None


def cluster_answers(texts: list[str], vectors: dict) -> Side:
    """Cluster non-empty answers; ``vectors`` maps each answer's cluster key to its unit
    embedding."""
    import numpy as np

    keys = [cluster_key(t) for t in texts]
    order = list(dict.fromkeys(keys))                    # distinct keys, first seen first
    if not order:
        return Side([], [])
    mat = np.stack([vectors[k] for k in order])
    cos = mat @ mat.T
    n = len(order)
    # Edges, then components grown from each component's earliest key: the edge that
    # first reaches a key is the reason shown for it.
    edges: list[list[tuple[int, str]]] = [[] for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            why = _join_reason(order[i], order[j], float(cos[i, j]))
            if why:
                edges[i].append((j, why))
                edges[j].append((i, why))
    component = [-1] * n
    via = ["new"] * n
    groups: list[list[int]] = []
    for start in range(n):
        if component[start] >= 0:
            continue
        component[start] = len(groups)
        members, frontier = [start], [start]
        while frontier:
            nxt = []
            for i in frontier:
                for j, why in edges[i]:
                    if component[j] < 0:
                        component[j], via[j] = component[start], why
                        members.append(j)
                        nxt.append(j)
            frontier = sorted(nxt)
        groups.append(sorted(members))
    clusters = [Cluster([order[i] for i in g]) for g in groups]
    key_index = {k: i for i, k in enumerate(order)}
    seen_key: set[str] = set()
    reasons = []
    for pos, (text, key) in enumerate(zip(texts, keys)):
        c = clusters[component[key_index[key]]]
        if not c.surfaces:
            c.first = pos
        c.surfaces[text] += 1
        reasons.append("exact" if key in seen_key else via[key_index[key]])
        seen_key.add(key)
    ranked = sorted(range(len(clusters)), key=lambda c: (-clusters[c].count, clusters[c].first))
    rank_of = {c: r for r, c in enumerate(ranked)}
    placement = [(rank_of[component[key_index[k]]], why) for k, why in zip(keys, reasons)]
    return Side([clusters[c] for c in ranked], placement)
