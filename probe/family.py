"""Prompt families: load, validate and save the TOML files users author by hand."""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from probe.atomic import write_atomic
from probe.errors import BadInput
from probe.paths import check_followable, resolved
from probe.reading import read_text, shown
from probe.textfold import INVISIBLE, fold, is_blank
from probe.toml_lines import array_item_lines, where
from probe.limits import (MAX_ALIASES, MAX_ALIASES_PER_ANSWER, MAX_FAMILY_BYTES,
                          MAX_INT_DIGITS, MAX_TOML_DEPTH)
from probe.provenance import Drafted, read_drafted

ALLOWED_KEYS = ("name", "direct", "framings", "answers", "id", "framing_idx", "drafted")
# A family is a survey of one question in ~30 scenarios; thousands of framings is a
# pasted mistake, and every framing costs a model call.
MAX_FRAMINGS = 1000
MAX_PROMPT_CHARS = 32_000
# Letters of any script ("früchte", "蝶"), digits, spaces, '_', '.', '-': never a path
# separator, so a name cannot leave the families folder.
_NAME_RE = re.compile(r"^[^\W_][\w .\-]{0,79}$")


@dataclass
class Family:
    """A direct question, its reframings, and optional canonical answers with aliases."""

    name: str
    direct: str
    framings: list[str]
    answers: dict[str, list[str]] = field(default_factory=dict)
    path: Path | None = None
    # A family imported from the paper's dataset keeps its dataset id and, where they are
    # not simply 0, 1, 2, …, the dataset's framing_idx of each framing, so responses and
    # exports refer to framings exactly as the dataset does.
    dataset_id: str | None = None
    framing_ids: list[int] | None = None
    # Set when the framings were drafted from scenario templates (probe/provenance.py).
    drafted: Drafted | None = None

    def content_hash(self) -> str:
        """A short hash of the family as a run keeps it: its name, what is measured and its
        dataset numbering (not where the file lives). Two families that differ only in name
        are two snapshots, so a run never reports another family's name or id."""
        content: dict = {"name": self.name, "direct": self.direct, "framings": self.framings,
                         "answers": self.answers}
        if self.dataset_id is not None:
            content["id"] = self.dataset_id
        if self.framing_ids is not None:
            content["framing_idx"] = self.framing_ids
        if self.drafted is not None:
            content["drafted"] = self.drafted.to_dict()
        body = json.dumps(content, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]

    def to_dict(self) -> dict:
        out = {
            "name": self.name,
            "direct": self.direct,
            "framings": list(self.framings),
            "answers": {k: list(v) for k, v in self.answers.items()},
        }
        if self.dataset_id is not None:
            out["id"] = self.dataset_id
        if self.framing_ids is not None:
            out["framing_idx"] = list(self.framing_ids)
        if self.drafted is not None:
            out["drafted"] = self.drafted.to_dict()
        return out

    def framing_index(self, framing_idx: int) -> int | None:
        """The position in ``framings`` of the framing the dataset numbers ``framing_idx``."""
        if self.framing_ids is None:
            return framing_idx if 0 <= framing_idx < len(self.framings) else None
        try:
            return self.framing_ids.index(framing_idx)
        except ValueError:
            return None

    def framing_number(self, position: int) -> int:
        """The dataset's framing_idx of the framing at ``position``."""
        return self.framing_ids[position] if self.framing_ids is not None else position

    def add_alias(self, canonical: str, alias: str) -> None:
        """Record that ``alias`` means ``canonical`` (a manual merge)."""
        for key, aliases in self.answers.items():
            if alias in aliases and key != canonical:
                aliases.remove(alias)
        if alias in self.answers and alias != canonical:
            moved = self.answers.pop(alias)
            self.answers.setdefault(canonical, [])
            for a in moved:
                if a not in self.answers[canonical] and a != canonical:
                    self.answers[canonical].append(a)
        aliases = self.answers.setdefault(canonical, [])
        if alias != canonical and alias not in aliases:
            aliases.append(alias)

    def add_canonical(self, canonical: str) -> None:
        """Make ``canonical`` an answer of its own (a manual split)."""
        for aliases in self.answers.values():
            if canonical in aliases:
                aliases.remove(canonical)
        self.answers.setdefault(canonical, [])


