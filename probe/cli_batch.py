"""`probe batch`: many families on one model, resumable, with the breakdown chart."""

from __future__ import annotations

import json
import sys

import click

from probe.errors import BadInput, ProbeError


def render_breakdown(summary: dict, width: int = 40) -> str:
    from probe.report import bar

    lines = [f"breakdown over {summary['n']} families"]
    for key, name in (("deep", "Deep"), ("shallow", "Shallow"), ("non_bias", "Non-bias")):
        lines.append(f"  {name:<9}{bar(summary[key] / 100, width)} {summary[key]:5.1f}%")
    return "\n".join(lines)


class BatchProgress:
    """One status line on stderr for the whole batch, redrawn at most a few times a second
    (only on a terminal): families done, samples, rate, requests in flight, and the
    families sampling now."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.drawn = False

    def __call__(self, event) -> None:
        from probe.report import bar
        from probe.runner import Progress

        if not self.enabled or not isinstance(event, Progress):
            return
        e = event
        now = ", ".join(f"{name[:16]} {done}/{total}" for name, done, total in e.active[:3])
        line = (f"\r{bar(e.samples_done / max(e.samples_total, 1), 20)} "
                f"{e.families_done}/{e.families_total} families"
                + (f" ({e.families_failed} failed)" if e.families_failed else "")
                + f"  {e.samples_done:,}/{e.samples_total:,} samples  {e.rate:,.0f}/s"
                + (f"  {e.in_flight} in flight" if e.in_flight else "")
                + (f"  · {now}" if now else ""))
        click.echo(line.ljust(100)[:140], err=True, nl=False)
        self.drawn = True

    def done(self) -> None:
        if self.enabled and self.drawn:
            click.echo("", err=True)
            self.drawn = False


def batch_command(families, model, backend, samples, temperature, max_tokens, seed, base, shots,
                  resume, as_json, trust_remote_code, allow_pickle, db_path, base_url=None,
                  api_key_env=None, reference=False, timeout=None, concurrency=None,
                  answer_format="words") -> None:
    from probe import family as fam_mod
    from probe.batch import Batch, breakdown, expand_families
    from probe.cli_run import graceful_interrupt, load_backend, reload_backend, rule_check
    from probe.metrics import LABEL_TEXT
    from probe.paths import families_dir
    from probe.resume_checks import check_stored, stored_detail
    from probe.run_settings import DEFAULT_CONCURRENCY
    from probe.runner import RunSettings, fresh_seed
    from probe.scoring import to_record
    from probe.store import Store

    store = Store(db_path)
    interactive = sys.stderr.isatty()

    progress = BatchProgress(interactive)

    def on_family(i, n, outcome):
        progress.done()
        if outcome.scores is None:
            return
        s = outcome.scores
        click.echo(f"[{i}/{n}] {outcome.family.name}: {LABEL_TEXT[s.label]}  "
                   f"DR {s.dr:.2f}  FR {s.fr:.2f}  π {s.pi:.2f}"
                   + (f"  ({s.warning})" if s.warning else "")
                   + (f"  ({s.second.short()})" if s.reading_sensitive else ""), err=True)

    if resume is not None:
        if families:
            raise BadInput("--resume takes the families from the batch; drop FAMILIES.")
        st = store.batch(resume)["settings"]
        try:
            RunSettings.from_dict(st["run"]).validate()
        except BadInput as exc:
            raise BadInput(f"batch {resume}'s stored settings are damaged "
                           f"({stored_detail(exc)}); it cannot be resumed.") from None
        for r in store.batch_runs(resume):      # damaged stored data: said before any load
            if r["status"] != "finished":
                check_stored(store, r["id"])
        rule_check(reference, st["run"], f"batch {resume}")
        spec, engine = reload_backend(f"batch {resume}", st, st["run"], st.get("model_hash"),
                                      trust_remote_code, allow_pickle, as_json, api_key_env,
                                      timeout, base_url, concurrency)
        batch_id = resume
        runner = Batch(store, engine, on_family=on_family, on_event=progress,
                       concurrency=concurrency)
    else:
        paths = expand_families(families, families_dir())
        for p in paths:        # every family valid before the model loads
            fam_mod.load(p)
        seed = fresh_seed() if seed is None else seed
        settings = RunSettings(samples=samples, temperature=temperature, max_tokens=max_tokens,
                               seed=seed, base=base, shots=shots,
                               rule="reference" if reference else "probe",
                               concurrency=concurrency or DEFAULT_CONCURRENCY,
                               answer_format=answer_format).validate()
        rule_check(reference, settings.__dict__, "this batch")
        spec, engine = load_backend(model, backend, trust_remote_code, allow_pickle, seed,
                                    as_json, base_url, api_key_env, chat=not base,
                                    timeout=timeout, concurrency=settings.concurrency)
        runner = Batch(store, engine, on_family=on_family, on_event=progress)
        extra = ({"base_url": base_url, "api_key_env": api_key_env}
                 if spec.engine == "openai" else None)
        batch_id = runner.create(paths, settings, spec.display, spec.spec, spec.fingerprint(),
                                 extra)
    # Always named on stderr: `--resume` needs the id, --json or not.
    click.echo(f"batch {batch_id} on {spec.display}", err=True)
    with graceful_interrupt(runner.cancel, lambda: runner.cancelled):
        try:
            outcomes = runner.execute(batch_id)
        except KeyboardInterrupt:
            outcomes = []
    progress.done()
    failed = [o for o in outcomes if o.status == "failed"]
    # What the batch has, read back from the store: an interrupted batch still reports
    # every family it finished (this session or an earlier one).
    runs = store.batch_runs(batch_id)
    done = [runner.finished(r["id"]) for r in runs if r["status"] == "finished"]
    unfinished = len(runs) - len(done)
    summary = breakdown([o.scores.label for o in done])
    if as_json:
        for o in done:
            click.echo(json.dumps(to_record(o.family, spec.display, o.run_id, o.scores),
                                  ensure_ascii=False))
        click.echo(json.dumps({"summary": summary, "batch_id": batch_id,
                               "unfinished": unfinished}))
    elif not done:
        click.echo(f"batch {batch_id}: no family finished yet.", err=True)
    else:
        click.echo(f"{'family':<28}{'label':<10}{'DR':>6}{'FR':>6}{'π':>6}  top answer")
        for o in done:
            s = o.scores
            click.echo(f"{o.family.name[:27]:<28}{LABEL_TEXT[s.label]:<10}{s.dr:>6.2f}"
                       f"{s.fr:>6.2f}{s.pi:>6.2f}  {s.top_answer or 'no answer'}")
        click.echo("")
        click.echo(render_breakdown(summary))
        if unfinished:
            click.echo(f"(over the {len(done)} of {len(runs)} families finished so far)")
    for o in failed:
        click.echo(f"run {o.run_id} ({o.family.name}) failed: {o.error}", err=True)
    if unfinished:
        click.echo(f"batch {batch_id}: {unfinished} families unfinished; "
                   f"`probe batch --resume {batch_id}` finishes them.", err=True)
        if failed:
            raise ProbeError(f"{len(failed)} of the batch's runs failed.")
        sys.exit(130)
