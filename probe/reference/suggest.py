"""Merge suggestions for the Answers screen: canonical answers whose meaning is close.

Suggestions only — nothing is merged. Words an answer shares with the prompt ("butterfly"
in "Monarch butterfly" for "Choose a random butterfly") are left out before embedding, so
two answers are not called alike merely for naming the category.
"""

from __future__ import annotations

import re

from probe.reference.embed import Embedder, cosine, shared

SUGGEST_COSINE = 0.75
_WORD = re.compile(r"\w+")


def _without_prompt_words(name: str, prompt_words: set[str]) -> str:
    words = _WORD.findall(name.lower())
    kept = [w for w in words if w not in prompt_words]
    return " ".join(kept) if kept else " ".join(words) or name.lower()


def suggest_merges(names: list[str], prompt: str = "", min_cosine: float = SUGGEST_COSINE,
                   embedder: Embedder | None = None) -> list[tuple[str, str, float]]:
    """Pairs (a, b, cosine) of distinct names with cosine ≥ ``min_cosine``, closest first;
    within a pair ``a`` comes first in ``names``."""
    names = list(dict.fromkeys(n for n in names if n and n.strip()))
    if len(names) < 2:
        return []
    prompt_words = set(_WORD.findall(prompt.lower()))
    texts = {n: _without_prompt_words(n, prompt_words) for n in names}
    vectors = (embedder or shared()).vectors(texts.values())
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if texts[a] == texts[b]:
                continue        # the same words: the matcher's business, not a suggestion
            c = cosine(vectors[texts[a]], vectors[texts[b]])
            if c >= min_cosine:
                pairs.append((a, b, round(c, 4)))
    pairs.sort(key=lambda p: -p[2])
    return pairs