def framing_key(text: str) -> str:
    """The folded form framings and aliases are compared in (probe.textfold.fold)."""
    return fold(text)


def _duplicate(source: str, text: str | None, first: int, second: int,
               same_text: bool) -> BadInput:
    """Framing ``second`` repeats framing ``first`` (1-based): both lines named."""
    lines = array_item_lines(text, "framings") if text else None
    how = "" if same_text else (" (they differ only in case, spacing, width or invisible "
                                "characters)")
    if lines is not None and len(lines) >= second:
        return BadInput(f"{source}, line {lines[second - 1]}: framing {second} duplicates "
                        f"framing {first} on line {lines[first - 1]}{how}.")
    return BadInput(f"{where(source, text, 'framings')}: framing {second} duplicates "
                    f"framing {first}{how}.")


def validate(data: dict, source: str = "family", text: str | None = None,
             default_name: str | None = None,
             framing_names: list[str] | None = None) -> Family:
    """Check a parsed family and return it; raise BadInput naming the first problem.
    ``framing_names`` names each framing as its writer sees it (the editor: "line 7");
    by default "framing 7", its place in the list."""
    for key in data:
        if key not in ALLOWED_KEYS:
            raise BadInput(
                f"{where(source, text, key)}: unknown key '{shown(key)}' "
                f"(allowed: {', '.join(ALLOWED_KEYS)})."
            )
    name = data.get("name", default_name)
    if not isinstance(name, str) or not name.strip():
        raise BadInput(f"{where(source, text, 'name')}: 'name' must be a non-empty string.")
    name = name.strip()
    check_name(name, source)

    direct = data.get("direct")
    if direct is None:
        raise BadInput(f"{source}: missing 'direct' (the direct question).")
    if not isinstance(direct, str):
        raise BadInput(f"{where(source, text, 'direct')}: 'direct' must be a string.")
    if is_blank(direct):
        raise BadInput(f"{where(source, text, 'direct')}: 'direct' is empty (nothing in it "
                       "shows).")
    if len(direct) > MAX_PROMPT_CHARS:
        raise BadInput(f"{where(source, text, 'direct')}: 'direct' is longer than "
                       f"{MAX_PROMPT_CHARS} characters.")

    framings = data.get("framings")
    if framings is None:
        raise BadInput(f"{source}: missing 'framings' (the reframed prompts).")
    if not isinstance(framings, list):
        raise BadInput(f"{where(source, text, 'framings')}: 'framings' must be a list of strings.")
    if not framings:
        raise BadInput(f"{where(source, text, 'framings')}: 'framings' is empty; "
                       "a family needs at least one reframing.")
    if len(framings) > MAX_FRAMINGS:
        raise BadInput(f"{where(source, text, 'framings')}: {len(framings)} framings is more "
                       f"than the limit of {MAX_FRAMINGS}.")
    def called(i: int) -> str:
        if framing_names is not None and 0 < i <= len(framing_names):
            return framing_names[i - 1]
        return f"framing {i}"

    seen: dict[str, int] = {}
    clean: list[str] = []
    for i, item in enumerate(framings, start=1):
        if not isinstance(item, str):
            raise BadInput(f"{where(source, text, 'framings')}: {called(i)} must be a string, "
                           f"not {type(item).__name__}.")
        if is_blank(item):
            raise BadInput(f"{where(source, text, 'framings')}: {called(i)} is empty.")
        if len(item) > MAX_PROMPT_CHARS:
            raise BadInput(f"{where(source, text, 'framings')}: {called(i)} is longer than "
                           f"{MAX_PROMPT_CHARS} characters.")
        key = framing_key(item)
        if key in seen:
            first = seen[key]
            same = " ".join(framings[first - 1].split()) == " ".join(item.split())
            if framing_names is not None:        # the editor's own line numbers
                how = "" if same else " (they differ only in case, spacing, width or " \
                                      "invisible characters)"
                raise BadInput(f"{where(source, text, 'framings')}: {called(i)} duplicates "
                               f"{called(first)}{how}.")
            raise _duplicate(source, text, first, i, same)
        seen[key] = i
        clean.append(item.strip())

    answers = data.get("answers", {})
    if not isinstance(answers, dict):
        raise BadInput(f"{where(source, text, 'answers')}: 'answers' must be a table of "
                       "canonical answer = [aliases].")
    _check_alias_counts(answers, source, text)
    clean_answers: dict[str, list[str]] = {}
    owner: dict[str, str] = {}
    for canonical, aliases in answers.items():
        if is_blank(canonical):
            raise BadInput(f"{where(source, text, 'answers')}: an answer name is empty.")
        if isinstance(aliases, str):
            aliases = [aliases]
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise BadInput(f"{where(source, text, canonical)}: answers.{shown(canonical)} "
                           "must be a list of alias strings.")
        for alias in [canonical, *aliases]:
            k = framing_key(alias)
            if not k:
                continue                    # a blank alias is dropped below
            if k in owner and owner[k] != canonical:
                raise BadInput(f"{where(source, text, canonical)}: '{shown(alias)}' is "
                               f"listed under both '{shown(owner[k])}' and '{shown(canonical)}'.")
            owner[k] = canonical
        clean_answers[canonical] = [a.strip() for a in aliases if not is_blank(a)]
    dataset_id = data.get("id")
    if dataset_id is not None and (not isinstance(dataset_id, str) or not dataset_id.strip()
                                   or len(dataset_id) > 200):
        raise BadInput(f"{where(source, text, 'id')}: 'id' (the dataset id) must be a "
                       "non-empty string of at most 200 characters.")
    framing_ids = data.get("framing_idx")
    if framing_ids is not None:
        if (not isinstance(framing_ids, list) or len(framing_ids) != len(clean)
                or not all(type(i) is int and 0 <= i < 2 ** 31 for i in framing_ids)
                or len(set(framing_ids)) != len(framing_ids)):
            raise BadInput(f"{where(source, text, 'framing_idx')}: 'framing_idx' must list "
                           f"one distinct non-negative integer per framing ({len(clean)}).")
    drafted = data.get("drafted")
    if drafted is not None:
        drafted = read_drafted(drafted, len(clean), lambda key: where(source, text, key))
    return Family(name=name, direct=direct.strip(), framings=clean, answers=clean_answers,
                  dataset_id=dataset_id, framing_ids=framing_ids, drafted=drafted)


