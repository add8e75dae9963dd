"""What the run view draws: the stat boxes, the badge, the distributions, the reframings
table and the result versions; refreshed from a timer, never per sample."""

from __future__ import annotations

import time
from collections import Counter

from rich.markup import escape
from rich.text import Text
from textual.widgets import DataTable, Static

from probe.matching import normalise
from probe.metrics import LABEL_TEXT, AnswerCount, Scores
from probe.report import bar, floor_percent
from probe.store import as_sampled, version_kind

BADGE_CLASS = {"deep": "deep", "shallow": "shallow", "non_bias": "nonbias"}
ACTIVE = ("starting", "running", "stopping")


def sure_text(p_label: float) -> str:
    """The label's probability, floored: a label short of settled (95%) never reads 95%."""
    return f"{floor_percent(p_label)} sure"


def why_words(answer: str, canonical: str, reason: str, times: int = 1) -> str:
    """The matcher's reason in words: how a form joined its answer, or that it joined none
    (``times``: how often the run gave this form). A bare "exact" on a row that only
    repeats an answer would read as "exact match"; "alias" on the answer's own name as if
    it were another word for it."""
    if reason == "new":
        return "new answer"
    if normalise(answer) == normalise(canonical) and reason in ("exact", "alias"):
        return "repeated" if times > 1 else "the answer itself"
    return reason


def form_counts(matches) -> Counter:
    """How often each form (as the matcher normalises it) was given in a run."""
    return Counter(normalise(m.answer) for _, m in matches)


def when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def _fmt_rate(name: str, value: float, hits: int, n: int, ci: tuple[float, float],
              nonpicks: int = 0, room: int = 99) -> str:
    # The denominator is the side's picks; non-picks are counted beside it, never in it.
    # In a narrow box (``room`` columns) the count folds to "0/14 picks" rather than wrap.
    aside = f" · {nonpicks} ⊘" if nonpicks else ""
    if n == 0:
        return f"[b]{name}[/b]\n[dim]—{aside}[/dim]\n[dim]no picks[/dim]"
    forms = [(f"{hits} of {n} picks", aside), (f"{hits}/{n} picks", aside),
             (f"{hits}/{n} picks", f", {nonpicks} ⊘" if nonpicks else ""),
             (f"{hits}/{n}", aside)]
    count, aside = next((f for f in forms if len(f[0] + f[1]) <= room), forms[-1])
    return (f"[b]{name}[/b]  {value:.2f}\n{count}[dim]{aside}[/dim]\n"
            f"[dim]95% CI {ci[0]:.2f}–{ci[1]:.2f}[/dim]")


def render_distribution(title: str, items: list[AnswerCount], top: str | None,
                        limit: int = 8, room: int = 40) -> Text:
    """One row per answer, each one line in ``room`` columns: a long name ends in …"""
    text = Text(f"{title}\n", style="bold")
    if not items:
        text.append("(no answers yet)", style="dim")
        return text
    # name, a space, the bar, " 99", " ⊘": the bar gives way first, then the name.
    longest = min(max(len(a.answer) for a in items[:limit]), 22)
    width = max(4, min(14, room - 6 - min(longest, 12)))
    name_w = max(4, min(longest, room - 6 - width))
    for ac in items[:limit]:
        style = "bold reverse" if ac.answer == top else ""
        name = ac.answer if len(ac.answer) <= name_w else ac.answer[:name_w - 1] + "…"
        text.append(f"{name:<{name_w}}", style=style)
        text.append(" " + bar(ac.rate, width), style="green" if ac.answer == top else "cyan")
        text.append(f" {ac.count:>2}")
        if ac.refusal:
            text.append(" ⊘", style="dim")
        text.append("\n")
    if len(items) > limit:
        text.append(f"… {len(items) - limit} more", style="dim")
    return text


