"""The live run view: DR/FR/π with intervals, the label badge, both answer
distributions and the table of reframings; plus the answers screen (merge/split)."""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from probe import family as fam_mod
from probe.errors import ProbeError
from probe.family import Family
from probe.metrics import LABEL_TEXT, AnswerCount, Scores
from probe.paths import families_dir
from probe.report import bar
from probe.runner import (RunCancelled, RunFailedEvent, RunFinished, Runner, RunSettings,
                          SampleDrawn)
from probe.reference import live_scorer
from probe.scoring import Response
from screens.messages import RunEvent
from screens.tables import cursor_key

BADGE_CLASS = {"deep": "deep", "shallow": "shallow", "non_bias": "nonbias"}


def _fmt_rate(name: str, value: float, hits: int, n: int, ci: tuple[float, float]) -> str:
    if n == 0:
        return f"[b]{name}[/b]\n[dim]—[/dim]\n[dim]no samples[/dim]"
    return (f"[b]{name}[/b]  {value:.2f}\n{hits}/{n}\n"
            f"[dim]95% CI {ci[0]:.2f}–{ci[1]:.2f}[/dim]")


def render_distribution(title: str, items: list[AnswerCount], top: str | None,
                        limit: int = 8, width: int = 14) -> Text:
    text = Text(f"{title}\n", style="bold")
    if not items:
        text.append("(no answers yet)", style="dim")
        return text
    name_w = min(max(len(a.answer) for a in items[:limit]), 22)
    for ac in items[:limit]:
        style = "bold reverse" if ac.answer == top else ""
        text.append(f"{ac.answer[:name_w]:<{name_w}}", style=style)
        text.append(" " + bar(ac.rate, width), style="green" if ac.answer == top else "cyan")
        text.append(f" {ac.count:>2}")
        if ac.refusal:
            text.append(" ⊘", style="dim")
        text.append("\n")
    if len(items) > limit:
        text.append(f"… {len(items) - limit} more", style="dim")
    return text


