"""The probe app: the store, the model and its loading, the run settings, quitting; the
screens do the rest."""

from __future__ import annotations

import os
import sqlite3
import sys
from functools import partial
from pathlib import Path

from screens.markup import escape
from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from probe.report import counted
from probe.dbhealth import db_error
from probe.errors import ProbeError, describe
from probe.preferences import load_run_settings, save_run_settings
from probe.runner import RunSettings
from probe.store import Store
from screens.charts import ChartsScreen
from screens.dialogs import Choice
from screens.help import HelpScreen
from screens.home import HomeScreen, ModelPicker
from screens.messages import ModelFailed, ModelLoaded, ModelLoading
from screens.terminal_filter import TERMINAL_SAFE

__all__ = ["ProbeApp", "HomeScreen", "HelpScreen", "ModelPicker", "make_app", "run_app"]


class ProbeApp(App):
    """Holds the store, the current model and its loaded backend; screens do the rest."""

    TITLE = "probe"
    SUB_TITLE = "Deep or Shallow?"
    CSS_PATH = "probe.tcss"
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("ctrl+c", "quit", "Quit", show=False),
        Binding("question_mark", "help", "Help"),
    ]

    def __init__(self, model: str | None = None, db_path: str | os.PathLike | None = None,
                 backend_factory=None, autoload: bool = True) -> None:
        super().__init__()
        self.store = Store(db_path) if db_path is not None else Store()
        self.model_spec = model or ""
        self.model_display = "default model"
        self.backend = None
        self.backend_factory = backend_factory    # tests inject a scripted backend
        self.model_state = "not loaded"
        self.families: dict = {}
        self.autoload = autoload
        # What the next runs use (s on Home), kept between sessions.
        self.run_settings, self.settings_notice = load_run_settings()
        self.pending_run = None               # a family to run once the model is ready
        self.fatal: ProbeError | None = None  # what ended the app, said once it has quit

    def _handle_exception(self, error: Exception) -> None:
        # A damaged database (or any error probe can say in one sentence) met by a screen
        # ends the app with that sentence and its exit code, never a traceback: the
        # screen that met it cannot be drawn, and what is stored stays as it was.
        problem = error if isinstance(error, ProbeError) else \
            db_error(error, self.store.path, writing=False) \
            if isinstance(error, sqlite3.Error) else None
        if problem is None:
            super()._handle_exception(error)
            return
        self.fatal = problem
        self.exit(return_code=problem.exit_code)

    def get_line_filters(self):
        # Every line of every widget, on every screen and dialog, passes the terminal-safe
        # filter: one place, so a new screen cannot forget it.
        return [*super().get_line_filters(), TERMINAL_SAFE]

    def on_mount(self) -> None:
        self.push_screen(HomeScreen())
        if self.settings_notice:
            self.notify(self.settings_notice, severity="warning", timeout=12, markup=False)
        if self.autoload:
            self.load_model(self.model_spec)

    def set_run_settings(self, settings: RunSettings) -> None:
        """What the next runs use, kept for the next session too."""
        self.run_settings = settings
        problem = save_run_settings(settings)
        if problem:
            self.notify(problem, severity="warning", timeout=10, markup=False)

    def model_status_text(self) -> str:
        colour = {"ready": "green", "loading": "yellow", "failed": "red"}.get(
            self.model_state.split(":")[0], "dim")
        waiting = (f"  [yellow]then runs {escape(self.pending_run.name)}[/yellow]"
                   if self.pending_run is not None else "")
        # "loading: loading gemma-3-270m (…) (10%)" says the name twice on a short line.
        state = self.model_state.replace(f"loading: loading {self.model_display} ", "loading ")
        return (f" model: [b]{escape(self.model_display)}[/b]  [{colour}]"
                f"{escape(state)}[/{colour}]{waiting}   [dim](m to change)[/dim]")

    # ------------------------------------------------------------ model

    @work(thread=True, exclusive=True, exit_on_error=False, group="model",
          description="loading model")
    def load_model(self, spec: str) -> None:
        # Until it loads, the model is named as asked for, so a failure names the right one.
        self.model_display = spec or "default model"
        self.post_message(ModelLoading("resolving model", 0.0))
        try:
            if self.backend_factory is not None:
                backend, display = self.backend_factory(spec)
                self.model_display = display
                self.post_message(ModelLoading(f"loading {display}", 0.1))
                backend.load(lambda text, frac: self.post_message(ModelLoading(text, frac)))
            else:
                from probe.services import open_model

                def named(resolved) -> None:
                    # Named as it will be stored from here on: Home shows this model's last
                    # labels while it loads, not "—" beside them under "other models".
                    self.model_display = resolved.display
                    self.post_message(ModelLoading(f"loading {resolved.display}", 0.1))

                # Leave one core to the interface: with every core sampling, a key's
                # repaint waited behind the model (p95 94 ms vs 40 ms on 2 cores).
                resolved, backend = open_model(
                    spec, threads=max(1, (os.cpu_count() or 2) - 1), announce=named,
                    progress=lambda text, frac: self.post_message(ModelLoading(text, frac)))
                display = resolved.display
                self.resolved_model = resolved
        except ProbeError as exc:
            self.post_message(ModelFailed(str(exc)))
            return
        except Exception as exc:  # an engine's own error: still one message, no crash
            self.post_message(ModelFailed(describe(exc)))
            return
        self.backend = backend
        self.model_display = display
        self.post_message(ModelLoaded(display))

    def _refresh_status(self) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, HomeScreen):
                screen.update_model_status()
                screen.refresh_families()

    def on_model_loading(self, msg: ModelLoading) -> None:
        self.model_state = f"loading: {msg.text} ({msg.fraction:.0%})"
        self._refresh_status()

    def on_model_loaded(self, msg: ModelLoaded) -> None:
        self.model_state = "ready"
        self._refresh_status()
        self.notify(f"{msg.display} is ready.")
        family, self.pending_run = self.pending_run, None
        if family is not None and isinstance(self.screen, HomeScreen):
            self.open_run(family)

    def on_model_failed(self, msg: ModelFailed) -> None:
        self.model_state = "failed"
        self.backend = None
        dropped, self.pending_run = self.pending_run, None
        self._refresh_status()
        self.notify(msg.error + (f" ({dropped.name} was not run.)" if dropped else ""),
                    title=f"Model {self.model_display} failed to load", severity="error",
                    timeout=10)

    def action_pick_model(self) -> None:
        from probe.backends import available_models

        def chosen(spec: str | None) -> None:
            if spec is not None:
                self.model_spec = "" if spec == "default" else spec
                self.backend = None
                self.load_model(self.model_spec)

        self.push_screen(ModelPicker(available_models()), chosen)

    # ------------------------------------------------------------- runs

    def open_run(self, family, run_id: int | None = None, read_only: bool = False) -> None:
        from screens.run_view import RunScreen

        if not read_only and self.backend is None:
            if self.model_state.startswith("loading") or self.model_state == "not loaded" \
                    and self.autoload:
                # Queued: the run starts as soon as the model is ready.
                self.pending_run = family
                self._refresh_status()
                return
            self.notify(f"The model is not loaded ({self.model_state}); m picks one.",
                        severity="warning")
            return
        self.push_screen(RunScreen(family, run_id=run_id, read_only=read_only,
                                   settings=RunSettings(**self.run_settings.__dict__)))

    def _on_notify(self, event) -> None:
        # The same message again replaces the one on screen: a key pressed ten times is one
        # toast, not a stack of ten. (Runs on the UI thread, like Textual's own handler.)
        new = event.notification
        # A toast is plain text: what it says comes from errors, files and models (a
        # "[/b]" in a family's name is shown, not read as a tag), and none needs markup.
        new.markup = False
        for old in list(self._notifications):
            if old.message == new.message and old.title == new.title:
                self._unnotify(old, refresh=False)
        super()._on_notify(event)

    def action_help(self) -> None:
        # One installed instance: composing the help text anew cost ~30 ms a time.
        if not self.is_screen_installed("help"):
            self.install_screen(HelpScreen(), "help")
        if not isinstance(self.screen, HelpScreen):
            self.push_screen("help")

    def get_system_commands(self, screen: Screen):
        """Every action of the screen in front that applies now, in the command palette
        (ctrl+p), and what the screen offers there besides (copying a result…)."""
        yield from super().get_system_commands(screen)
        seen = set()
        titles = set()
        for binding in list(screen.BINDINGS) + list(self.BINDINGS):
            if not isinstance(binding, Binding):
                continue
            title = binding.tooltip or binding.description    # the footer's word is short
            if binding.action in seen or title in titles:
                continue
            seen.add(binding.action)
            titles.add(title)
            name = binding.action.split("(")[0]
            target = screen if hasattr(screen, f"action_{name}") else self
            # Resume on a finished run, or the quick check when nothing samples, does not
            # apply: the palette leaves it out as the footer does.
            if target is screen and not screen.check_action(name, ()):
                continue
            key = binding.key.split(",")[0]
            yield SystemCommand(title, f"key: {key}",
                                partial(target.run_action, binding.action))
        for title, help_text, callback in getattr(screen, "palette_commands", list)():
            yield SystemCommand(title, help_text, callback)
        if not isinstance(screen, ChartsScreen) and "Charts" not in titles:
            yield SystemCommand("Charts", "Breakdown bars and DR-vs-FR scatter of stored "
                                "families", self.action_charts)

    def action_charts(self) -> None:
        self.push_screen(ChartsScreen())

    async def action_quit(self) -> None:
        """Quit; while a run samples, ask first (nothing is cancelled without the user
        knowing). A sampling thread cannot be killed: it is asked to stop, so the run is
        marked cancelled and can be resumed."""
        from screens.run_view import RunScreen

        running = [s for s in self.screen_stack if isinstance(s, RunScreen) and s.running]
        if not running:
            self.exit()
            return
        if isinstance(self.screen, Choice):
            return

        def answer(choice: str | None) -> None:
            if choice == "q":
                for screen in running:
                    if screen.running:
                        screen.runner.cancel()
                self.exit()

        run = running[0]

        def question() -> str:
            # Asked again while the dialog is open: the count moves, and a run may end.
            if not run.running:
                return (f"[b]{escape(run.family.name)} has {run.state}[/b] "
                        f"({counted(run.samples_done, 'sample')}).\nNothing is sampling now; quit?")
            return (f"[b]{escape(run.family.name)} is still sampling[/b] "
                    f"({counted(run.samples_done, 'sample')} so far).\nQuit and stop the run? The "
                    "samples are kept; History (or probe run --resume) finishes it later.")

        self.push_screen(Choice(question, [("q", "stop the run and quit")],
                                escape_label="keep sampling"), answer)


def make_app(**kwargs) -> ProbeApp:
    """One factory shared by the CLI and the tests."""
    return ProbeApp(**kwargs)


def run_app(model: str | None = None, db_path: str | None = None) -> None:
    """Run the app; what ended it early is raised once the terminal is restored, for the
    command line to say in one sentence with its exit code."""
    app = make_app(model=model, db_path=Path(db_path) if db_path else None)
    app.run()
    if app.fatal is not None:
        raise app.fatal
    if app.return_code:
        sys.exit(app.return_code)
