"""`probe score` on big files: memory grows with distinct responses, not rows; the row
cap holds before anything is built; progress shows on a terminal; the scores are those of
matching every row; and a full disk leaves no half-stored run."""

from __future__ import annotations

import gzip
import json
import os
import pty
import random
import resource
import signal
import sqlite3
import subprocess
import sys
import threading

import pytest

from conftest import FAMILIES, peak_rss_mib, write_jsonl
from probe import family as fam_mod
from probe.limits import MAX_SCORE_SAMPLES
from probe.scoring import Response, rescore, to_record
from probe.tally import RowGroup, score_tally, tally

PROBE = [sys.executable, "-m", "probe"]
ANSWERS = ["Monarch", "monarch butterfly", "Viceroy", "Blue Morpho", "I can't choose", "",
           "Swallowtail", "Painted Lady", "Butterfly", "Red Admiral", "Monarhc"]


def _big_file(path, rows: int, distinct: int, framings: int = 30) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(rows - framings):
            fh.write(json.dumps({"sample_idx": i, "response": f"Monarch {i % distinct}"})
                     + "\n")
        for i in range(framings):
            fh.write(json.dumps({"framing_idx": i, "response": "Viceroy"}) + "\n")


def test_a_million_rows_cost_memory_per_distinct_answer_not_per_row(isolated):
    resp = isolated / "million.jsonl"
    _big_file(resp, 1_000_000, 40)
    rc, peak, err = peak_rss_mib(["score", str(FAMILIES / "butterfly.toml"), "--responses",
                                  str(resp), "--json"], timeout=600)
    assert rc == 0, err
    # Before, every row was kept as a dict, a response and a match: 1.8 GiB here.
    assert peak < 300, f"{peak:.0f} MiB"
    with sqlite3.connect(isolated / "probe.db") as db:
        assert db.execute("SELECT COUNT(*) FROM samples").fetchone()[0] == 1_000_000
        assert db.execute("SELECT status FROM runs").fetchall() == [("finished",)]


def test_a_gz_of_ten_million_identical_lines_is_refused_with_bounded_memory(isolated):
    resp = isolated / "same.jsonl.gz"
    line = b'{"response": "Monarch"}\n'
    with gzip.open(resp, "wb", compresslevel=1) as fh:
        block = line * 100_000
        for _ in range(100):
            fh.write(block)
    rc, peak, err = peak_rss_mib(["score", str(FAMILIES / "butterfly.toml"), "--responses",
                                  str(resp)], timeout=600)
    assert rc == 2 and f"line {MAX_SCORE_SAMPLES + 1:}" in err.replace(",", ""), err
    assert f"limit of {MAX_SCORE_SAMPLES:,} samples" in err and len(err.splitlines()) == 1
    assert peak < 200, f"{peak:.0f} MiB"          # before: 4.2 GB
    assert not (isolated / "probe.db").exists() or _runs(isolated) == 0


def _runs(isolated) -> int:
    with sqlite3.connect(isolated / "probe.db") as db:
        return db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]


def test_progress_shows_on_a_terminal_while_a_big_file_is_read_matched_and_stored(isolated):
    resp = isolated / "big.jsonl"
    _big_file(resp, 300_000, 2_000)
    master, slave = pty.openpty()
    proc = subprocess.Popen([*PROBE, "score", str(FAMILIES / "butterfly.toml"), "--responses",
                             str(resp)], stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    seen = bytearray()

    def drain():
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                return
            if not chunk:
                return
            seen.extend(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    out, _ = proc.communicate(timeout=600)
    reader.join(timeout=10)
    os.close(master)
    text = seen.decode("utf-8", "replace")
    assert proc.returncode == 0, text
    assert "reading" in text and "samples" in text, text
    assert "matching 2,031 distinct responses" in text or "matching" in text, text
    assert "storing butterfly" in text, text
    assert b"Monarch" in out                       # the table itself, on stdout


@pytest.mark.parametrize("seed", range(6))
def test_tally_scores_equal_matching_every_row(seed):
    rng = random.Random(seed)
    fam = fam_mod.load(FAMILIES / "butterfly.toml")
    group = RowGroup()
    responses = []
    direct_ids = rng.sample(range(500), 60)
    for line, idx in enumerate(direct_ids, start=1):
        text = rng.choice(ANSWERS)
        group.add(text, idx, -1, line, 0)
        responses.append(Response("direct", idx, text))
    for position in rng.sample(range(len(fam.framings)), 20):
        text = rng.choice(ANSWERS)
        group.add(text, -1, position, 100 + position, 0)
        responses.append(Response("framed", position, text))
    rng.shuffle(responses)
    expected = rescore(fam, responses)
    got = score_tally(tally(group, fam, ["r.jsonl"]))
    assert to_record(fam, "m", None, got.scores) == to_record(fam, "m", None,
                                                               expected.scores)
    by_sample = {(r.kind, r.idx): m for r, m in expected.matches}
    t = tally(group, fam, ["r.jsonl"])
    for (kind, idx, _), match in zip(t.samples(), got.matches()):
        assert match == by_sample[(kind, idx)]


def test_a_full_disk_leaves_no_run_running_and_no_word_of_resuming(isolated):
    small = write_jsonl(isolated / "small.jsonl", [{"response": "Monarch"}])
    first = subprocess.run([*PROBE, "score", FAMILIES / "butterfly.toml", "--responses",
                            small], capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    rows = [{"sample_idx": i, "response": f"Monarch {'x' * 200} {i}"} for i in range(4000)]
    resp = write_jsonl(isolated / "r.jsonl", rows)
    limit = (isolated / "probe.db").stat().st_size + 256 * 1024

    def full_disk():          # files may not grow past the limit: writes fail as on a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    out = subprocess.run([*PROBE, "score", FAMILIES / "butterfly.toml", "--responses", resp],
                         capture_output=True, text=True, timeout=300, preexec_fn=full_disk)
    assert out.returncode == 1, out.stderr
    assert len(out.stderr.splitlines()) == 1 and "Traceback" not in out.stderr
    assert "could not be written" in out.stderr and "resume" not in out.stderr, out.stderr
    with sqlite3.connect(isolated / "probe.db") as db:
        statuses = [s for (s,) in db.execute("SELECT status FROM runs")]
    assert statuses == ["finished"], statuses      # the first score only; nothing half-stored
