"""The run view: one family sampled live, or a past run read-only; stop, resume, the
quick check, leaving while it samples, and one sample's details."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from probe.report import counted
from probe.errors import ProbeError
from probe.explain import explain
from probe.family import Family
from probe.runner import (RunCancelled, RunFailedEvent, RunFinished, Runner, RunSettings,
                          SampleDrawn)
from probe.services import run_result
from probe.metrics import LABEL_TEXT
from probe.verdict import framed_lines, verdict_words
from screens.answer_editing import AnswerEditing
from screens.dialogs import Choice, SampleDetail
from screens.messages import RunEvent
from screens.result_actions import ResultActions
from screens.run_display import ACTIVE, RunDisplay, sure_text  # noqa: F401 (tests)
from screens.tables import RowTable, cursor_key, fit_columns


class RunScreen(RunDisplay, AnswerEditing, ResultActions, Screen):
    """One family on the current model: live, or a past run read-only. Everything on it
    is drawn from one scored result: the runner's while it samples, the core's for a
    stored run (``probe.services``); the screen never matches an answer itself."""

    # Help first and short words, so that at 80 columns the footer keeps "? Help" while a
    # run samples; the palette shows each key's longer title (its tooltip).
    BINDINGS = [
        Binding("question_mark", "app.help", "Help"),
        Binding("s", "stop", "Stop"),
        Binding("u", "resume", "Resume"),
        Binding("k", "quick", "Quick check"),
        Binding("a", "answers", "Answers"),
        Binding("w", "why", "Why", tooltip="Why this label"),
        Binding("enter", "detail", "Sample", show=False),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, family: Family, run_id: int | None = None, read_only: bool = False,
                 settings: RunSettings | None = None):
        super().__init__()
        self.family = family
        self.run_id = run_id
        self.read_only = read_only
        self.samples_done = 0
        self.state = "starting"
        self.runner: Runner | None = None
        self.scored = None
        self._dirty = True
        self.settings = settings or RunSettings()
        self.seed: int | None = None
        self.versions: list[dict] = []
        self.quick_on = self.settings.quick
        self._bindings_for = ""
        self._explained: tuple | None = None

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """Stop, resume and the quick check show in the footer only when they apply."""
        if action in ("stop", "quick"):
            return self.running
        if action == "resume":
            return (self.state in ("cancelled", "failed") and self.run_id is not None
                    and not self.running)
        if action in ("why", "answers"):
            return self.scored is not None
        return True

    def on_key(self, event) -> None:
        """A key the footer hides just now still says why it does nothing."""
        why = {"s": f"Nothing to stop: the run is {self.state}.",
               "u": f"Nothing to resume: the run is {self.state}.",
               "k": "Quick check applies while a run samples."}
        action = {"s": "stop", "u": "resume", "k": "quick"}.get(event.key)
        if action and not self.check_action(action, ()):
            self.notify(why[event.key])

    def tick(self) -> None:
        # The state changes in the worker too; the footer follows it on the next tick (and
        # shows a and w once there is a result to show).
        now = f"{self.state} {self.scored is None}"
        if self._bindings_for != now:
            self._bindings_for = now
            self.refresh_bindings()
        RunDisplay.tick(self)

    def explanation(self):
        """Why the result shown has its label (computed once per result: ~40 ms)."""
        s = self.scored.scores
        key = (id(self.scored), self.settings.rule)
        if self._explained is None or self._explained[0] != key:
            self._explained = (key, explain(s, self.settings.dr_threshold,
                                            self.settings.pi_threshold, self.settings.rule,
                                            len(self.family.framings)))
        return self._explained[1]

    def show_stored(self) -> None:
        """The stored run as the core scores it: its settings, the family it is shown with
        (a re-score's answers, else its own snapshot) and its result."""
        shown = run_result(self.app.store, self.run_id, self.family.path)  # type: ignore
        self.family, self.settings, self.scored = shown.family, shown.settings, shown.scored
        self.versions = shown.versions
        self.samples_done = len(self.app.store.samples(self.run_id))  # type: ignore
        # Responses scored from files (`probe score`) planned no count: they are all there.
        if self.app.store.run(self.run_id).backend == "external":  # type: ignore
            self.planned = self.samples_done
        self._dirty = True

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="run-title")
        yield Static("", id="run-settings")
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
        yield RowTable(id="framings", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#framings", DataTable)
        table.add_column("#", key="n")
        table.add_column("answer", key="answer")
        table.add_column("FR", key="top")
        table.add_column("why", key="why")
        table.add_column("scenario", key="scenario")
        # Refresh from a timer, not per sample: a fast backend would flood the screen.
        self.set_interval(0.2, self.tick)
        if self.run_id is not None:
            run = self.app.store.run(self.run_id)  # type: ignore[attr-defined]
            # A past run keeps its own settings: sample count, thresholds and rule.
            self.show_stored()
            self.seed = run.seed
            self.quick_on = self.settings.quick
            self.state = ("finished (quick check settled)" if run.ending == "quick check"
                          else run.status)
        if not self.read_only:
            self.start_run(self.run_id)
        self.tick()

    def on_resize(self) -> None:
        width = self.size.width
        self._dirty = True          # the boxes and distributions fold to the new width
        # The why column is as wide as its longest words ("surface match of Mercury"), up
        # to a quarter of the screen; the scenario gives way first.
        longest = max((len(v[2]) for v in getattr(self, "_cells", {}).values()), default=0)
        self._why_width = min(max(len("containment"), longest, width // 7), width // 4)
        fit_columns(self.query_one("#framings", DataTable), width,
                    {"n": 3, "top": 4, "why": self._why_width},
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
            # The runner's own result: what it matched and scored, nothing matched again.
            self.scored = e.scored
            self.samples_done = e.done
            self._dirty = True
        elif isinstance(e, (RunFinished, RunCancelled)):
            self.state = "cancelled" if isinstance(e, RunCancelled) else (
                "finished" + (" (quick check settled)" if e.stopped_early else ""))
            self.samples_done = e.samples_used
            # Every panel is drawn again from the result as it was kept, read back the way
            # History, the exports and a reopened run read it: one result, never the live
            # pass's numbers beside the stored ones.
            try:
                if self.run_id is None:
                    raise ProbeError("no run stored")
                self.show_stored()
                self.samples_done = e.samples_used
            except ProbeError:          # the database failed: the runner's result is all
                if e.scored is not None:
                    self.scored = e.scored
            # Draw the kept, order-free scores now rather than on the next tick: the screen
            # never shows "finished" beside the live numbers.
            self._dirty = True
            self.tick()
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
            from probe.services import score_samples

            path = self.family.path
            self.family = store.family(store.run(self.run_id).family_id)
            self.family.path = self.family.path or path
            self.scored = score_samples(store, self.run_id, self.family, self.settings)
            self._dirty = True
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
            f"[b]The run is still sampling[/b] ({counted(self.samples_done, 'sample')} so far).\n"
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
        line = framed_lines(self.scored).get(idx)
        if sample is None or line is None:
            self.notify(f"Reframing {idx + 1} has no sample yet.")
            return
        top = self.scored.scores.top_answer
        self.app.push_screen(SampleDetail(f"Reframing {idx + 1}  {line.mark}", [
            ("Scenario", self.family.framings[idx]),
            ("Prompt sent", sample.prompt),
            ("Raw response", sample.response),
            ("Extracted answer", line.answer),
            ("Canonical answer", line.canonical),
            ("How it joined that answer", line.why),
            ("Counts for FR?", verdict_words(line, top, self.settings.rule)),
            *self._second_reading_row(idx),
        ]))

    def _second_reading_row(self, idx: int) -> list[tuple[str, str]]:
        s = self.scored.scores if self.scored else None
        named = s.second.names("framed", idx) if s and s.reading_sensitive else None
        if named is None:
            return []
        return [("Second reading", f"the reply names {named}, one of the family's answers; "
                 f"counting every such reply as the answer it names, the label would be "
                 f"{LABEL_TEXT[s.second.label]} (w: why)")]

    def action_why(self) -> None:
        """Each value against its threshold with its interval, where the doubt is and what
        would settle it."""
        self.tick()
        if self.scored is None:
            self.notify("No samples yet: nothing to explain.")
            return
        from screens.why import WhyScreen

        self.app.push_screen(WhyScreen(self.family.name, self.explanation()))

    @on(DataTable.RowSelected, "#framings")
    def row_chosen(self) -> None:
        self.action_detail()
