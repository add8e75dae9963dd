"""Home: the families with their last labels (and pooled repeats), the model and the run
settings."""

from __future__ import annotations

import os
from pathlib import Path

from screens.markup import escape
from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from probe import family as fam_mod
from probe.errors import ProbeError
from probe.family_folder import FamilyFolder
from probe.metrics import LABEL_TEXT
from probe.paths import families_dir
from probe.runner import RunSettings
from probe.terminal import marked
from screens.charts import ChartsScreen
from screens.dialogs import SettingsScreen
from screens.fit import fit_line
from screens.home_pooled import PooledColumn
from screens.model_picker import ModelPicker  # noqa: F401 (the app opens it)
from screens.tables import RowTable, cursor_key, fit_columns, move_to_key

BIG_FOLDER = 200       # more family files than this are first read off the UI thread
HEADERS = {"family": "family", "framings": "framings", "prompt": "direct prompt",
           "label": "last label", "pooled": "pooled runs", "others": "other models"}


def prompt_cell(prompts: list[str]):
    """How a family's direct prompt reads in its column: the words every family starts
    with ("Choose a random") are left out, so a narrow column shows what differs."""
    common = os.path.commonprefix(prompts) if len(prompts) > 1 else ""
    common = common[:common.rfind(" ") + 1]
    cut = len(common) if len(common) >= 6 else 0

    def cell(text: str) -> Text:
        shown = "…" + text[cut:] if cut and text.startswith(common) else text
        return drawn(shown, overflow="ellipsis")     # a cut prompt ends in …
    return cell


def drawn(text: str, **style) -> Text:
    """A cell of text from a file or the database, its controls and invisible characters
    as the one-cell marks the terminal-safe filter draws (Rich would drop a BEL): measured
    as drawn, the columns stay aligned."""
    return Text(marked(text), **style)


class HomeScreen(PooledColumn, Screen):
    columns: tuple = ()
    # Help comes first and the model's key lives in the status line ("m to change"): at
    # 80 columns the footer keeps what is not said anywhere else.
    BINDINGS = [
        Binding("question_mark", "app.help", "Help"),
        Binding("r", "run", "Run", key_display="r/⏎"),
        Binding("n", "new", "New"),
        Binding("f", "quick_family", "Quick family", show=False),   # in help and the palette
        Binding("e", "edit", "Edit"),
        Binding("h", "history", "History"),
        Binding("m", "model", "Model", show=False),
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
        self.columns: tuple = ()
        self.folder = FamilyFolder(families_dir())
        self.reading = False
        self.refresh_families()
        self.update_model_status()
        # A file written, changed or deleted in another window shows up without leaving
        # Home; asking costs one non-blocking read (or a few stats), never a rescan.
        self.set_interval(2, self.poll_families)

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
        if self.repeats:
            keys.insert(4, "pooled")
            if (self.size.width or 80) < 100:
                keys.remove("others")
        return tuple(keys)

    def on_resize(self) -> None:
        self.query_one(Footer).compact = self.size.width < 110
        self.update_model_status()
        if self.wanted_columns() != self.columns:
            self.refresh_families()
            return
        app = self.app
        longest = max((cell_len(marked(f.name)) for f in app.families.values()), default=6)
        flexible = {k: w for k, w in (("prompt", 1.3), ("others", 1.0)) if k in self.columns}
        narrow = "others" not in self.columns
        fixed = {"family": min(max(longest, 6) + 1, 16 if narrow else 24), "framings": 8,
                 "label": 16}
        if "pooled" in self.columns:
            fixed["pooled"] = len("Shallow π 0.43 ×3")
        fit_columns(self.query_one("#families", DataTable), self.size.width, fixed, flexible,
                    minimum=9 if self.repeats else len("other models"))

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
                by_family.setdefault(name, []).append(f"{model}: {LABEL_TEXT[r['label']]}")

        def label_cells(name: str) -> dict:
            last = labels.get((name, app.model_display))
            here = f"{LABEL_TEXT[last['label']]}  π {last['pi']:.2f}" if last else "—"
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
            add(str(path), family=drawn(fam.name), framings=str(len(fam.framings)),
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
        error = getattr(self, "errors", {}).get(cursor_key(table) or "")
        text = (f"[red]{escape(error)}[/red]" if error else "" if table.row_count else
                f"No families in {escape(str(families_dir()))}/ yet: press n to write one, "
                "or f to draft one from a question.")
        hint.update(text)
        hint.display = bool(text)

    def update_model_status(self) -> None:
        app = self.app
        self.query_one("#model-status", Static).update(app.model_status_text())
        s = app.run_settings
        seed = "fresh seed each run" if s.seed is None else f"seed {s.seed}"
        # What the next runs use, fitted: the rule and the counts stay, the reminders go.
        parts = [(9, f"runs: {s.samples} direct samples"), (8, f"T {s.temperature:g}"),
                 (7, f"{s.rule} rule"), (5, seed),
                 (4, f"DR > {s.dr_threshold:g}, π > {s.pi_threshold:g}")]
        if s.base:
            parts.append((6, f"base prompts, {s.shots} shots"))
        if s.quick:
            parts.append((6, "quick check"))
        parts.append((3, "(s: settings)"))
        width = max(20, (self.size.width or 80) - 2)
        self.query_one("#settings-line", Static).update(
            f" [dim]{escape(fit_line(parts, width, sep=' · '))}[/dim]")

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
            self.notify(f"Drafted {len(family.framings)} reframings from templates into "
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
