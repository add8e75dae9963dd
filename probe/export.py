"""Stored runs → the paper's release records (``probe export --format deepbias``).

The released schema exactly: ``id``, ``prompt``, ``model``, ``direct`` / ``framed`` with
``top_answer``, the rate, ``n_samples``, ``n_clusters`` and a ``distribution`` of
``{answer, count, rate, surface_forms: [{text, count}], lemma_keys}``, then ``pi`` and
``bias_type``; rates to 6 decimals. The one extra key, ``probe``, says which rule scored
the record and what the release format has no place for (non-picks, the run, its seed
and settings). A record is the run's result as it was kept (``probe.stored_result``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Iterable, Iterator

from probe.atomic import ensure_folder, write_atomic
from probe.errors import BadInput
from probe.family import Family
from probe.matching import extract, normalise
from probe.paths import resolved
from probe.reference import rescore_with
from probe.scoring import Response, Scored
from probe.settings_view import typed
from probe.store import Store, as_sampled
from probe.stored_result import kept_scored


def _lemma_key(surface: str, rule: str) -> str:
    """The key a surface form is bucketed by, under the rule that scored the record."""
    if rule == "reference":
        from probe.reference.keys import cluster_key

        return cluster_key(surface)
    return " ".join(normalise(extract(surface) or surface))


def _side(scored: Scored, kind: str, top: str | None, rate_key: str, rate: float,
          rule: str = "probe") -> dict:
    members: dict[str, list[str]] = defaultdict(list)
    order: list[str] = []
    for response, match in scored.matches:
        if response.kind != kind or match.refusal or not match.canonical:
            continue
        if match.canonical not in members:
            order.append(match.canonical)
        members[match.canonical].append(response.text.strip())
    n = sum(len(v) for v in members.values())
    dist = []
    for answer in sorted(order, key=lambda a: -len(members[a])):
        texts = members[answer]
        dist.append({
            "answer": answer,
            "count": len(texts),
            "rate": round(len(texts) / n, 6) if n else 0.0,
            "surface_forms": [{"text": t, "count": c} for t, c in Counter(texts).most_common()],
            "lemma_keys": sorted({_lemma_key(t, rule) for t in texts} - {""}),
        })
    return {"top_answer": top, rate_key: round(rate, 6), "n_samples": n,
            "n_clusters": len(dist), "distribution": dist}


def dataset_id(family: Family) -> str:
    """The dataset id of an imported family; else the family's name."""
    if family.dataset_id is not None:
        return family.dataset_id
    m = re.match(r"^(\d+)-", family.name)
    return m.group(1) if m else family.name


def _rescores(versions: list[dict]) -> list[dict]:
    """The run's re-scores after answer edits, dated: the release record itself stays the
    result as sampled unless ``latest`` is asked for."""
    out = []
    for v in versions:
        if v["kind"] != "rescored":
            continue
        out.append({"version": v["version"], "at": _iso(v["created_at"]), "note": v["note"],
                    "top_answer": v["top_answer"], "dr": round(v["dr"], 6),
                    "fr": round(v["fr"], 6), "pi": round(v["pi"], 6),
                    "bias_type": v["label"]})
    return out


def _iso(ts: float | None) -> str | None:
    import datetime as dt

    if ts is None:
        return None
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).isoformat(timespec="seconds")


def release_record(store: Store, run_id: int, latest: bool = False) -> dict:
    """One run as a release record: the result as sampled, or with ``latest`` the newest
    re-score (scored with the answers that re-score used)."""
    run = store.run(run_id)
    versions = store.result_versions(run_id)
    rescores = _rescores(versions)
    family_id = run.family_id
    sampled = as_sampled(versions)
    version = {"version": sampled["version"] if sampled else 1, "kind": "sampled"}
    chosen = sampled
    if latest and rescores:
        chosen = newest = [v for v in versions if v["kind"] == "rescored"][-1]
        family_id = newest["family_id"] or run.family_id
        version = {"version": newest["version"], "kind": "rescored", "note": newest["note"],
                   "at": _iso(newest["created_at"])}
    fam = store.family(family_id)
    settings = run.settings
    # The result as it was kept, as every screen shows it; only a run from before results
    # were kept is scored again, under its own rule, in sample order.
    scored = kept_scored(store, run_id, chosen)
    if scored is None:
        samples = sorted(store.samples(run_id), key=lambda x: (x.kind != "direct", x.idx))
        scored = rescore_with(fam, [Response(s.kind, s.idx, s.response) for s in samples],
                              settings.get("rule", "probe"), settings.get("dr_threshold", 0.65),
                              settings.get("pi_threshold", 0.40),
                              settings.get("answer_format", "words"))
    s = scored.scores
    return {
        "id": dataset_id(fam),
        "prompt": fam.direct,
        "model": run.model,
        "direct": _side(scored, "direct", s.top_answer, "dr", s.dr, s.rule),
        "framed": _side(scored, "framed", s.framed_top, "fr", s.fr, s.rule),
        "pi": round(s.pi, 6),
        "bias_type": s.label,
        "probe": {"rule": s.rule, "run_id": run_id, "family": fam.name, "status": run.status,
                  "seed": run.seed, "settings": typed(settings),
                  "non_picks": {"direct": s.direct_nonpicks, "framed": s.framed_nonpicks},
                  "warning": s.warning, "result": version, "rescored": rescores,
                  **({"drafted": fam.drafted.to_dict()} if fam.drafted is not None else {})},
    }