def _check_alias_counts(answers: dict, source: str, text: str | None) -> None:
    """Refuse an answers table too big to match against, before any of it is read."""
    total = 0
    for canonical, aliases in answers.items():
        count = len(aliases) if isinstance(aliases, list) else 1
        if count > MAX_ALIASES_PER_ANSWER:
            raise BadInput(f"{where(source, text, canonical)}: answers.{shown(canonical)} "
                           f"lists {count:,} aliases, more than the limit of "
                           f"{MAX_ALIASES_PER_ANSWER:,} for one answer.")
        total += 1 + count
    if total > MAX_ALIASES:
        raise BadInput(f"{where(source, text, 'answers')}: 'answers' holds {total:,} names "
                       f"(answers and their aliases), more than the limit of "
                       f"{MAX_ALIASES:,} in a family.")


def _visibly(text: str) -> str:
    """Invisible characters spelled out, so the name in the message shows them."""
    return INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def check_name(name: str, source: str = "family") -> None:
    """A family name doubles as a file name, so it may not contain path syntax."""
    if not _NAME_RE.match(name) or ".." in name or INVISIBLE.search(name):
        raise BadInput(
            f"{source}: family name {shown(_visibly(repr(name)))} is not allowed; use "
            "letters (any script), digits, spaces, '-', '_' or '.', at most 80 characters, "
            "not starting with a dot."
        )


def load(path: str | Path) -> Family:
    """Read and validate a family file."""
    path = Path(path)
    text = read_text(path, MAX_FAMILY_BYTES, "family file")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{path}: invalid TOML: {exc}.") from None
    except RecursionError:
        raise BadInput(f"{path}: invalid TOML: nested too deeply.") from None
    except ValueError as exc:      # e.g. an integer of thousands of digits
        digits = re.search(r"\d{4301,}", text)
        if digits:
            line = text.count("\n", 0, digits.start()) + 1
            raise BadInput(f"{path}, line {line}: an integer has more than {MAX_INT_DIGITS} "
                           "digits.") from None
        raise BadInput(f"{path}: invalid TOML: {shown(str(exc), 120)}.") from None
    _check_shape(data, str(path))
    family = validate(data, str(path), text, default_name=path.stem)
    family.path = path
    return family


