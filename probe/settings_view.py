"""A run's settings in words, what two runs differ in, and which runs measured the same way.

Settings are read from what the run stored, whatever keys it holds: a key this module does
not know (a setting added later) is still shown, compared and pooled on, by its own name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

# Keys that never change what a run measures: which seed (a repeat draws a fresh one),
# whether the quick check stopped it early, where the model file or server was, how many
# requests ran at once, and the label of a responses file.
NOT_MEASUREMENT = frozenset({"seed", "quick", "model_spec", "base_url", "api_key_env",
                             "timeout", "concurrency", "responses"})
# Shown in this order first, each under its short label; any other key follows by name.
# The rule and a non-default answer format come early: a line cut at 80 columns keeps them.
LABELS = {"samples": "N", "temperature": "T", "rule": "rule", "answer_format": "answer format",
          "mode": "prompts", "shots": "shots", "max_tokens": "max tokens",
          "thresholds": "thresholds", "system": "system prompt", "quick": "quick check",
          "engine": "engine", "concurrency": "concurrency", "model": "model",
          "model_hash": "weights", "seed": "seed"}
_FOLDED = {"style", "base", "dr_threshold", "pi_threshold"}   # shown inside other entries


@dataclass(frozen=True)
class Setting:
    key: str
    label: str
    text: str


def parse(settings) -> dict:
    """A run's stored settings as a dict (``runs()`` rows hold the JSON text)."""
    if isinstance(settings, dict):
        return settings
    try:
        value = json.loads(settings or "{}")
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _value_text(value) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:g}"
    if value is None:
        return "—"
    if isinstance(value, (list, dict)):
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        return text if len(text) <= 40 else text[:39] + "…"
    text = " ".join(str(value).split())
    return text if len(text) <= 60 else text[:59] + "…"


def _mode(settings: dict) -> str | None:
    style = settings.get("style")
    if isinstance(style, dict) and isinstance(style.get("mode"), str):
        return style["mode"]
    if "base" in settings:
        return "base" if settings["base"] else "chat (if the model has a template)"
    return None


def _shots(settings: dict) -> str | None:
    style = settings.get("style")
    if isinstance(style, dict) and isinstance(style.get("shots"), list):
        return str(len(style["shots"])) if style.get("mode") == "base" else None
    return _value_text(settings["shots"]) if "shots" in settings else None


def short_hash(model_hash: str | None) -> str:
    if not model_hash:
        return "—"
    kind, _, digest = model_hash.partition(":")
    return f"{kind}:{digest[:10]}" if digest and kind in ("sha256", "files") else model_hash


def flat(settings, model: str | None = None, model_hash: str | None = None,
         seed=None) -> dict[str, str]:
    """Every setting as key → text, the known ones under their own key."""
    s = parse(settings)
    out: dict[str, str] = {}
    for key in ("samples", "temperature", "max_tokens"):
        if key in s:
            out[key] = _value_text(s[key])
    if (mode := _mode(s)) is not None:
        out["mode"] = mode
    if (shots := _shots(s)) is not None:
        out["shots"] = shots
    out["rule"] = _value_text(s.get("rule", "probe"))
    # Runs from before --answer-format were all asked for 1-3 words.
    out["answer_format"] = _value_text(s.get("answer_format", "words"))
    if "dr_threshold" in s or "pi_threshold" in s:
        out["thresholds"] = (f"DR > {_value_text(s.get('dr_threshold', 0.65))}, "
                             f"π > {_value_text(s.get('pi_threshold', 0.40))}")
    style = s.get("style") if isinstance(s.get("style"), dict) else {}
    system = s.get("system") or style.get("system")
    if system:
        out["system"] = _value_text(system)
    for key, value in sorted(s.items()):
        if key in out or key in _FOLDED or key == "system":
            continue
        out[key] = _value_text(value)
    if model is not None:
        out["model"] = model
    if model_hash is not None or model is not None:
        out["model_hash"] = short_hash(model_hash)
    if seed is not None or "seed" in s:
        out["seed"] = _value_text(seed if seed is not None else s.get("seed"))
    return out


