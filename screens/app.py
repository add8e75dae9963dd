"""The probe app: home (families and model), and the glue to the core's runner."""

from __future__ import annotations

import os
from pathlib import Path

from rich.markup import escape
from rich.text import Text
from textual import on, work
from functools import partial

from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from probe import family as fam_mod
from probe.errors import ProbeError
from probe.metrics import LABEL_TEXT
from probe.paths import families_dir
from probe.store import Store
from screens.charts import ChartsScreen
from probe.runner import RunSettings
from screens.dialogs import Choice, SettingsScreen
from screens.messages import ModelFailed, ModelLoaded, ModelLoading
from screens.tables import cursor_key, fit_columns, move_to_key

HELP = """\
[b]probe[/b] — is a model's favourite answer a Deep bias or a Shallow one?

[b]Home[/b]     r run selected family · n new family · e edit · h history · m choose model · g charts
         s run settings (samples, temperature, seed, thresholds, base/shots, scoring rule)
[b]Editor[/b]   ctrl+s save · ctrl+g draft reframings (chat models) · alt+↑/↓ move a reframing · escape back
[b]Run[/b]      s stop · u resume · k quick check on/off · a answers (merge/split) · enter a
         reframing's prompt, response and match · escape back (asks while sampling)
[b]Answers[/b]  space mark · m merge marked into selected · x split selected surface form
[b]History[/b]  enter open run · space mark · c compare two marked runs · / filter
Everywhere: ? this help · ctrl+p command palette · q quit
"""


class HelpScreen(ModalScreen):
    BINDINGS = [Binding("escape,q,question_mark", "app.pop_screen", "Close")]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static(HELP, id="help-text")
            yield Static("[dim]escape to close[/dim]")


