"""A result as a row to paste elsewhere: Markdown, LaTeX or JSON, with the settings it was
measured under (what the app's "copy result" commands put on the clipboard)."""

from __future__ import annotations

import json

from probe.metrics import LABEL_TEXT, Scores
from probe.settings_view import flat, typed

COLUMNS = ("family", "model", "rule", "N", "T", "format", "DR [95% CI]", "FR [95% CI]", "π", "label",
           "top answer")


def _cells(family: str, model: str, settings: dict, s: Scores) -> list[str]:
    values = flat(settings)
    return [family, model, values.get("rule", "probe"), values.get("samples", "—"),
            values.get("temperature", "—"), values.get("answer_format", "words"),
            f"{s.dr:.2f} [{s.dr_interval[0]:.2f}, {s.dr_interval[1]:.2f}]",
            f"{s.fr:.2f} [{s.fr_interval[0]:.2f}, {s.fr_interval[1]:.2f}]",
            f"{s.pi:.2f}", LABEL_TEXT[s.label], s.top_answer or "no answer"]


def markdown_row(family: str, model: str, settings: dict, s: Scores,
                 header: bool = True) -> str:
    def row(cells):
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    lines = [row(COLUMNS), "|" + "---|" * len(COLUMNS)] if header else []
    return "\n".join(lines + [row(_cells(family, model, settings, s))])


_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
          "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
          "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX.get(ch, ch) for ch in text)


def latex_row(family: str, model: str, settings: dict, s: Scores) -> str:
    cells = [latex_escape(c) for c in _cells(family, model, settings, s)]
    cells[COLUMNS.index("π")] = f"${s.pi:.2f}$"
    return " & ".join(cells) + r" \\"


def json_record(record: dict, settings: dict, seed=None) -> str:
    """The run's ``--json`` record with the settings it was measured under (numbers as
    numbers)."""
    return json.dumps({**record, "seed": seed, "settings": typed(settings)},
                      ensure_ascii=False, indent=2)
