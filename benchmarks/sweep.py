"""The paper's sweep against a served model: `probe batch` on the simulated server.

Each row runs the real CLI (`probe batch … --backend openai`) in a process of its own
against benchmarks/simserver.py in another, and reads the server's counters and the
database afterwards. Rows, measured side by side in one run:
  - 200 families at 0.25 s per request vs the same at 0 s (target: within 1.5×), at the
    default --concurrency 64 and at 256 (sized as docs/commands.md says: requests/s ×
    latency, with room);
  - requests in flight at the server's peak vs --concurrency (target: reaches it);
  - the client alone (0 s latency): samples/s (target: ≥ 2× the code before, measured in
    the same run with --before, else the 380/s issue 16 measured);
  - a server capped at 8 concurrent requests, answering 429 past it: no errors, no lost
    samples;
  - the sweep of 4,442 families extrapolated from the 0.25 s row.

    python benchmarks/sweep.py [--families 200] [--concurrency 64] [--before DIR] [--quick]
"""

from __future__ import annotations

import argparse
import os
import resource
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
# In flight needed to hide 0.25 s: requests/s × latency, with room (docs/commands.md).
SIZED = 256
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
              cap: int | None = None, timeout: float = 1200, code: Path = ROOT) -> dict:
    """One `probe batch` (the code at ``code``) against a fresh simulated server: wall
    time, the client's CPU time, the server's counters, and what the database holds."""
    server = spawn(latency=latency, cap=cap, max_seconds=timeout + 30)
    db = Path(tempfile.mkdtemp()) / "sweep.db"
    args = [sys.executable, "-m", "probe", "batch", str(families), "--samples", str(samples),
            "--backend", "openai", "--base-url", server.url, "--model", "sim", "--db", str(db),
            "--json"]
    if concurrency is not None:
        args += ["--concurrency", str(concurrency)]
    env = {**os.environ, "PYTHONPATH": str(code)}
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        # cwd: `python -m probe` looks there first, so the code measured is ``code``'s.
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True, env=env, cwd=code)
        _, err = proc.communicate(timeout=timeout)
        wall = time.perf_counter() - start
        now = resource.getrusage(resource.RUSAGE_CHILDREN)   # the client's, not the server's
        cpu = now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime
        stats = server.stats()
    finally:
        server.close()
    with sqlite3.connect(db) as conn:
        stored = conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
        distinct = conn.execute("SELECT COUNT(*) FROM (SELECT DISTINCT run_id, kind, idx "
                                "FROM samples)").fetchone()[0]
        statuses = dict(conn.execute("SELECT status, COUNT(*) FROM runs GROUP BY status"))
    return {"wall": wall, "rc": proc.returncode, "stderr": err[-2000:], "stats": stats,
            "stored": stored, "distinct": distinct, "statuses": statuses, "cpu": cpu}


def _check(rows: list, name: str, r: dict, planned: int) -> None:
    if r["rc"] != 0 or r["distinct"] != planned or r["stored"] != planned:
        rows.append((name, f"FAILED: exit {r['rc']}, {r['distinct']:,}/{planned:,} samples; "
                     + " ".join(r["stderr"].split())[-200:], ""))


