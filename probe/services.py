"""What the app's screens ask of the core, in one place the command line can use too:
loading a model, a stored run's result, editing a run's answers (re-scored as a new result
version), and drafting reframings with a chat model."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from probe import family as fam_mod
from probe.errors import BadInput, ProbeError
from probe.family import Family
from probe.scoring import Response, Scored
from probe.store import Store


# ------------------------------------------------------------------- models

def open_model(spec: str | None, backend: str = "auto", *, base_url: str | None = None,
               threads: int | None = None, progress: Callable[[str, float], None] | None = None,
               announce: Callable | None = None, **engine_options):
    """Resolve a model spec, make its engine and load it: ``(ModelSpec, Backend)``.

    ``announce`` hears the resolved model (its name, engine) before the (slow) load; ``progress`` the engine's
    own steps. ``engine_options`` go to the engine (seed, chat, trust_remote_code…)."""
    from probe.backends import make_backend, resolve

    from probe.errors import ProbeError, RunFailed, describe

    resolved = resolve(spec or None, backend, base_url)
    engine = make_backend(resolved, threads=threads, **engine_options)
    if announce is not None:
        announce(resolved)
    try:
        engine.load(progress) if progress is not None else engine.load()
    except ProbeError:
        raise
    except Exception as exc:      # an engine's or a model's own code: still one sentence
        raise RunFailed(f"could not load {resolved.display}: {describe(exc)}") from None
    return resolved, engine


# --------------------------------------------------------------- run results

@dataclass
class RunResult:
    """A stored run as its screens show it: the family it is shown with (a re-score's
    edited answers, else the run's own snapshot), its settings and the scored result."""

    family: Family
    settings: object            # probe.runner.RunSettings
    scored: Scored | None
    versions: list[dict]


def score_samples(store: Store, run_id: int, family: Family, settings) -> Scored | None:
    """A run's stored samples scored under its own rule and thresholds, order-free (as the
    runner keeps them)."""
    from probe.reference import rescore_with

    samples = store.samples(run_id)
    if not samples:
        return None
    responses = sorted((Response(s.kind, s.idx, s.response) for s in samples),
                       key=lambda r: (r.kind != "direct", r.idx))
    return rescore_with(family, responses, settings.rule, settings.dr_threshold,
                        settings.pi_threshold, settings.answer_format)


def run_result(store: Store, run_id: int, family_path: Path | None = None) -> RunResult:
    from probe.runner import RunSettings

    run = store.run(run_id)
    settings = RunSettings.from_dict(run.settings)
    versions = store.result_versions(run_id)
    family_id = versions[-1]["family_id"] if versions and versions[-1]["family_id"] \
        else run.family_id
    family = store.family(family_id)
    family.path = family.path or family_path
    # The result as it was kept, never matched again (a database from before results were
    # kept is the one exception): what History, Compare and the figures show too.
    from probe.stored_result import kept_scored

    scored = kept_scored(store, run_id, versions[-1] if versions else None)
    if scored is None:
        scored = score_samples(store, run_id, family, settings)
    return RunResult(family, settings, scored, versions)


# ------------------------------------------------------------ answer edits

@dataclass
class EditOutcome:
    version: int
    scored: Scored
    family: Family          # the run's family with the edit applied
    saved_to: Path | None   # the family file changed too, if one was asked for


def apply_answer_edit(store: Store, run_id: int, family: Family, settings, edit,
                      note: str, path: Path | None = None) -> EditOutcome:
    """Merge or split answers of a finished (or stopped) run.

    ``edit(answers, earlier_edits)`` changes an answers table in place and returns a record
    of the change. With ``path`` the family file is edited too, as it is on disk now (edits
    made to it meanwhile are kept; a deleted one is recreated). The run is re-scored as a
    new result version; the result as sampled is never changed."""
    from probe.stored_result import match_rows

    if settings.rule == "reference":
        raise BadInput("this run is scored with the reference rule, which clusters answers "
                       "itself and ignores the family's aliases: a merge or split would not "
                       "change its result.")
    earlier = store.answer_edits(family.name)
    record = None
    if path is not None:
        try:
            on_disk = fam_mod.load(path) if path.exists() else \
                Family(family.name, family.direct, list(family.framings),
                       {k: list(v) for k, v in family.answers.items()})
            record = edit(on_disk.answers, earlier)
            fam_mod.save(on_disk, path)
        except (ProbeError, OSError) as exc:
            raise BadInput(f"the family file was not changed: {exc}") from None
    edited = Family(family.name, family.direct, list(family.framings),
                    {k: list(v) for k, v in family.answers.items()},
                    dataset_id=family.dataset_id, framing_ids=family.framing_ids)
    edited.path = family.path
    run_record = edit(edited.answers, earlier)
    scored = score_samples(store, run_id, edited, settings)
    if scored is None:
        raise BadInput(f"run {run_id} has no samples to re-score.")
    version = store.save_result(
        run_id, scored.scores, kind="rescored", note=note, family=edited,
        canonicals=match_rows(scored),
        edit=record or run_record)
    return EditOutcome(version, scored, edited, path)


# ----------------------------------------------------------------- drafting

DRAFT_REQUEST = (
    "Rewrite this question as {n} different everyday scenarios, each a short request that "
    "asks for exactly the same kind of answer without hinting at any particular answer. "
    "Vary the person, the activity and the sentence shape. One scenario per line, no "
    "numbering.\n\nQuestion: {direct}"
)


def draft_reframings(backend, direct: str, n: int = 10, seed: int = 0) -> list[str]:
    """Ask a loaded chat model for ``n`` reframings of ``direct``: drafts for a person to
    keep, edit or discard, never saved by themselves."""
    from probe.backends.base import Sampling
    from probe.prompting import PromptStyle

    if not backend.has_chat_template:
        raise BadInput("drafting needs a chat model: this model has no chat template, and a "
                       "base model continues text rather than following a request.")
    if not direct.strip():
        raise BadInput("write the direct question first.")
    style = PromptStyle(mode="chat", instruction="")
    out = next(iter(backend.sample_many(DRAFT_REQUEST.format(n=n, direct=direct.strip()), 1,
                                        style, Sampling(0.8, 600), [seed])))
    drafts = [ln.strip(" -•*0123456789.)\t") for ln in out.text.splitlines()]
    return [d for d in drafts if len(d) > 10]
