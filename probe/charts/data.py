"""What the figures show, read from the store: no drawing here, so the app's charts screen
and `probe report` share it (and importing it never loads matplotlib)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from probe.batch import breakdown
from probe.errors import BadInput
from probe.metrics import DEEP, DR_THRESHOLD, NON_BIAS, PI_THRESHOLD, SHALLOW, distribution, \
    thresholds_sweep
from probe.store import Store

LABELS = (DEEP, SHALLOW, NON_BIAS)
OTHER_LIMIT = 12          # answers drawn one bar each; the rest share one "other" bar


def chart_rows(store: Store, models: Sequence[str] = ()) -> list[dict]:
    """The newest *finished* run per (family, model), for every model matching one of
    ``models`` (all models when empty). The one query Home's labels and the charts share."""
    if not models:
        return store.latest_results()
    seen: dict[int, dict] = {}
    for model in models:
        for row in store.latest_results(model):
            seen.setdefault(row["run_id"], row)
    return sorted(seen.values(), key=lambda r: (r["family_name"], r["model"]))


def require_rows(store: Store, models: Sequence[str] = ()) -> list[dict]:
    rows = chart_rows(store, models)
    if not rows:
        which = " or ".join(f"'{m}'" for m in models)
        raise BadInput("no finished runs to chart" + (f" for a model matching {which}."
                                                      if models else "."))
    return rows


def model_names(rows: Sequence[dict]) -> list[str]:
    return sorted({r["model"] for r in rows})


@dataclass
class Thresholds:
    dr: float = DR_THRESHOLD
    pi: float = PI_THRESHOLD
    mixed: bool = False     # the runs were labelled with more than one pair


def run_thresholds(store: Store, rows: Sequence[dict]) -> Thresholds:
    """The thresholds the runs were labelled with (their settings, else the defaults); the
    most common pair when they differ."""
    pairs = Counter()
    for r in rows:
        settings = store.run(r["run_id"]).settings
        pairs[(float(settings.get("dr_threshold", DR_THRESHOLD)),
               float(settings.get("pi_threshold", PI_THRESHOLD)))] += 1
    if not pairs:
        return Thresholds()
    (dr, pi), _ = pairs.most_common(1)[0]
    return Thresholds(dr, pi, mixed=len(pairs) > 1)


# ------------------------------------------------------------ breakdown, sweep

def breakdown_by_model(rows: Sequence[dict]) -> dict[str, dict]:
    """Per model (in name order): the percent of families per label, and n."""
    return {model: breakdown([r["label"] for r in rows if r["model"] == model])
            for model in model_names(rows)}


Sweep = tuple[int, list[tuple[float, dict[str, float]]]]     # (families, rows)


def sweep_by_model(rows: Sequence[dict]) -> dict[str, Sweep]:
    """The paper's threshold sweep (what `probe thresholds` prints) per model."""
    out = {}
    for model in model_names(rows):
        points = [(r["dr"], r["pi"]) for r in rows if r["model"] == model]
        out[model] = (len(points), thresholds_sweep(points))
    return out


# ------------------------------------------------------- answer distributions

@dataclass
class Bar:
    answer: str
    count: int
    nonpick: bool = False      # a refusal, an echo of the question, or an empty response
    # A framed answer the released rule counts for the direct top answer (surface match).
    surface_match: bool = False


@dataclass
class RunAnswers:
    """One run of a family: its result and the answers of each side as bars."""

    run_id: int
    family: str
    model: str
    status: str
    top_answer: str | None
    dr: float
    fr: float
    pi: float
    label: str
    direct: list[Bar] = field(default_factory=list)
    framed: list[Bar] = field(default_factory=list)

    n_direct: int = 0
    n_framed: int = 0

    @property
    def partial(self) -> bool:
        return self.status != "finished"

    def table_row(self) -> dict:
        """The run in the shape of a `chart_rows` row."""
        return {"run_id": self.run_id, "family_name": self.family, "model": self.model,
                "status": self.status, "top_answer": self.top_answer, "dr": self.dr,
                "fr": self.fr, "pi": self.pi, "label": self.label, "n_direct": self.n_direct,
                "n_framed": self.n_framed,
                "direct_total": sum(b.count for b in self.direct),
                "framed_total": sum(b.count for b in self.framed)}


def answer_bars(samples: Sequence, kind: str, limit: int = OTHER_LIMIT) -> list[Bar]:
    """The answers of one side as the run view counts them (`probe.metrics.distribution`):
    picks by count, then the non-picks (a sample's refusal flag, or an empty answer)."""
    side = [s for s in samples if s.kind == kind]
    counted = distribution([s.canonical for s in side], nonpick=[s.refusal for s in side])
    picks = [ac for ac in counted if not ac.refusal]
    bars = [Bar(ac.answer, ac.count) for ac in picks[:limit]]
    rest = picks[limit:]
    if rest:
        bars.append(Bar(f"other ({len(rest)} answers)", sum(ac.count for ac in rest)))
    return bars + [Bar(ac.answer, ac.count, nonpick=True) for ac in counted if ac.refusal]


def _run_answers(store: Store, run_id: int) -> RunAnswers:
    """The run's result as it was kept (``probe.stored_result``): the figure's bars are the
    matches its DR and FR counted, re-scores included."""
    from types import SimpleNamespace

    from probe.stored_result import kept_scored

    run = store.run(run_id)
    result = store.result(run_id) or {}
    kept = kept_scored(store, run_id)
    samples = store.samples(run_id) if kept is None else [
        SimpleNamespace(kind=r.kind, canonical=m.canonical, refusal=m.refusal)
        for r, m in kept.matches]
    top = result.get("top_answer")
    framed = answer_bars(samples, "framed")
    # The stored result says which framed answers FR counted: under the released rule that
    # may be answers named otherwise than the top one.
    counted = set() if kept is None else {
        ac.answer for ac in kept.scores.framed_distribution if ac.hit and not ac.refusal}
    for b in framed:
        b.surface_match = not b.nonpick and b.answer != top and b.answer in counted
    return RunAnswers(run_id, run.family_name, run.model, run.status, top,
                      result.get("dr", 0.0), result.get("fr", 0.0), result.get("pi", 0.0),
                      result.get("label", NON_BIAS), answer_bars(samples, "direct"),
                      framed, result.get("n_direct", 0), result.get("n_framed", 0))


def family_answers(store: Store, family: str | None, models: Sequence[str] = (),
                   run_id: int | None = None) -> list[RunAnswers]:
    """The latest finished run of ``family`` per model, or exactly run ``run_id`` (which
    may be a cancelled, partial one: the figure then says so)."""
    if run_id is not None:
        answers = _run_answers(store, run_id)
        if family and answers.family != family:
            raise BadInput(f"run {run_id} is of family '{answers.family}', not '{family}'.")
        return [answers]
    rows = [r for r in chart_rows(store, models) if r["family_name"] == family]
    if not rows:
        others = store.runs(family=family, limit=1)
        hint = (f" (run {others[0]['id']} is {others[0]['status']}: draw it with --run "
                f"{others[0]['id']})") if others else ""
        raise BadInput(f"no finished run of family '{family}'"
                       + (f" for a model matching {', '.join(models)}" if models else "")
                       + hint + ".")
    return [_run_answers(store, r["run_id"]) for r in rows]
