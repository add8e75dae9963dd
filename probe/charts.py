"""Charts over stored runs: the Deep/Shallow/Non-bias breakdown and a DR-vs-FR scatter with
the threshold lines, as SVG (written by hand), PNG (Pillow) and one self-contained HTML page."""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path

from probe.errors import BadInput
from probe.metrics import DEEP, DR_THRESHOLD, NON_BIAS, PI_THRESHOLD, SHALLOW
from probe.store import Store

COLOURS = {DEEP: "#2e7d32", SHALLOW: "#f9a825", NON_BIAS: "#78909c"}
NAMES = {DEEP: "Deep", SHALLOW: "Shallow", NON_BIAS: "Non-bias"}
W, H, PAD = 560, 420, 56


def _points(store: Store, model: str | None) -> list[dict]:
    rows = store.latest_results(model)
    if not rows:
        raise BadInput("no finished runs to chart" + (f" for '{model}'." if model else "."))
    return rows


def breakdown_svg(rows: list[dict]) -> str:
    n = len(rows)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="200" '
             f'font-family="sans-serif" font-size="14">',
             f'<text x="{PAD}" y="24" font-weight="bold">Families by bias type (n = {n})</text>']
    for i, key in enumerate((DEEP, SHALLOW, NON_BIAS)):
        share = sum(r["label"] == key for r in rows) / n
        y = 48 + i * 44
        width = (W - PAD - 120) * share
        parts.append(f'<text x="8" y="{y + 20}">{NAMES[key]}</text>')
        parts.append(f'<rect x="{PAD + 24}" y="{y}" width="{width:.1f}" height="28" '
                     f'fill="{COLOURS[key]}"/>')
        parts.append(f'<text x="{PAD + 30 + width:.1f}" y="{y + 20}">{share:.0%}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _xy(dr: float, fr: float) -> tuple[float, float]:
    return PAD + dr * (W - 2 * PAD), H - PAD - fr * (H - 2 * PAD)


def _pi_curve(steps: int = 40) -> list[tuple[float, float]]:
    """The π = 0.40 line (FR = 0.40 / DR) where DR > 0.65, in chart coordinates."""
    points = []
    for i in range(steps + 1):
        dr = DR_THRESHOLD + (1 - DR_THRESHOLD) * i / steps
        points.append(_xy(dr, min(1.0, PI_THRESHOLD / dr)))
    return points


def scatter_svg(rows: list[dict]) -> str:
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
             f'font-family="sans-serif" font-size="12">',
             f'<rect x="{PAD}" y="{PAD}" width="{W - 2 * PAD}" height="{H - 2 * PAD}" '
             'fill="none" stroke="#999"/>',
             f'<text x="{W / 2}" y="{H - 16}" text-anchor="middle">DR (direct rate)</text>',
             f'<text x="16" y="{H / 2}" transform="rotate(-90 16 {H / 2})" '
             'text-anchor="middle">FR (framed rate)</text>',
             f'<text x="{PAD}" y="24" font-weight="bold" font-size="14">DR vs FR per family'
             '</text>']
    x0, _ = _xy(DR_THRESHOLD, 0)
    parts.append(f'<line x1="{x0:.1f}" y1="{PAD}" x2="{x0:.1f}" y2="{H - PAD}" '
                 'stroke="#c62828" stroke-dasharray="4 3"/>')
    # π = DR × FR = 0.40: FR = 0.40 / DR, drawn where DR > 0.65.
    curve = ["%.1f,%.1f" % point for point in _pi_curve()]
    parts.append(f'<polyline points="{" ".join(curve)}" fill="none" stroke="#c62828"/>')
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        x, y = _xy(tick, tick)
        parts.append(f'<text x="{x:.1f}" y="{H - PAD + 16}" text-anchor="middle">{tick}</text>')
        parts.append(f'<text x="{PAD - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}</text>')
    for r in rows:
        x, y = _xy(r["dr"], r["fr"])
        title = html.escape(f"{r['family_name']} ({r['model']}): {NAMES[r['label']]}")
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{COLOURS[r["label"]]}" '
                     f'fill-opacity="0.8"><title>{title}</title></circle>')
    parts.append("</svg>")
    return "\n".join(parts)


def _png(rows: list[dict], kind: str) -> bytes:
    from PIL import Image, ImageDraw

    if kind == "breakdown":
        img = Image.new("RGB", (W, 200), "white")
        d = ImageDraw.Draw(img)
        d.text((PAD, 10), f"Families by bias type (n = {len(rows)})", fill="black")
        for i, key in enumerate((DEEP, SHALLOW, NON_BIAS)):
            share = sum(r["label"] == key for r in rows) / len(rows)
            y = 48 + i * 44
            width = (W - PAD - 120) * share
            d.text((8, y + 8), NAMES[key], fill="black")
            if width >= 1:
                d.rectangle([PAD + 24, y, PAD + 24 + width, y + 28], fill=COLOURS[key])
            d.text((PAD + 30 + width, y + 8), f"{share:.0%}", fill="black")
    else:
        img = Image.new("RGB", (W, H), "white")
        d = ImageDraw.Draw(img)
        d.rectangle([PAD, PAD, W - PAD, H - PAD], outline="#999999")
        d.text((PAD, 16), "DR vs FR per family", fill="black")
        d.text((W / 2 - 40, H - 24), "DR (direct rate)", fill="black")
        x0, _ = _xy(DR_THRESHOLD, 0)
        d.line([x0, PAD, x0, H - PAD], fill="#c62828")
        d.line(_pi_curve(), fill="#c62828")
        for r in rows:
            x, y = _xy(r["dr"], r["fr"])
            d.ellipse([x - 5, y - 5, x + 5, y + 5], fill=COLOURS[r["label"]])
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def write_report(store: Store, out: Path, model: str | None = None) -> list[Path]:
    from probe.atomic import ensure_folder, write_atomic

    rows = _points(store, model)
    ensure_folder(out)
    written = []
    svgs = {"breakdown": breakdown_svg(rows), "scatter": scatter_svg(rows)}
    for name, svg in svgs.items():
        p = out / f"{name}.svg"
        write_atomic(p, svg)
        written.append(p)
        png = out / f"{name}.png"
        write_atomic(png, _png(rows, name))
        written.append(png)
    table = "\n".join(
        f"<tr><td>{html.escape(r['family_name'])}</td><td>{html.escape(r['model'])}</td>"
        f"<td>{NAMES[r['label']]}</td><td>{r['dr']:.2f}</td><td>{r['fr']:.2f}</td>"
        f"<td>{r['pi']:.2f}</td><td>{html.escape(str(r['top_answer']))}</td></tr>" for r in rows)
    scatter_png = base64.b64encode((out / "scatter.png").read_bytes()).decode()
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>probe report</title>
<style>body{{font-family:sans-serif;max-width:900px;margin:2em auto}}
td,th{{padding:2px 8px;text-align:left}}</style></head><body>
<h1>probe report</h1>
{svgs['breakdown']}
{svgs['scatter']}
<noscript><img alt="scatter" src="data:image/png;base64,{scatter_png}"></noscript>
<table><tr><th>family</th><th>model</th><th>label</th><th>DR</th><th>FR</th><th>π</th>
<th>top answer</th></tr>{table}</table></body></html>"""
    page_path = out / "report.html"
    write_atomic(page_path, page)
    written.append(page_path)
    return written
