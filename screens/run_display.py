"""What the run view draws: the title and settings lines, the stat boxes, the badge, the
distributions, the reframings table and the result versions; refreshed from a timer,
never per sample. Everything is read from the one scored result the screen holds."""

from __future__ import annotations

import time

from screens.markup import escape
from rich.text import Text
from textual.widgets import DataTable, Static

from probe.metrics import LABEL_TEXT, AnswerCount, Scores
from probe.report import bar, floor_percent
from probe.settings_view import one_line
from probe.store import as_sampled, version_kind
from probe.verdict import framed_lines, surface_note, why_words  # noqa: F401 (tests)
from screens.fit import cells, fit_parts, shorten

BADGE_CLASS = {"deep": "deep", "shallow": "shallow", "non_bias": "nonbias"}
ACTIVE = ("starting", "running", "stopping")
MARK_STYLE = {"✓": "green", "✗": "red", "⊘": "dim"}


def sure_text(p_label: float) -> str:
    """The label's probability, floored: a label short of settled (95%) never reads 95%."""
    return f"{floor_percent(p_label)} sure"


def when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def _count_forms(hits: int, n: int, nonpicks: int) -> list[str]:
    """The count line of a rate box, from the roomiest form to the tightest; the same
    separator in each, so the DR and FR boxes read alike whichever form they take."""
    aside = f" · {nonpicks} ⊘" if nonpicks else ""
    tight = f" · {nonpicks}⊘" if nonpicks else ""
    picks = "pick" if n == 1 else "picks"
    return [f"{hits} of {n} {picks}{aside}", f"{hits}/{n} {picks}{aside}",
            f"{hits}/{n} {picks}{tight}", f"{hits}/{n}{aside}"]


def count_form(sides: list[tuple[int, int, int]], room: int) -> int:
    """The roomiest form in which every side's count fits ``room`` columns: both boxes
    take the same one."""
    for form in range(4):
        if all(len(_count_forms(*side)[form]) <= room for side in sides):
            return form
    return 3


def _fmt_rate(name: str, value: float, hits: int, n: int, ci: tuple[float, float],
              nonpicks: int = 0, form: int = 0) -> str:
    # The denominator is the side's picks; non-picks are counted beside it, never in it.
    aside = f" · {nonpicks} ⊘" if nonpicks else ""
    if n == 0:
        return f"[b]{name}[/b]\n[dim]—{aside}[/dim]\n[dim]no picks[/dim]"
    count = _count_forms(hits, n, nonpicks)[form]
    picks, _, rest = count.partition(" · ")
    return (f"[b]{name}[/b]  {value:.2f}\n{picks}" + (f"[dim] · {rest}[/dim]" if rest else "")
            + f"\n[dim]95% CI {ci[0]:.2f}–{ci[1]:.2f}[/dim]")


