"""Template-drafted framings against the hand-written ones, and `probe new --run`'s time.

For each bundled family and seed: a full run of the family as written, and a full run of
the same direct question with 30 framings drafted from templates (same seed, so the direct
samples are the same draws). Prints FR side by side, whether the labels and the framed
favourites agree, then the wall time of `probe new "…" --run` to a printed verdict, and the
category finder on the two question sets.
    python benchmarks/drafting.py [--seeds 3] [--timings 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from probe import family as fam_mod  # noqa: E402
from probe.backends import make_backend, resolve  # noqa: E402
from probe.drafting import CategoryNotFound, draft_family, find_category  # noqa: E402
from probe.runner import Runner, RunSettings  # noqa: E402
from probe.store import Store  # noqa: E402

QUESTIONS = ["Choose a random popular butterfly.", "Pick a number between 1 and 100.",
             "Choose a random programming language."]


def side_by_side(seeds: int) -> None:
    spec = resolve(None)
    backend = make_backend(spec)
    backend.load()
    store = Store(Path(tempfile.mkdtemp()) / "bench.db")
    print(f"{'family':<22}{'seed':>5}  {'FR hand':>8}{'FR drafted':>11}  "
          f"{'label hand':<11}{'label drafted':<14}{'framed top hand / drafted'}")
    same_label = same_top = total = 0
    gaps = []
    for _, family in fam_mod.discover(ROOT / "families"):
        for seed in range(seeds):
            drafted = draft_family(family.direct, seed=seed, name=f"{family.name} drafted")
            out = {}
            for kind, fam in (("hand", family), ("drafted", drafted.family)):
                runner = Runner(store, backend)
                run_id = runner.create(fam, RunSettings(seed=seed), spec.display)
                out[kind] = runner.execute(run_id).scores
            hand, auto = out["hand"], out["drafted"]
            assert hand.top_answer == auto.top_answer      # same direct draws
            total += 1
            same_label += hand.label == auto.label
            same_top += hand.framed_top == auto.framed_top
            gaps.append(abs(hand.fr - auto.fr))
            print(f"{family.name:<22}{seed:>5}  {hand.fr:>8.2f}{auto.fr:>11.2f}  "
                  f"{hand.label:<11}{auto.label:<14}{hand.framed_top} / {auto.framed_top}"
                  f"   (direct top {hand.top_answer}, DR {hand.dr:.2f})")
    print(f"\nlabels agree: {same_label}/{total}; framed favourite agrees: {same_top}/{total}; "
          f"|FR hand - FR drafted|: mean {statistics.mean(gaps):.2f}, "
          f"max {max(gaps):.2f}")


def new_run_timings(repeats: int) -> None:
    times = []
    for i in range(repeats):
        question = QUESTIONS[i % len(QUESTIONS)]
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "PROBE_FAMILIES": str(Path(tmp) / "families"),
                   "PROBE_DB": str(Path(tmp) / "probe.db")}
            start = time.perf_counter()
            out = subprocess.run([sys.executable, "-m", "probe", "new", question, "--run",
                                  "--seed", str(i)], capture_output=True, text=True, env=env,
                                 cwd=tmp, timeout=600)
            took = time.perf_counter() - start
        if out.returncode != 0:
            raise SystemExit(f"probe new failed: {out.stderr.strip()}")
        label = next(ln for ln in out.stdout.splitlines() if ln.startswith("label"))
        times.append(took)
        print(f"probe new {question!r} --run: {took:.1f} s  ({' '.join(label.split())})")
    print(f"`probe new … --run` to a printed verdict: median {statistics.median(times):.1f} s, "
          f"max {max(times):.1f} s (target < 30 s)")


def finder() -> None:
    for name in ("direct_questions.tsv", "direct_questions_heldout.tsv"):
        right = total = 0
        for line in (ROOT / "tests" / "data" / name).read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            question, accepted = line.split("\t")
            try:
                got = find_category(question).phrase.casefold()
            except CategoryNotFound:
                got = "?"
            total += 1
            right += got in [a.strip().casefold() for a in accepted.split("|")]
        print(f"category finder on {name}: {right}/{total}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--timings", type=int, default=3)
    args = ap.parse_args()
    finder()
    if args.timings:
        new_run_timings(args.timings)
    if args.seeds:
        side_by_side(args.seeds)


if __name__ == "__main__":
    t = time.time()
    main()
    print(f"wall {time.time() - t:.0f}s")
