"""Every figure probe promises, measured in one run on this machine, as one table.

    python benchmarks/run.py [--quick]      (or: make bench)

Medians over repeats; ratios compare figures taken in the same run. Targets:
matching 133,260 framed answers < 10 s; key-to-screen p95 <= 50 ms; `probe --help`
<= 0.3 s; one family on llama.cpp within 1.3x of the engine's floor; the sweep rows of
benchmarks/sweep.py (pass --before DIR to measure the client before issue 16 beside it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

ROWS: list[tuple[str, str, str]] = []


def row(name: str, value: str, target: str = "") -> None:
    ROWS.append((name, value, target))
    print(f"  {name}: {value} {target}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- matching

VOCAB = ["Monarch", "Blue Morpho", "Painted Lady", "Swallowtail", "Red Admiral", "Viceroy",
         "Peacock", "Glasswing", "Comma", "Brimstone", "Orange Tip", "Holly Blue"]


def _variant(rng: random.Random, word: str) -> str:
    r = rng.random()
    if r < 0.2:
        return f"**{word}**."
    if r < 0.3:
        return f"{word.lower()} butterfly"
    if r < 0.4:
        return f"I'd pick the {word}!"
    if r < 0.45 and len(word) > 6:
        i = rng.randrange(1, len(word) - 1)
        return word[:i] + word[i + 1:]                   # a typo
    if r < 0.5:
        return f"{word}s"
    return word


def _matching_families(n_answers: int) -> list:
    from probe.family import Family
    from probe.scoring import Response

    rng = random.Random(0)
    per_family = 30
    out = []
    for f in range(n_answers // per_family):
        vocab = [f"{w} {f % 97}" if rng.random() < 0.3 else w for w in VOCAB]
        fam = Family(f"f{f}", "Choose a random popular butterfly.", [f"s{i}" for i in
                                                                      range(per_family)])
        out.append((fam, [Response("framed", i, _variant(rng, rng.choice(vocab)))
                          for i in range(per_family)]))
    return out


def _rescore_pair(pair) -> int:
    from probe.scoring import rescore

    rescore(*pair)
    return len(pair[1])


def bench_matching(n_answers: int = 133_260) -> None:
    """The answers matched family by family in this process, then as `probe score` of a
    folder matches them: on every core (probe.parallel), in a fresh run of the same data."""
    from probe.parallel import default_workers, ordered_map

    pairs = _matching_families(n_answers)
    # The processes first: they fork from a parent that has matched nothing yet, as `probe
    # score` does; the one-process run after them starts as cold (its caches are its own).
    workers = default_workers()
    t = time.perf_counter()
    total = sum(ordered_map(_rescore_pair, pairs, workers))
    many = time.perf_counter() - t
    t = time.perf_counter()
    total = sum(_rescore_pair(p) for p in pairs)
    one = time.perf_counter() - t
    row("matching 133,260 framed answers, one process", f"{one:.1f} s ({total / one:,.0f}/s)",
        "")
    ok = "met" if many < 10 else "MISSED"
    row(f"matching 133,260 framed answers, {workers} processes (as probe score)",
        f"{many:.1f} s ({total / many:,.0f}/s; {one / many:.2f}x one process)",
        f"target < 10 s: {ok}")


# ------------------------------------------------------------------- CLI/app

def bench_help() -> None:
    times = []
    for _ in range(7):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "probe", "--help"], capture_output=True,
                       check=True)
        times.append(time.perf_counter() - t)
    med = statistics.median(times)
    row("probe --help", f"{med * 1000:.0f} ms", f"target <= 300 ms: "
        f"{'met' if med <= 0.3 else 'MISSED'}")


async def _latency(app_factory, samples_needed: int = 3, presses: int = 25) -> dict:
    """Key event posted → change handled → screen repainted (Pilot's wait for every widget
    on screen to finish processing), for two keys: moving the cursor in the reframings
    table, and opening the help screen over the live run."""
    from textual import events

    from screens.app import HelpScreen, HomeScreen

    t0 = time.perf_counter()
    app = app_factory()
    out: dict = {}
    async with app.run_test(size=(100, 30)) as pilot:
        while not isinstance(app.screen, HomeScreen):
            await asyncio.sleep(0.001)
        out["first_paint"] = time.perf_counter() - t0
        while app.model_state not in ("ready", "failed"):
            await asyncio.sleep(0.05)
        await pilot.press("r")
        screen = app.screen
        while len(getattr(screen, "responses", [])) < samples_needed:
            await asyncio.sleep(0.02)
        table = screen.query_one("#framings")
        table.focus()
        cursor, modal = [], []
        for i in range(presses):
            row = table.cursor_row
            t = time.perf_counter()
            app.post_message(events.Key("down" if i < presses - 1 else "up", None))
            while table.cursor_row == row:
                await asyncio.sleep(0.0005)
            await pilot._wait_for_screen()
            cursor.append(time.perf_counter() - t)
            await asyncio.sleep(0.05)
        for _ in range(presses):
            t = time.perf_counter()
            app.post_message(events.Key("question_mark", "?"))
            while not isinstance(app.screen, HelpScreen):
                await asyncio.sleep(0.0005)
            await pilot._wait_for_screen()
            modal.append(time.perf_counter() - t)
            app.post_message(events.Key("escape", None))
            while isinstance(app.screen, HelpScreen):
                await asyncio.sleep(0.0005)
            await asyncio.sleep(0.05)
        out["running"] = screen.state == "running"
        if screen.runner:
            screen.runner.cancel()
    for name, lat in (("cursor", cursor), ("modal", modal)):
        lat.sort()
        out[name] = (lat[len(lat) // 2], lat[max(0, int(len(lat) * 0.95) - 1)])
    return out


def bench_app(real: bool) -> None:
    from probe.backends.fake import FakeBackend
    from screens.app import make_app

    tmp = Path(tempfile.mkdtemp())
    (tmp / "families").mkdir()
    shutil.copy(ROOT / "families" / "butterfly.toml", tmp / "families")
    os.environ["PROBE_FAMILIES"] = str(tmp / "families")
    if real:
        factory = lambda: make_app(db_path=tmp / "p.db")  # noqa: E731
        label = "real default model"
    else:
        backend = FakeBackend("Monarch", delay=0.3)
        factory = lambda: make_app(db_path=tmp / "p.db",  # noqa: E731
                                   backend_factory=lambda s: (backend, "fake"))
        label = "fake backend, 300 ms/sample"
    out = asyncio.run(_latency(factory))
    note = "" if out["running"] else " (run ended before the last key)"
    for key, what in (("cursor", "cursor move"), ("modal", "open help")):
        p50, p95 = out[key]
        row(f"key→screen while sampling, {what} ({label})",
            f"p50 {p50 * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms{note}",
            f"target p95 <= 50 ms: {'met' if p95 <= 0.05 else 'MISSED'}")
    if not real:
        row("app first paint (home screen)", f"{out['first_paint'] * 1000:.0f} ms")


# ----------------------------------------------------------------- sampling

def bench_sampling(backends: list[str], n: int) -> None:
    from probe import family as fam_mod
    from sampling import bench_backend

    fam = fam_mod.load(ROOT / "families" / "butterfly.toml")
    for engine in backends:
        r = bench_backend(engine, n, fam)
        dev = "gpu" if r["gpu"] else "cpu"
        row(f"{engine} ({dev}) direct samples/s, batched vs one at a time",
            f"{r['direct_batched']:.1f} vs {r['direct_single']:.1f} "
            f"(x{r['direct_batched'] / r['direct_single']:.2f})")
        row(f"{engine} ({dev}) framed samples/s, batched vs one at a time",
            f"{r['framed_batched']:.1f} vs {r['framed_single']:.1f} "
            f"(x{r['framed_batched'] / r['framed_single']:.2f})")
        ratio = r["family_wall_s"] / r["floor_s"]
        row(f"{engine} ({dev}) one family (30 direct + 30 framed) wall time vs the engine's floor",
            f"{r['family_wall_s']:.1f} s vs {r['floor_s']:.1f} s (x{ratio:.2f}; model load "
            f"{r['load_s']:.1f} s)",
            f"target <= 1.3x: {'met' if ratio <= 1.3 else 'MISSED'}" if engine == "llama" else "")
        if "pooled" in r:
            (pw, pc), (sw, sc) = r["pooled"], r["one_by_one"]
            row(f"{engine} ({dev}) {r['pool_families']} families' {r['pool_framings']} framings "
                "through one pipeline vs one family at a time",
                f"{pc} generate calls, {pw:.1f} s vs {sc} calls, {sw:.1f} s")


def bench_batch(n_families: int) -> None:
    from probe import family as fam_mod
    from probe.backends import make_backend, resolve
    from probe.batch import Batch
    from probe.runner import RunSettings
    from probe.store import Store

    paths = sorted((ROOT / "families").glob("*.toml"))[:n_families]
    spec = resolve(None)
    backend = make_backend(spec)
    backend.load()
    store = Store(Path(tempfile.mkdtemp()) / "b.db")
    batch = Batch(store, backend)
    t = time.perf_counter()
    batch_id = batch.create(paths, RunSettings(), spec.display, "", None)
    batch.execute(batch_id)
    elapsed = time.perf_counter() - t
    row("batch throughput, default model (llama.cpp, cpu)",
        f"{len(paths) / elapsed * 60:.1f} families/min ({len(paths)} families in "
        f"{elapsed:.0f} s)")
    del fam_mod


def bench_sweep(n_families: int, before: Path | None) -> None:
    """The sweep on a served model (benchmarks/sweep.py): rows measured side by side."""
    from sweep import measure

    for name, value, target in measure(n_families, 64, before=before):
        row(name, value, target)


def bench_memory(backends: list[str]) -> None:
    code = """
