"""`probe score`: responses from files, scored without a model.

Streamed: the files are read as tallies (probe.tally), so memory grows with the distinct
responses, not the rows; a scored run is stored in one transaction, so a full disk or an
interrupt leaves nothing half-stored (and no run 'running' forever)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from probe.errors import BadInput
from probe.terminal import StatusLine


def score_command(family: str, responses_paths: tuple[str, ...], as_json: bool, model: str,
                  no_save: bool, rule: str, db_path: str, jobs: int | None = None) -> None:
    from probe import family as fam_mod
    from probe.paths import families_dir
    from probe.tally import families_for_groups, group_for, read_groups, tally

    label = ", ".join(responses_paths)
    status = StatusLine()
    if Path(family).is_dir():
        # Every family file checked before the responses are read.
        loaded = []
        for path, fam in fam_mod.discover(family):
            if isinstance(fam, BadInput):
                raise fam
            loaded.append(fam)
        groups = read_groups(responses_paths, status.show)
        pairs = families_for_groups(groups, loaded, label)
    else:
        fam = fam_mod.resolve(family, families_dir())
        groups = read_groups(responses_paths, status.show)
        pairs = [(fam, group_for(groups, fam, label))]
    tallies = [tally(group, fam, responses_paths) for fam, group in pairs]
    del groups, pairs
    store = None
    if not no_save:
        from probe.store import Store

        store = Store(db_path)
    stored: list[int] = []
    try:
        for t, scored in zip(tallies, _scored(tallies, rule, jobs, status)):
            _score_one(t, scored, model, store, label, as_json, rule, status, stored)
    except KeyboardInterrupt:
        if not stored or len(tallies) < 2:
            raise
        # Each family's run is stored whole or not at all; say which are in the database,
        # since scoring the folder again stores them again.
        runs = f"run {stored[0]}" if len(stored) == 1 else f"runs {stored[0]}–{stored[-1]}"
        click.echo(f"probe: interrupted; {len(stored)} of {len(tallies)} families were scored "
                   f"and stored ({runs}).", err=True)
        raise SystemExit(130) from None


def _scored(tallies: list, rule: str, jobs: int | None, status: StatusLine):
    """Each tally's scores, in order: a folder's families matched on several processes
    (probe.parallel) unless the rule is the reference one or a family is big."""
    from probe.parallel import ordered_map
    from probe.tally import match_tally, score_tally, scored_from

    if rule == "probe" and all(len(t) < 100_000 for t in tallies):
        for t, (scores, matched) in zip(tallies, ordered_map(match_tally, tallies, jobs)):
            yield scored_from(t, scores, matched)
        return
    for t in tallies:
        if len(t) >= 100_000:
            status.show(f"matching {len(t.forms):,} distinct responses of {t.family.name} "
                        f"({len(t):,} samples)…")
        yield score_tally(t, rule)


def _score_one(t, scored, model: str, store, label: str, as_json: bool, rule: str,
               status: StatusLine, stored: list[int]) -> None:
    from probe.scoring import to_record
    from probe.store import SampleRow

    big = len(t) >= 100_000
    run_id = None
    if store is not None:
        def rows():
            for n, ((kind, idx, text), m) in enumerate(zip(t.samples(), scored.matches())):
                if big and n % 50_000 == 0:
                    status.show(f"storing {t.family.name}: {n / len(t):.0%} of "
                                f"{len(t):,} samples")
                yield SampleRow(run_id, kind, idx, t.prompt(kind, idx), text, m.answer,
                                m.canonical, m.reason, m.refusal, None, None, m.nonpick)

        with store.transaction():
            run_id = store.create_run(t.family, model=model, backend="external",
                                      settings={"responses": label, "rule": rule}, seed=None)
            store.add_samples(rows())
            store.save_result(run_id, scored.scores)
            store.set_status(run_id, "finished")
        stored.append(run_id)
    status.done(keep=False)
    record = to_record(t.family, model, run_id, scored.scores)
    if as_json:
        click.echo(json.dumps(record, ensure_ascii=False))
    else:
        from probe.report import render_scores

        click.echo(render_scores(record, scored.scores))
        click.echo("")
