"""Free-text answers → canonical forms (DESIGN.md "Answers → canonical forms").

The steps, one module each: `extract` the answer from a response, `normalise` it to a
comparison key, tell non-picks apart (`nonpick`: empty, refusals, echoes of the question),
and `cluster` keys into canonical answers by the rules of `rules`, each merge with its
reason. `cluster_answers` is order-free and scores final results; `Canonicalizer` adds one
answer at a time for the live view.
"""

from probe.matching.cluster import (AnswerSet, Canonicalizer, Match, cluster_answers,
                                    cluster_counted, same_answer, why_different)
from probe.matching.extract import extract
from probe.matching.nonpick import (ECHO, EMPTY, REFUSAL, classify, generic_words, is_echo,
                                    is_refusal, prompt_options)
from probe.matching.normalise import normalise
from probe.matching.rules import is_typo

__all__ = ["AnswerSet", "Canonicalizer", "Match", "cluster_answers", "cluster_counted", "same_answer",
           "why_different", "extract", "ECHO", "EMPTY", "REFUSAL", "classify",
           "generic_words", "is_echo", "is_refusal", "prompt_options", "normalise", "is_typo"]
