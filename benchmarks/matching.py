"""Matching speed alone: `python benchmarks/matching.py`.

- the 133,260-answer figure of `benchmarks/run.py` (4,442 families of 30 answers), target < 10 s;
- one family with 8,000 distinct answers (issue 11 measured 173 s), target a few seconds;
- hostile responses (issue 11: 20–54 s each before extraction was made linear).
"""

from __future__ import annotations

import random
import string
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _timed(label: str, fn) -> None:
    start = time.perf_counter()
    fn()
    print(f"{label:<44} {time.perf_counter() - start:7.2f} s")


def main() -> None:
    from probe.family import Family
    from probe.matching import Canonicalizer
    from probe.scoring import Response, rescore

    import run as bench   # benchmarks/run.py: its own answer generator

    rng = random.Random(1)
    words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 12)))
             for _ in range(8000)]
    fam = Family("x", "Choose a random word.", [f"s{i}" for i in range(len(words))])
    responses = [Response("framed", i, w) for i, w in enumerate(words)]
    _timed("8,000 distinct answers, one family", lambda: rescore(fam, responses))
    for name, text in [("'Monarch' + 30,000 spaces + 'x'", "Monarch" + " " * 30_000 + "x"),
                       ("'St. ' x 12,000", "St. " * 12_000), ("'(' x 40,000", "(" * 40_000)]:
        _timed(name, lambda: Canonicalizer("Choose a random popular butterfly").add(text))
    bench.bench_matching()


if __name__ == "__main__":
    main()
