"""The paper's released dataset → family files (``probe import-dataset``).

Prompts come as ``id``/``prompt`` (or the pipeline's ``row_idx``/``rewrite``), framings as
``id``/``framing_idx``/``framing``. Every id gets its own file, which keeps the id and the
framing numbers exactly as given; anything that would merge two ids, or drop a row
without saying so, stops the import with one sentence naming the lines.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from probe import family as fam_mod
from probe.errors import BadInput
from probe.jsonl import iter_objects
from probe.paths import check_followable

_MAX_INDEX = 2 ** 31
_SLUG_DROP = {"choose", "a", "an", "the", "random", "of"}


@dataclass
class ImportReport:
    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)   # already there, identical
    notes: list[str] = field(default_factory=list)     # what was skipped or left out, and why


def _first(obj: dict, keys: tuple[str, ...]):
    for key in keys:
        if obj.get(key) is not None:
            return key, obj[key]
    return None, None


def _dataset_id(obj: dict, where: str, keys: tuple[str, ...]) -> str:
    key, value = _first(obj, keys)
    if key is None:
        raise BadInput(f"{where}: missing '{keys[0]}'.")
    if type(value) is int:
        if abs(value) >= 10 ** 18:
            raise BadInput(f"{where}: '{key}' is too large to be an id.")
        return str(value)
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise BadInput(f"{where}: '{key}' must be a string or an integer "
                       "(at most 200 characters).")
    return value


def _slug(text: str) -> str:
    words = [w for w in re.findall(r"[^\W_]+", text.casefold()) if w not in _SLUG_DROP]
    return "-".join(words)


def id_stem(dataset_id: str) -> str:
    """A file-name-safe spelling of an id that keeps distinct ids distinct (up to case):
    characters outside ASCII letters, digits and '-' — '_' included — become _XX codes."""
    body = "".join(ch if (ch.isascii() and ch.isalnum()) or ch == "-" else
                   "".join(f"_{b:02x}" for b in ch.encode("utf-8")) for ch in dataset_id)
    return body if body[:1].isalnum() else f"id{body}"


def family_name(dataset_id: str, prompt: str) -> str:
    stem = id_stem(dataset_id)
    if len(stem) > 60:
        # A long id is cut, and a hash of the whole id keeps two long ids apart.
        digest = hashlib.sha256(dataset_id.encode("utf-8", "surrogatepass")).hexdigest()[:10]
        stem = f"{stem[:48].rstrip('-_')}-{digest}"
    # The prompt's words name the file, less those the id already says ("color", not
    # "color-color").
    id_words = set(re.findall(r"[^\W_]+", dataset_id.casefold()))
    slug = "-".join(w for w in _slug(prompt).split("-") if w and w not in id_words)
    name = f"{stem}-{slug}" if slug else stem
    return name[:80].rstrip("-. ") if len(name) > 80 else name


def _read_prompts(path: Path) -> list[tuple[str, str, str]]:
    """(id, prompt, where) per prompt row; duplicate ids stop the import."""
    out, seen, seen_types = [], {}, {}
    for lineno, obj in iter_objects(path, "prompts file"):
        where = f"{path}, line {lineno}"
        pid = _dataset_id(obj, where, ("id", "row_idx"))
        key, prompt = _first(obj, ("prompt", "rewrite", "base_question"))
        if key is None and "prompt" not in obj:
            raise BadInput(f"{where}: missing 'prompt'.")
        if pid in seen:
            same_as = (" (an integer and its digits are one id)"
                       if type(obj.get("id", obj.get("row_idx"))) is int
                       or seen_types[pid] is int else "")
            raise BadInput(f"{where}: id {pid!r} was already given at {seen[pid]}{same_as}.")
        seen_types[pid] = type(obj.get("id", obj.get("row_idx")))
        seen[pid] = where
        if prompt is not None and not isinstance(prompt, str):
            raise BadInput(f"{where}: 'prompt' must be a string.")
        out.append((pid, prompt or "", where))
    return out


def _read_framings(path: Path) -> dict[str, list[tuple[int, str, str]]]:
    """id → [(framing_idx, framing, where)]; bad or repeated indices stop the import."""
    by_id: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    seen: dict[tuple[str, int], str] = {}
    for lineno, obj in iter_objects(path, "framings file", ("framing_idx", "framing")):
        where = f"{path}, line {lineno}"
        fid = _dataset_id(obj, where, ("id", "row_idx", "entry_id"))
        idx = obj["framing_idx"]
        if type(idx) is not int or not 0 <= idx < _MAX_INDEX:
            raise BadInput(f"{where}: 'framing_idx' must be a non-negative integer "
                           f"below {_MAX_INDEX}.")
        if not isinstance(obj["framing"], str):
            raise BadInput(f"{where}: 'framing' must be a string.")
        if (fid, idx) in seen:
            raise BadInput(f"{where}: id {fid!r} framing_idx {idx} was already given at "
                           f"{seen[(fid, idx)]}.")
        seen[(fid, idx)] = where
        by_id[fid].append((idx, obj["framing"], where))
    return by_id


def _check_out(out: Path) -> None:
    """Checked before the inputs are read: a bad --out costs nothing."""
    check_followable(out)
    for parent in [out, *out.parents]:
        if parent.exists():
            if not parent.is_dir():
                raise BadInput(f"--out {out}: {parent} is a file, not a folder.")
            break


def _out_dir(out: Path) -> None:
    _check_out(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadInput(f"--out {out}: cannot create the folder ({exc.strerror}).") from None


def import_dataset(prompts: Path, framings: Path, out: Path) -> ImportReport:
    """One family file per prompt id, framings in framing_idx order with their numbers kept."""
    _check_out(out)
    prompt_rows = _read_prompts(prompts)
    framing_rows = _read_framings(framings)
    report = ImportReport()
    plans: list[fam_mod.Family] = []
    stems: dict[str, str] = {}
    for pid, prompt, where in prompt_rows:
        items = sorted(framing_rows.get(pid, []))
        if not prompt.strip():
            report.notes.append(f"id {pid} ({where}): empty prompt, not imported")
            continue
        texts, numbers, first = [], [], {}
        for idx, text, fwhere in items:
            key = " ".join(text.split()).casefold()
            if not key:
                report.notes.append(f"id {pid} framing_idx {idx} ({fwhere}): empty framing, "
                                    "left out")
            elif key in first:
                report.notes.append(f"id {pid} framing_idx {idx} ({fwhere}): same text as "
                                    f"framing_idx {first[key]}, left out")
            else:
                first[key] = idx
                texts.append(text.strip())
                numbers.append(idx)
        if not texts:
            report.notes.append(f"id {pid} ({where}): no framings, not imported")
            continue
        try:
            name = family_name(pid, prompt)
        except BadInput as exc:
            raise BadInput(f"{where}: {exc}") from None
        fold = fam_mod.path_for(name, out).name.casefold()
        if fold in stems:
            raise BadInput(f"{where}: id {pid!r} would be written to the same file as id "
                           f"{stems[fold]!r} ({fold}); ids that differ only in case cannot "
                           "both be imported into one folder.")
        stems[fold] = pid
        data = {"name": name, "id": pid, "direct": prompt, "framings": texts}
        if numbers != list(range(len(numbers))):
            data["framing_idx"] = numbers
        plans.append(fam_mod.validate(data, f"{prompts}, id {pid}"))
    known = {pid for pid, _, _ in prompt_rows}
    for fid, rows in framing_rows.items():
        if fid not in known:
            report.notes.append(f"id {fid}: {len(rows)} framings ({rows[0][2]}) have no prompt "
                                "in the prompts file, not imported")
    _out_dir(out)
    for fam in plans:
        target = fam_mod.path_for(fam.name, out)
        if target.exists() or target.is_symlink():
            try:
                same = fam_mod.load(target).to_dict() == fam.to_dict()
            except BadInput:
                same = False
            if same:
                report.unchanged.append(target)
            else:
                # Never over a file the user may have edited (aliases merged in the app…).
                report.notes.append(f"id {fam.dataset_id}: {target} already exists and "
                                    "differs; left as it is (remove it to import it again)")
            continue
        path = fam_mod.save(fam, target)
        if path.is_file():
            report.written.append(path)
    return report