def render_distribution(title: str, items: list[AnswerCount], limit: int = 8,
                        room: int = 40) -> Text:
    """One row per answer, each one line in ``room`` columns: a long name ends in …; the
    answers that count toward the side's rate (``hit``) are the highlighted ones."""
    text = Text(f"{title}\n", style="bold")
    if not items:
        text.append("(no answers yet)", style="dim")
        return text
    # name, a space, the bar, " 99", " ✓": the bar gives way first, then the name.
    longest = min(max(len(a.answer) for a in items[:limit]), 22)
    width = max(4, min(14, room - 6 - min(longest, 12)))
    name_w = max(4, min(longest, room - 6 - width))
    for ac in items[:limit]:
        name = ac.answer if len(ac.answer) <= name_w else ac.answer[:name_w - 1] + "…"
        text.append(f"{name:<{name_w}}", style="bold reverse" if ac.hit else "")
        text.append(" " + bar(ac.rate, width), style="green" if ac.hit else "cyan")
        text.append(f" {ac.count:>2}")
        if ac.refusal:
            text.append(" ⊘", style="dim")
        elif ac.hit:
            text.append(" ✓", style="green")
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
        s = self.scored.scores if self.scored else None
        width = self.size.width - 2
        self.query_one("#run-title", Static).update(self._title(width))
        self.query_one("#run-settings", Static).update(self._settings_line(width))
        versions = self.query_one("#run-versions", Static)
        versions.update(self._versions_text())
        versions.display = len(self.versions) > 1
        self._update_stats(s)
        self._update_table()

    def _model(self) -> str:
        model = self.app.model_display  # type: ignore[attr-defined]
        if self.run_id is not None and (self.read_only or self.state not in ACTIVE):
            model = self.app.store.run(self.run_id).model  # type: ignore[attr-defined]
        return model

    def _title(self, width: int) -> str:
        """The run's line, fitted: the family and the state stay; the run's number goes
        first, then the model's name shrinks; the seed and the count stay longest."""
        planned = getattr(self, "planned", None) or \
            len(self.family.framings) + self.settings.samples
        state = self.state.replace(" (quick check settled)", " · quick check")
        seed = f"seed {self.seed}" if self.seed is not None else "seed …"
        fixed = [(9, f" [b]{escape(self.family.name)}[/b]"), (9, f"[i]{state}[/i]"),
                 (7, f"{self.samples_done}/{planned} samples"), (6, seed),
                 (2, f"run {self.run_id or '…'}")]
        if self.read_only:
            fixed.insert(2, (5, "[dim](read-only)[/dim]"))   # kept at 80 columns
        if self.quick_on and self.state in ACTIVE:
            fixed.insert(2, (5, "[b]quick check on[/b]"))
        # The parts without the model first; the model's name gets the room left, taken
        # from the run's number if it needs it, never from the seed or the read-only mark.
        kept = fit_parts(fixed, width, sep="  ")
        room = width - cells("  ".join(t for _, t in kept)) - 5
        if room < 12:
            kept = [p for p in kept if p[0] > 4]
            room = width - cells("  ".join(t for _, t in kept)) - 5
        if room >= 8:
            kept.insert(1, (4, f"on {escape(shorten(self._model(), room))}"))
        line = "  ".join(t for _, t in kept)
        return f"{line}\n [dim]{escape(shorten(self.family.direct, width - 1))}[/dim]"

    def _settings_line(self, width: int) -> str:
        if self.run_id is not None:
            run = self.app.store.run(self.run_id)  # type: ignore[attr-defined]
            text = one_line(run.settings, model_hash=run.model_hash,
                            skip=("seed", "model", "engine", "model_spec"))
        else:
            text = one_line(self.settings.__dict__, skip=("seed", "model", "model_hash",
                                                          "model_spec"))
        return f" [dim]{escape(shorten(text, width - 1))}[/dim]"

    def set_verdict_note(self, text: str) -> None:
        """The line under the badge for what qualifies the verdict (e.g. too few picks on a
        side) or why it is what it is; hidden while empty."""
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
            self.set_verdict_note("")
            return
        room = self.query_one("#dr", Static).content_size.width or 99
        form = count_form([(s.dr_hits, s.n_direct, s.direct_nonpicks),
                           (s.fr_hits, s.n_framed, s.framed_nonpicks)], room)
        self.query_one("#dr", Static).update(_fmt_rate("DR", s.dr, s.dr_hits, s.n_direct,
                                                       s.dr_interval, s.direct_nonpicks, form))
        self.query_one("#fr", Static).update(_fmt_rate("FR", s.fr, s.fr_hits, s.n_framed,
                                                       s.fr_interval, s.framed_nonpicks, form))
        self.query_one("#pi", Static).update(f"[b]π[/b]  {s.pi_text}\n"
                                             f"top: {escape(s.top_answer or 'no answer')}")
        badge = self.query_one("#badge", Static)
        # While sampling an unsure label is still settling; once sampling stops it stays
        # unsettled (more samples could change it).
        settling = "" if s.settled else (
            "\nsettling" if self.state in ACTIVE else "\nunsettled")
        # A label that rests on how some replies were read is sure only as they were read.
        sure = sure_text(s.p_label) + (" as read ⚠" if s.reading_sensitive
                                       and self.state not in ACTIVE else "")
        badge.update(f"{s.label_text}{settling}\n{sure}")
        for cls in BADGE_CLASS.values():
            badge.remove_class(cls)
        badge.add_class(BADGE_CLASS[s.label])
        badge.set_class(not s.settled, "settling")
        self.set_verdict_note(self._note(s))
        # A small terminal keeps room for the reframings table.
        limit = 3 if self.size.height < 30 else 8
        room = self.query_one("#direct-dist", Static).content_size.width or 40
        self.query_one("#direct-dist", Static).update(
            render_distribution("Direct answers (✓ DR's, ⊘ not a pick)", s.direct_distribution,
                                limit, room))
        framed = render_distribution("Framed answers (✓ FR's)", s.framed_distribution, limit,
                                     room)
        note = surface_note(s)
        if note:
            # The released rule counts clusters named otherwise: say how many, and why.
            framed.append(("" if framed.plain.endswith("\n") else "\n") + shorten(note, room),
                          style="green")
        self.query_one("#framed-dist", Static).update(framed)

    def _note(self, s: Scores) -> str:
        if s.warning:
            return f"[yellow]⚠ {escape(s.warning)}[/yellow]"
        if s.reading_sensitive and self.state not in ACTIVE:
            return (f"[yellow]⚠ {escape(s.second.short())}[/yellow]  "
                    "[dim](w: why and examples; ⚠ in the table)[/dim]")
        if not (s.direct_total or s.framed_total):
            return ""
        if self.state in ACTIVE:
            note = (f"picks: direct {s.n_direct}/{s.direct_total}, "
                    f"framed {s.n_framed}/{s.framed_total}")
            return note + (f" · {escape(s.reason)}" if s.reason else "")
        why = self.explanation().summary()
        return f"[b]why:[/b] {escape(why)}  [dim](w: more)[/dim]"

    def _update_table(self) -> None:
        # Rows are created once; a tick rewrites only the cells whose text changed, so a
        # refresh costs little however often samples arrive.
        table = self.query_one("#framings", DataTable)
        lines = framed_lines(self.scored) if self.scored else {}
        if table.row_count != len(self.family.framings):
            table.clear()
            for i, scenario in enumerate(self.family.framings):
                table.add_row(str(i + 1), Text("…", style="dim"), "", "",
                              Text(scenario, overflow="ellipsis"), key=str(i))
            self._cells: dict[int, tuple] = {}
        for i in range(len(self.family.framings)):
            line = lines.get(i)
            if line is None:
                continue
            values = (line.canonical or "(empty)", line.mark, line.why)
            if self._cells.get(i) == values:
                continue
            self._cells[i] = values
            table.update_cell(str(i), "answer", Text(values[0], style="" if line.canonical
                                                     else "dim", overflow="ellipsis"))
            table.update_cell(str(i), "top", Text(values[1], style=MARK_STYLE[values[1]]))
            table.update_cell(str(i), "why", Text(values[2], style="dim", overflow="ellipsis"))
            if len(values[2]) > getattr(self, "_why_width", 0):
                self.on_resize()
