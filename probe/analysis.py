"""The paper's analyses over stored runs: model comparison, threshold sweep, and the
dataset format in (prompts + framings → family files) and out (release records)."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Iterable

from probe import family as fam_mod
from probe.errors import BadInput
from probe.family import Family
from probe.matching import same_answer
from probe.metrics import DR_THRESHOLD, thresholds_sweep
from probe.jsonl import iter_objects
from probe.scoring import Response, rescore, to_record
from probe.store import Store

# ------------------------------------------------------------------ compare


def top_answers_agree(a: str | None, b: str | None, family: Family) -> bool:
    """Whether two runs' top answers are one answer, by the family's matcher."""
    return bool(a and b) and same_answer(a, b, family.direct, family.answers)[0]


def compare_models(store: Store, model_a: str, model_b: str) -> dict:
    """Each family's labels under two models, whether the top answers are one answer, and
    that agreement binned by π of model B among B's families with DR > 0.65."""
    a = {r["family_name"]: r for r in store.latest_results(model_a)}
    b = {r["family_name"]: r for r in store.latest_results(model_b)}
    if not a:
        raise BadInput(f"no finished runs for a model matching '{model_a}'.")
    if not b:
        raise BadInput(f"no finished runs for a model matching '{model_b}'.")
    rows = []
    for name in sorted(set(a) & set(b)):
        ra, rb = a[name], b[name]
        same = top_answers_agree(ra["top_answer"], rb["top_answer"],
                                 store.family(rb["family_id"]))
        rows.append({"family": name, "label_a": ra["label"], "label_b": rb["label"],
                     "top_a": ra["top_answer"], "top_b": rb["top_answer"], "same_top": same,
                     "dr_b": rb["dr"], "pi_b": rb["pi"], "run_a": ra["run_id"],
                     "run_b": rb["run_id"]})
    bins = []
    for i in range(10):
        lo, hi = i / 10, (i + 1) / 10
        members = [r for r in rows if r["dr_b"] > DR_THRESHOLD
                   and (lo <= r["pi_b"] < hi or (i == 9 and r["pi_b"] == 1.0))]
        agree = sum(r["same_top"] for r in members)
        bins.append({"pi_low": lo, "pi_high": hi, "n": len(members), "same": agree,
                     "rate": agree / len(members) if members else None})
    return {"model_a": model_a, "model_b": model_b, "families": rows, "bins": bins,
            "only_a": sorted(set(a) - set(b)), "only_b": sorted(set(b) - set(a))}


def render_compare(result: dict) -> str:
    from probe.metrics import LABEL_TEXT

    lines = [f"{'family':<26}{'A: ' + result['model_a'][:20]:<24}{'B: ' + result['model_b'][:20]:<24}"
             f"{'top A':<16}{'top B':<16}same"]
    for r in result["families"]:
        lines.append(f"{r['family'][:25]:<26}{LABEL_TEXT[r['label_a']]:<24}"
                     f"{LABEL_TEXT[r['label_b']]:<24}{str(r['top_a'])[:15]:<16}"
                     f"{str(r['top_b'])[:15]:<16}{'yes' if r['same_top'] else 'no'}")
    lines += ["", "same top answer, by π of B (families with DR_B > 0.65):",
              f"{'π bin':<12}{'n':>4}{'same':>6}{'rate':>8}"]
    for b in result["bins"]:
        rate = f"{b['rate']:.0%}" if b["rate"] is not None else "—"
        lines.append(f"{b['pi_low']:.1f}–{b['pi_high']:.1f}    {b['n']:>4}{b['same']:>6}{rate:>8}")
    if result["only_a"] or result["only_b"]:
        lines.append(f"\nonly under A: {len(result['only_a'])} families; "
                     f"only under B: {len(result['only_b'])}")
    return "\n".join(lines)


# --------------------------------------------------------------- thresholds


def threshold_table(store: Store, model: str | None = None
                    ) -> tuple[list[tuple[float, dict]], int]:
    """The sweep's rows, and how many families they cover."""
    points = [(r["dr"], r["pi"]) for r in store.latest_results(model)]
    if not points:
        raise BadInput("no finished runs to sweep" + (f" for '{model}'." if model else "."))
    return thresholds_sweep(points), len(points)