def _check_shape(data: object, source: str) -> None:
    """Refuse nesting and integers no family needs, before anything walks them."""
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_TOML_DEPTH:
            raise BadInput(f"{source}: values are nested more than {MAX_TOML_DEPTH} deep.")
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
        elif isinstance(value, int) and not isinstance(value, bool) \
                and abs(value) >= 10 ** MAX_INT_DIGITS:
            raise BadInput(f"{source}: an integer has more than {MAX_INT_DIGITS} digits.")


def _toml_str(value: str) -> str:
    # JSON string escapes are valid TOML basic-string escapes; DEL must be escaped too.
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def dumps(family: Family) -> str:
    lines = [f"name = {_toml_str(family.name)}"]
    if family.dataset_id is not None:
        lines.append(f"id = {_toml_str(family.dataset_id)}")
    lines += [f"direct = {_toml_str(family.direct)}", "framings = ["]
    lines += [f"  {_toml_str(f)}," for f in family.framings]
    lines.append("]")
    if family.framing_ids is not None:
        lines.append(f"framing_idx = [{', '.join(str(i) for i in family.framing_ids)}]")
    if family.drafted is not None:
        lines += family.drafted.toml_lines()
    if family.answers:
        lines += ["", "[answers]"]
        for canonical, aliases in family.answers.items():
            items = ", ".join(_toml_str(a) for a in aliases)
            lines.append(f"{_toml_str(canonical)} = [{items}]")
    return "\n".join(lines) + "\n"


def save(family: Family, path: str | Path) -> Path:
    """Write atomically (exclusive temporary file, then rename) so a crash mid-save never
    leaves half a file and a planted link cannot redirect the write."""
    path = write_atomic(Path(path), dumps(family), "family file")
    family.path = path
    return path


def path_for(name: str, families_dir: str | Path) -> Path:
    """Where family ``name`` lives inside ``families_dir``; never outside it."""
    check_name(name)
    root = resolved(families_dir)
    slug = re.sub(r"[^\w.\-]+", "-", unicodedata.normalize("NFC", name.strip())
                  ).strip("-.").lower() or "family"
    target = resolved(root / f"{slug}.toml")
    if target.parent != root:
        raise BadInput(f"family name {shown(repr(name))} would be saved outside {root}.")
    return target


def resolve(spec: str | Path, families_dir: str | Path = "families") -> Family:
    """A family argument: a path to a .toml file, or the name of one in ``families_dir``."""
    p = Path(spec)
    if len(str(spec)) > 4096:
        raise BadInput(f"family '{shown(str(spec), 300)}' is not a file name.")
    check_followable(p)
    if p.suffix == ".toml" or p.exists():
        return load(p)
    candidate = check_followable(Path(check_followable(families_dir)) / f"{spec}.toml")
    if candidate.exists():
        return load(candidate)
    named = _by_name(str(spec), families_dir)
    if named is not None:
        return named
    raise BadInput(f"no family file '{shown(str(spec), 300)}' (looked for "
                   f"{shown(str(p), 300)} and {shown(str(candidate), 300)}).")


def _by_name(name: str, families_dir: str | Path) -> Family | None:
    """The family the app lists as ``name`` (its ``name`` key, which the file name need not
    spell: "my planet v2" lives in my-planet-v2.toml)."""
    try:
        slugged = path_for(name, families_dir)
    except BadInput:
        return None
    if slugged.exists():
        fam = load(slugged)
        if fam.name.casefold() == name.strip().casefold():
            return fam
    matches = [f for _, f in discover(families_dir)
               if isinstance(f, Family) and f.name.casefold() == name.strip().casefold()]
    return matches[0] if len(matches) == 1 else None


def discover(families_dir: str | Path) -> list[tuple[Path, Family | BadInput]]:
    """Every ``*.toml`` in a folder, loaded, or the error that stopped it."""
    out: list[tuple[Path, Family | BadInput]] = []
    folder = Path(families_dir)
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.toml")):
        try:
            out.append((path, load(path)))
        except BadInput as exc:
            out.append((path, exc))
    return out