def runs_to_export(store: Store, run_ids: list[int], model: str | None
                   ) -> dict[int, str]:
    """The runs to export and the model of each, from one query: whether they fit one
    file is known before any record is built."""
    if run_ids:
        run_ids = list(dict.fromkeys(run_ids))     # `--run 1 --run 1` is one record
        return {rid: store.run(rid).model for rid in run_ids}   # an unknown id: one sentence
    sql = "SELECT id, model FROM runs WHERE status = 'finished'"
    params: list = []
    if model:
        sql += " AND model = ?"
        params.append(model)
    runs = {r["id"]: r["model"] for r in store.query(sql + " ORDER BY id", params)}
    if not runs:
        raise BadInput("no finished runs to export" + (f" for model '{model}'." if model
                                                        else "."))
    return runs


def by_model(store: Store, run_ids: Iterable[int], latest: bool = False
             ) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for rid in run_ids:
        rec = release_record(store, rid, latest)
        out[rec["model"]].append(rec)
    return dict(out)


def model_file_names(models: Iterable[str]) -> dict[str, str]:
    """One file name per model, distinct even where names differ only in case or in what a
    file name cannot hold ("a/b" and "A/b", "m @ host:1/v1" and "m @ host:2/v1"): those get
    a short hash of the full model name."""
    def stem(model: str) -> str:
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", model).strip("._")[:100] or "model"

    models = list(models)
    folded = defaultdict(list)
    for m in models:
        folded[stem(m).casefold()].append(m)
    out = {}
    for m in models:
        base = stem(m)
        if len(folded[base.casefold()]) > 1:
            base += "-" + hashlib.sha256(m.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        out[m] = f"{base}.jsonl"
    return out


def lines(records: list[dict]) -> Iterator[str]:
    for rec in records:
        yield json.dumps(rec, ensure_ascii=False) + "\n"


def protected_paths(db_path: str | Path) -> set[Path]:
    """The database and its journal files: an export must never write over them."""
    db = resolved(db_path)
    return {db, *(db.with_name(db.name + suffix) for suffix in ("-wal", "-shm", "-journal"))}


def refuse_database(target: Path, db_path: str | Path) -> None:
    """Checked before the database is even opened, so a refused export changes nothing."""
    real = resolved(target)
    if real in protected_paths(db_path) or (
            real.exists() and Path(db_path).exists() and os.path.samefile(real, db_path)):
        raise BadInput(f"--out {target}: is the database itself; choose another file.")


def check_target(target: Path, db_path: str | Path) -> None:
    refuse_database(target, db_path)
    real = resolved(target)
    parent = real.parent
    if not parent.is_dir():
        broken = next((p for p in [parent, *parent.parents] if p.exists()), None)
        if broken is not None and not broken.is_dir():
            raise BadInput(f"--out {target}: {broken} is a file, not a folder.")
        raise BadInput(f"--out {target}: the folder {parent} does not exist.")
    if real.is_dir():
        raise BadInput(f"--out {target}: is a folder.")


def export_to(store: Store, db_path: str | Path, run_ids: list[int], model: str | None,
              out: Path | None, stdout, latest: bool = False,
              out_is_folder: bool = False) -> list[tuple[Path | None, int]]:
    """Write the records, one file per model; returns (file or None for stdout, count)."""
    runs = runs_to_export(store, run_ids, model)
    models = sorted({str(m) for m in runs.values()})
    many = len(models) > 1
    # A folder: one that exists, a path ending in '/', or a new path that has no file
    # extension ("--out results") or must hold several models' files.
    as_folder = out is not None and (out.is_dir() or out_is_folder
                                     or (not out.exists() and (many or not out.suffix)))
    if not as_folder:
        if many:
            named = ", ".join(models[:6]) + (f" and {len(models) - 6} more"
                                             if len(models) > 6 else "")
            raise BadInput(f"the runs are of {len(models)} models ({named}); "
                           "pick one with --model, or give --out a folder for one file per "
                           "model.")
        if out is None:
            n = 0
            for rid in runs:          # streamed: the first records appear at once
                for line in lines([release_record(store, rid, latest)]):
                    stdout.write(line)
                n += 1
            stdout.flush()
            return [(None, n)]
        check_target(out, db_path)
        records = [release_record(store, rid, latest) for rid in runs]
        write_atomic(out, "".join(lines(records)), "export file")
        return [(out, len(records))]
    groups = by_model(store, runs, latest)
    ensure_folder(out)
    written = []
    files = model_file_names(groups)
    for name, records in sorted(groups.items()):
        target = out / files[name]
        check_target(target, db_path)
        write_atomic(target, "".join(lines(records)), "export file")
        written.append((target, len(records)))
    return written
