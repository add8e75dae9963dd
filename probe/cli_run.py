"""`probe run` and `probe models`: sampling a real model from the command line."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading

import click

from probe.errors import BadInput, ProbeError, RunFailed, describe
from probe.reading import shown
from probe.terminal import StatusLine


# SIGTERM (kill, a scheduler's stop) and SIGHUP (the terminal closed) stop a run the way
# Ctrl-C does: cancelled, partial result saved, resumable.
STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP")
                     if hasattr(signal, n))


@contextlib.contextmanager
def graceful_interrupt(cancel, already_cancelled, grace: float | None = None):
    """First Ctrl-C (or SIGTERM/SIGHUP): stop sampling, keep every committed sample, save
    the partial result. Whatever the run is busy with (a model's own code, a template), the
    process ends ``grace`` seconds later at the latest; a second signal ends it at once."""
    from probe.limits import STOP_GRACE_S

    grace = STOP_GRACE_S if grace is None else grace
    watchdog: list[threading.Timer] = []

    def arm(seconds: float) -> None:
        for timer in watchdog:
            timer.cancel()
        timer = threading.Timer(seconds, _exit_now, args=(seconds,))
        timer.daemon = True
        timer.start()
        watchdog[:] = [timer]

    def handler(signum, frame):
        if already_cancelled():
            arm(2.0)                      # the cleanup below gets two seconds
            raise KeyboardInterrupt
        with contextlib.suppress(Exception):   # stderr may be gone (SIGHUP)
            click.echo("\nstopping… (Ctrl-C again to interrupt at once)", err=True)
        cancel()
        arm(grace)
        # A second SIGTERM or SIGHUP ends the process in the kernel, even while Python
        # code cannot run (a C call that holds the interpreter).
        for sig in STOP_SIGNALS:
            if sig != signal.SIGINT:
                with contextlib.suppress(ValueError, OSError):
                    signal.signal(sig, signal.SIG_DFL)

    previous = {}
    for sig in STOP_SIGNALS:
        with contextlib.suppress(ValueError, OSError):   # not the main thread
            previous[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for timer in watchdog:
            timer.cancel()
        for sig, old in previous.items():
            signal.signal(sig, old)


def _exit_now(after: float) -> None:
    """The run did not stop in time: say so and end the process. Written straight to the
    descriptor (the main thread may hold Python's stream lock); the samples committed so
    far are in the database, and the run's lease dies with the process."""
    from probe.terminal import safe

    with contextlib.suppress(OSError):
        os.write(2, safe(f"\nprobe: the run did not stop within {after:g} s; exiting. The "
                         "samples stored so far are kept (`probe run --resume` finishes "
                         "it).\n").encode("utf-8", "replace"))
    os._exit(130)


class ProgressLine:
    """One status line on stderr, redrawn per sample, only when stderr is a terminal."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.line = StatusLine(enabled)

    def __call__(self, event) -> None:
        from probe.metrics import LABEL_TEXT
        from probe.report import bar
        from probe.runner import SampleDrawn

        if not self.enabled or not isinstance(event, SampleDrawn) or event.scores is None:
            return
        s = event.scores
        settling = "" if s.settled else " (settling)"
        nonpicks = s.direct_nonpicks + s.framed_nonpicks
        line = (f"{bar(event.done / event.total, 24)} {event.done}/{event.total}  "
                f"DR {s.dr:.2f}  FR {s.fr:.2f}  π {s.pi:.2f}  {LABEL_TEXT[s.label]}{settling}"
                + (f"  ⊘ {nonpicks} not picks" if nonpicks else ""))
        self.line.show(line)

    def done(self) -> None:
        self.line.done()


def load_backend(model_spec: str | None, backend: str, trust_remote_code: bool,
                 allow_pickle: bool, seed: int, quiet: bool, base_url: str | None = None,
                 api_key_env: str | None = None, chat: bool = True,
                 timeout: float | None = None, concurrency: int | None = None):
    """The engine for a model spec, loaded (the app loads through the same call)."""
    from probe.services import open_model

    def announce(spec) -> None:
        if not quiet:
            click.echo(f"loading {spec.display} ({spec.engine})…", err=True)

    return open_model(model_spec, backend, base_url=base_url, announce=announce,
                      trust_remote_code=trust_remote_code, allow_pickle=allow_pickle,
                      seed=seed, api_key_env=api_key_env, chat=chat, timeout=timeout,
                      concurrency=concurrency)


def _same_server(what: str, stored_url, given_url: str | None) -> None:
    """A server address read from the database is never trusted with a key: resuming a
    run sampled from a server needs ``--base-url`` again, the same one, before any
    request (a damaged or planted database could name any host)."""
    if not isinstance(stored_url, str) or not stored_url:
        raise BadInput(f"{what} has damaged stored settings (no server address); it cannot "
                       "be resumed.")
    if not given_url:
        raise BadInput(f"{what} was sampled from the server at {shown(stored_url)}; give "
                       "--base-url again to resume (probe sends a key only to a server "
                       "named on the command line).")
    if given_url.rstrip("/") != stored_url.rstrip("/"):
        raise BadInput(f"{what} was sampled from the server at {shown(stored_url)}, not "
                       f"{shown(given_url)}; resuming elsewhere would mix two models.")


def reload_backend(what: str, stored: dict, run_settings: dict, model_hash: str | None,
                   trust_remote_code: bool, allow_pickle: bool, quiet: bool,
                   api_key_env: str | None, timeout: float | None = None,
                   base_url: str | None = None, concurrency: int | None = None):
    """Load again the engine a stored run or batch was sampled with, or say why not."""
    from probe.backends import BACKENDS

    engine_name = stored.get("engine", "auto")
    if engine_name not in BACKENDS:
        raise BadInput(f"{what} was sampled by the '{shown(str(engine_name))}' engine, which "
                       "the command line cannot load.")
    if engine_name == "openai" or stored.get("base_url") is not None:
        _same_server(what, stored.get("base_url"), base_url)
    spec, engine = load_backend(
        stored.get("model_spec") or None, engine_name, trust_remote_code, allow_pickle,
        run_settings.get("seed") or 0, quiet, stored.get("base_url"),
        api_key_env or stored.get("api_key_env"), chat=not run_settings.get("base", False),
        timeout=timeout, concurrency=concurrency or run_settings.get("concurrency"))
    if model_hash and spec.fingerprint() != model_hash:
        raise BadInput(f"{what} was made with different weights for '{spec.display}'; "
                       "resuming would mix two models.")
    return spec, engine


def run_command(opts) -> None:
    """``opts``: a ``probe.cli_options.RunOptions``."""
    from probe import family as fam_mod
    from probe.paths import families_dir
    from probe.report import render_scores
    from probe.run_settings import DEFAULT_CONCURRENCY
    from probe.runner import Runner, RunSettings, fresh_seed, resumable
    from probe.scoring import to_record
    from probe.store import Store

    store = Store(opts.db_path)
    as_json = opts.as_json
    if opts.resume is not None:
        if opts.family:
            raise BadInput("--resume takes the family and settings from the run; "
                           "drop the FAMILY argument.")
        resumable(store, opts.resume)
        run = store.run(opts.resume)
        rule_check(opts.reference, run.settings, f"run {opts.resume}")
        spec, engine = reload_backend(f"run {opts.resume}", run.settings, run.settings,
                                      run.model_hash, opts.trust_remote_code,
                                      opts.allow_pickle, as_json, opts.api_key_env,
                                      opts.timeout, opts.base_url, opts.concurrency)
        run_id = opts.resume
        family_name = run.family_name
    else:
        if not opts.family:
            raise BadInput("run needs a FAMILY (a .toml file or a name in "
                           f"{families_dir()}), or --resume RUN_ID.")
        family = fam_mod.resolve(opts.family, families_dir())
        seed = fresh_seed() if opts.seed is None else opts.seed
        settings = RunSettings(samples=opts.samples, temperature=opts.temperature,
                               max_tokens=opts.max_tokens, seed=seed, base=opts.base,
                               shots=opts.shots, quick=opts.quick,
                               system=_read_system(opts.system),
                               dr_threshold=opts.dr_threshold, pi_threshold=opts.pi_threshold,
                               rule="reference" if opts.reference else "probe",
                               answer_format=opts.answer_format,
                               concurrency=opts.concurrency or DEFAULT_CONCURRENCY).validate()
        rule_check(opts.reference, settings.__dict__, "this run")
        spec, engine = load_backend(opts.model, opts.backend, opts.trust_remote_code,
                                    opts.allow_pickle, seed, as_json, opts.base_url,
                                    opts.api_key_env, chat=not opts.base,
                                    timeout=opts.timeout, concurrency=settings.concurrency)
        run_id = None
        family_name = family.name

    progress = ProgressLine(sys.stderr.isatty())
    # Live scores after every sample only for the terminal's progress line.
    runner = Runner(store, engine, on_event=progress, live_scores=progress.enabled)
    if run_id is None:
        run_id = runner.create(family, settings, spec.display, spec.spec, spec.fingerprint(),
                               extra={"base_url": opts.base_url,
                                      "api_key_env": opts.api_key_env}
                               if spec.engine == "openai" else None)
    if not as_json:
        click.echo(f"run {run_id}: {family_name} on {spec.display} "
                   f"(seed {store.run(run_id).seed})", err=True)
    with graceful_interrupt(runner.cancel, lambda: runner.cancelled):
        outcome = runner.execute(run_id, opts.concurrency)
    progress.done()
    if outcome.status == "failed":
        raise ProbeError(f"run {run_id} failed: {outcome.error}")
    if outcome.scores is None:
        click.echo(f"run {run_id} was cancelled before any sample.", err=True)
        sys.exit(130)
    record = to_record(outcome.family, spec.display, run_id, outcome.scores)
    record["status"] = outcome.status
    record["samples_used"] = outcome.samples_used
    record["samples_planned"] = outcome.samples_planned
    record["seed"] = store.run(run_id).seed
    if outcome.settings.quick:
        record["quick"] = {"stopped_early": outcome.stopped_early,
                           "samples_saved": outcome.samples_planned - outcome.samples_used}
    if as_json:
        click.echo(json.dumps(record, ensure_ascii=False))
    else:
        from probe.report import verdict_lines

        click.echo(render_scores(record, outcome.scores,
                                 verdict_lines(store.run(run_id), outcome)))
        if outcome.stopped_early:
            click.echo(f"\nquick check: label settled after {outcome.samples_used} of "
                       f"{outcome.samples_planned} samples.")
    if outcome.status == "cancelled":
        from probe.report import counted

        click.echo(f"run {run_id} cancelled after {counted(outcome.samples_used, 'sample')}; "
                   f"`probe run --resume {run_id}` finishes it.", err=True)
        sys.exit(130)


def rule_check(reference: bool, stored: dict, what: str) -> None:
    """A stored rule is kept on resume; ``--reference`` needs its model installed up front
    (before a model loads and samples for minutes)."""
    rule = stored.get("rule", "probe")
    if reference and rule != "reference":
        raise BadInput(f"{what} is scored with probe's rule; --reference cannot change a "
                       "stored run (start a new run, or rescore with `probe score --reference`).")
    if rule == "reference":
        from probe.reference.embed import ensure_available

        ensure_available()


def _read_system(path: str | None) -> str | None:
    from pathlib import Path

    from probe.limits import MAX_SYSTEM_PROMPT_BYTES
    from probe.reading import read_text

    if not path:
        return None
    text = read_text(Path(path), MAX_SYSTEM_PROMPT_BYTES, "system prompt file").strip()
    if not text:
        raise BadInput(f"system prompt file {path} is empty.")
    return text


def models_command(as_json: bool) -> None:
    from probe.backends import available_models

    models = available_models()
    if as_json:
        click.echo(json.dumps(models))
        return
    if not models:
        click.echo("no models found (the default model package is not installed).")
        return
    for m in models:
        size = f"{m['size'] / 1e6:,.0f} MB"
        click.echo(f"{m['engine']:<13} {size:>10}  {m['spec']}"
                   + (f"   ({m['name']})" if m["name"] != m["spec"] else ""))