class RunScreen(Screen):
    """One family on the current model: live, or a past run read-only."""

    BINDINGS = [
        Binding("s", "stop", "Stop"),
        Binding("u", "resume", "Resume"),
        Binding("k", "quick", "Quick check"),
        Binding("a", "answers", "Answers"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, family: Family, run_id: int | None = None, read_only: bool = False):
        super().__init__()
        self.family = family
        self.run_id = run_id
        self.read_only = read_only
        self.responses: list[Response] = []
        self.state = "starting"
        self.runner: Runner | None = None
        self.scored = None
        self._dirty = True
        self.settings = RunSettings()
        self._reset_live()

    def _reset_live(self) -> None:
        """Match everything again: the family's answers (aliases) changed."""
        # A run scored with --reference is shown (and re-saved) under that rule.
        self.live = live_scorer(self.family, self.settings.rule, self.settings.dr_threshold,
                                self.settings.pi_threshold)
        for r in self.responses:
            self.live.add(r)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="run-title")
        with Horizontal(id="stats"):
            yield Static("", id="dr", classes="stat")
            yield Static("", id="fr", classes="stat")
            yield Static("", id="pi", classes="stat")
            yield Static("", id="badge")
        with Horizontal(id="dists"):
            yield Static("", id="direct-dist", classes="dist")
            yield Static("", id="framed-dist", classes="dist")
        yield DataTable(id="framings", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#framings", DataTable)
        table.add_column("#", key="n")
        table.add_column("answer", key="answer")
        table.add_column("top?", key="top")
        table.add_column("why", key="why")
        table.add_column("scenario", key="scenario")
        # Refresh from a timer, not per sample: a fast backend would flood the screen.
        self.set_interval(0.2, self.tick)
        if self.run_id is not None:
            store = self.app.store  # type: ignore[attr-defined]
            run = store.run(self.run_id)
            # A past run keeps its own sample count and thresholds (the CLI can set both).
            self.settings = RunSettings.from_dict(run.settings)
            for s in store.samples(self.run_id):
                self.responses.append(Response(s.kind, s.idx, s.response))
            self._reset_live()
            self.state = run.status
        if not self.read_only:
            self.start_run(self.run_id)
        self.tick()

    # ---------------------------------------------------------- running

    @work(thread=True, exclusive=True, exit_on_error=False, group="run",
          description="sampling")
    def start_run(self, run_id: int | None) -> None:
        app = self.app
        runner = Runner(app.store, app.backend,  # type: ignore[attr-defined]
                        on_event=lambda e: self.post_message(RunEvent(e)))
        self.runner = runner
        try:
            if run_id is None:
                spec = getattr(app, "resolved_model", None)
                run_id = runner.create(self.family, self.settings, app.model_display,
                                       spec.spec if spec else "",
                                       spec.fingerprint() if spec else None)
                self.run_id = run_id
            self.state = "running"
            runner.execute(run_id)
        except ProbeError as exc:
            self.post_message(RunEvent(RunFailedEvent(run_id or 0, str(exc))))

    def on_run_event(self, msg: RunEvent) -> None:
        e = msg.event
        if isinstance(e, SampleDrawn):
            response = Response(e.kind, e.idx, e.response)
            self.responses.append(response)
            self.live.add(response)
            self._dirty = True
        elif isinstance(e, RunFinished):
            self.state = "finished" + (" (quick check settled)" if e.stopped_early else "")
            self._dirty = True
        elif isinstance(e, RunCancelled):
            self.state = "cancelled"
            self._dirty = True
        elif isinstance(e, RunFailedEvent):
            self.state = "failed"
            self._dirty = True
            self.notify(e.error, title="Run failed", severity="error", timeout=10)

    def action_stop(self) -> None:
        if self.runner and self.state == "running":
            self.runner.cancel()
            self.state = "stopping"
            self._dirty = True

    def action_resume(self) -> None:
        if self.read_only:
            if self.app.backend is None:  # type: ignore[attr-defined]
                self.notify("Load a model before resuming.", severity="warning")
                return
            self.read_only = False
        if self.state in ("cancelled", "failed", "running") and self.run_id is not None \
                and (self.runner is None or self.state != "running"):
            self.start_run(self.run_id)
        else:
            self.notify(f"Nothing to resume: the run is {self.state}.")

    def action_quick(self) -> None:
        if self.runner is None:
            self.notify("Quick check applies while a run samples.")
            return
        self.runner.force_quick = not self.runner.force_quick
        self.notify("Quick check " + ("on: stops once the label is settled (95%)."
                                      if self.runner.force_quick else "off."))

    def action_back(self) -> None:
        if self.runner and self.state == "running":
            self.runner.cancel()
        self.app.pop_screen()

    def action_answers(self) -> None:
        if self.scored is None:
            self.notify("No answers yet.")
            return
        self.app.push_screen(AnswersScreen(self), lambda _: self.recompute())

    def recompute(self) -> None:
        """After a merge or split: rescore at once and store the new canonicals."""
        self._reset_live()
        self._dirty = True
        self.tick()
        if self.run_id is not None and self.scored is not None:
            store = self.app.store  # type: ignore[attr-defined]
            store.relink_family(self.run_id, self.family)
            store.update_canonicals(self.run_id, [(r.kind, r.idx, m.canonical, m.reason)
                                                  for r, m in self.scored.matches])
            store.save_result(self.run_id, self.scored.scores)

    # ---------------------------------------------------------- display

    def tick(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        # While samples arrive the view refines one answer at a time; once the run stops it
        # shows the order-free scores the run keeps.
        settled = self.state not in ("starting", "running", "stopping")
        self.scored = (self.live.final() if settled else self.live.scored()) \
            if self.responses else None
        s = self.scored.scores if self.scored else None
        planned = len(self.family.framings) + self.settings.samples
        mode = " [dim](read-only)[/dim]" if self.read_only else ""
        self.query_one("#run-title", Static).update(
            f" [b]{escape(self.family.name)}[/b] on {escape(self.app.model_display)}"  # type: ignore
            f"   run {self.run_id or '…'}   {len(self.responses)}/{planned} samples   "
            f"[i]{self.state}[/i]{mode}\n [dim]{escape(self.family.direct)}[/dim]")
        self._update_stats(s)
        self._update_table()

    def _update_stats(self, s: Scores | None) -> None:
        if s is None:
            for wid in ("#dr", "#fr", "#pi"):
                self.query_one(wid, Static).update("[dim]waiting for samples…[/dim]")
            self.query_one("#badge", Static).update("")
            return
        self.query_one("#dr", Static).update(_fmt_rate("DR", s.dr, s.dr_hits, s.n_direct,
                                                       s.dr_interval))
        self.query_one("#fr", Static).update(_fmt_rate("FR", s.fr, s.fr_hits, s.n_framed,
                                                       s.fr_interval))
        self.query_one("#pi", Static).update(f"[b]π[/b]  {s.pi:.2f}\n"
                                             f"top: {escape(s.top_answer or 'no answer')}")
        badge = self.query_one("#badge", Static)
        # While sampling an unsure label is still settling; once sampling stops it stays
        # unsettled (more samples could change it).
        settling = "" if s.settled else (
            "\nsettling" if self.state in ("running", "starting", "stopping") else "\nunsettled")
        badge.update(f"{LABEL_TEXT[s.label]}{settling}\n{s.p_label:.0%} sure")
        for cls in BADGE_CLASS.values():
            badge.remove_class(cls)
        badge.add_class(BADGE_CLASS[s.label])
        badge.set_class(not s.settled, "settling")
        # A small terminal keeps room for the reframings table.
        limit = 3 if self.size.height < 30 else 8
        self.query_one("#direct-dist", Static).update(
            render_distribution("Direct answers (⊘ refusal/echo)", s.direct_distribution,
                                s.top_answer, limit))
        self.query_one("#framed-dist", Static).update(
            render_distribution("Framed answers", s.framed_distribution, s.top_answer, limit))

    def _update_table(self) -> None:
        # Rows are created once; a tick rewrites only the cells whose text changed, so a
        # refresh costs little however often samples arrive.
        table = self.query_one("#framings", DataTable)
        framed = {}
        top = None
        if self.scored:
            top = self.scored.scores.top_answer
            framed = {r.idx: m for r, m in self.scored.matches if r.kind == "framed"}
        if table.row_count != len(self.family.framings):
            table.clear()
            for i, scenario in enumerate(self.family.framings):
                table.add_row(str(i + 1), Text("…", style="dim"), "", "", Text(scenario),
                              key=str(i))
            self._cells: dict[int, tuple] = {}
        for i in range(len(self.family.framings)):
            m = framed.get(i)
            if m is None:
                continue
            hit = m.canonical == top and bool(top)
            values = ((m.canonical or "(empty)")[:24], hit, m.reason, m.refusal)
            if self._cells.get(i) == values:
                continue
            self._cells[i] = values
            table.update_cell(str(i), "answer", Text(values[0], style="" if m.canonical
                                                     else "dim"))
            table.update_cell(str(i), "top", Text("✓" if hit else "✗",
                                                  style="green" if hit else "red"))
            table.update_cell(str(i), "why", Text(m.reason + (" · refusal/echo" if m.refusal
                                                              else ""), style="dim"))


class AnswersScreen(ModalScreen[None]):
    """Canonical answers with their surface forms and merge reasons; merge and split."""

    BINDINGS = [
        Binding("space", "mark", "Mark"),
        Binding("m", "merge", "Merge marked → selected"),
        Binding("x", "split", "Split a surface form"),
        Binding("escape", "dismiss(None)", "Close"),
    ]

    def __init__(self, run_screen: RunScreen):
        super().__init__()
        self.run_screen = run_screen
        self.marked: set[str] = set()

    def compose(self) -> ComposeResult:
        with Vertical(id="answers-box"):
            yield Static("[b]Answers[/b]  space mark · m merge marked into selected · "
                         "x split · escape close", id="answers-help")
            yield DataTable(id="answers", cursor_type="row")
            yield Static("", id="answer-detail")

    def on_mount(self) -> None:
        table = self.query_one("#answers", DataTable)
        table.add_columns(" ", "answer", "direct", "framed", "surface forms")
        self.refresh_table()

    def clusters(self) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for r, m in self.run_screen.scored.matches:
            if not m.canonical:
                continue
            c = out.setdefault(m.canonical, {"direct": 0, "framed": 0, "forms": {}})
            c[r.kind] += 1
            forms = c["forms"]
            forms.setdefault(m.answer, set()).add(m.reason)
        return out

    def refresh_table(self) -> None:
        table = self.query_one("#answers", DataTable)
        table.clear()
        for name, c in sorted(self.clusters().items(),
                              key=lambda kv: -(kv[1]["direct"] + kv[1]["framed"])):
            # Text cells: DataTable would parse a plain str as markup.
            table.add_row("●" if name in self.marked else " ", Text(name), str(c["direct"]),
                          str(c["framed"]), Text(", ".join(c["forms"])), key=name)
        self.show_detail()

    def selected(self) -> str | None:
        return cursor_key(self.query_one("#answers", DataTable))

    @on(DataTable.RowHighlighted)
    def show_detail(self) -> None:
        name = self.selected()
        detail = self.query_one("#answer-detail", Static)
        if name is None:
            detail.update("")
            return
        forms = self.clusters().get(name, {}).get("forms", {})
        lines = [f"[b]{escape(name)}[/b] — surface forms and why they joined:"]
        lines += [f"  {escape(form)}  [dim]{', '.join(sorted(reasons))}[/dim]"
                  for form, reasons in forms.items()]
        detail.update("\n".join(lines))

    def action_mark(self) -> None:
        name = self.selected()
        if name:
            self.marked ^= {name}
            self.refresh_table()

    def _apply(self, edit) -> None:
        """Apply an answers edit to the run's family and to the family file on disk.

        The file is read afresh and only the edit is applied to it, so changes made to
        the file since this run started are kept."""
        fam = self.run_screen.family
        edit(fam)
        try:
            target = fam.path if fam.path and fam.path.exists() else \
                fam_mod.path_for(fam.name, families_dir())
            on_disk = fam_mod.load(target) if target.exists() else fam
            if on_disk is not fam:
                edit(on_disk)
            fam_mod.save(on_disk, target)
            fam.path = target
            self.notify(f"Saved to {target}.")
        except (ProbeError, OSError) as exc:
            self.notify(f"Could not save the family file: {exc}", severity="error")
        self.run_screen.recompute()
        self.refresh_table()

    def action_merge(self) -> None:
        target = self.selected()
        sources = self.marked - {target}
        if not target or not sources:
            self.notify("Mark answers with space, then select the one to merge them into.",
                        severity="warning")
            return
        clusters = self.clusters()
        aliases = [alias for src in sorted(sources)
                   for alias in [src, *clusters.get(src, {}).get("forms", {})]]

        def merge(fam: Family) -> None:
            for alias in aliases:
                fam.add_alias(target, alias)

        self.marked.clear()
        self._apply(merge)

    def action_split(self) -> None:
        name = self.selected()
        forms = list(self.clusters().get(name or "", {}).get("forms", {}))
        if len(forms) < 2:
            self.notify("This answer has only one surface form; nothing to split.")
            return

        def chosen(form: str | None) -> None:
            if form:
                self._apply(lambda fam: fam.add_canonical(form))

        self.app.push_screen(SplitPicker(forms), chosen)


class SplitPicker(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, forms: list[str]):
        super().__init__()
        self.forms = forms

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Static("[b]Split which surface form into its own answer?[/b]")
            yield OptionList(*[Option(escape(f), id=str(i)) for i, f in enumerate(self.forms)])

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.forms[int(event.option.id)])
