"""Where probe keeps things: one function per location, each with an env override."""

from __future__ import annotations

import os
from pathlib import Path


def families_dir() -> Path:
    return Path(os.environ.get("PROBE_FAMILIES") or "families")


def models_dir() -> Path:
    return Path(os.environ.get("PROBE_MODELS") or "models")


def cache_dir() -> Path:
    """User cache (converted GGUF → safetensors copies live here)."""
    if os.environ.get("PROBE_CACHE"):
        return Path(os.environ["PROBE_CACHE"])
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "probe"


def config_dir() -> Path:
    """User configuration (the app's run settings live here)."""
    if os.environ.get("PROBE_CONFIG"):
        return Path(os.environ["PROBE_CONFIG"])
    xdg = os.environ.get("XDG_CONFIG_HOME")
    return (Path(xdg) if xdg else Path.home() / ".config") / "probe"


def exports_dir() -> Path:
    """Where the app writes what it exports (figures, records, tables)."""
    return Path(os.environ.get("PROBE_EXPORTS") or "exports")
