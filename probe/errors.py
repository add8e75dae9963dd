"""Errors a user can cause: each carries one plain sentence and maps to an exit code."""

from __future__ import annotations


class ProbeError(Exception):
    """A failure the user can act on. ``str(err)`` is the whole message."""

    exit_code = 1


class BadInput(ProbeError):
    """Malformed file, unknown value, unusable path: exit code 2."""

    exit_code = 2


class RunFailed(ProbeError):
    """A run could not complete (model crashed, disk full, ...): exit code 1."""

    exit_code = 1


def describe(exc: BaseException, limit: int = 300) -> str:
    """An exception from code probe does not own (an engine, a model's own code) as one
    line: its type and the first line of its message, cut to ``limit`` characters."""
    lines = str(exc).strip().splitlines()
    text = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
    return text if len(text) <= limit else text[:limit - 1] + "…"