class ModelPicker(ModalScreen[str | None]):
    """Models usable here, as `probe models` lists them."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, models: list[dict]) -> None:
        super().__init__()
        self.models = models

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Static("[b]Choose a model[/b]  (enter to load, escape to cancel)")
            options = [Option(f"{m['engine']:<13} {m['name']}  [dim]{m['size'] / 1e6:,.0f} MB"
                              f"[/dim]", id=str(i)) for i, m in enumerate(self.models)]
            yield OptionList(*options, id="model-list")

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.models[int(event.option.id)]["spec"])


class HomeScreen(Screen):
    BINDINGS = [
        Binding("r", "run", "Run"),
        Binding("n", "new", "New"),
        Binding("e", "edit", "Edit"),
        Binding("h", "history", "History"),
        Binding("m", "model", "Model"),
        Binding("g", "charts", "Charts"),
        Binding("s", "settings", "Settings"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="model-status")
        yield Static("", id="settings-line")
        yield DataTable(id="families", cursor_type="row", zebra_stripes=True)
        yield Static("", id="home-hint")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#families", DataTable)
        for key, label in (("family", "family"), ("framings", "framings"),
                           ("prompt", "direct prompt"), ("label", "last label (this model)"),
                           ("others", "other models")):
            table.add_column(label, key=key)
        self.refresh_families()
        self.update_model_status()

    def on_resize(self) -> None:
        fit_columns(self.query_one("#families", DataTable), self.size.width,
                    {"family": 20, "framings": 8, "label": 23},
                    {"prompt": 1.3, "others": 1.0})

    def on_screen_resume(self) -> None:
        self.refresh_families()
        self.update_model_status()

    def refresh_families(self) -> None:
        app: ProbeApp = self.app  # type: ignore[assignment]
        table = self.query_one("#families", DataTable)
        # The cursor follows the family, not the row number: rows come and go as files do.
        keep = cursor_key(table)
        keep_row = table.cursor_row
        table.clear()
        labels = app.store.last_labels()
        by_family: dict[str, list[str]] = {}
        for (name, model), r in labels.items():
            if model != app.model_display:
                by_family.setdefault(name, []).append(f"{model}: {LABEL_TEXT[r['label']]}")

        def label_cells(name: str) -> tuple[str, Text]:
            last = labels.get((name, app.model_display))
            here = f"{LABEL_TEXT[last['label']]}  π {last['pi']:.2f}" if last else "—"
            return here, Text(" · ".join(by_family.get(name, [])), style="dim")

        app.families = {}
        for path, fam in fam_mod.discover(families_dir()):
            if isinstance(fam, ProbeError):
                table.add_row(Text(path.stem), "—", Text(str(fam), style="red"), "", "",
                              key=str(path))
                continue
            app.families[str(path)] = fam
            table.add_row(Text(fam.name), str(len(fam.framings)), Text(fam.direct),
                          *label_cells(fam.name), key=str(path))
        for name in app.store.family_names():
            if not any(f.name == name for f in app.families.values()):
                run = app.store.runs(family=name, limit=1)
                fam = app.store.family(run[0]["family_id"]) if run else None
                if fam:
                    key = f"db:{name}"
                    app.families[key] = fam
                    table.add_row(Text(name) + Text(" (db)", style="dim"),
                                  str(len(fam.framings)), Text(fam.direct), *label_cells(name),
                                  key=key)
        if table.row_count and not move_to_key(table, keep):
            table.move_cursor(row=min(max(keep_row, 0), table.row_count - 1))
        hint = self.query_one("#home-hint", Static)
        hint.update("" if table.row_count else
                    f"No families in {families_dir()}/ yet: press n to write one.")

    def update_model_status(self) -> None:
        app: ProbeApp = self.app  # type: ignore[assignment]
        self.query_one("#model-status", Static).update(app.model_status_text())
        s = app.run_settings
        seed = "fresh seed each run" if s.seed is None else f"seed {s.seed}"
        extras = [x for x in ("base prompts" if s.base else "", "quick check" if s.quick
                              else "", f"{s.rule} rule" if s.rule != "probe" else "") if x]
        self.query_one("#settings-line", Static).update(
            f" [dim]runs: {s.samples} direct samples · temperature {s.temperature:g} · {seed}"
            f" · DR > {s.dr_threshold:g}, π > {s.pi_threshold:g}"
            f"{' · ' + ' · '.join(extras) if extras else ''}   (s to change)[/dim]")

    def selected_family(self):
        app: ProbeApp = self.app  # type: ignore[assignment]
        key = cursor_key(self.query_one("#families", DataTable))
        return key, app.families.get(key) if key is not None else None

    def fresh_family(self):
        """The selected family as its file is now on disk (it may have been edited since
        the list was drawn); an invalid file is an error, shown, not run."""
        key, fam = self.selected_family()
        if fam is None or key is None or key.startswith("db:"):
            return fam
        try:
            return fam_mod.load(key)
        except ProbeError as exc:
            self.notify(str(exc), title="The family file has an error", severity="error",
                        timeout=10)
            self.refresh_families()
            return None

    def action_run(self) -> None:
        key, fam = self.selected_family()
        if fam is None:
            self.notify("Select a family that loads without errors first.", severity="warning")
            return
        fam = self.fresh_family()
        if fam is not None:
            self.app.open_run(fam)  # type: ignore[attr-defined]

    def action_settings(self) -> None:
        app: ProbeApp = self.app  # type: ignore[assignment]

        def chosen(settings: RunSettings | None) -> None:
            if settings is not None:
                app.run_settings = settings
                self.update_model_status()

        app.push_screen(SettingsScreen(app.run_settings), chosen)

    def action_new(self) -> None:
        from screens.editor import EditorScreen

        self.app.push_screen(EditorScreen(None))

    def action_edit(self) -> None:
        from screens.editor import EditorScreen

        key, fam = self.selected_family()
        if fam is None:
            self.notify("Nothing to edit: select a family.", severity="warning")
            return
        fam = self.fresh_family()
        if fam is not None:
            self.app.push_screen(EditorScreen(fam))

    def action_history(self) -> None:
        from screens.history import HistoryScreen

        self.app.push_screen(HistoryScreen())

    def action_model(self) -> None:
        self.app.action_pick_model()  # type: ignore[attr-defined]

    def action_charts(self) -> None:
        self.app.push_screen(ChartsScreen())

    @on(DataTable.RowSelected, "#families")
    def row_chosen(self) -> None:
        self.action_run()


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
        self.run_settings = RunSettings()     # what the next runs use (s on Home)
        self.pending_run = None               # a family to run once the model is ready

    def on_mount(self) -> None:
        self.push_screen(HomeScreen())
        if self.autoload:
            self.load_model(self.model_spec)

    def model_status_text(self) -> str:
        colour = {"ready": "green", "loading": "yellow", "failed": "red"}.get(
            self.model_state.split(":")[0], "dim")
        waiting = (f"   [yellow]waiting for model… then runs {escape(self.pending_run.name)}"
                   "[/yellow]" if self.pending_run is not None else "")
        return (f" model: [b]{escape(self.model_display)}[/b]  [{colour}]"
                f"{escape(self.model_state)}[/{colour}]{waiting}   [dim](m to change)[/dim]")

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
            else:
                from probe.backends import make_backend, resolve

                resolved = resolve(spec or None)
                # Leave one core to the interface: with every core sampling, a key's
                # repaint waited behind the model (p95 94 ms vs 40 ms on 2 cores).
                threads = max(1, (os.cpu_count() or 2) - 1)
                backend = make_backend(resolved, threads=threads)
                display = resolved.display
                self.resolved_model = resolved
            self.post_message(ModelLoading(f"loading {display}", 0.1))
            backend.load(lambda text, frac: self.post_message(ModelLoading(text, frac)))
        except ProbeError as exc:
            self.post_message(ModelFailed(str(exc)))
            return
        except Exception as exc:  # an engine's own error: still one message, no crash
            self.post_message(ModelFailed(f"{type(exc).__name__}: {exc}"))
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

    def action_help(self) -> None:
        # One installed instance: composing the help text anew cost ~30 ms a time.
        if not self.is_screen_installed("help"):
            self.install_screen(HelpScreen(), "help")
        if not isinstance(self.screen, HelpScreen):
            self.push_screen("help")

    def get_system_commands(self, screen: Screen):
        """Every action of the screen in front, in the command palette (ctrl+p)."""
        yield from super().get_system_commands(screen)
        seen = set()
        titles = set()
        for binding in list(screen.BINDINGS) + list(self.BINDINGS):
            if not isinstance(binding, Binding) or binding.action in seen \
                    or binding.description in titles:
                continue
            seen.add(binding.action)
            titles.add(binding.description)
            target = screen if hasattr(screen, f"action_{binding.action.split('(')[0]}") \
                else self
            key = binding.key.split(",")[0]
            yield SystemCommand(binding.description, f"key: {key}",
                                partial(target.run_action, binding.action))
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
                    screen.runner.cancel()
                self.exit()

        self.push_screen(Choice(
            f"[b]{running[0].family.name} is still sampling[/b] "
            f"({len(running[0].responses)} samples so far).\nQuit and stop the run? The "
            "samples are kept; History (or probe run --resume) finishes it later.",
            [("q", "stop the run and quit")], escape_label="keep sampling"), answer)


def make_app(**kwargs) -> ProbeApp:
    """One factory shared by the CLI and the tests."""
    return ProbeApp(**kwargs)


def run_app(model: str | None = None, db_path: str | None = None) -> None:
    make_app(model=model, db_path=Path(db_path) if db_path else None).run()
