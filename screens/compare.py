"""Two results side by side (two runs, or two results of one run): their settings first,
the ones that differ highlighted with a warning when they change what is measured, then
the numbers and whether the top answers are one answer."""

from __future__ import annotations

from probe.analysis import compare_models, render_compare, top_answers_agree
from probe.metrics import LABEL_TEXT
from probe.settings_view import describe, differences, flat
from probe.store import as_sampled
from screens.markup import escape


ALWAYS = ("model", "seed", "samples", "temperature", "mode", "rule")


def _ended(run) -> str:
    return f"{run.ending or run.status}, {run.samples_used or 0} samples"


def _result(store, run_id: int, version: int | None) -> dict | None:
    """A run's result as sampled (version None) or one of its re-scores."""
    versions = store.result_versions(run_id)
    if not versions:
        return None
    if version is None:
        return as_sampled(versions)
    return next((v for v in versions if v["version"] == version), None)


def _settings(run) -> dict:
    return flat(run.settings, run.model, run.model_hash, run.seed)


def compare_text(store, a: tuple[int, int | None], b: tuple[int, int | None]) -> str:
    ra, rb = store.run(a[0]), store.run(b[0])
    res_a, res_b = _result(store, *a), _result(store, *b)
    if not res_a or not res_b:
        return "[yellow]Both runs need at least one sample to compare.[/yellow]"
    fam = store.family(res_a["family_id"] or ra.family_id)
    families = escape(ra.family_name) if ra.family_name == rb.family_name else \
        f"{escape(ra.family_name)} vs {escape(rb.family_name)}  [yellow](different families)" \
        "[/yellow]"
    same = top_answers_agree(res_a["top_answer"], res_b["top_answer"], fam)

    def name(ref, res) -> str:
        return f"run {ref[0]}" + (f" v{res['version']} (re-scored)" if ref[1] else "")

    col = max(28, len(ra.model) + 2, len(rb.model) + 2)
    sa, sb = _settings(ra), _settings(rb)
    diffs = {d.key: d for d in differences(sa, sb)}
    rows = [f"[b]compare[/b] {families}",
            f"{'':<14}{name(a, res_a):<{col}}{name(b, res_b):<{col}}"]
    labels = {s.key: s.label for s in describe(ra.settings, ra.model, ra.model_hash, ra.seed)}
    labels.update({s.key: s.label for s in describe(rb.settings, rb.model, rb.model_hash,
                                                     rb.seed)})
    for key, label in labels.items():
        # The settings every comparison needs, and any other only where the two differ.
        if key not in ALWAYS and key not in diffs:
            continue
        left, right = sa.get(key, "—"), sb.get(key, "—")
        line = f"{label[:13]:<14}{escape(left):<{col}}{escape(right)}"
        if key in diffs:
            line = (f"[b yellow]{line}  ≠[/b yellow]" if diffs[key].matters else
                    f"[b]{line}[/b]")
        rows.append(line)
    rows.append(f"{'ended':<14}{escape(_ended(ra)):<{col}}{escape(_ended(rb)):<{col}}")
    for key, label in (("dr", "DR"), ("fr", "FR"), ("pi", "π")):
        rows.append(f"{label:<14}{res_a[key]:<{col}.2f}{res_b[key]:<{col}.2f}")
    rows.append(f"{'label':<14}{LABEL_TEXT[res_a['label']]:<{col}}"
                f"{LABEL_TEXT[res_b['label']]:<{col}}")
    rows.append(f"{'top':<14}{escape(str(res_a['top_answer'])):<{col}}"
                f"{escape(str(res_b['top_answer'])):<{col}}")

    def picks(res) -> str:
        # Each side's picks of its samples: a verdict on 1 of 10 answers reads as such.
        if res.get("direct_total") is None:
            return f"{res['n_direct']} + {res['n_framed']}"
        return (f"{res['n_direct']}/{res['direct_total']} + "
                f"{res['n_framed']}/{res['framed_total']}")

    rows.append(f"{'picks':<14}{picks(res_a):<{col}}{picks(res_b):<{col}}")
    rows.append("same top answer: " + ("[green]yes[/green]" if same else "[red]no[/red]"))
    mattering = [d.label for d in diffs.values() if d.matters]
    if mattering:
        rows.insert(1, f"[b yellow]⚠ measured differently ({escape(', '.join(mattering))}): "
                       "their numbers are not directly comparable.[/b yellow]")
    if ra.model != rb.model:
        # Two models: the paper's view over every family both have run.
        from probe.errors import BadInput

        try:
            rows += ["", escape(render_compare(compare_models(store, ra.model, rb.model)))]
        except BadInput as exc:
            rows.append(escape(str(exc)))
    return "\n".join(rows)
