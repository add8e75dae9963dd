"""The ``probe`` command line. Heavy imports (torch, llama_cpp, textual) stay inside
the commands that need them, so ``probe --help`` answers at once."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import sys
from pathlib import Path

import click

from probe import __version__
from probe.cli_guard import check_text_params, model_name, plain_phrase, run_main
from probe.cli_options import (REFERENCE_HELP, RunOptions, SamplingOptions, click_options,
                               from_params)
from probe.errors import BadInput, ProbeError
from probe.terminal import filtered_output


def _fail(err: ProbeError) -> None:
    click.echo(f"probe: {err}", err=True)
    sys.exit(err.exit_code)


class _Command(click.Command):
    def invoke(self, ctx):
        check_text_params(ctx)
        return super().invoke(ctx)


class _Group(click.Group):
    """Turns user mistakes into one sentence and an exit code, never a traceback."""

    command_class = _Command

    def invoke(self, ctx):
        # Everything a command prints passes the terminal-safe filter (probe.terminal).
        with filtered_output():
            return self._invoke(ctx)

    def _invoke(self, ctx):
        try:
            check_text_params(ctx)
            return super().invoke(ctx)
        except ProbeError as err:
            _fail(err)
        except sqlite3.Error as err:     # a database damaged in a way no check foresaw
            _fail(ProbeError(f"database error: {err}."))
        except (RuntimeError, OSError) as err:
            # A path no check foresaw that runs into a symbolic link loop: still the
            # one sentence (probe.paths), never Python's "Symlink loop from …" traceback.
            problem = _loop_in(err)
            if problem is None:
                raise
            _fail(problem)
        except KeyboardInterrupt:
            click.echo("probe: interrupted.", err=True)
            sys.exit(130)


def _loop_in(err: Exception) -> ProbeError | None:
    from probe.paths import loop_error

    if isinstance(err, OSError) and err.errno == errno.ELOOP and err.filename:
        return loop_error(err.filename)
    text = str(err)
    if isinstance(err, RuntimeError) and text.startswith("Symlink loop from "):
        return loop_error(text.removeprefix("Symlink loop from ").strip("'\""))
    return None


def _db_option(f):
    return click.option("--db", "db_path", type=click.Path(dir_okay=False),
                        envvar="PROBE_DB", default="probe.db", show_default=True,
                        help="SQLite database (or set PROBE_DB).")(f)


@click.group(cls=_Group, invoke_without_command=True,
             # color: click would strip what looks like an ANSI sequence from text it
             # prints to a pipe ("x\x1b[2J.gguf" listed as "x.gguf", a path that does not
             # exist); probe's own filter shows every control character instead.
             context_settings={"help_option_names": ["-h", "--help"], "color": True})
@click.version_option(__version__, prog_name="probe")
@click.option("--model", default=None, callback=model_name,
              help="With no command: the app's model.")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), envvar="PROBE_DB",
              default="probe.db", help="With no command: the app's database.")
@click.pass_context
def cli(ctx: click.Context, model: str | None, db_path: str) -> None:
    """Is a model's favourite answer a Deep bias or a Shallow one?

    With no command, opens the app (same as `probe tui`).
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(tui, model=model, db_path=db_path)


@cli.command()
@click.option("--model", default=None, callback=model_name,
              help="Model spec (default: Gemma 3 270M GGUF).")
@_db_option
def tui(model: str | None, db_path: str) -> None:
    """Open the app."""
    # The UI is a client of the core: it imports probe, never the other way round. The
    # entry point loads it by name, only when the app is opened (Textual costs ~0.3 s).
    import importlib

    importlib.import_module("screens.app").run_app(model=model, db_path=db_path)


def _reference_option(f):
    return click.option("--reference", is_flag=True, help=REFERENCE_HELP)(f)


# ------------------------------------------------------------------ score

@cli.command()
@click.argument("family")
@click.option("--responses", "responses_paths", required=True, multiple=True,
              type=click.Path(dir_okay=False),
              help="JSONL (.gz too) of samples: `response`, plus `framing_idx` for framed ones "
                   "(repeatable: the paper's direct and framed files).")
@click.option("--json", "as_json", is_flag=True, help="Print the paper-shaped JSON record.")
@click.option("--model", default="external", show_default=True, callback=model_name,
              help="Model name to store with the run.")
