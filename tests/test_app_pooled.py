"""Issue 17, items 6 and 7: repeat runs pooled into one verdict (Home, History) with each
reframing across the runs, sortable and exported; a result copied as Markdown, LaTeX or
JSON, and a family's figures and records exported, all from the app."""

from __future__ import annotations

import asyncio
import csv
import io
import json

from textual.widgets import DataTable

from probe import family as fam_mod
from probe.backends.fake import FakeBackend
from probe.pool_export import reframings_csv
from probe.pooling import pooled, pools, standing
from probe.runner import Runner, RunSettings
from screens.app import make_app
from test_app import wait_until
from test_app_control import finished_run


def run(coro):
    return asyncio.run(coro)


def butterfly(isolated, n=6):
    fam = fam_mod.Family("b", "Choose a random popular butterfly.",
                         [f"Scenario {i}: which?" for i in range(n)])
    fam_mod.save(fam, isolated / "families" / "b.toml")
    return fam


def by_seed(prompt: str) -> str:
    """Direct: Monarch. Scenario 0 always breaks the bias (Viceroy); the rest keep it."""
    if prompt.startswith("Choose"):
        return "Monarch"
    return "Viceroy" if prompt.startswith("Scenario 0") else "Monarch"


def three_runs_and_one_other(store, fam):
    backend = FakeBackend(by_seed)
    backend.load()
    ids = []
    for seed in (1, 2, 3):
        r = Runner(store, backend)
        ids.append(r.create(fam, RunSettings(samples=8, seed=seed), "fake-model"))
        r.execute(ids[-1])
    # Newer, but measured otherwise (2 samples): it must not stand in for the three.
    r = Runner(store, backend)
    other = r.create(fam, RunSettings(samples=2, seed=9), "fake-model")
    r.execute(other)
    return ids, other


def test_compatible_runs_pool_and_the_one_measured_otherwise_stays_out(isolated):
    fam = butterfly(isolated)
    app = make_app(db_path=isolated / "probe.db", autoload=False)
    ids, other = three_runs_and_one_other(app.store, fam)
    found = pools(app.store, "b", "fake-model")
    assert sorted(len(p.run_ids) for p in found) == [1, 3]
    pool = standing(found)
    assert sorted(pool.run_ids) == ids and other not in pool.run_ids
    result = pooled(app.store, pool)
    s = result.scored.scores
    assert (s.n_direct, s.n_framed, s.fr_hits) == (24, 18, 15)
    assert s.dr_interval[1] - s.dr_interval[0] < 0.2      # 24 samples: a narrower interval
    rows = {r.idx: r for r in result.reframings}
    assert (rows[0].hits, rows[0].picks) == (0, 3) and (rows[1].hits, rows[1].picks) == (3, 3)
    table = list(csv.reader(io.StringIO(reframings_csv(result, "breaks first"))))
    assert table[0][:6] == ["reframing", "scenario", "samples", "picks", "kept_top_answer",
                            "rate"]
    assert table[1][0] == "1" and table[1][5] == "0.0"    # scenario 0 breaks the bias first


