"""Scoring many families on every core: `probe score` of a folder matches each family on
its own, so families go to worker processes (forked after the word tables are loaded, so
they share them) and come back in order. Where fork is not the platform's way (Windows,
macOS), or there is little to share out, everything runs in this process."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
from typing import Callable, Iterator, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MAX_WORKERS = 8


def default_workers() -> int:
    return max(1, min(MAX_WORKERS, os.cpu_count() or 1))


def _quiet() -> None:
    # Ctrl-C is the parent's to handle: it ends the pool and says so once.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A parent ended any other way (SIGTERM, SIGHUP, SIGKILL) takes its workers with it:
    # none is left running, and none prints a traceback after the shell prompt.
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)            # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:
        os._exit(0)                               # the parent went before prctl took hold


def warm() -> None:
    """Load the matcher's word tables before forking, so every worker shares them."""
    from probe.matching import cluster_answers

    cluster_answers(["Monarch butterflies", "I'd go with the Monarch.", "Either"],
                    "Name a random butterfly.")


def ordered_map(fn: Callable[[T], R], items: Sequence[T], workers: int | None = None
                ) -> Iterator[R]:
    """``fn`` of each item, in order; on ``workers`` processes when that can pay."""
    workers = default_workers() if workers is None else max(1, workers)
    workers = min(workers, len(items))
    if workers <= 1 or len(items) < 4 or sys.platform != "linux" \
            or "fork" not in mp.get_all_start_methods():
        yield from map(fn, items)
        return
    warm()
    pool = mp.get_context("fork").Pool(workers, initializer=_quiet)
    try:
        chunk = max(1, len(items) // (workers * 8))
        yield from pool.imap(fn, items, chunksize=chunk)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