@click.option("--no-save", is_flag=True, help="Do not store the run in the database.")
@click.option("--jobs", type=click.IntRange(1, 64), default=None,
              help="Processes that match a folder's families (default: one per core, up to 8).")
@_reference_option
@_db_option
def score(family: str, responses_paths: tuple[str, ...], as_json: bool, model: str,
          no_save: bool, jobs: int | None, reference: bool, db_path: str) -> None:
    """Score given responses for FAMILY (a .toml path, a name in ./families, or a folder of
    family files: then each family id in the responses is scored on its own); no model."""
    from probe.cli_score import score_command

    score_command(family, responses_paths, as_json, model, no_save,
                  "reference" if reference else "probe", db_path, jobs)


# ------------------------------------------------------------------ match

@cli.command()
@click.argument("answers", nargs=-1)
@click.option("--prompt", default="", help="The direct prompt (its words are generic).")
@click.option("--pairs", "pairs_path", type=click.Path(dir_okay=False),
              help="JSONL of {a, b, prompt?}: one verdict line per pair.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON verdict.")
def match(answers: tuple[str, ...], prompt: str, pairs_path: str | None, as_json: bool) -> None:
    """Are answers A and B the same answer? And why."""
    from probe.matching import same_answer, why_different

    if pairs_path:
        if answers:
            raise BadInput("give either two answers or --pairs FILE, not both.")
        _match_pairs(Path(pairs_path))
        return
    if len(answers) != 2:
        raise BadInput(f"match needs two answers, A and B (got {len(answers)}).")
    a, b = answers
    same, reason = same_answer(a, b, prompt)
    if as_json:
        click.echo(json.dumps({"a": a, "b": b, "prompt": prompt, "same": same,
                               "reason": reason}, ensure_ascii=False))
    else:
        click.echo(f"same answer ({reason})" if same else
                   f"different answers: {why_different(a, b, prompt)}")


def _match_pairs(path: Path) -> None:
    from probe.matching import same_answer

    from probe.jsonl import iter_objects

    labelled = agree = 0
    out = []
    for lineno, obj in iter_objects(path, "pairs file"):
        if not isinstance(obj.get("a"), str) or not isinstance(obj.get("b"), str):
            raise BadInput(f"{path}, line {lineno}: needs string fields 'a' and 'b'.")
        same, reason = same_answer(obj["a"], obj["b"], str(obj.get("prompt") or ""))
        expected = obj.get("same")
        if isinstance(expected, bool):
            labelled += 1
            agree += same == expected
            obj["expected"] = expected
        obj["same"], obj["reason"] = same, reason
        out.append(json.dumps(obj, ensure_ascii=False))
    click.echo("\n".join(out))
    if labelled:
        click.echo(f"agreement with labels: {agree}/{labelled} "
                   f"({100 * agree / labelled:.1f}%)", err=True)


# -------------------------------------------------------------------- run

@cli.command()
@click.argument("family", required=False)
@click_options(RunOptions)
def run(**params) -> None:
    """Sample FAMILY on a local model, store every sample, print DR, FR, π and the label."""
    from probe.cli_run import run_command

    run_command(from_params(RunOptions, params))


@cli.command()
@click.argument("question")
@click.option("--framings", default=30, show_default=True,
              help="How many reframings to draft.")
@click.option("--name", default=None,
              help="Family name (default: the category; a taken one gets a number).")
@click.option("--category", default=None, metavar="PHRASE", callback=plain_phrase,
              help="The kind of answer asked for, when probe cannot read it from QUESTION "
                   "(e.g. \"popular butterfly\").")
@click.option("--run", "run_it", is_flag=True,
              help="Also sample the family and print the verdict.")
@click_options(SamplingOptions)
@click.option("--quick", is_flag=True, help="With --run: stop once the label is settled.")
@click.option("--json", "as_json", is_flag=True,
              help="With --run: print only the JSON record on stdout.")
@_reference_option
@_db_option
@click.pass_context
def new(ctx, question, framings, name, category, run_it, seed, db_path, **options) -> None:
    """Draft a family for QUESTION from everyday-scenario templates (offline, no chat
    model) and print its path; --seed drafts the same family again (and fixes the run's
    seed with --run)."""
    from probe.cli_new import new_command

    new_command(ctx, question, framings, name, category, seed, run_it, db_path, options)


