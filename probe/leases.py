"""Run leases: which process is sampling a run right now.

A process takes a run's lease before it samples and renews it while it works
(a heartbeat), so a second ``probe run --resume`` of the same run is refused up front
instead of racing the first for the same samples. A lease whose process is gone (same
host, dead pid) or whose heartbeat is older than ``LEASE_TTL_S`` is stale and can be
taken over: a killed run stays resumable.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid

from probe.errors import BadInput
from probe.limits import LEASE_TTL_S

HOST = socket.gethostname()


def new_owner() -> str:
    return f"{HOST}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _alive(owner: str, pid: int | None, host: str | None, heartbeat: float) -> bool:
    if time.time() - heartbeat > LEASE_TTL_S:
        return False
    if host == HOST and pid:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
    return True


def holder(store, run_id: int) -> dict | None:
    """The live lease on ``run_id``, or None."""
    rows = store.query("SELECT owner, pid, host, heartbeat FROM run_leases WHERE run_id = ?",
                       [run_id])
    if rows and _alive(**rows[0]):
        return rows[0]
    return None


def refuse_if_held(store, run_id: int, owner: str | None = None) -> None:
    live = holder(store, run_id)
    if live and live["owner"] != owner:
        where = "this machine" if live["host"] == HOST else f"host {live['host']}"
        raise BadInput(f"run {run_id} is being sampled by another probe process (pid "
                       f"{live['pid']} on {where}); wait for it or stop it first.")


def acquire(store, run_id: int, owner: str) -> None:
    """Take the lease on ``run_id`` for ``owner``, or BadInput if another live process
    holds it. Check and take happen in one write transaction."""
    with store._write() as db:
        row = db.execute("SELECT owner, pid, host, heartbeat FROM run_leases WHERE "
                         "run_id = ?", [run_id]).fetchone()
        if row:
            current = dict(zip(("owner", "pid", "host", "heartbeat"), row))
            if current["owner"] != owner and _alive(**current):
                where = "this machine" if current["host"] == HOST else \
                    f"host {current['host']}"
                raise BadInput(f"run {run_id} is being sampled by another probe process "
                               f"(pid {current['pid']} on {where}); wait for it or stop "
                               "it first.")
        db.execute("INSERT OR REPLACE INTO run_leases (run_id, owner, pid, host, heartbeat) "
                   "VALUES (?, ?, ?, ?, ?)", [run_id, owner, os.getpid(), HOST, time.time()])


def release(store, run_id: int, owner: str) -> None:
    with store._write() as db:
        db.execute("DELETE FROM run_leases WHERE run_id = ? AND owner = ?", [run_id, owner])


def renew(store, owner: str) -> None:
    with store._write() as db:
        db.execute("UPDATE run_leases SET heartbeat = ? WHERE owner = ?", [time.time(), owner])


class Heartbeat:
    """Renews ``owner``'s leases every third of the TTL from a daemon thread, so a long
    generation step (a big batch on a CPU) does not let the lease go stale."""

    def __init__(self, store, owner: str):
        self.store, self.owner = store, owner
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True,
                                        name="probe-lease-heartbeat")

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        while not self._stop.wait(LEASE_TTL_S / 3):
            try:
                renew(self.store, self.owner)
            except Exception:     # a busy or broken database: the next beat tries again
                pass
