"""`probe new`: a direct question → a drafted family file (→ a verdict, with --run)."""

from __future__ import annotations

import click

from probe.errors import BadInput
from probe.reading import shown

# Options that only mean something when the family is also run.
RUN_ONLY = ("model", "backend", "base_url", "api_key_env", "timeout", "concurrency",
            "samples", "temperature", "max_tokens", "base", "shots", "trust_remote_code",
            "allow_pickle", "quick", "as_json", "reference")


def new_command(ctx: click.Context, question: str, framings: int, name: str | None,
                category: str | None, seed: int | None, run: bool, db_path: str,
                options: dict) -> None:
    from probe.drafting import CategoryNotFound, draft_family, save_new
    from probe.paths import families_dir

    if not run:
        given = [p for p in RUN_ONLY if ctx.get_parameter_source(p)
                 not in (None, click.core.ParameterSource.DEFAULT)]
        if given:
            flag = "--json" if given[0] == "as_json" else "--" + given[0].replace("_", "-")
            raise BadInput(f"{flag} only applies with --run (drafting alone samples nothing).")
    if seed is None:
        from probe.runner import fresh_seed

        seed = fresh_seed()        # recorded in the file, so the draft can be made again
    try:
        draft = draft_family(question, framings, seed, category, name)
    except CategoryNotFound as exc:
        if category:
            raise
        raise BadInput(f"cannot tell what kind of answer {shown(repr(exc.question), 80)} "
                       "asks for; give it with --category (for example --category "
                       "\"popular butterfly\").") from None
    path = save_new(draft.family, families_dir(), numbered=not name)
    as_json = options.get("as_json", False)
    # stdout is the path (or, with --run --json, only the record).
    click.echo(str(path), err=run and as_json)
    click.echo(f"drafted {len(draft.family.framings)} framings for "
               f"'{draft.category.phrase}' from templates (seed {seed}); review or edit them "
               "before trusting a verdict.", err=True)
    if not run:
        return
    from probe.cli_options import RunOptions, from_params
    from probe.cli_run import run_command

    run_command(from_params(RunOptions, {**options, "family": str(path), "seed": seed,
                                         "db_path": db_path, "as_json": as_json}))
