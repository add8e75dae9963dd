"""The paper's analyses over stored runs: model comparison and the threshold sweep."""

from __future__ import annotations


from probe.errors import BadInput
from probe.family import Family
from probe.matching import same_answer
from probe.metrics import DR_THRESHOLD, SWEEP_RULES, thresholds_sweep

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


def threshold_table(store: Store, model: str | None = None, rule: str = "probe"
                    ) -> tuple[list[tuple[float, dict]], int]:
    """The sweep's rows, and how many families they cover."""
    points = [(r["dr"], r["pi"]) for r in store.latest_results(model)]
    if not points:
        raise BadInput("no finished runs to sweep" + (f" for '{model}'." if model else "."))
    return thresholds_sweep(points, rule=rule), len(points)


def render_thresholds(rows: list[tuple[float, dict]], n: int, rule: str = "probe") -> str:
    lines = [f"rule: {SWEEP_RULES[rule]}",
             f"{'t':>5}{'t²':>7}{'deep':>8}{'shallow':>9}{'non-bias':>10}   ({n} families)"]
    for t, share in rows:
        lines.append(f"{t:>5.2f}{t * t:>7.4f}{share['deep']:>8.1%}{share['shallow']:>9.1%}"
                     f"{share['non_bias']:>10.1%}")
    return "\n".join(lines)