def typed(settings) -> dict:
    """The run's settings for a data file, each value as stored (numbers stay numbers):
    the keys ``flat`` shows, with the prompts' mode and shots instead of the whole prompt
    style, and the answer format of runs from before it was stored (words)."""
    s = parse(settings)
    out = {k: v for k, v in s.items() if k not in ("style", "model_spec", "base")}
    if (mode := _mode(s)) is not None:
        out["prompts"] = mode
    style = s.get("style") if isinstance(s.get("style"), dict) else {}
    if out.get("prompts") == "base" and isinstance(style.get("shots"), list):
        out["shots"] = len(style["shots"])
    elif style.get("mode") == "chat":
        out.pop("shots", None)          # a chat prompt has no examples
    out.setdefault("rule", "probe")
    out.setdefault("answer_format", "words")
    return dict(sorted(out.items()))


def describe(settings, model: str | None = None, model_hash: str | None = None,
             seed=None) -> list[Setting]:
    """The settings in display order: the known ones first, then any other key."""
    values = flat(settings, model, model_hash, seed)
    order = [k for k in LABELS if k in values] + [k for k in values if k not in LABELS]
    return [Setting(k, LABELS.get(k, k.replace("_", " ")), values[k]) for k in order]


def one_line(settings, model: str | None = None, model_hash: str | None = None,
             seed=None, skip: tuple[str, ...] = ()) -> str:
    """``N 30 · T 0.6 · prompts base · shots 5 · rule probe · …`` for a line or a cell."""
    return " · ".join(f"{s.label} {s.text}" for s in describe(settings, model, model_hash, seed)
                      if s.key not in skip
                      and not (s.key == "answer_format" and s.text == "words"))


_FORMS = [(" · ", " "), ("·", " "), ("·", "")]


def shared_form(many, width: int | None) -> int:
    """The loosest form of ``short_line`` in which every one of ``many`` settings fits in
    ``width``: one table reads alike, row after row."""
    if width is None:
        return 0
    for form in range(len(_FORMS)):
        if all(len(short_line(s, form=form)) <= width for s in many):
            return form
    return len(_FORMS) - 1


def short_line(settings, width: int | None = None, form: int | None = None) -> str:
    """The settings that most often differ, for a table cell: ``N 30 · T 0.6 · base 3 ·
    probe`` (plus the answer format when it is not the default; other keys are in the
    full line). With ``width``, the first of ever tighter forms that fits in it
    (``N 30·T 0.6·base 3·probe``, then ``N30·T0.6·base3·probe``): the last setting (the
    answer format) is never the one cut off."""
    values = flat(settings)
    mode = values.get("mode", "?").split(" ")[0]
    shots = values.get("shots") if mode == "base" else None
    parts = [(name, value) for name, value in (("N", values.get("samples")),
                                               ("T", values.get("temperature")))
             if value is not None]
    if mode != "?":
        parts.append((mode, shots))
    parts.append((values["rule"], None))
    if values.get("answer_format", "words") != "words":
        parts.append((values["answer_format"], None))
    forms = _FORMS if form is None else [_FORMS[form]]
    for sep, gap in forms:
        text = sep.join(name + (gap + value if value is not None else "")
                        for name, value in parts)
        if width is None or len(text) <= width:
            return text
    return text


def measurement_key(settings, model: str, model_hash: str | None) -> tuple:
    """What two runs must share to count as repeats of one measurement."""
    values = flat(settings, model, model_hash)
    values.pop("seed", None)
    return tuple(sorted((k, v) for k, v in values.items() if k not in NOT_MEASUREMENT))


@dataclass(frozen=True)
class Difference:
    key: str
    label: str
    a: str
    b: str
    matters: bool           # changes what is measured (a seed or the quick check does not)


def differences(a: dict, b: dict) -> list[Difference]:
    """Settings (``flat`` dicts) that differ between two runs, in display order."""
    keys = [k for k in LABELS if k in a or k in b]
    keys += sorted(k for k in set(a) | set(b) if k not in LABELS)
    # Two models are compared on purpose; one model name with two sets of weights is not.
    same_model = a.get("model") == b.get("model")
    return [Difference(k, LABELS.get(k, k.replace("_", " ")), a.get(k, "—"), b.get(k, "—"),
                       k not in NOT_MEASUREMENT and k != "model"
                       and (k != "model_hash" or same_model))
            for k in keys if a.get(k, "—") != b.get(k, "—")]
