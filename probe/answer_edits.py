"""Manual merges and splits of canonical answers, as edits of a family's ``[answers]``.

A merge moves every surface form (and the file's own aliases) of the merged answers
under the target and returns a record of exactly what it moved. A split of a form that
an earlier merge brought in undoes that merge from its record, so merge then split gives
back the file as it was; a form no merge brought in becomes an answer of its own, taking
every spelling the loader or the matcher would treat as the same answer with it. Either
way the result always passes the family loader's rules.
"""

from __future__ import annotations

from probe.matching import extract, normalise


def _same(a: str, b: str) -> bool:
    """Whether two spellings are one answer to the loader (casefold) or the matcher."""
    if a.strip().casefold() == b.strip().casefold():
        return True
    ka, kb = normalise(extract(a) or a), normalise(extract(b) or b)
    return bool(ka) and ka == kb


def _key_for(answers: dict[str, list[str]], name: str) -> str | None:
    """The file's canonical key that ``name`` spells, if any."""
    return next((k for k in answers if k.strip().casefold() == name.strip().casefold()), None)


def _take(answers: dict[str, list[str]], alias: str, keep: str) -> dict[str, list[str]]:
    """Remove ``alias`` (any spelling the loader treats as it) from every list but
    ``keep``'s; return what was removed from where."""
    removed: dict[str, list[str]] = {}
    for key, aliases in answers.items():
        if key == keep:
            continue
        gone = [a for a in aliases if a.strip().casefold() == alias.strip().casefold()]
        if gone:
            answers[key] = [a for a in aliases if a not in gone]
            removed.setdefault(key, []).extend(gone)
    return removed


def _insert_at(answers: dict[str, list[str]], key: str, value: list[str],
               position: int | None) -> None:
    """Put ``key`` back where it was, so an undone merge leaves the file as it was."""
    items = [(k, v) for k, v in answers.items() if k != key]
    position = len(items) if position is None else min(position, len(items))
    items.insert(position, (key, value))
    answers.clear()
    answers.update(items)


def merge(answers: dict[str, list[str]], target: str,
          sources: dict[str, list[str]]) -> dict:
    """Merge each source answer (name → its surface forms) into ``target``, in place.
    Returns the edit record that :func:`split` uses to undo it."""
    target_key = _key_for(answers, target) or target
    record = {"op": "merge", "into": target_key,
              "target_entry": list(answers[target_key]) if target_key in answers else None,
              "from": {}}
    answers.setdefault(target_key, [])
    for source, forms in sources.items():
        source_key = _key_for(answers, source)
        if source_key == target_key:
            continue
        position = list(answers).index(source_key) if source_key is not None else None
        entry = answers.pop(source_key) if source_key is not None else None
        group = [source_key or source, *(entry or []), *forms]
        added: list[str] = []
        removed: dict[str, list[str]] = {}
        for alias in group:
            if alias.strip().casefold() == target_key.strip().casefold():
                continue
            for key, gone in _take(answers, alias, target_key).items():
                removed.setdefault(key, []).extend(gone)
            if not any(a.strip().casefold() == alias.strip().casefold()
                       for a in answers[target_key]):
                answers[target_key].append(alias)
                added.append(alias)
        record["from"][source_key or source] = {"entry": entry, "position": position,
                                                "forms": list(forms),
                                                "added": added, "removed": removed}
    return record


def _merge_to_undo(answers: dict[str, list[str]], cluster: str, form: str,
                   edits: list[dict]) -> tuple[dict, str] | None:
    """The newest recorded merge into ``cluster`` that brought ``form`` in and whose
    aliases are all still there."""
    for edit in edits:
        if edit.get("op") != "merge":
            continue
        key = _key_for(answers, edit["into"])
        if key is None or key.strip().casefold() != cluster.strip().casefold() and \
                _key_for(answers, cluster) != key:
            continue
        for source, part in edit["from"].items():
            brought = [source, *(part["entry"] or []), *part["forms"]]
            if not any(_same(form, b) for b in brought):
                continue
            present = {a.strip().casefold() for a in answers[key]}
            if all(a.strip().casefold() in present for a in part["added"]):
                return edit, source
    return None


def split(answers: dict[str, list[str]], cluster: str, form: str,
          edits: list[dict] = ()) -> dict:
    """Split surface ``form`` out of answer ``cluster``, in place; ``edits`` are earlier
    edit records, newest first. Returns this edit's record."""
    found = _merge_to_undo(answers, cluster, form, list(edits))
    if found:
        edit, source = found
        key = _key_for(answers, edit["into"])
        part = edit["from"][source]
        added = {a.strip().casefold() for a in part["added"]}
        answers[key] = [a for a in answers[key] if a.strip().casefold() not in added]
        if part["entry"] is not None:
            _insert_at(answers, source, list(part["entry"]), part.get("position"))
        for other, gone in part["removed"].items():
            if other in answers:
                answers[other] += [a for a in gone if a not in answers[other]]
        if edit["target_entry"] is None and not answers[key]:
            del answers[key]          # the merge created the target entry; nothing left in it
        return {"op": "split", "form": form, "from": key, "undid": source}
    key = _key_for(answers, cluster)
    moving = [a for a in answers.get(key, []) if _same(a, form)] if key else []
    if key is not None:
        answers[key] = [a for a in answers[key] if a not in moving]
    _take(answers, form, "")
    own = _key_for(answers, form)
    if own is None:
        answers[form] = []
        own = form
    answers[own] += [a for a in moving if a != own and a not in answers[own]
                     and a.strip().casefold() != own.strip().casefold()]
    return {"op": "split", "form": form, "from": key or cluster, "undid": None}


def same_word(form: str, answer: str) -> bool:
    """Whether the matcher reads ``form`` as the very word ``answer`` ("Rubies" for Ruby,
    "the Monarch"): such a form cannot be split out, only renamed."""
    return normalise(form) == normalise(answer)