def render_thresholds(rows: list[tuple[float, dict]], n: int) -> str:
    lines = [f"{'t':>5}{'t²':>7}{'deep':>8}{'shallow':>9}{'non-bias':>10}   ({n} families)"]
    for t, share in rows:
        lines.append(f"{t:>5.2f}{t * t:>7.3f}{share['deep']:>8.1%}{share['shallow']:>9.1%}"
                     f"{share['non_bias']:>10.1%}")
    return "\n".join(lines)


# ----------------------------------------------------------- dataset import


def _read_jsonl(path: Path, required: Iterable[str]) -> list[dict]:
    return [{**obj, "_line": lineno} for lineno, obj in iter_objects(path, "file", required)]


def _slug(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.casefold())
    words = [w for w in words if w not in {"choose", "a", "an", "the", "random", "of"}]
    return "-".join(words)[:40].strip("-") or "family"


def import_dataset(prompts: Path, framings: Path, out: Path) -> tuple[list[Path], list[str]]:
    """The paper's prompts (id, prompt) and framings (id, framing_idx, framing) → one
    family file per id, framings in framing_idx order. Returns (written, skipped notes)."""
    prompt_rows = _read_jsonl(prompts, ("id", "prompt"))
    framing_rows = _read_jsonl(framings, ("id", "framing_idx", "framing"))
    by_id: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for r in framing_rows:
        if not isinstance(r["framing_idx"], int) or isinstance(r["framing_idx"], bool):
            raise BadInput(f"{framings}, line {r['_line']}: 'framing_idx' must be an integer.")
        if not isinstance(r["framing"], str):
            raise BadInput(f"{framings}, line {r['_line']}: 'framing' must be a string.")
        by_id[str(r["id"])].append((r["framing_idx"], r["framing"]))
    out.mkdir(parents=True, exist_ok=True)
    written, skipped = [], []
    for r in prompt_rows:
        pid = str(r["id"])
        if not isinstance(r["prompt"], str) or not r["prompt"].strip():
            skipped.append(f"id {pid}: empty prompt")
            continue
        items = sorted(by_id.get(pid, []))
        texts, seen = [], set()
        for _, text in items:
            key = " ".join(text.split()).casefold()
            if text.strip() and key not in seen:
                seen.add(key)
                texts.append(text.strip())
        if not texts:
            skipped.append(f"id {pid}: no framings")
            continue
        name = f"{pid}-{_slug(r['prompt'])}" if re.match(r"^[A-Za-z0-9]", pid) else _slug(
            r["prompt"])
        try:
            fam = fam_mod.validate({"name": name, "direct": r["prompt"], "framings": texts},
                                   f"{prompts}, id {pid}")
            path = fam_mod.save(fam, fam_mod.path_for(fam.name, out))
        except BadInput as exc:
            skipped.append(str(exc))
            continue
        written.append(path)
    return written, skipped


# ------------------------------------------------------------------- export


def export_records(store: Store, run_ids: list[int] | None = None) -> Iterable[dict]:
    """Stored runs as the paper's release records (id, prompt, model, direct, framed, pi,
    bias_type). ``id`` is the dataset id for imported families, else the family name."""
    if run_ids:
        runs = [store.run(i) for i in run_ids]
    else:
        runs = [store.run(r["id"]) for r in
                store.query("SELECT id FROM runs WHERE status = 'finished' ORDER BY id")]
    for run in runs:
        fam: Family = store.family(run.family_id)
        samples = store.samples(run.id)
        settings = run.settings
        scored = rescore(fam, [Response(s.kind, s.idx, s.response) for s in samples],
                         settings.get("dr_threshold", 0.65), settings.get("pi_threshold", 0.40))
        rec = to_record(fam, run.model, run.id, scored.scores)
        m = re.match(r"^(\d+)-", fam.name)
        yield {"id": m.group(1) if m else fam.name, "prompt": fam.direct, "model": run.model,
               "direct": rec["direct"], "framed": rec["framed"], "pi": rec["pi"],
               "bias_type": rec["bias_type"], "run_id": run.id}
