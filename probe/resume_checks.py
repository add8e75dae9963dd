"""What a resume checks in the database before it writes or loads anything: a run's
stored settings and family snapshot, read back as data a hand (or a planted file) may
have changed."""

from __future__ import annotations

from probe import family as fam_mod
from probe.errors import BadInput
from probe.reading import shown
from probe.runner import RunSettings
from probe.store import Store


def stored_detail(exc: BadInput) -> str:
    """The inside of a settings or family error, without the option dashes: a stored
    value is not an option the user gave."""
    text = str(exc).rstrip(".")
    for prefix in ("stored run settings are damaged (", "stored family: "):
        if text.startswith(prefix):
            text = text[len(prefix):].removesuffix(")") if prefix.endswith("(") \
                else text[len(prefix):]
    return text.removeprefix("--")


def check_stored(store: Store, run_id: int) -> None:
    """One sentence, before anything is written or loaded, when a run's stored settings
    or family snapshot would be used blindly: a limit broken in the database is not the
    user's option, and framings that are not text are not prompts."""
    run = store.run(run_id)
    try:
        settings = RunSettings.from_dict(run.settings).validate()
        if run.seed is not None and (type(run.seed) is not int
                                     or not 0 <= run.seed < 2 ** 31):
            raise BadInput(f"seed {shown(repr(run.seed))} is outside 0 to {2 ** 31 - 1}")
        if run.seed is not None and settings.seed is not None and settings.seed != run.seed:
            raise BadInput(f"seed {run.seed} differs from the settings' {settings.seed}")
    except BadInput as exc:
        raise BadInput(f"run {run_id}'s stored settings are damaged ({stored_detail(exc)}); it "
                       "cannot be resumed.") from None
    try:
        fam = store.family(run.family_id)
        data = {"name": fam.name, "direct": fam.direct, "framings": fam.framings,
                "answers": fam.answers}
        if fam.dataset_id is not None:
            data["id"] = fam.dataset_id
        if fam.framing_ids is not None:
            data["framing_idx"] = fam.framing_ids
        fam_mod.validate(data, "stored family")
    except BadInput as exc:
        raise BadInput(f"run {run_id}'s stored family is damaged ({stored_detail(exc)}); it "
                       "cannot be resumed.") from None
