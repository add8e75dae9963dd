"""The paper's sweep against a served model: `probe batch` on the simulated server.

Each row runs the real CLI (`probe batch … --backend openai`) in a process of its own
against benchmarks/simserver.py in another, and reads the server's counters and the
database afterwards. Rows, measured side by side in one run:
  - 200 families at 0.25 s per request vs the same at 0 s (target: within 1.5×);
  - requests in flight at the server's peak vs --concurrency (target: reaches it);
  - the client alone (0 s latency): samples/s (target: ≥ 2× the 380/s measured before);
  - a server capped at 8 concurrent requests, answering 429 past it: no errors, no lost
    samples;
  - the sweep of 4,442 families extrapolated from the 0.25 s row.

    python benchmarks/sweep.py [--families 200] [--concurrency 64] [--quick]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from simserver import spawn  # noqa: E402

SWEEP_FAMILIES = 4442
BEFORE_SAMPLES_PER_S = 380      # probe's client before issue 16, measured the same way
FRAMINGS = 30
TOPICS = ["butterfly", "city to visit", "colour", "gemstone", "tea", "number", "dog breed",
          "programming language", "board game", "flower"]


def write_families(folder: Path, n: int, framings: int = FRAMINGS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        topic = TOPICS[i % len(TOPICS)]
        lines = [f'name = "f{i:05d}"', f'direct = "Choose a random popular {topic} ({i})."',
                 "framings = ["]
        lines += [f'  "Situation {j} of family {i}: which {topic} would you pick?",'
                  for j in range(framings)]
        lines.append("]")
        (folder / f"f{i:05d}.toml").write_text("\n".join(lines) + "\n")
    return folder


def run_batch(families: Path, latency: float, concurrency: int | None, samples: int = 30,
              cap: int | None = None, retry_after: float | None = None,
              timeout: float = 1200, resume: int | None = None, db: Path | None = None,
              extra: list[str] = ()) -> dict:
    """One `probe batch` against a fresh simulated server: wall time, the server's
    counters, and what the database holds afterwards."""
    server = spawn(latency=latency, cap=cap, retry_after=retry_after,
                   max_seconds=timeout + 30)
    db = db or Path(tempfile.mkdtemp()) / "sweep.db"
    args = [sys.executable, "-m", "probe", "batch"]
    args += ["--resume", str(resume)] if resume else [str(families), "--samples", str(samples)]
    args += ["--backend", "openai", "--base-url", server.url, "--model", "sim",
             "--db", str(db), "--json", *extra]
    if concurrency is not None:
        args += ["--concurrency", str(concurrency)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)
        wall = time.perf_counter() - start
        stats = server.stats()
    finally:
        server.close()
    with sqlite3.connect(db) as conn:
        stored = conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
        distinct = conn.execute("SELECT COUNT(*) FROM (SELECT DISTINCT run_id, kind, idx "
                                "FROM samples)").fetchone()[0]
        statuses = dict(conn.execute("SELECT status, COUNT(*) FROM runs GROUP BY status"))
    return {"wall": wall, "rc": out.returncode, "stderr": out.stderr[-2000:], "stats": stats,
            "stored": stored, "distinct": distinct, "statuses": statuses}


def measure(n_families: int, concurrency: int | None, quick: bool = False) -> list[tuple]:
    """The rows, as (figure, value, target)."""
    tmp = Path(tempfile.mkdtemp())
    fams = write_families(tmp / "families", n_families)
    planned = n_families * (30 + FRAMINGS)
    rows = []
    zero = run_batch(fams, 0.0, concurrency)
    slow = run_batch(fams, 0.25, concurrency)
    for name, r in (("0 s", zero), ("0.25 s", slow)):
        if r["rc"] != 0 or r["distinct"] != planned:
            rows.append((f"{n_families} families, {name}/request", "FAILED: exit "
                         f"{r['rc']}, {r['distinct']}/{planned} samples; {r['stderr'][-300:]}",
                         ""))
    rate = planned / zero["wall"]
    ratio = slow["wall"] / zero["wall"]
    rows.append((f"{n_families} families ({planned:,} samples), 0 s/request (client alone)",
                 f"{zero['wall']:.1f} s, {rate:,.0f} samples/s "
                 f"({rate / BEFORE_SAMPLES_PER_S:.1f}× the {BEFORE_SAMPLES_PER_S}/s before)",
                 f"target ≥ 2×: {'met' if rate >= 2 * BEFORE_SAMPLES_PER_S else 'MISSED'}"))
    rows.append((f"{n_families} families, 0.25 s/request",
                 f"{slow['wall']:.1f} s ({ratio:.2f}× the 0 s row)",
                 f"target ≤ 1.5×: {'met' if ratio <= 1.5 else 'MISSED'}"))
    peak = slow["stats"]["peak_in_flight"]
    want = concurrency or 8
    rows.append((f"requests in flight at the server's peak (--concurrency {want})", f"{peak}",
                 f"target = {want}: {'met' if peak >= want else 'MISSED'}"))
    per_family = slow["wall"] / n_families
    rows.append((f"sweep of {SWEEP_FAMILIES:,} families at 0.25 s/request (extrapolated)",
                 f"{per_family * SWEEP_FAMILIES / 60:.1f} min ({per_family:.3f} s a family)",
                 ""))
    if not quick:
        capped_n = max(10, n_families // 5)
        capped = run_batch(write_families(tmp / "capped", capped_n), 0.25, concurrency, cap=8)
        want_c = capped_n * (30 + FRAMINGS)
        ok = capped["rc"] == 0 and capped["distinct"] == want_c == capped["stored"]
        st = capped["stats"]
        rows.append((f"server capped at 8 in flight (429 past it), {capped_n} families",
                     f"exit {capped['rc']}, {capped['distinct']:,}/{want_c:,} samples, "
                     f"{st['refused']} × 429, peak {st['peak_in_flight']}, "
                     f"{capped['wall']:.1f} s",
                     f"target no errors, no lost samples: {'met' if ok else 'MISSED'}"))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--families", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=64,
                    help="0: do not pass the option (probe before issue 16)")
    ap.add_argument("--quick", action="store_true", help="skip the capped-server row")
    args = ap.parse_args()
    rows = measure(args.families, args.concurrency or None, args.quick)
    width = max(len(a) for a, _, _ in rows)
    print(f"| {'figure':<{width}} | value | target |")
    print(f"|{'-' * (width + 2)}|---|---|")
    for a, b, c in rows:
        print(f"| {a:<{width}} | {b} | {c} |")


if __name__ == "__main__":
    main()
