"""The app's run settings, kept between sessions in a small JSON file in the user's config
folder (``PROBE_CONFIG`` overrides it). A file that cannot be read or holds bad values is
ignored with one sentence saying so; the app starts on the defaults, never crashes."""

from __future__ import annotations

import json
from dataclasses import asdict, fields
from pathlib import Path

from probe.errors import BadInput
from probe.paths import config_dir
from probe.reading import read_text

MAX_BYTES = 64 << 10


def settings_path() -> Path:
    return config_dir() / "settings.json"


def load_run_settings():
    """``(RunSettings, notice)``: the saved settings, or the defaults and why."""
    from probe.runner import RunSettings

    path = settings_path()
    if not path.exists():
        return RunSettings(), None
    try:
        data = json.loads(read_text(path, MAX_BYTES, "settings file"))
        if not isinstance(data, dict) or not isinstance(data.get("run"), dict):
            raise BadInput("it is not an object with a 'run' table")
        known = {f.name for f in fields(RunSettings)}
        settings = RunSettings.from_dict({k: v for k, v in data["run"].items()
                                          if k in known}).validate()
    except (BadInput, ValueError, RecursionError, TypeError) as exc:
        return RunSettings(), (f"{path} was ignored ({_reason(exc, path)}); the run "
                               "settings are the defaults.")
    return settings, None


def _reason(exc: Exception, path: Path) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON: {exc.msg} at line {exc.lineno}"
    text = str(exc).rstrip(".").removeprefix(f"{path}: ")
    return text[:1].lower() + text[1:]


def save_run_settings(settings) -> str | None:
    """Keep ``settings`` for the next session; a sentence when that failed."""
    from probe.atomic import write_atomic

    path = settings_path()
    try:
        write_atomic(path, json.dumps({"run": asdict(settings)}, indent=2, sort_keys=True)
                     + "\n", "settings file")
    except (BadInput, OSError) as exc:
        return f"The run settings were not saved for next time: {exc}"
    return None


# What the app's saved settings and a command's options can both set, as one_line labels.
_COMPARED = {"samples": "N", "temperature": "T", "max_tokens": "max tokens", "base": "base",
             "shots": "shots", "rule": "rule", "answer_format": "answer format",
             "dr_threshold": "DR threshold", "pi_threshold": "π threshold"}


def saved_differences(settings) -> list[str]:
    """The app's saved run settings that differ from ``settings`` (a run's), as "T 0.9":
    the command line never reads them, and a user who set them in the app should know."""
    if not settings_path().exists():
        return []
    saved, notice = load_run_settings()
    if notice:
        return []
    out = []
    for key, label in _COMPARED.items():
        mine, theirs = getattr(settings, key, None), getattr(saved, key, None)
        if mine != theirs:
            text = ("on" if theirs else "off") if isinstance(theirs, bool) else f"{theirs:g}" \
                if isinstance(theirs, float) else str(theirs)
            out.append(f"{label} {text}")
    return out