@cli.command()
@click.option("--json", "as_json", is_flag=True)
def models(as_json: bool) -> None:
    """Models usable here, offline: the default, ./models, PROBE_MODEL_DIRS, the HF cache."""
    from probe.cli_run import models_command

    models_command(as_json)


# ------------------------------------------------------------------ batch

@cli.command()
@click.argument("families", nargs=-1)
@click_options(SamplingOptions)
@click.option("--resume", type=int, default=None, metavar="BATCH_ID",
              help="Finish an interrupted batch.")
@click.option("--json", "as_json", is_flag=True,
              help="One JSON record per family, then a summary line.")
@_reference_option
@_db_option
def batch(families, model, backend, base_url, api_key_env, timeout, concurrency, samples,
          temperature, max_tokens, seed, base, shots, answer_format, resume, as_json,
          trust_remote_code, allow_pickle, reference, db_path) -> None:
    """Run many FAMILIES (files, folders or names) on one model; print the breakdown."""
    from probe.cli_batch import batch_command

    batch_command(families, model, backend, samples, temperature, max_tokens, seed, base,
                  shots, resume, as_json, trust_remote_code, allow_pickle, db_path, base_url,
                  api_key_env, reference, timeout, concurrency, answer_format)


@cli.command()
@click.option("--a", "model_a", required=True, callback=model_name,
              help="First model (name or part of it).")
@click.option("--b", "model_b", required=True, callback=model_name,
              help="Second model; π bins use its runs.")
@click.option("--json", "as_json", is_flag=True)
@_db_option
def compare(model_a, model_b, as_json, db_path) -> None:
    """Compare two models' stored runs over the families both have run."""
    from probe.analysis import compare_models, render_compare
    from probe.store import Store

    result = compare_models(Store(db_path, must_exist=True), model_a, model_b)
    click.echo(json.dumps(result) if as_json else render_compare(result))


@cli.command()
@click.option("--model", default=None, callback=model_name, help="Only runs of this model.")
@click.option("--reference", is_flag=True,
              help="Sweep the released analysis's rule (Deep on π > t² alone).")
@click.option("--json", "as_json", is_flag=True)
@_db_option
def thresholds(model, reference, as_json, db_path) -> None:
    """The paper's threshold sweep over stored runs (t = 0.50 … 0.86 by 0.01)."""
    from probe.analysis import render_thresholds, threshold_table
    from probe.store import Store

    rule = "reference" if reference else "probe"
    rows, n = threshold_table(Store(db_path, must_exist=True), model, rule)
    if as_json:
        click.echo(json.dumps([{"t": t, "rule": rule, **share} for t, share in rows]))
    else:
        click.echo(render_thresholds(rows, n, rule))


@cli.command("import-dataset")
@click.option("--prompts", required=True, type=click.Path(dir_okay=False),
              help="JSONL (.gz too): id (or row_idx) and prompt (or rewrite) per family.")
@click.option("--framings", required=True, type=click.Path(dir_okay=False),
              help="JSONL (.gz too): id, framing_idx and framing per reframing.")
@click.option("--out", required=True, type=click.Path(file_okay=False))
def import_dataset(prompts, framings, out) -> None:
    """The paper's released prompts and framings → one family file per id, keeping the
    ids and framing numbers as given."""
    from probe.dataset import import_dataset as do_import

    report = do_import(Path(prompts), Path(framings), Path(out))
    for note in report.notes:
        click.echo(f"note: {note}", err=True)
    extra = [f"{len(report.unchanged)} already there, unchanged"] if report.unchanged else []
    extra += [f"{len(report.notes)} notes above"] if report.notes else []
    click.echo(f"wrote {len(report.written)} family files to {out}"
               + (f" ({'; '.join(extra)})" if extra else ""))


@cli.command()
@click.option("--run", "run_ids", type=int, multiple=True, help="Run id (repeatable).")
@click.option("--model", default=None, callback=model_name,
              help="Only finished runs of this model (exact name).")
@click.option("--format", "fmt", type=click.Choice(["deepbias"]), default="deepbias",
              show_default=True)