def measure(n_families: int, concurrency: int, quick: bool = False,
            before: Path | None = None, repeat: int = 1) -> list[tuple]:
    """The rows, as (figure, value, target), measured one after another in this run. With
    ``repeat``, each configuration runs that many times, in turn, and its fastest run
    counts: on a shared machine the fastest is the one least slowed by others."""
    tmp = Path(tempfile.mkdtemp())
    fams = write_families(tmp / "families", n_families)
    planned = n_families * (30 + FRAMINGS)
    rows: list[tuple] = []
    configs = {"zero": (0.0, concurrency, ROOT), "slow": (0.25, concurrency, ROOT)}
    if SIZED != concurrency:
        configs["sized"] = (0.25, SIZED, ROOT)
    if before:
        configs["old"] = (0.0, None, before)
    runs: dict[str, dict] = {}
    for _ in range(max(1, repeat)):
        for name, (latency, c, code) in configs.items():
            r = run_batch(fams, latency, c, code=code)
            if name not in runs or r["wall"] < runs[name]["wall"]:
                runs[name] = r
    zero, slow = runs["zero"], runs["slow"]
    sized, old = runs.get("sized"), runs.get("old")
    for name, r in (("0 s", zero), ("0.25 s", slow), (f"0.25 s, --concurrency {SIZED}", sized),
                    ("before, 0 s", old)):
        if r is not None:
            _check(rows, f"{n_families} families, {name}/request", r, planned)
    rate = planned / zero["wall"]
    if old is not None:
        old_rate = planned / old["wall"]
        versus = (f"{rate / old_rate:.1f}× the {old_rate:,.0f}/s of the code before, this run; "
                  f"client CPU {1000 * zero['cpu'] / planned:.2f} vs "
                  f"{1000 * old['cpu'] / planned:.2f} ms a sample")
        met = rate >= 2 * old_rate
    else:
        versus = (f"{rate / BEFORE_SAMPLES_PER_S:.1f}× the {BEFORE_SAMPLES_PER_S}/s of issue 16; "
                  f"client CPU {1000 * zero['cpu'] / planned:.2f} ms a sample")
        met = rate >= 2 * BEFORE_SAMPLES_PER_S
    rows.append((f"{n_families} families ({planned:,} samples), 0 s/request: the client alone",
                 f"{zero['wall']:.1f} s, {rate:,.0f} samples/s ({versus})",
                 f"target ≥ 2×: {'met' if met else 'MISSED'}"))
    floor = n_families * (1 + FRAMINGS) * 0.25
    for r, c in ((slow, concurrency), (sized, SIZED)):
        if r is None:
            continue
        ratio = r["wall"] / zero["wall"]
        rows.append((f"{n_families} families, 0.25 s/request, --concurrency {c}",
                     f"{r['wall']:.1f} s ({ratio:.2f}× the 0 s row; latency alone needs "
                     f"{floor / c:.1f} s)",
                     f"target ≤ 1.5×: {'met' if ratio <= 1.5 else 'MISSED'}"))
        peak = r["stats"]["peak_in_flight"]
        rows.append((f"requests in flight at the server's peak (--concurrency {c})", f"{peak}",
                     f"target = {c}: {'met' if peak == c else 'MISSED'}"))
    best = min((r for r in (slow, sized) if r is not None), key=lambda r: r["wall"])
    per_family = best["wall"] / n_families
    rows.append((f"sweep of {SWEEP_FAMILIES:,} families at 0.25 s/request (extrapolated)",
                 f"{per_family * SWEEP_FAMILIES / 60:.1f} min ({per_family:.3f} s a family)",
                 "issue 16: about 2.6 hours before"))
    if not quick:
        capped_n = max(10, n_families // 5)
        capped = run_batch(write_families(tmp / "capped", capped_n), 0.25, concurrency, cap=8)
        want = capped_n * (30 + FRAMINGS)
        ok = capped["rc"] == 0 and capped["distinct"] == want == capped["stored"]
        st = capped["stats"]
        rows.append((f"server capped at 8 in flight (429 past it), {capped_n} families",
                     f"exit {capped['rc']}, {capped['distinct']:,}/{want:,} samples, "
                     f"{st['refused']:,} answers 429, peak {st['peak_in_flight']}, "
                     f"{capped['wall']:.1f} s",
                     f"target no errors, no lost samples: {'met' if ok else 'MISSED'}"))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--families", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--before", type=Path, default=None,
                    help="a checkout of probe before issue 16 (git worktree add /tmp/before "
                         "54bf415): its client is measured too, in this run")
    ap.add_argument("--quick", action="store_true", help="skip the capped-server row")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs of each configuration, in turn; the fastest counts")
    args = ap.parse_args()
    print_table(measure(args.families, args.concurrency, args.quick, args.before, args.repeat))


def print_table(rows: list[tuple]) -> None:
    """Rows of (figure, value, target) as a Markdown table."""
    width = max(len(a) for a, _, _ in rows)
    print(f"| {'figure':<{width}} | value | target |")
    print(f"|{'-' * (width + 2)}|---|---|")
    for a, b, c in rows:
        print(f"| {a:<{width}} | {b} | {c} |")


if __name__ == "__main__":
    main()
