"""Which base-model prompt gives the default model's answers the fewest non-picks?

For each bundled family, samples the direct question N times and every framing once on
the default model (Gemma 3 270M, llama.cpp) under each prompt variant, and counts the
non-picks (empty, refusal, echo, list) the matcher finds, per family and in all:
    python benchmarks/base_prompts.py [--samples 30] [--seed 1]

Variants (all stop at the first newline; no shot ever shares a content word with the
family's question, so none primes an answer):
- three-shot + instruction  (probe's default until 2026-12-02)
- zero-shot + instruction   (`Q: …\\n<instruction>\\nA:`)
- zero-shot, plain          (the released code's `Q: …\\nA:`)
- three-shot, plain         (the solved examples without the instruction line)
- five-shot + instruction   (the default since: the fewest non-picks)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from probe import family as fam_mod  # noqa: E402
from probe.backends import make_backend, resolve  # noqa: E402
from probe.backends.base import Sampling  # noqa: E402
from probe.matching import cluster_answers  # noqa: E402
from probe.prompting import INSTRUCTION, PromptStyle, pick_shots  # noqa: E402

VARIANTS = {
    "3-shot + instruction": (3, INSTRUCTION),
    "0-shot + instruction": (0, INSTRUCTION),
    "0-shot plain": (0, ""),
    "3-shot plain": (3, ""),
    "5-shot + instruction": (5, INSTRUCTION),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    args = ap.parse_args()
    spec = resolve(None)
    backend = make_backend(spec)
    backend.load()
    sampling = Sampling()
    chosen = [v for v in args.variants.split(",") if v in VARIANTS]
    families = list(fam_mod.discover(ROOT / "families"))
    totals = {v: [0, 0] for v in chosen}
    print(f"{'family':<22}" + "".join(f"{v:>24}" for v in chosen))
    start = time.perf_counter()
    for _, family in families:
        row = f"{family.name:<22}"
        for v in chosen:
            shots, instruction = VARIANTS[v]
            style = PromptStyle(mode="base", instruction=instruction,
                                shots=pick_shots(family.direct, shots))
            seeds = [args.seed * 1000 + i for i in range(args.samples)]
            texts = [c.text for c in backend.sample_many(family.direct, args.samples, style,
                                                         sampling, seeds)]
            fseeds = [args.seed * 1000 + 500 + i for i in range(len(family.framings))]
            texts += [c.text for c in backend.sample_each(family.framings, style, sampling,
                                                          fseeds)]
            matches = cluster_answers(texts, family.direct, family.answers)
            nonpicks = sum(1 for m in matches if m.nonpick)
            totals[v][0] += nonpicks
            totals[v][1] += len(matches)
            row += f"{nonpicks:>15} of {len(matches):<3} ({nonpicks / len(matches):4.0%})"[-24:]
        print(row, flush=True)
    print(f"{'all families':<22}" + "".join(
        f"{f'{n} of {t} ({n / t:.0%})':>24}" for n, t in totals.values()))
    best = min(chosen, key=lambda v: totals[v][0] / totals[v][1])
    print(f"fewest non-picks: {best}   ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
