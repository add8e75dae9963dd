"""Merge suggestions for the Answers screen: canonical answers whose meaning is close.

Suggestions only — nothing is merged. Names are embedded as they are (all-MiniLM-L6-v2);
a pair is suggested at cosine ≥ 0.80. On the 103 labelled pairs of the matcher's test data
that bar suggests 23 of the 61 same-answer pairs and 7 of the 42 different ones (at 0.75:
29 and 11; at 0.85: 18 and 3). Leaving the prompt's words out before embedding was tried
and lost same-answer pairs without removing a single wrong one. A name made only of the
prompt's own words ("Butterfly" for "Choose a random butterfly") is an echo of the
question, never a merge partner.
"""

from __future__ import annotations

from probe.reference.embed import Embedder, cosine, shared
from probe.reference.keys import cluster_key

SUGGEST_COSINE = 0.80


def _words(text: str) -> set[str]:
    return set(cluster_key(text).split())      # lemmas: "Butterflies" → butterfly


def suggest_merges(names: list[str], prompt: str = "", min_cosine: float = SUGGEST_COSINE,
                   embedder: Embedder | None = None) -> list[tuple[str, str, float]]:
    """Pairs (a, b, cosine) of distinct names with cosine ≥ ``min_cosine``, closest first;
    within a pair ``a`` comes first in ``names``."""
    prompt_words = _words(prompt)
    names = [n for n in dict.fromkeys(names)
             if n and n.strip() and not _words(n) <= prompt_words]
    if len(names) < 2:
        return []
    vectors = (embedder or shared()).vectors(names)
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            c = cosine(vectors[a], vectors[b])
            if c >= min_cosine:
                pairs.append((a, b, round(c, 4)))
    pairs.sort(key=lambda p: -p[2])
    return pairs
