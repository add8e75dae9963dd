"""The report's one HTML page: every figure inline as SVG and the table of the families
behind them. Self-contained: no scripts, no fonts, no addresses outside the page."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Sequence

from probe.metrics import LABEL_TEXT

CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#222}h1{font-size:1.5em}h2{font-size:1.15em;margin-top:2em}figure{margin:0}
figure svg{max-width:100%;height:auto}figcaption,.files,.note{color:#555;font-size:.9em}
table{border-collapse:collapse;font-size:.9em}td,th{padding:3px 10px;text-align:left;
border-bottom:1px solid #ddd}td.num{text-align:right;font-variant-numeric:tabular-nums}"""

# What a standalone SVG file carries and an inline one must not: the XML prolog, the DTD
# and RDF metadata (addresses a browser never needs), and the namespace declarations,
# which HTML supplies for inline <svg> by itself.
_PROLOG = re.compile(r"^.*?(?=<svg\b)", re.S)
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_NAMESPACES = re.compile(r'\s+xmlns(?::\w+)?="[^"]*"')


def inline_svg(svg: str) -> str:
    return _NAMESPACES.sub("", _METADATA.sub("", _PROLOG.sub("", svg, count=1), count=1))


@dataclass
class PageFigure:
    name: str          # file stem: NAME.svg, NAME.png, NAME.pdf
    title: str
    caption: str
    svg: str


def _n(row: dict, side: str) -> str:
    """Picks, and the samples they came from when non-picks were set aside."""
    picks, total = row[f"n_{side}"], row.get(f"{side}_total")
    return f"{picks} of {total}" if total and total != picks else str(picks)


def _table(rows: Sequence[dict]) -> str:
    head = ("<tr><th>family</th><th>model</th><th>DR</th><th>FR</th><th>π</th><th>label</th>"
            "<th>top answer</th><th>n picks (direct / framed)</th><th>stands for it</th>"
            "<th>settings</th></tr>")
    body = []
    for r in rows:
        label = LABEL_TEXT.get(r["label"], r["label"])
        if r.get("status", "finished") != "finished":
            label += f" ({r['status']}, partial)"
        top = r["top_answer"] if r["top_answer"] is not None else "no answer"
        cells = [f"<td>{html.escape(str(r['family_name']))}</td>",
                 f"<td>{html.escape(str(r['model']))}</td>",
                 *(f'<td class="num">{r[k]:.2f}</td>' for k in ("dr", "fr", "pi")),
                 f"<td>{html.escape(label)}</td>", f"<td>{html.escape(str(top))}</td>",
                 f'<td class="num">{_n(r, "direct")} / {_n(r, "framed")}</td>',
                 f"<td>{html.escape(r.get('stands') or 'run ' + str(r['run_id']))}</td>",
                 f"<td>{html.escape(r.get('settings_text') or '')}</td>"]
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table>{head}\n" + "\n".join(body) + "</table>"


def render_page(figures: Sequence[PageFigure], rows: Sequence[dict], formats: Sequence[str],
                notes: Sequence[str], source: str) -> str:
    parts = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>probe report</title>", f"<style>{CSS}</style></head><body>",
             "<h1>probe report</h1>",
             f'<p class="note">From {html.escape(source)}: one row per family and model '
             f"({len(rows)} rows). Finished runs that measured alike (same settings and rule, "
             "any seed) are pooled into one result; where a family was measured in several "
             "ways on one model, the way with the most picks stands and the notes below say "
             "which runs were left out.</p>"]
    for note in notes:
        parts.append(f'<p class="note">{html.escape(note)}</p>')
    for fig in figures:
        files = " · ".join(f'<a href="{html.escape(fig.name)}.{fmt}">{fmt.upper()}</a>'
                           for fmt in formats)
        parts += [f'<section id="fig-{html.escape(fig.name)}">',
                  f"<h2>{html.escape(fig.title)}</h2>", "<figure>", inline_svg(fig.svg),
                  f"<figcaption>{html.escape(fig.caption)}</figcaption></figure>",
                  f'<p class="files">{files}</p>' if files else "", "</section>"]
    parts += ['<section id="families"><h2>Families behind the figures</h2>', _table(rows),
              "</section></body></html>"]
    return "\n".join(parts) + "\n"
