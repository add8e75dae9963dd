"""Command options as typed objects: each field of an options class carries its click
option, so one line adds an option to the command line and to the object the command's
code receives (no long positional argument lists between the two)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import click

from probe.cli_guard import model_name, positive_seconds
from probe.limits import MAX_CONCURRENCY, REQUEST_TIMEOUT_S


def option(*decls: str, **kwargs):
    """A field whose value comes from ``click.option(*decls, **kwargs)``."""
    default = kwargs.get("default", False if kwargs.get("is_flag") else None)
    return field(default=default, metadata={"decls": decls, "click": kwargs})


def click_options(cls):
    """Decorate a click command with every option of options class ``cls``, in field
    order (as ``--help`` lists them)."""
    def apply(command):
        for f in reversed(fields(cls)):
            if "decls" in f.metadata:
                command = click.option(*f.metadata["decls"], f.name,
                                       **f.metadata["click"])(command)
        return command
    return apply


def from_params(cls, params: dict):
    """The options object of a command's parameters (those ``cls`` has)."""
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in params.items() if k in names})


@dataclass
class SamplingOptions:
    """Which model, and how to sample it: what `probe run` and `probe batch` share."""

    model: str | None = option(
        "--model", callback=model_name, help="A .gguf file, a folder with config.json, a hub id in the local "
        "cache, or a served name (default: Gemma 3 270M).")
    backend: str = option("--backend", type=click.Choice(["auto", "transformers", "llama",
                                                           "openai"]),
                          default="auto", show_default=True)
    base_url: str | None = option("--base-url",
                                  help="OpenAI-compatible server (with --backend openai).")
    api_key_env: str | None = option(
        "--api-key-env", metavar="VAR",
        help="Environment variable holding the server's API key (never stored).")
    timeout: float = option("--timeout", default=REQUEST_TIMEOUT_S, show_default=True,
                            type=float, callback=positive_seconds,
                            help="Seconds per request to the server, in total (with "
                            "--backend openai).")
    concurrency: int | None = option(
        "--concurrency", type=click.IntRange(1, MAX_CONCURRENCY), default=None,
        help="Requests in flight at once to the server, across families (with --backend "
        "openai; default 64, or the stored value on --resume).")
    samples: int = option("--samples", default=30, show_default=True,
                          help="Direct samples (N).")
    temperature: float = option("--temperature", default=0.6, show_default=True)
    max_tokens: int = option("--max-tokens", default=25, show_default=True)
    seed: int | None = option("--seed", type=int, default=None,
                              help="Fix the seed (same seed, same CPU run, for a run never "
                              "stopped); by default each run draws a fresh one and records it.")
    base: bool = option("--base", is_flag=True,
                        help="Base-model prompting even if a chat template exists.")
    shots: int = option("--shots", default=5, show_default=True,
                        help="Solved examples in base mode.")
    answer_format: str = option(
        "--answer-format", type=click.Choice(["words", "braces"]), default="words",
        show_default=True,
        help="words: the paper's 1-3 words; braces: the answer asked for inside {braces}, "
        "read exactly, and forced by guided decoding on servers that offer it (vLLM).")
    trust_remote_code: bool = option("--trust-remote-code", is_flag=True,
                                     help="Let a model run its own code.")
    allow_pickle: bool = option("--allow-pickle", is_flag=True,
                                help="Load pickle checkpoints (can run code).")


REFERENCE_HELP = ("Score as the paper's released code does: its matcher (lemmas, stems, "
                  "containment, MiniLM embeddings), non-picks counted as answers, Deep on "
                  "π > 0.40 alone.")


@dataclass
class RunOptions(SamplingOptions):
    """`probe run`: one family, or a run to resume."""

    family: str | None = None          # the FAMILY argument
    system: str | None = option("--system", type=click.Path(dir_okay=False),
                                help="System prompt file (chat).")
    quick: bool = option("--quick", is_flag=True,
                         help="Stop once the label is settled (95%).")
    resume: int | None = option("--resume", type=int, default=None, metavar="RUN_ID",
                                help="Finish a cancelled or killed run.")
    as_json: bool = option("--json", is_flag=True,
                           help="Print only the JSON record on stdout.")
    dr_threshold: float = option("--dr-threshold", default=0.65, show_default=True)
    pi_threshold: float = option("--pi-threshold", default=0.40, show_default=True)
    reference: bool = option("--reference", is_flag=True, help=REFERENCE_HELP)
    db_path: str = option("--db", type=click.Path(dir_okay=False), envvar="PROBE_DB",
                          default="probe.db", show_default=True,
                          help="SQLite database (or set PROBE_DB).")