@click.option("--out", type=click.Path(), default=None,
              help="A file (runs.jsonl), or a folder for one <model>.jsonl per model: one "
                   "that exists, or a new name without an extension (default: stdout).")
@click.option("--result", "which", type=click.Choice(["sampled", "latest"]), default="sampled",
              show_default=True,
              help="The result as sampled, or a run's newest re-score after answer edits "
                   "(either way `probe.rescored` lists the re-scores).")
@_db_option
def export(run_ids, model, fmt, out, which, db_path) -> None:
    """Stored runs as the paper's release records (JSONL), one file per model."""
    from probe.export import export_to, refuse_database
    from probe.store import Store

    if out:
        refuse_database(Path(out), db_path)
    # A reader that goes away (``| head``) or a full disk: one sentence (cli_guard).
    written = export_to(Store(db_path, must_exist=True), db_path, list(run_ids), model,
                        Path(out) if out else None, sys.stdout, which == "latest",
                        # Path() drops a trailing '/', which is how one says "a folder".
                        out_is_folder=bool(out) and out.endswith(("/", os.sep)))
    for path, n in written:
        if path is not None:
            click.echo(f"wrote {n} records to {path}", err=True)


@cli.command()
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="Folder for the figures and report.html (created if missing).")
@click.option("--model", "models", multiple=True, metavar="M", callback=model_name,
              help="Only runs of models matching M (repeatable; default: all).")
@click.option("--format", "formats", default="svg,png,pdf", show_default=True,
              help="Comma-separated file formats for each figure.")
@click.option("--dpi", default=150, show_default=True, type=click.IntRange(20, 1200),
              help="Resolution of the PNG files.")
@click.option("--family", default=None, metavar="NAME",
              help="Draw this family's answer distributions (latest finished run per model).")
@click.option("--run", "run_id", type=int, default=None, metavar="ID",
              help="Draw the answer distributions of this run instead (even a partial one).")
@click.option("--a", "model_a", default=None, metavar="MODEL", callback=model_name,
              help="With --b: agreement of top answers by π bin of B.")
@click.option("--b", "model_b", default=None, metavar="MODEL", callback=model_name,
              help="With --a: the second model; the π bins use its runs.")
@click.option("--annotate", is_flag=True, help="Write family names beside the scatter's points.")
@click.option("--no-intervals", is_flag=True,
              help="Leave out the scatter's 95% Wilson intervals (error bars).")
@_db_option
def report(out, models, formats, dpi, family, run_id, model_a, model_b, annotate,
           no_intervals, db_path) -> None:
    """The paper's figures from stored finished runs, as SVG, PNG and PDF, plus one
    self-contained HTML page: answer distributions of one family, the bias-type breakdown
    per model, DR vs FR, agreement by π bin of two models, and threshold sensitivity.
    Repeat runs that measured alike are pooled; the page says which runs stand for each
    family."""
    # matplotlib loads here and only here (~0.4 s): `probe --help` stays instant.
    from probe.charts.write import ReportRequest, parse_formats, write_report
    from probe.store import Store

    req = ReportRequest(Path(out), tuple(models), parse_formats(formats), dpi, family,
                        run_id, model_a, model_b, annotate, intervals=not no_intervals)
    result = write_report(Store(db_path, must_exist=True), req)
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
    for p in result.written:
        click.echo(str(p))


@cli.command()
@_db_option
def paths(db_path: str) -> None:
    """Where probe reads and writes: database, families, models, cache, the app's settings
    and its exports."""
    from probe.paths import (cache_dir, config_dir, exports_dir, families_dir, loop_error,
                             models_dir, resolved)

    loops = []
    for name, value in (("database", db_path), ("families", families_dir()),
                        ("models", models_dir()), ("cache", cache_dir()),
                        ("config", config_dir()), ("exports", exports_dir())):
        problem = loop_error(value)
        # Every location is listed; one that loops is named as such, then said once.
        click.echo(f"{name:<9} {Path(value).absolute()}  (a symbolic link loop)" if problem
                   else f"{name:<9} {resolved(value)}")
        loops += [problem] if problem else []
    if loops:
        raise loops[0]


def main() -> None:
    run_main(cli)
