"""Plain-text rendering of scores for the terminal (no Textual)."""

from __future__ import annotations

import math

from probe.metrics import AnswerCount, Scores


def counted(n: int, noun: str) -> str:
    """``1 sample``, ``2 samples``: every count the user reads agrees with its noun."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def bar(fraction: float, width: int = 20) -> str:
    """A horizontal bar in eighths of a cell."""
    fraction = min(max(fraction, 0.0), 1.0)
    eighths = round(fraction * width * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (" ▏▎▍▌▋▊▉"[part] if part else "")).ljust(width)


def fmt_rate(value: float, hits: int, n: int, interval: tuple[float, float]) -> str:
    if n == 0:
        return "—     (no samples)"
    return f"{value:.2f}  ({hits}/{n}, 95% CI {interval[0]:.2f}–{interval[1]:.2f})"


def _dist_lines(title: str, items: list[AnswerCount], top: str | None, limit: int = 8) -> list[str]:
    """One side's answers; ``*`` the direct top answer, ``≈`` an answer the released rule
    counts for it (a surface match)."""
    lines = [title]
    if not items:
        lines.append("  (none)")
    width = max((len(ac.answer) for ac in items[:limit]), default=0)
    width = min(max(width, 6), 28)
    for ac in items[:limit]:
        surface = ac.hit and not ac.refusal and top is not None and ac.answer != top
        mark = "*" if ac.answer == top else "≈" if surface else " "
        note = ("  (not a pick)" if ac.refusal else
                f"  (surface match of {top}: counts for FR)" if surface else "")
        lines.append(f" {mark}{ac.answer[:width]:<{width}} {bar(ac.rate)} {ac.count:>3}{note}")
    if len(items) > limit:
        rest = sum(ac.count for ac in items[limit:])
        lines.append(f"  … {counted(len(items) - limit, 'more answer')} "
                     f"({counted(rest, 'sample')})")
    return lines


def floor_percent(p: float) -> str:
    """A probability as a whole percentage, rounded down: a label short of settled (95%)
    never reads 95%."""
    return f"{math.floor(p * 100)}%"


def run_lines(settings_text: str, explanation, saved: list[str]) -> list[str]:
    """What a finished run adds to its scores on the terminal: the settings it used, why
    it has its label and, short of 95% sure, what would settle it; and the app's saved
    settings where they differ (the command line does not read them)."""
    lines = [f"settings {settings_text}", f"why      {explanation.reason}"]
    if not explanation.settled:
        rivals = explanation.rivals()
        lines.append(f"doubt    {explanation.doubt}" + (f" (the others: {rivals})"
                                                        if rivals else ""))
        if explanation.advice:
            lines.append("settle   " + "; ".join(explanation.advice))
    if saved:
        lines.append(f"note     the app's saved run settings differ ({', '.join(saved)}); "
                     "the command line uses its own options and their defaults")
    return lines


def verdict_lines(run, outcome) -> list[str]:
    """``run_lines`` for a run just sampled (``probe run``, ``probe new --run``)."""
    from probe.explain import explain
    from probe.preferences import saved_differences
    from probe.settings_view import one_line

    st = outcome.settings
    text = one_line(run.settings, seed=run.seed,
                    skip=("model_spec", "engine", "concurrency", "base_url", "api_key_env"))
    if "answer format" not in text:             # the default, said on the terminal too
        text += " · answer format words"
    why = explain(outcome.scores, st.dr_threshold, st.pi_threshold, st.rule,
                  len(outcome.family.framings))
    return run_lines(text, why, saved_differences(st))


def render_scores(record: dict, s: Scores, extra: list[str] = ()) -> str:
    top = s.top_answer if s.top_answer is not None else "no answer"
    lines = [
        f"family   {record['family']}    model {record['model']}"
        + (f"    run {record['run_id']}" if record.get("run_id") else ""),
        f"top      {top}",
        f"DR       {fmt_rate(s.dr, s.dr_hits, s.n_direct, s.dr_interval)}",
        f"FR       {fmt_rate(s.fr, s.fr_hits, s.n_framed, s.fr_interval)}",
        f"π        {s.pi_text}",
        f"label    {s.label_text}   (posterior {floor_percent(s.p_label)}"
        + (" as read; reading-sensitive, see below)" if s.reading_sensitive else ")")
        + (f"   — {s.reason}" if s.reason else ""),
        f"picks    direct {s.n_direct}/{s.direct_total}, framed {s.n_framed}/{s.framed_total}"
        f"   (non-picks: {s.direct_nonpicks} direct, {s.framed_nonpicks} framed)",
    ]
    if s.warning:
        lines.append(f"warning  {s.warning}")
    if s.reading_sensitive:
        lines.append(f"reading  {s.second.note()}")
        lines += [f"         e.g. {ln}" for ln in s.second.example_lines()]
    lines += extra
    drafted = (record.get("probe") or {}).get("drafted")
    if drafted:
        from probe.provenance import Drafted

        lines.append(f"framings {Drafted(**drafted).summary()}")
    lines.append("")
    lines += _dist_lines("direct answers", s.direct_distribution, s.top_answer)
    lines.append("")
    lines += _dist_lines("framed answers", s.framed_distribution, s.top_answer)
    from probe.verdict import surface_note

    note = surface_note(s)
    if note:
        lines.append(f"  {note}")
    return "\n".join(lines)
