"""Home: the families with their last labels, the model and the run settings; the
model-picker dialog it opens."""

from __future__ import annotations

import os
from pathlib import Path

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from probe import family as fam_mod
from probe.errors import ProbeError
from probe.family_folder import FamilyFolder
from probe.metrics import LABEL_TEXT
from probe.paths import families_dir
from probe.runner import RunSettings
from screens.charts import ChartsScreen
from screens.dialogs import SettingsScreen
from screens.tables import RowTable, cursor_key, fit_columns, move_to_key

BIG_FOLDER = 200       # more family files than this are first read off the UI thread
COLUMNS = ("family", "framings", "prompt", "label", "others")


def prompt_cell(prompts: list[str]):
    """How a family's direct prompt reads in its column: the words every family starts
    with ("Choose a random") are left out, so a narrow column shows what differs."""
    common = os.path.commonprefix(prompts) if len(prompts) > 1 else ""
    common = common[:common.rfind(" ") + 1]
    cut = len(common) if len(common) >= 6 else 0

    def cell(text: str) -> str:
        return "…" + text[cut:] if cut and text.startswith(common) else text
    return cell


def row_cells(row: tuple) -> tuple:
    """A family's row as the table draws it, from its plain values (``fill_families``)."""
    kind, name, framings, prompt, label, others = row
    if kind == "error":
        return (Text(name), "—", Text(prompt, style="red", overflow="ellipsis"), "", "")
    title = Text(name) + Text(" (db)", style="dim") if kind == "db" else Text(name)
    # A cut prompt ends in …
    return (title, framings, Text(prompt, overflow="ellipsis"), label,
            Text(others, style="dim"))


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
        yield RowTable(id="families", cursor_type="row", zebra_stripes=True)
        yield Static("", id="home-hint")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#families", DataTable)
        for key, label in zip(COLUMNS, ("family", "framings", "direct prompt", "last label",
                                        "other models")):
            table.add_column(label, key=key)
        self.folder = FamilyFolder(families_dir())
        self.reading = False
        self.refresh_families()
        self.update_model_status()
        # A file written, changed or deleted in another window shows up without leaving
        # Home; asking costs one non-blocking read (or a few stats), never a rescan.
        self.set_interval(2, self.poll_families)

    def poll_families(self) -> None:
        if self.is_current and not self.reading and self.folder.changed():
            self.fill_families(self.folder.scan())

    @work(thread=True, exclusive=True, exit_on_error=False, group="families",
          description="reading family files")
    def read_folder(self) -> None:
        """The first read of a big folder, off the UI thread: Home is drawn at once and
        fills in when the files are parsed (after that only changed files are)."""
        def progress(done: int, total: int) -> None:
            self.app.call_from_thread(self.show_reading, done, total)

        found = self.folder.scan(progress)
        self.app.call_from_thread(self.fill_families, found)

    def show_reading(self, done: int, total: int) -> None:
        hint = self.query_one("#home-hint", Static)
        hint.update(f"[dim]Reading family files: {done:,} of {total:,}…[/dim]")
        hint.display = True

    def on_resize(self) -> None:
        app = self.app
        longest = max((len(f.name) for f in app.families.values()), default=6)
        fit_columns(self.query_one("#families", DataTable), self.size.width,
                    {"family": min(max(longest, 6) + 1, 24), "framings": 8, "label": 16},
                    {"prompt": 1.3, "others": 1.0}, minimum=len("other models"))

    def on_screen_resume(self) -> None:
        self.refresh_families()
        self.update_model_status()

    def refresh_families(self) -> None:
        if self.reading:
            return                          # the read in flight fills the table
        if not self.folder.read_once and len(self.folder.paths()) > BIG_FOLDER:
            self.reading = True
            self.show_reading(0, len(self.folder.paths()))
            self.read_folder()
            return
        self.fill_families(self.folder.current())

    def fill_families(self, found: list) -> None:
        self.reading = False
        app = self.app
        table = self.query_one("#families", DataTable)
        labels = app.store.last_labels()
        by_family: dict[str, list[str]] = {}
        for (name, model), r in labels.items():
            if model != app.model_display:
                by_family.setdefault(name, []).append(f"{model}: {LABEL_TEXT[r['label']]}")

        def label_cells(name: str) -> tuple[str, str]:
            last = labels.get((name, app.model_display))
            here = f"{LABEL_TEXT[last['label']]}  π {last['pi']:.2f}" if last else "—"
            return here, " · ".join(by_family.get(name, []))

        app.families = {}
        self.errors: dict[str, str] = {}
        # Plain values per row: comparing them is cheap, and only a changed row is drawn.
        rows: dict[str, tuple] = {}
        prompt = prompt_cell([f.direct for _, f in found if not isinstance(f, ProbeError)])
        for path, fam in found:
            if isinstance(fam, ProbeError):
                self.errors[str(path)] = str(fam)
                rows[str(path)] = ("error", path.stem, "—", str(fam), "", "")
                continue
            app.families[str(path)] = fam
            rows[str(path)] = ("file", fam.name, str(len(fam.framings)), prompt(fam.direct),
                               *label_cells(fam.name))
        on_disk = {f.name for f in app.families.values()}
        for name in app.store.family_names():
            if name not in on_disk:
                run = app.store.runs(family=name, limit=1)
                fam = app.store.family(run[0]["family_id"]) if run else None
                if fam:
                    app.families[f"db:{name}"] = fam
                    rows[f"db:{name}"] = ("db", name, str(len(fam.framings)),
                                          prompt(fam.direct), *label_cells(name))
        self._show_rows(table, rows)
        self.on_resize()
        self.show_hint()

    def _show_rows(self, table: DataTable, rows: dict[str, tuple]) -> None:
        """Only what changed is redrawn: with thousands of families a refresh (back from a
        run, the model loaded) rewrites a few cells, not every row."""
        shown = getattr(self, "_rows", None)
        if shown is not None and list(shown) == list(rows) and table.row_count == len(rows):
            for key, row in rows.items():
                if shown[key] != row:
                    for column, old, new in zip(COLUMNS, row_cells(shown[key]),
                                                row_cells(row)):
                        if old != new:
                            table.update_cell(key, column, new)
            self._rows = rows
            return
        # The cursor follows the family, not the row number: rows come and go as files do.
        keep = cursor_key(table)
        keep_row = table.cursor_row
        table.clear()
        for key, row in rows.items():
            table.add_row(*row_cells(row), key=key)
        self._rows = rows
        if table.row_count and not move_to_key(table, keep):
            table.move_cursor(row=min(max(keep_row, 0), table.row_count - 1))

    @on(DataTable.RowHighlighted, "#families")
    def show_hint(self) -> None:
        """Below the table: the whole error of a family file that does not load (its row
        has room for the start only), or how to begin when there is nothing yet."""
        table = self.query_one("#families", DataTable)
        hint = self.query_one("#home-hint", Static)
        error = getattr(self, "errors", {}).get(cursor_key(table) or "")
        text = (f"[red]{escape(error)}[/red]" if error else "" if table.row_count else
                f"No families in {escape(str(families_dir()))}/ yet: press n to write one.")
        hint.update(text)
        hint.display = bool(text)

    def update_model_status(self) -> None:
        app = self.app
        self.query_one("#model-status", Static).update(app.model_status_text())
        s = app.run_settings
        seed = "fresh seed each run" if s.seed is None else f"seed {s.seed}"
        extras = [x for x in ("base prompts" if s.base else "", "quick check" if s.quick
                              else "", f"{s.rule} rule" if s.rule != "probe" else "") if x]
        self.query_one("#settings-line", Static).update(
            f" [dim]runs: {s.samples} direct samples · T {s.temperature:g} · {seed}"
            f" · DR > {s.dr_threshold:g}, π > {s.pi_threshold:g}"
            f"{' · ' + ' · '.join(extras) if extras else ''}  (s: settings)[/dim]")

    def selected_family(self):
        app = self.app
        key = cursor_key(self.query_one("#families", DataTable))
        return key, app.families.get(key) if key is not None else None

    def why_unavailable(self, key: str | None, doing: str) -> str:
        """Why the row under the cursor cannot be run or edited, in the user's terms."""
        if key is None:
            return f"No family to {doing}: press n to write one."
        name = Path(key).name
        if key in getattr(self, "errors", {}) and Path(key).exists():
            # The loader's message names the file and line already.
            return (f"{self.errors[key]} Fix the file in a text editor, then {doing} it "
                    "here.")
        return f"{name} no longer exists in {families_dir()}/."

    def fresh_family(self, doing: str = "run"):
        """The selected family as its file is now on disk (it may have been edited since
        the list was drawn); an invalid file is an error, shown, not run."""
        key, fam = self.selected_family()
        if fam is None or key is None or key.startswith("db:"):
            return fam
        if not Path(key).exists():
            self.notify(self.why_unavailable(key, doing), severity="warning", timeout=10)
            self.refresh_families()
            return None
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
            self.notify(self.why_unavailable(key, "run"), severity="warning", timeout=10)
            return
        fam = self.fresh_family()
        if fam is not None:
            self.app.open_run(fam)  # type: ignore[attr-defined]

    def action_settings(self) -> None:
        app = self.app

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
            self.notify(self.why_unavailable(key, "edit"), severity="warning", timeout=10)
            return
        fam = self.fresh_family("edit")
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
