"""Where probe keeps things: one function per location, each with an env override; and
the one check that a path given by the user can be followed at all."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from probe.errors import BadInput


def _loops(path: Path) -> bool:
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    except ValueError:                  # a NUL byte: not a path, left to the caller
        return False
    return False


def loop_error(path: str | Path) -> BadInput | None:
    """The sentence for a path that runs into a symbolic link loop (a link that points,
    directly or through others, back at itself), naming the link that loops; None when
    the path has none. Python's own answers are misleading ("no such file", "exists")
    or a traceback ("Symlink loop from …")."""
    path = Path(path)
    if not _loops(path):
        return None
    # The first part of the path that loops: a folder above the file, or the file itself.
    loop = next((p for p in reversed([path, *path.parents]) if _loops(p)), path)
    if loop == path:
        return BadInput(f"{path}: is a symbolic link loop (it leads back to itself); "
                        "give a real file or folder.")
    return BadInput(f"{path}: {loop} in its path is a symbolic link loop (it leads back "
                    "to itself); give a real file or folder.")


def check_followable(path: str | Path) -> Path:
    """``path`` as given, or BadInput when it runs into a symbolic link loop."""
    problem = loop_error(path)
    if problem is not None:
        raise problem
    return Path(path)


def resolved(path: str | Path) -> Path:
    """``path`` made absolute with its links followed, or BadInput naming a loop."""
    try:
        return check_followable(path).resolve()
    except (RuntimeError, OSError) as exc:
        # A link changed into a loop between the check and here (3.11 raises RuntimeError,
        # 3.13 OSError).
        problem = loop_error(path)
        if problem is not None:
            raise problem from None
        raise BadInput(f"{path}: cannot be followed ({exc}).") from None


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
