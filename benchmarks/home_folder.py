"""Home with thousands of family files: time to the first drawn screen, time until the
table holds every family, and the CPU Home uses while idle.

    python benchmarks/home_folder.py [--files 5000] [--before PATH]

Each measurement runs in a fresh process (the app under Textual's headless Pilot) with
``PYTHONPATH`` set to this checkout, or first to ``--before PATH`` for a before/after row.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE_HOME = r"""
import asyncio, json, os, sys, time
start = time.perf_counter()
from probe.backends.fake import FakeBackend
from screens.app import make_app
from textual.widgets import DataTable

async def main(expected):
    app = make_app(db_path=os.environ["PROBE_DB"], autoload=False,
                   backend_factory=lambda spec: (FakeBackend(), "fake"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        drawn = time.perf_counter() - start
        table = app.screen.query_one("#families", DataTable)
        while table.row_count < expected:
            await pilot.pause(0.05)
        filled = time.perf_counter() - start
        cpu, wall = time.process_time(), time.perf_counter()
        await pilot.pause(10)
        idle = (time.process_time() - cpu) / (time.perf_counter() - wall)
    print(json.dumps({"drawn": drawn, "filled": filled, "idle": idle}))

asyncio.run(main(int(sys.argv[1])))
"""


def measure(checkout: str, work: Path, files: int, name: str) -> dict:
    env = {**os.environ, "PYTHONPATH": checkout, "PROBE_FAMILIES": str(work / "families"),
           "PROBE_DB": str(work / f"{name}.db")}    # each checkout its own database
    out = subprocess.run([sys.executable, "-c", PROBE_HOME, str(files)], capture_output=True,
                         text=True, env=env, cwd=work, timeout=1800)
    if out.returncode != 0:
        raise SystemExit(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--before", help="another checkout of probe, measured first")
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="probe-home-bench-"))
    try:
        (work / "families").mkdir()
        source = (ROOT / "families" / "butterfly.toml").read_text(encoding="utf-8")
        for i in range(opts.files):
            (work / "families" / f"f{i:04d}.toml").write_text(
                source.replace('name = "butterfly"', f'name = "f{i:04d}"'), encoding="utf-8")
        print(f"| Home with {opts.files:,} family files | first screen | every family "
              "listed | CPU while idle |")
        print("|---|---|---|---|")
        for name, checkout in ([("before", opts.before)] if opts.before else []) + [
                ("after", str(ROOT))]:
            m = measure(checkout, work, opts.files, name)
            print(f"| {name} | {m['drawn']:.1f} s | {m['filled']:.1f} s | "
                  f"{m['idle']:.3f} of a core |", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
