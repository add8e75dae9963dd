"""`probe score` on big responses files: peak memory and wall time.

    python benchmarks/score_memory.py [--before PATH] [--cases distinct,few,identical]
                                      [--modes no-save,stored] [--timeout S]

Builds the files in a temporary folder, runs `probe score` on each in a fresh process
(peak RSS from the kernel's accounting of that child only), and prints one row per case.
``--before PATH`` runs the same cases with ``PATH`` (another checkout of probe) first on
``PYTHONPATH``, for a before/after table measured in one run on one machine.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAMILY = ROOT / "families" / "butterfly.toml"
WORDS = ["Monarch", "Viceroy", "Swallowtail", "Blue Morpho", "Painted Lady", "Red Admiral"]


def rows_file(path: Path, rows: int, distinct: int) -> Path:
    """One family: direct samples numbered, 30 framed ones; ``distinct`` answers."""
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(rows - 30):
            d = i % distinct
            text = f"{WORDS[d % 6]} {d}" if distinct > 100 else WORDS[d % 6] + f" {d}"
            fh.write(json.dumps({"sample_idx": i, "response": text}) + "\n")
        for i in range(30):
            fh.write(json.dumps({"framing_idx": i, "response": "Viceroy"}) + "\n")
    return path


def identical_gz(path: Path, lines: int) -> Path:
    block = b'{"response": "Monarch"}\n' * 100_000
    with gzip.open(path, "wb", compresslevel=1) as fh:
        for _ in range(lines // 100_000):
            fh.write(block)
    return path


WRAPPER = ("import resource, subprocess, sys\n"
           "p = subprocess.run([sys.executable, '-m', 'probe'] + sys.argv[1:], "
           "capture_output=True, text=True)\n"
           "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
           "sys.stderr.write(p.stderr[-300:])\n")


def measure(args: list[str], pythonpath: str, timeout: float, cwd: Path) -> str:
    # Run outside any checkout: `python -m probe` imports from the working folder first.
    env = {**os.environ, "PYTHONPATH": pythonpath}
    start = time.perf_counter()
    try:
        out = subprocess.run([sys.executable, "-c", WRAPPER, *args], capture_output=True,
                             text=True, timeout=timeout, env=env, cwd=cwd)
    except subprocess.TimeoutExpired:
        return f"did not finish in {timeout:.0f} s"
    wall = time.perf_counter() - start
    rc, kib = out.stdout.split()
    said = (out.stderr.strip().splitlines() or [""])[-1][:120]
    outcome = "ok" if rc == "0" else f"exit {rc}: {said}"
    return f"{int(kib) / 1024:,.0f} MiB, {wall:.0f} s ({outcome})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", help="another checkout of probe, measured first")
    parser.add_argument("--cases", default="distinct,few,identical")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--modes", default="no-save,stored",
                        help="no-save, stored, or both (comma-separated)")
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="probe-score-bench-"))
    try:
        files = {}
        cases = opts.cases.split(",")
        if "distinct" in cases:
            files["distinct"] = ("1M rows, 333k distinct answers",
                                 rows_file(work / "distinct.jsonl", 1_000_000, 333_333))
        if "few" in cases:
            files["few"] = ("1M rows, 40 distinct answers",
                            rows_file(work / "few.jsonl", 1_000_000, 40))
        if "identical" in cases:
            files["identical"] = ("a .gz of 10M identical lines",
                                  identical_gz(work / "same.jsonl.gz", 10_000_000))
        checkouts = ([("before", opts.before)] if opts.before else []) + [("after", str(ROOT))]
        print(f"| case | {' | '.join(name for name, _ in checkouts)} |")
        print("|---|" + "---|" * len(checkouts))
        for key, (title, path) in files.items():
            for save in [m == "stored" for m in opts.modes.split(",")]:
                cells = []
                for _, checkout in checkouts:
                    db = work / "bench.db"
                    for leftover in work.glob("bench.db*"):
                        leftover.unlink()
                    args = ["score", str(FAMILY), "--responses", str(path), "--json",
                            "--db", str(db)] + ([] if save else ["--no-save"])
                    cells.append(measure(args, checkout, opts.timeout, work))
                label = f"{title}, {'stored' if save else '--no-save'}"
                print(f"| {label} | {' | '.join(cells)} |", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
