"""The live run view: DR/FR/π with intervals, the label badge, both answer
distributions and the table of reframings; a run's result versions; answers edits."""

from __future__ import annotations

import time

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from probe.errors import ProbeError
from probe.family import Family
from probe.metrics import LABEL_TEXT, AnswerCount, Scores
from probe.report import bar, floor_percent
from probe.runner import (RunCancelled, RunFailedEvent, RunFinished, Runner, RunSettings,
                          SampleDrawn)
from probe.scoring import LiveScorer, Response
from screens.answers import AnswerEditing
from screens.dialogs import Choice, SampleDetail
from screens.messages import RunEvent
from screens.tables import cursor_key, fit_columns

BADGE_CLASS = {"deep": "deep", "shallow": "shallow", "non_bias": "nonbias"}
ACTIVE = ("starting", "running", "stopping")


def sure_text(p_label: float) -> str:
    """The label's probability, floored: a label short of settled (95%) never reads 95%."""
    return f"{floor_percent(p_label)} sure"


def when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


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


class RunScreen(AnswerEditing, Screen):
    """One family on the current model: live, or a past run read-only."""

    BINDINGS = [
        Binding("s", "stop", "Stop"),
        Binding("u", "resume", "Resume"),
        Binding("k", "quick", "Quick check"),
        Binding("a", "answers", "Answers"),
        Binding("enter", "detail", "Sample", show=False),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, family: Family, run_id: int | None = None, read_only: bool = False,
                 settings: RunSettings | None = None):
        super().__init__()
        self.family = family
        self.run_id = run_id
        self.read_only = read_only
        self.responses: list[Response] = []
        self.state = "starting"
        self.runner: Runner | None = None
        self.scored = None
        self._dirty = True
        self.settings = settings or RunSettings()
        self.seed: int | None = None
        self.versions: list[dict] = []
        self.quick_on = self.settings.quick
        self._reset_live()

    def _reset_live(self) -> None:
        """Match everything again: the family's answers (aliases) changed."""
        self.live = LiveScorer(self.family, self.settings.dr_threshold,
                               self.settings.pi_threshold)
        for r in self.responses:
            self.live.add(r)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="run-title")
        yield Static("", id="run-versions")
        with Horizontal(id="stats"):
            yield Static("", id="dr", classes="stat")
            yield Static("", id="fr", classes="stat")
            yield Static("", id="pi", classes="stat")
            yield Static("", id="badge")
        # One line under the verdict for what qualifies it (the non-pick warning goes here).
        yield Static("", id="verdict-note")
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
            self.seed = run.seed
            self.quick_on = self.settings.quick
            for s in store.samples(self.run_id):
                self.responses.append(Response(s.kind, s.idx, s.response))
            self._load_versions()
            if self.versions and self.versions[-1]["family_id"]:
                # Shown as last scored: a re-score's answers, or the run's own snapshot.
                path = self.family.path
                self.family = store.family(self.versions[-1]["family_id"])
                self.family.path = self.family.path or path
            self._reset_live()
            self.state = ("finished (quick check settled)" if run.ending == "quick check"
                          else run.status)
        if not self.read_only:
            self.start_run(self.run_id)
        self.tick()

    def on_resize(self) -> None:
        width = self.size.width
        fit_columns(self.query_one("#framings", DataTable), width,
                    {"n": 3, "top": 4, "why": min(22, max(6, width // 8))},
                    {"answer": 1.0, "scenario": 2.4}, minimum=6)

    def _load_versions(self) -> None:
        if self.run_id is not None:
            self.versions = self.app.store.result_versions(self.run_id)  # type: ignore
        self._dirty = True

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
            self.seed = app.store.run(run_id).seed  # type: ignore[attr-defined]
            runner.force_quick = self.quick_on
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
            self._load_versions()
        elif isinstance(e, RunCancelled):
            self.state = "cancelled"
            self._load_versions()
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
        if self.state not in ("cancelled", "failed", "running") or self.run_id is None \
                or self.running:
            self.notify(f"Nothing to resume: the run is {self.state}.")
            return
        if self.read_only:
            if self.app.backend is None:  # type: ignore[attr-defined]
                self.notify("Load a model before resuming.", severity="warning")
                return
            self.read_only = False
        store = self.app.store  # type: ignore[attr-defined]
        if self.versions and self.versions[-1]["kind"] == "rescored":
            # The runner samples and scores with the run's own family snapshot; show that,
            # so what is on screen is what gets stored.
            path = self.family.path
            self.family = store.family(store.run(self.run_id).family_id)
            self.family.path = self.family.path or path
            self._reset_live()
        self.start_run(self.run_id)

    def action_quick(self) -> None:
        # The state shows in the title line, not as a toast: pressing k again and again
        # would stack one toast per press.
        if self.state not in ACTIVE or self.runner is None:
            self.notify("Quick check applies while a run samples.")
            return
        self.quick_on = not self.quick_on
        self.runner.force_quick = self.quick_on
        self._dirty = True
        self.tick()

    @property
    def running(self) -> bool:
        return self.runner is not None and self.state in ACTIVE

    def action_back(self) -> None:
        if not self.running:
            self.app.pop_screen()
            return

        def answer(choice: str | None) -> None:
            if choice == "s":
                self.action_stop()
                self.app.pop_screen()

        self.app.push_screen(Choice(
            f"[b]The run is still sampling[/b] ({len(self.responses)} samples so far).\n"
            "Stop it and go back? The samples are kept; u here or History resumes it.",
            [("s", "stop and go back")], escape_label="stay and keep sampling"), answer)

    def action_answers(self) -> None:
        self.tick()          # the timer may not have drawn the last samples yet
        if self.scored is None:
            self.notify("No answers yet.")
            return
        from screens.answers import AnswersScreen

        self.app.push_screen(AnswersScreen(self))

    def action_detail(self) -> None:
        """The sample behind a reframing row: prompt sent, raw response, extraction, why."""
        self.tick()
        key = cursor_key(self.query_one("#framings", DataTable))
        if key is None or self.run_id is None or self.scored is None:
            return
        idx = int(key)
        sample = next((s for s in self.app.store.samples(self.run_id)  # type: ignore
                       if s.kind == "framed" and s.idx == idx), None)
        match = next((m for r, m in self.scored.matches
                      if r.kind == "framed" and r.idx == idx), None)
        if sample is None or match is None:
            self.notify(f"Reframing {idx + 1} has no sample yet.")
            return
        top = self.scored.scores.top_answer
        verdict = ("matches the direct top answer" if match.canonical == top and top else
                   f"does not match the direct top answer ({top or 'none'})")
        self.app.push_screen(SampleDetail(f"Reframing {idx + 1}", [
            ("Scenario", self.family.framings[idx]),
            ("Prompt sent", sample.prompt),
            ("Raw response", sample.response),
            ("Extracted answer", match.answer),
            ("Canonical answer", match.canonical),
            ("Why", f"{match.reason}{' · refusal/echo (not a pick)' if match.refusal else ''}"
                    f" — {verdict}"),
        ]))

    @on(DataTable.RowSelected, "#framings")
    def row_chosen(self) -> None:
        self.action_detail()

    # ---------------------------------------------------------- display

    def tick(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        self.scored = self.live.scored() if self.responses else None
        s = self.scored.scores if self.scored else None
        planned = len(self.family.framings) + self.settings.samples
        mode = " [dim](read-only)[/dim]" if self.read_only else ""
        quick = "   [b]quick check on[/b]" if self.quick_on and self.state in ACTIVE else ""
        seed = f"seed {self.seed}" if self.seed is not None else "seed …"
        model = self.app.model_display  # type: ignore[attr-defined]
        if self.run_id is not None and (self.read_only or self.state not in ACTIVE):
            model = self.app.store.run(self.run_id).model  # type: ignore[attr-defined]
        self.query_one("#run-title", Static).update(
            f" [b]{escape(self.family.name)}[/b] on {escape(model)}"
            f"   run {self.run_id or '…'} · {seed}   {len(self.responses)}/{planned} samples"
            f"   [i]{self.state.replace(' (quick check settled)', ' · quick check')}[/i]"
            f"{mode}{quick}\n [dim]{escape(self.family.direct)}[/dim]")
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
            what = "as sampled" if v["kind"] == "sampled" else \
                f"re-scored ({escape(v['note'] or '')})"
            return (f"v{v['version']} {when(v['created_at'])} {what}: "
                    f"{LABEL_TEXT[v['label']]} π {v['pi']:.2f}")

        more = len(self.versions) - 2
        return (f" [b]shown:[/b] {line(self.versions[-1])}\n [dim]original: "
                f"{line(self.versions[0])}"
                + (f" · {more} more in History" if more else "") + "[/dim]")

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
        badge.update(f"{LABEL_TEXT[s.label]}{settling}\n{sure_text(s.p_label)}")
        for cls in BADGE_CLASS.values():
            badge.remove_class(cls)
        badge.add_class(BADGE_CLASS[s.label])
        badge.set_class(not s.settled, "settling")
        warning = getattr(s, "warning", "") or ""
        self.set_verdict_note(f"[yellow]⚠ {escape(warning)}[/yellow]" if warning else "")
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
            values = (m.canonical or "(empty)", hit, m.reason, m.refusal)
            if self._cells.get(i) == values:
                continue
            self._cells[i] = values
            table.update_cell(str(i), "answer", Text(values[0], style="" if m.canonical
                                                     else "dim"))
            table.update_cell(str(i), "top", Text("✓" if hit else "✗",
                                                  style="green" if hit else "red"))
            table.update_cell(str(i), "why", Text(m.reason + (" · refusal/echo" if m.refusal
                                                              else ""), style="dim"))