class RunDisplay:
    """The run screen's drawing; the screen holds the state it draws."""

    def tick(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        # While samples arrive the view refines one answer at a time; once the run stops it
        # shows the order-free scores the run keeps.
        settled = self.state not in ACTIVE
        if getattr(self, "run_scored", None) is not None:
            self.scored = self.run_scored          # matched once, by the runner
        else:
            self.scored = (self.live.final() if settled else self.live.scored()) \
                if self.responses else None
        s = self.scored.scores if self.scored else None
        planned = len(self.family.framings) + self.settings.samples
        mode = " [dim](read-only)[/dim]" if self.read_only else ""
        quick = "   [b]quick check on[/b]" if self.quick_on and self.state in ACTIVE else ""
        seed = f"seed {self.seed}" if self.seed is not None else "seed …"
        model = self.app.model_display  # type: ignore[attr-defined]
        if self.run_id is not None and (self.read_only or self.state not in ACTIVE):
            model = self.app.store.run(self.run_id).model  # type: ignore[attr-defined]
        # What changes first (the state, the count), so a narrow screen cuts the run's
        # number and seed, not whether it finished (the line never wraps: see probe.tcss).
        self.query_one("#run-title", Static).update(
            f" [b]{escape(self.family.name)}[/b] on {escape(model)}"
            f"   [i]{self.state.replace(' (quick check settled)', ' · quick check')}[/i]"
            f"{mode}{quick}   {len(self.responses)}/{planned} samples"
            f"   run {self.run_id or '…'} · {seed}\n [dim]{escape(self.family.direct)}[/dim]")
        versions = self.query_one("#run-versions", Static)
        versions.update(self._versions_text())
        versions.display = len(self.versions) > 1
        self._update_stats(s)
        self._update_table()

    def set_verdict_note(self, text: str) -> None:
        """The line under the badge for what qualifies the verdict (e.g. too few picks on a
        side); hidden while empty."""
        note = self.query_one("#verdict-note", Static)
        note.update(text)
        note.display = bool(text)

    def _versions_text(self) -> str:
        """With re-scores: the result shown (the latest) and the one as sampled."""
        if len(self.versions) < 2:
            return ""

        def line(v: dict) -> str:
            what = version_kind(v, self.versions)
            if what == "re-scored":
                what += f" ({escape(v['note'] or '')})"
            return (f"v{v['version']} {when(v['created_at'])} {what}: "
                    f"{LABEL_TEXT[v['label']]} π {v['pi']:.2f}")

        shown, original = self.versions[-1], as_sampled(self.versions)
        if shown is original:
            return ""           # resumed, never re-scored: the one result is as sampled
        more = len(self.versions) - 2
        return (f" [b]shown:[/b] {line(shown)}\n [dim]as sampled: {line(original)}"
                + (f" · {more} more in History" if more else "") + "[/dim]")

    def _update_stats(self, s: Scores | None) -> None:
        if s is None:
            for wid in ("#dr", "#fr", "#pi"):
                self.query_one(wid, Static).update("[dim]waiting for samples…[/dim]")
            self.query_one("#badge", Static).update("")
            return
        room = self.query_one("#dr", Static).content_size.width or 99
        self.query_one("#dr", Static).update(_fmt_rate("DR", s.dr, s.dr_hits, s.n_direct,
                                                       s.dr_interval, s.direct_nonpicks, room))
        self.query_one("#fr", Static).update(_fmt_rate("FR", s.fr, s.fr_hits, s.n_framed,
                                                       s.fr_interval, s.framed_nonpicks, room))
        self.query_one("#pi", Static).update(f"[b]π[/b]  {s.pi:.2f}\n"
                                             f"top: {escape(s.top_answer or 'no answer')}")
        badge = self.query_one("#badge", Static)
        # While sampling an unsure label is still settling; once sampling stops it stays
        # unsettled (more samples could change it).
        settling = "" if s.settled else (
            "\nsettling" if self.state in ("running", "starting", "stopping") else "\nunsettled")
        badge.update(f"{LABEL_TEXT[s.label]}{settling}\n{sure_text(s.p_label)}")
        for cls in BADGE_CLASS.values():
            badge.remove_class(cls)
        badge.add_class(BADGE_CLASS[s.label])
        badge.set_class(not s.settled, "settling")
        note = (f"picks: direct {s.n_direct}/{s.direct_total}, "
                f"framed {s.n_framed}/{s.framed_total}")
        if s.reason:
            note += f" · {escape(s.reason)}"
        if s.warning:
            note = f"[yellow]⚠ {escape(s.warning)}[/yellow]"
        self.set_verdict_note(note if s.direct_total or s.framed_total else "")
        # A small terminal keeps room for the reframings table.
        limit = 3 if self.size.height < 30 else 8
        room = self.query_one("#direct-dist", Static).content_size.width or 40
        self.query_one("#direct-dist", Static).update(
            render_distribution("Direct answers (⊘ not a pick)", s.direct_distribution,
                                s.top_answer, limit, room))
        self.query_one("#framed-dist", Static).update(
            render_distribution("Framed answers", s.framed_distribution, s.top_answer, limit,
                                room))

    def _update_table(self) -> None:
        # Rows are created once; a tick rewrites only the cells whose text changed, so a
        # refresh costs little however often samples arrive.
        table = self.query_one("#framings", DataTable)
        framed = {}
        top = None
        times: Counter = Counter()
        if self.scored:
            times = form_counts(self.scored.matches)
            top = self.scored.scores.top_answer
            framed = {r.idx: m for r, m in self.scored.matches if r.kind == "framed"}
        if table.row_count != len(self.family.framings):
            table.clear()
            for i, scenario in enumerate(self.family.framings):
                table.add_row(str(i + 1), Text("…", style="dim"), "", "",
                              Text(scenario, overflow="ellipsis"), key=str(i))
            self._cells: dict[int, tuple] = {}
        for i in range(len(self.family.framings)):
            m = framed.get(i)
            if m is None:
                continue
            hit = m.canonical == top and bool(top) and not m.refusal
            values = (m.canonical or "(empty)", hit, why_words(m.answer, m.canonical, m.reason,
                                                             times[normalise(m.answer)]),
                      m.refusal)
            if self._cells.get(i) == values:
                continue
            self._cells[i] = values
            table.update_cell(str(i), "answer", Text(values[0], style="" if m.canonical
                                                     else "dim", overflow="ellipsis"))
            table.update_cell(str(i), "top", Text("✓" if hit else "✗",
                                                  style="green" if hit else "red"))
            table.update_cell(str(i), "why", Text(values[2] + (" · not a pick" if m.refusal
                                                               else ""), style="dim",
                                                  overflow="ellipsis"))