def test_home_and_history_show_the_pooled_verdict_and_reframings_export(isolated):
    fam = butterfly(isolated)

    async def go():
        app = make_app(db_path=isolated / "probe.db", backend_factory=lambda spec: (
            FakeBackend(by_seed), "fake-model"))
        ids, _ = three_runs_and_one_other(app.store, fam)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            table = app.screen.query_one("#families", DataTable)
            await wait_until(pilot, lambda: "×3" in str(table.get_cell(str(
                isolated / "families" / "b.toml"), "pooled")) and "Deep" in str(
                table.get_cell(str(isolated / "families" / "b.toml"), "pooled")))
            await pilot.press("h", "p")
            pools_table = app.screen.query_one("#pools", DataTable)
            assert pools_table.display and pools_table.row_count == 2
            await wait_until(pilot, lambda: "[" in str(pools_table.get_cell("1", "DR")))
            row = {c: str(pools_table.get_cell(k, c)) for k in ("0", "1")
                   for c in ("runs", "FR") if str(pools_table.get_cell(k, "runs")) == "3"}
            assert row["FR"].startswith("0.83 [")          # 15 of 18 reframings kept it
            key = next(k for k in ("0", "1") if str(pools_table.get_cell(k, "runs")) == "3")
            pools_table.move_cursor(row=int(key))
            await pilot.press("enter")
            assert app.screen.__class__.__name__ == "ReframingsScreen"
            ref = app.screen.query_one("#reframings", DataTable)
            first = [str(c) for c in ref.get_row_at(0)]
            assert first[0] == "1" and first[1] == "0%" and first[2] == "0/3"
            await pilot.press("o")                          # sorted by keeps first
            assert [str(c) for c in ref.get_row_at(0)][1] == "100%"
            await pilot.press("x")
            out = isolated / "exports" / "b"
            stem = "reframings-fake-model-runs-" + "-".join(map(str, sorted(ids)))
            data = json.loads((out / f"{stem}.json").read_text())
            # For a paper: the runs with their seeds, the settings as numbers, the verdict.
            assert data["runs"] == [{"run": i, "seed": seed} for i, seed in zip(ids, (1, 2, 3))]
            assert data["settings"]["samples"] == 8 and data["settings"]["temperature"] == 0.6
            assert data["settings"]["answer_format"] == "words"
            pooled_fr = data["pooled"]
            assert pooled_fr["fr"] == 0.8333 and pooled_fr["label"] == "deep"
            assert pooled_fr["top_answer"] == "Monarch" and len(pooled_fr["fr_interval"]) == 2
            table = list(csv.reader(io.StringIO((out / f"{stem}.csv").read_text())))
            assert table[0][-2:] == ["runs", "settings"]
            assert table[1][-2] == " ".join(f"{i} (seed {s})" for i, s in zip(ids, (1, 2, 3)))
            assert "N 8" in table[1][-1] and "T 0.6" in table[1][-1]
            # Only the pool's own files: nothing else in the folder to mistake them for.
            assert sorted(p.name for p in out.iterdir()) == [f"{stem}.csv", f"{stem}.json"]

    run(go())


def test_the_palette_copies_the_result_and_exports_the_family(isolated):
    butterfly(isolated, n=4)

    async def go():
        app = make_app(db_path=isolated / "probe.db", backend_factory=lambda spec: (
            FakeBackend(by_seed), "fake-model"))
        app.run_settings = RunSettings(samples=6, seed=4)
        async with app.run_test(size=(120, 36)) as pilot:
            rs = await finished_run(app, pilot)
            titles = {c.title: c for c in app.get_system_commands(rs)}
            # Nothing to resume or quick-check on a finished run: the palette agrees.
            assert "Resume" not in titles and "Quick check" not in titles and "Stop" not in titles
            titles["Copy result as a Markdown row"].callback()
            header, rule, row = app.clipboard.splitlines()
            assert header.startswith("| family | model | rule | N | T | format | DR [95% CI]")
            assert row.startswith("| b | fake-model | probe | 6 | 0.6 | words | 1.00 [")
            titles["Copy result as a LaTeX row"].callback()
            assert app.clipboard.startswith("b & fake-model & probe & 6 & 0.6 & words & 1.00 [")
            assert app.clipboard.endswith(r"\\")
            titles["Copy result as JSON"].callback()
            record = json.loads(app.clipboard)
            assert record["family"] == "b" and record["seed"] == 4
            assert record["settings"]["samples"] == 6 and record["framed"]["fr"] == 0.75
            titles["Export this family's figures and records"].callback()
            out = isolated / "exports" / "b"
            stem = f"reframings-fake-model-run-{rs.run_id}"
            await wait_until(pilot, lambda: (out / f"{stem}.json").exists(), timeout=60,
                             message=lambda: [str(n.message) for n in app._notifications])
            assert (out / "figures" / "answers.svg").exists()
            records = (out / "records" / "fake-model.jsonl").read_text().splitlines()
            assert len(records) == 1 and json.loads(records[0])["bias_type"]
            await wait_until(pilot, lambda: any("Exported" in str(n.message)
                                                for n in app._notifications), timeout=30)

    run(go())
