"""Home: the families with their last labels (and pooled repeats), the model and the run
settings."""

from __future__ import annotations


from screens.markup import escape
from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from probe.report import counted
from probe.errors import ProbeError
from probe.family_folder import FamilyFolder
from probe.metrics import LABEL_TEXT
from probe.paths import families_dir
from probe.runner import RunSettings
from probe.terminal import marked
from screens.charts import ChartsScreen
from screens.dialogs import SettingsScreen
from screens.home_lines import FamilyOnDisk, prompt_cell, settings_line
from screens.home_pooled import PooledColumn
from screens.model_picker import ModelPicker  # noqa: F401 (the app opens it)
from screens.tables import RowTable, cursor_key, fit_columns, move_to_key

BIG_FOLDER = 200       # more family files than this are first read off the UI thread
HEADERS = {"family": "family", "framings": "framings", "prompt": "direct prompt",
           "label": "last label", "pooled": "pooled runs", "others": "other models"}


def drawn(text: str, **style) -> Text:
    """A cell of text from a file or the database, its controls and invisible characters
    as the one-cell marks the terminal-safe filter draws (Rich would drop a BEL): measured
    as drawn, the columns stay aligned."""
    style.setdefault("overflow", "ellipsis")
    return Text(marked(text), **style)


class HomeScreen(FamilyOnDisk, PooledColumn, Screen):
    columns: tuple = ()
    # Help comes first and the model's key lives in the status line ("m to change"): at
    # 80 columns the footer keeps what is not said anywhere else.
    BINDINGS = [
        Binding("question_mark", "app.help", "Help"),
        Binding("r", "run", "Run", key_display="r/⏎"),
        Binding("n", "new", "New"),
        # f is in the footer where it fits (100 columns and more); below, in help and the
        # palette, so that "? Help" keeps its place at 80 columns.
        Binding("f", "quick_family_shown", "Quick family"),
        Binding("f", "quick_family", "Quick family", show=False),
        Binding("e", "edit", "Edit"),
        Binding("h", "history", "History"),
        Binding("m", "model", "Model", show=False),
        Binding("g", "charts", "Charts"),
        Binding("s", "settings", "Settings"),
    ]

    FOOTER_F_WIDTH = 100       # from here the footer has room for f

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "quick_family_shown":
            return (self.size.width or 80) >= self.FOOTER_F_WIDTH
        return True

    def action_quick_family_shown(self) -> None:
        self.action_quick_family()

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="model-status")
        yield Static("", id="settings-line")
        yield RowTable(id="families", cursor_type="row", zebra_stripes=True)
        yield Static("", id="home-hint")
        yield Footer()

    def on_mount(self) -> None:
        self.columns: tuple = ()
        self.folder = FamilyFolder(families_dir())
        self.reading = False
        self.refresh_families()
        self.update_model_status()
        # A file written, changed or deleted in another window shows up without leaving
        # Home; asking costs one non-blocking read (or a few stats), never a rescan.
        self.set_interval(2, self.poll_families)

    def on_unmount(self) -> None:
        self.folder.close()       # the folder's inotify instance goes back (128 per user)

    def poll_families(self) -> None:
        if self.is_current and not self.reading and self.folder.changed():
            self.refresh_families(self.folder.scan())

    @work(thread=True, exclusive=True, exit_on_error=False, group="families",
          description="reading family files")
    def read_folder(self) -> None:
        """The first read of a big folder, off the UI thread: Home is drawn at once and
        fills in when the files are parsed (after that only changed files are)."""
        def progress(done: int, total: int) -> None:
            self.app.call_from_thread(self.show_reading, done, total)

        found = self.folder.scan(progress)
        self.app.call_from_thread(self.refresh_families, found)

    def show_reading(self, done: int, total: int) -> None:
        hint = self.query_one("#home-hint", Static)
        hint.update(f"[dim]Reading family files: {done:,} of {total:,}…[/dim]")
        hint.display = True

    def wanted_columns(self) -> tuple:
        """The pooled verdict, when there is one, before the other models' labels: below
        100 columns those make way for it."""
        keys = ["family", "framings", "prompt", "label", "others"]
        narrow = (self.size.width or 80) < 100
        if self.repeats:
            keys.insert(4, "pooled")
            if narrow:
                keys.remove("others")
        if narrow:
            # A few letters of each prompt say nothing ("Choose a r…"): below 100 columns
            # the highlighted family's prompt is shown whole under the table instead.
            keys.remove("prompt")
        return tuple(keys)

    def on_resize(self) -> None:
        self.query_one(Footer).compact = self.size.width < 110
        self.refresh_bindings()             # f comes and goes with the width
        self.update_model_status()
        if self.wanted_columns() != self.columns:
            self.refresh_families()
            return
        app = self.app
        longest = max((cell_len(marked(f.name)) for f in app.families.values()), default=6)
        flexible = {k: w for k, w in (("prompt", 1.3), ("others", 1.0)) if k in self.columns}
        if not flexible:
            flexible = {"family": 1.0}       # 80 columns: the names get the room
        fixed = {"family": min(max(longest, 6) + 1, 24), "framings": 8, "label": 16}
        if "family" in flexible:
            del fixed["family"]
        if "pooled" in self.columns:
            fixed["pooled"] = len("Non-bias π 0.43 ×10")
        fit_columns(self.query_one("#families", DataTable), self.size.width, fixed, flexible,
                    minimum=9 if self.repeats else len("other models"))
        self.show_hint()

    def on_screen_resume(self) -> None:
        self.refresh_families()
        self.update_model_status()

    def refresh_families(self, found: list | None = None) -> None:
        if found is None:
            if self.reading:
                return                      # the read in flight fills the table
            if not self.folder.read_once and len(self.folder.paths()) > BIG_FOLDER:
                self.reading = True
                self.show_reading(0, len(self.folder.paths()))
                self.read_folder()
                return
            found = self.folder.current()
        self.reading = False
        app = self.app
        table = self.query_one("#families", DataTable)
        # The cursor follows the family, not the row number: rows come and go as files do.
        keep = cursor_key(table)
        keep_row = table.cursor_row
        self.repeats = self.find_repeats()
        if self.wanted_columns() != self.columns:
            self.columns = self.wanted_columns()
            table.clear(columns=True)
            for key in self.columns:
                table.add_column(HEADERS[key], key=key)
        table.clear()
        labels = app.store.last_labels()
        by_family: dict[str, list[str]] = {}
        for (name, model), r in labels.items():
            if model != app.model_display:
                by_family.setdefault(name, []).append(f"{model}: {_label(r)}")

        def label_cells(name: str) -> dict:
            last = labels.get((name, app.model_display))
            here = f"{_label(last)}  π {last['pi']:.2f}" if last else "—"
            return {"label": here, "pooled": self.pooled_cell(name),
                    "others": drawn(" · ".join(by_family.get(name, [])), style="dim")}

        def add(key: str, **cells) -> None:
            table.add_row(*[cells.get(c, "") for c in self.columns], key=key)

        app.families = {}
        rows: dict[str, str] = {}
        self.errors: dict[str, str] = {}
        prompt = prompt_cell([f.direct for _, f in found if not isinstance(f, ProbeError)])
        for path, fam in found:
            if isinstance(fam, ProbeError):
                self.errors[str(path)] = str(fam)
                add(str(path), family=drawn(path.stem), framings="—",
                    prompt=drawn(str(fam), style="red", overflow="ellipsis"))
                continue
            app.families[str(path)] = fam
            add(str(path), family=drawn(fam.name),
                framings=str(len(fam.framings)),
                prompt=prompt(fam.direct), **label_cells(fam.name))
            rows[fam.name] = str(path)
        for name in app.store.family_names():
            if not any(f.name == name for f in app.families.values()):
                run = app.store.runs(family=name, limit=1)
                fam = app.store.family(run[0]["family_id"]) if run else None
                if fam:
                    key = f"db:{name}"
                    app.families[key] = fam
                    add(key, family=drawn(name) + Text(" (db)", style="dim"),
                        framings=str(len(fam.framings)), prompt=prompt(fam.direct),
                        **label_cells(name))
                    rows[name] = key
        if table.row_count and not move_to_key(table, keep):
            table.move_cursor(row=min(max(keep_row, 0), table.row_count - 1))
        self.on_resize()
        self.show_hint()
        self.fill_pooled(rows)

    @on(DataTable.RowHighlighted, "#families")
    def show_hint(self) -> None:
        """Below the table: the whole error of a family file that does not load (its row
        has room for the start only), or how to begin when there is nothing yet."""
        table = self.query_one("#families", DataTable)
        hint = self.query_one("#home-hint", Static)
        key = cursor_key(table) or ""
        error = getattr(self, "errors", {}).get(key)
        fam = self.app.families.get(key)  # type: ignore[attr-defined]
        prompt = (f" [dim]direct prompt:[/dim] {escape(fam.direct)}"
                  if fam is not None and "prompt" not in self.columns else "")
        text = (f"[red]{escape(error)}[/red]" if error else prompt if table.row_count else
                f"No families in {escape(str(families_dir()))}/ yet: press n to write one, "
                "or f to draft one from a question.")
        hint.update(text)
        hint.display = bool(text)

    def update_model_status(self) -> None:
        app = self.app
        self.query_one("#model-status", Static).update(app.model_status_text())
        width = max(20, (self.size.width or 80) - 2)
        self.query_one("#settings-line", Static).update(
            f" [dim]{escape(settings_line(app.run_settings, width))}[/dim]")

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
                app.set_run_settings(settings)
                self.update_model_status()

        app.push_screen(SettingsScreen(app.run_settings), chosen)

    def action_new(self) -> None:
        from screens.editor import EditorScreen

        self.app.push_screen(EditorScreen(None))

    def action_quick_family(self) -> None:
        """A direct question → a family drafted from templates → its run, in one step."""
        from screens.quick import QuickFamily

        def drafted(family) -> None:
            if family is None:
                return
            self.refresh_families()
            self.notify(f"Drafted {counted(len(family.framings), 'reframing')} from templates into "
                        f"{family.path}; e edits them.")
            self.app.open_run(family)  # type: ignore[attr-defined]

        self.app.push_screen(QuickFamily(), drafted)

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
        # Enter runs, as r does: said, so a run never starts unannounced.
        key, fam = self.selected_family()
        if fam is not None:
            self.notify(f"enter runs the selected family ({fam.name}), as r does; "
                        "e edits it, h shows past runs.", timeout=6, markup=False)
        self.action_run()


def _label(result: dict) -> str:
    """A stored result's label, marked ⚠ when it depends on how some replies were read."""
    return LABEL_TEXT[result["label"]] + (" ⚠" if result.get("reading_sensitive") else "")
