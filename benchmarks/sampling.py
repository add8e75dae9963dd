"""Sampling throughput per backend, batched vs one at a time, on the default model.

All figures come from one run on one machine and are printed as ratios, so they
compare like with like:
  llama.cpp     sample_many (the prompt's KV cache reused across the N samples)
                vs N calls with the cache reset before each.
  transformers  one batched generate for N samples (and a left-padded batch of
                framings) vs N generate calls of one sequence each.
Then one family's wall time on each backend beside the engine's floor (the same samples
drawn the fastest way the engine can, nothing else), and on transformers a few families'
framings pooled through one pipeline vs one family at a time.
    python benchmarks/sampling.py [--n 30] [--backends llama,transformers]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from probe import family as fam_mod  # noqa: E402
from probe.backends import make_backend, resolve  # noqa: E402
from probe.backends.base import Sampling  # noqa: E402
from probe.prompting import style_for  # noqa: E402
from probe.runner import Runner, RunSettings  # noqa: E402
from probe.store import Store  # noqa: E402


def timed(fn, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def bench_backend(engine: str, n: int, family) -> dict:
    spec = resolve(None, engine)
    backend = make_backend(spec)
    t = time.perf_counter()
    backend.load()
    load_s = time.perf_counter() - t
    style = style_for(family.direct, backend.has_chat_template, True, 3, None)
    sampling = Sampling()
    seeds = list(range(n))

    def batched():
        list(backend.sample_many(family.direct, n, style, sampling, seeds))

    def one_at_a_time():
        for i in range(n):
            if engine == "llama":
                backend.llm.reset()        # forget the cached prompt
            list(backend.sample_many(family.direct, 1, style, sampling, [seeds[i]]))

    framings = family.framings[:n]

    def framed_batched():
        list(backend.sample_each(framings, style, sampling, seeds))

    def framed_single():
        for i, f in enumerate(framings):
            list(backend.sample_each([f], style, sampling, [i]))

    batched()   # warm-up
    b = timed(batched)
    s = timed(one_at_a_time)
    fb = timed(framed_batched)
    fs = timed(framed_single)
    store = Store(Path(tempfile.mkdtemp()) / "bench.db")
    runner = Runner(store, backend)
    run_id = runner.create(family, RunSettings(samples=n), spec.display)
    t = time.perf_counter()
    runner.execute(run_id)
    wall = time.perf_counter() - t
    # The floor: the engine's own time for the same samples, batched the best way it can
    # (direct samples with sample_many, framings with sample_each), nothing else.
    floor = b + fb * len(family.framings) / len(framings)
    out = {"engine": engine, "load_s": load_s, "direct_batched": n / b, "direct_single": n / s,
           "framed_batched": len(framings) / fb, "framed_single": len(framings) / fs,
           "family_wall_s": wall, "floor_s": floor, "gpu": backend.USES_GPU}
    if backend.SUPPORTS_BATCH:
        out.update(bench_pooling(backend, spec.display))
    return out


def bench_pooling(backend, display: str, n_families: int = 4, framings: int = 8,
                  samples: int = 4) -> dict:
    """Framings of several families in one pipeline (pooled into shared ``generate`` calls)
    vs the same families run one after another: calls and wall time."""
    from probe.family import Family
    from probe.pipeline import Pipeline

    fams = []
    for path, fam in list(fam_mod.discover(ROOT / "families"))[:n_families]:
        fams.append(Family(fam.name, fam.direct, fam.framings[:framings]))
    calls: list[int] = []
    real = backend.sample_texts

    def counting(texts, *args, **kwargs):
        calls.append(len(texts))
        return real(texts, *args, **kwargs)

    backend.sample_texts = counting
    walls = {}
    try:
        for how in ("pooled", "one by one"):
            store = Store(Path(tempfile.mkdtemp()) / "pool.db")
            runner = Runner(store, backend)
            runs = [runner.create(f, RunSettings(samples=samples, seed=1), display)
                    for f in fams]
            calls.clear()
            t = time.perf_counter()
            if how == "pooled":
                Pipeline(store, backend).execute(runs)
            else:
                for run_id in runs:
                    Pipeline(store, backend).execute([run_id])
            walls[how] = (time.perf_counter() - t, len(calls))
    finally:
        backend.sample_texts = real
    return {"pool_families": len(fams), "pool_framings": len(fams) * framings,
            "pooled": walls["pooled"], "one_by_one": walls["one by one"]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=30)
    ap.add_argument("--backends", default="llama,transformers")
    args = ap.parse_args()
    family = fam_mod.load(ROOT / "families" / "butterfly.toml")
    rows = [bench_backend(e, args.n, family) for e in args.backends.split(",")]
    print(f"{'backend':<14}{'device':<7}{'direct/s batched':>17}{'one-by-one':>12}{'ratio':>7}"
          f"{'framed/s batched':>18}{'one-by-one':>12}{'ratio':>7}{'family s':>10}"
          f"{'floor s':>9}{'load s':>8}")
    for r in rows:
        print(f"{r['engine']:<14}{'gpu' if r['gpu'] else 'cpu':<7}"
              f"{r['direct_batched']:>17.1f}{r['direct_single']:>12.1f}"
              f"{r['direct_batched'] / r['direct_single']:>6.1f}x"
              f"{r['framed_batched']:>18.1f}{r['framed_single']:>12.1f}"
              f"{r['framed_batched'] / r['framed_single']:>6.1f}x"
              f"{r['family_wall_s']:>10.1f}{r['floor_s']:>9.1f}{r['load_s']:>8.1f}")
    for r in rows:
        if "pooled" in r:
            (pw, pc), (sw, sc) = r["pooled"], r["one_by_one"]
            print(f"{r['engine']}: {r['pool_families']} families' {r['pool_framings']} framings "
                  f"through one pipeline: {pc} generate calls, {pw:.1f} s; one family at a "
                  f"time: {sc} calls, {sw:.1f} s")


if __name__ == "__main__":
    main()
