"""How often the quick check's label equals the full run's, and what it saves.

For each bundled family: a full run (30 direct + every framing) and a --quick run with
the same seed on the default model. Prints one row per family and the totals.
    python benchmarks/quick_check.py [--seeds 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from probe import family as fam_mod  # noqa: E402
from probe.backends import make_backend, resolve  # noqa: E402
from probe.runner import Runner, RunSettings  # noqa: E402
from probe.store import Store  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=2)
    args = ap.parse_args()
    spec = resolve(None)
    backend = make_backend(spec)
    backend.load()
    store = Store(Path(tempfile.mkdtemp()) / "bench.db")
    same = total = used = planned = 0
    print(f"{'family':<22}{'seed':>5}{'full':>10}{'quick':>10}{'samples':>12}")
    for path, family in fam_mod.discover(ROOT / "families"):
        for seed in range(args.seeds):
            labels = {}
            for quick in (False, True):
                runner = Runner(store, backend)
                run_id = runner.create(family, RunSettings(seed=seed, quick=quick), spec.display)
                out = runner.execute(run_id)
                labels[quick] = out.scores.label
                if quick:
                    used += out.samples_used
                    planned += out.samples_planned
                    n = f"{out.samples_used}/{out.samples_planned}"
            total += 1
            same += labels[True] == labels[False]
            print(f"{family.name:<22}{seed:>5}{labels[False]:>10}{labels[True]:>10}{n:>12}")
    print(f"\nquick label == full label: {same}/{total} ({100 * same / total:.0f}%)")
    print(f"samples used by quick: {used}/{planned} ({100 * (1 - used / planned):.0f}% saved)")


if __name__ == "__main__":
    t = time.time()
    main()
    print(f"wall {time.time() - t:.0f}s")
