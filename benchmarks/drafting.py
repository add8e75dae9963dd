"""Template-drafted framings against the hand-written ones, and `probe new --run`'s time.

For each bundled family and seed: one run on the default model of the direct question with
both sets of framings, the 30 hand-written ones then 30 drafted from templates (one run, so
both sides share the same 30 direct samples and the CPU time goes to the framings). Each
side is scored as its own family. Prints FR side by side, whether the labels and the framed
favourites agree, then the wall time of `probe new "…" --run` to a printed verdict, and the
category finder on the two question sets.
    python benchmarks/drafting.py [--seeds 2] [--timings 3]   (--seeds 0: timings only)
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
from probe.scoring import Response, rescore  # noqa: E402
from probe.store import Store  # noqa: E402


def side_by_side(seeds: int) -> None:
    spec = resolve(None)
    backend = make_backend(spec)
    backend.load()
    store = Store(Path(tempfile.mkdtemp()) / "bench.db")
    print(f"{'family':<22}{'seed':>5}  {'FR hand':>8}{'FR drafted':>11}  "
          f"{'label hand':<11}{'label drafted':<14}{'framed top hand / drafted'}")
    same_label = same_top = total = 0
    gaps = []
    # Seed by seed, so a run cut short still covers every family once.
    for seed in range(seeds):
        for _, family in fam_mod.discover(ROOT / "families"):
            drafted = draft_family(family.direct, seed=seed).family
            both = fam_mod.Family(f"{family.name} both", family.direct,
                                  family.framings + drafted.framings, family.answers)
            runner = Runner(store, backend)
            run_id = runner.create(both, RunSettings(seed=seed), spec.display)
            runner.execute(run_id)
            samples = [Response(x.kind, x.idx, x.response) for x in store.samples(run_id)]
            direct = [r for r in samples if r.kind == "direct"]
            n = len(family.framings)
            hand = rescore(family, direct + [r for r in samples
                                             if r.kind == "framed" and r.idx < n]).scores
            auto_family = fam_mod.Family(drafted.name, family.direct, drafted.framings,
                                         family.answers)
            auto = rescore(auto_family, direct + [Response("framed", r.idx - n, r.text)
                                                  for r in samples
                                                  if r.kind == "framed" and r.idx >= n]).scores
            total += 1
            same_label += hand.label == auto.label
            same_top += hand.framed_top == auto.framed_top
            gaps.append(abs(hand.fr - auto.fr))
            print(f"{family.name:<22}{seed:>5}  {hand.fr:>8.2f}{auto.fr:>11.2f}  "
                  f"{hand.label:<11}{auto.label:<14}{hand.framed_top} / {auto.framed_top}"
                  f"   (direct top {hand.top_answer}, DR {hand.dr:.2f}; framed picks "
                  f"{hand.n_framed} / {auto.n_framed})", flush=True)
    print(f"\nlabels agree: {same_label}/{total}; framed favourite agrees: {same_top}/{total}; "
          f"|FR hand - FR drafted|: mean {statistics.mean(gaps):.2f}, "
          f"max {max(gaps):.2f}")


def _timed(args: list[str], tmp: str) -> tuple[float, str]:
    env = {**os.environ, "PROBE_FAMILIES": str(Path(tmp) / "families"),
           "PROBE_DB": str(Path(tmp) / "probe.db")}
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "probe", *args], capture_output=True,
                         text=True, env=env, cwd=tmp, timeout=1200)
    took = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"probe {args[0]} failed: {out.stderr.strip()}")
    label = next(ln for ln in out.stdout.splitlines() if ln.startswith("label"))
    return took, " ".join(label.split())


def new_run_timings(repeats: int) -> None:
    """`probe new "…" --run` beside `probe run` of the bundled family with the same
    question and seed, back to back: the ratio is what drafting adds, whatever else the
    machine is doing; the wall times are this machine's at this moment."""
    names = ["butterfly", "number", "programming-language"]
    news, runs = [], []
    for i in range(repeats):
        family = fam_mod.load(ROOT / "families" / f"{names[i % len(names)]}.toml")
        with tempfile.TemporaryDirectory() as tmp:
            ran, _ = _timed(["run", str(family.path), "--seed", str(i)], tmp)
            drafted, label = _timed(["new", family.direct, "--run", "--seed", str(i)], tmp)
        news.append(drafted)
        runs.append(ran)
        print(f"probe new {family.direct!r} --run: {drafted:.1f} s ({label}); probe run "
              f"{family.name}: {ran:.1f} s", flush=True)
    print(f"`probe new … --run` to a printed verdict: median {statistics.median(news):.1f} s "
          f"(target < 30 s); `probe run` of the hand-written family: median "
          f"{statistics.median(runs):.1f} s; ratio "
          f"{statistics.median(news) / statistics.median(runs):.2f}")


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
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--timings", type=int, default=3, help="pairs of timed runs")
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
