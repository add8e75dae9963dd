"""`probe score FOLDER` matches families on several processes (probe.parallel): the records,
their order and the stored runs are the same whatever the number of processes."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

from synthetic import families

PROBE = [sys.executable, "-m", "probe"]


def _folder(tmp_path, n=12):
    folder = tmp_path / "score-jobs"
    folder.mkdir()
    rows = []
    for i, s in enumerate(families(seed=7, n=n)):
        fid = f"fam-{i:02d}"
        lines = [f'id = "{fid}"', f"direct = {json.dumps(s.family.direct)}", "framings = ["]
        lines += [f"  {json.dumps(f)}," for f in s.family.framings]
        lines.append("]")
        (folder / f"{fid}.toml").write_text("\n".join(lines) + "\n")
        for r in s.responses:
            row = {"id": fid, "response": r.text}
            row["sample_idx" if r.kind == "direct" else "framing_idx"] = r.idx
            rows.append(row)
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps(r) + "\n" for r in reversed(rows)))
    return folder, responses


def test_one_process_or_several_give_the_same_records_and_runs(tmp_path):
    folder, responses = _folder(tmp_path)
    outs, stored = [], []
    for jobs in ("1", "3"):
        db = tmp_path / f"jobs{jobs}.db"
        out = subprocess.run([*PROBE, "score", str(folder), "--responses", str(responses),
                              "--json", "--jobs", jobs, "--db", str(db)],
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        records = [json.loads(line) for line in out.stdout.splitlines()]
        assert [r["id"] for r in records] == sorted(r["id"] for r in records)
        outs.append([{k: v for k, v in r.items() if k not in ("run_id", "scored_at")}
                     for r in records])
        with sqlite3.connect(db) as conn:
            stored.append(conn.execute(
                "SELECT kind, idx, response, canonical, nonpick FROM samples "
                "ORDER BY run_id, kind, idx").fetchall())
    assert outs[0] == outs[1] and len(outs[0]) == 12
    assert stored[0] == stored[1] and len(stored[0]) > 12 * 30