import sys
from probe.backends import make_backend, resolve
from probe.backends.base import Sampling
from probe.prompting import style_for
b = make_backend(resolve(None, sys.argv[1])); b.load()
st = style_for("Choose a random popular butterfly.", b.has_chat_template, True, 3, None)
list(b.sample_many("Choose a random popular butterfly.", 10, st, Sampling(), list(range(10))))
# VmHWM, not ru_maxrss: ru_maxrss survives exec and would report this benchmark's own size.
print(next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")))
"""
    for engine in backends:
        out = subprocess.run([sys.executable, "-c", code, engine], capture_output=True,
                             text=True, cwd=ROOT)
        if out.returncode:
            row(f"peak memory, {engine}", "failed: " + out.stderr.strip().splitlines()[-1])
            continue
        row(f"peak memory, {engine} (load + 10 samples)",
            f"{int(out.stdout.strip().splitlines()[-1]) / 1024:.0f} MiB RSS")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="skip the transformers backend")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--families", type=int, default=200,
                    help="families in the sweep rows (against the simulated server)")
    ap.add_argument("--before", type=Path, default=None,
                    help="a checkout of probe before issue 16, measured beside this one")
    args = ap.parse_args()
    backends = ["llama"] if args.quick else ["llama", "transformers"]
    print("measuring… (progress on stderr)", file=sys.stderr)
    bench_help()
    bench_matching()
    bench_app(real=False)
    bench_app(real=True)
    bench_sampling(backends, 30)
    bench_batch(6)
    bench_sweep(args.families, args.before)
    bench_memory(backends)
    if args.json:
        print(json.dumps([{"figure": a, "value": b, "target": c} for a, b, c in ROWS]))
        return
    from sweep import print_table

    print_table(ROWS)


if __name__ == "__main__":
    main()
