"""A database holding finished runs of two models over four bundled families, built the way
a user would without a model: `probe score` with response files. Shared by the report's
and the charts screen's tests."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from conftest import FAMILIES, write_jsonl
from probe.cli import cli

MODEL_A, MODEL_B = "gemma-3-270m", "olmo-3-7b-sft"

# family: (direct responses, framed responses) per model. Non-picks on purpose: a refusal
# and an empty response among gemma's direct butterflies, an echo among its framed ones.
RUNS = {
    MODEL_A: {
        "butterfly": (["Monarch"] * 26 + ["Blue Morpho"] * 2 + ["I can't choose", ""],
                      ["Monarch"] * 25 + ["Swallowtail"] * 3 + ["Butterfly"] * 2),
        "number": (["42"] * 22 + ["7"] * 5 + ["3"] * 3, ["3"] * 20 + ["42"] * 4 + ["7"] * 6),
        "tea": (["Green tea"] * 14 + ["Earl Grey"] * 10 + ["Chamomile"] * 6,
                ["Earl Grey"] * 15 + ["Green tea"] * 10 + ["Mint"] * 5),
        "coffee": (["Latte"] * 28 + ["Espresso"] * 2, ["Latte"] * 20 + ["Espresso"] * 10),
    },
    MODEL_B: {
        "butterfly": (["monarch butterfly"] * 30, ["Monarch"] * 20 + ["Viceroy"] * 10),
        "number": (["seven"] * 25 + ["42"] * 5, ["7"] * 28 + ["3"] * 2),
        "tea": (["Earl Grey"] * 21 + ["Green tea"] * 9, ["Earl Grey"] * 8 + ["Green tea"] * 22),
        "gemstone": (["Diamond"] * 24 + ["Ruby"] * 6,
                     ["Emerald"] * 18 + ["Diamond"] * 8 + ["Ruby"] * 4),
    },
}


def score(folder: Path, family: str, direct: list[str], framed: list[str], model: str) -> None:
    rows = [{"response": d} for d in direct]
    rows += [{"framing_idx": i, "response": r} for i, r in enumerate(framed)]
    responses = write_jsonl(folder / f"responses-{model}-{family}.jsonl", rows)
    result = CliRunner().invoke(cli, ["score", family, "--responses", str(responses),
                                      "--model", model], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def build_two_models(folder: Path) -> None:
    """Copy the families into ``folder``/families and score every run (PROBE_DB points
    into ``folder`` through the autouse fixture)."""
    for name in {f for runs in RUNS.values() for f in runs}:
        shutil.copy(FAMILIES / f"{name}.toml", folder / "families" / f"{name}.toml")
    for model, runs in RUNS.items():
        for family, (direct, framed) in runs.items():
            score(folder, family, direct, framed, model)
