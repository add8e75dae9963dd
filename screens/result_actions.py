"""The run view's palette commands that take a result out of the app: copy it as a Markdown
row, a LaTeX row or JSON, and export the family's figures and records to a folder."""

from __future__ import annotations

from pathlib import Path

from textual import work

from probe.errors import ProbeError


class ResultActions:
    """Mixed into the run screen, which holds ``scored``, ``family``, ``settings``, ``run_id``."""

    def palette_commands(self):
        """(title, help, callback) for the command palette."""
        if self.scored is None:
            return []
        return [
            ("Copy result as a Markdown row", "the table header and this run's row, with "
             "N, T, rule and intervals", self.action_copy_markdown),
            ("Copy result as a LaTeX row", "cells joined by &, ending in \\\\",
             self.action_copy_latex),
            ("Copy result as JSON", "the --json record with the run's settings",
             self.action_copy_json),
            ("Export this family's figures and records", "answers figure, release records "
             "of the family's runs and its reframings across runs, to a folder",
             self.action_export_family),
        ]

    def _run_bits(self):
        store = self.app.store  # type: ignore[attr-defined]
        run = store.run(self.run_id) if self.run_id is not None else None
        settings = run.settings if run else dict(self.settings.__dict__)
        model = run.model if run else self.app.model_display  # type: ignore[attr-defined]
        return run, settings, model

    def _copy(self, text: str, what: str) -> None:
        self.app.copy_to_clipboard(text)
        first = text.splitlines()[-1] if what != "JSON" else text.splitlines()[0] + " …"
        self.notify(f"Copied the result as {what} (through the terminal's clipboard):\n"
                    f"{first[:300]}", timeout=8, markup=False)

    def action_copy_markdown(self) -> None:
        from probe.result_rows import markdown_row

        _, settings, model = self._run_bits()
        self._copy(markdown_row(self.family.name, model, settings, self.scored.scores),
                   "a Markdown row")

    def action_copy_latex(self) -> None:
        from probe.result_rows import latex_row

        _, settings, model = self._run_bits()
        self._copy(latex_row(self.family.name, model, settings, self.scored.scores),
                   "a LaTeX row")

    def action_copy_json(self) -> None:
        from probe.result_rows import json_record
        from probe.scoring import to_record

        run, settings, model = self._run_bits()
        record = to_record(self.family, model, self.run_id, self.scored.scores)
        self._copy(json_record(record, settings, run.seed if run else None), "JSON")

    def action_export_family(self) -> None:
        if self.run_id is None:
            self.notify("Nothing stored yet to export.")
            return
        self.notify(f"Exporting {self.family.name}'s figures and records…")
        self._export(self.family.name, self.run_id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="export",
          description="exporting")
    def _export(self, family: str, run_id: int) -> None:
        from probe.family_export import export_family
        from probe.paths import exports_dir

        app = self.app
        try:
            done = export_family(app.store, family, run_id, exports_dir())  # type: ignore
        except (ProbeError, OSError) as exc:
            app.call_from_thread(self.notify, f"Nothing exported: {exc}", severity="error",
                                 timeout=10, markup=False)
            return
        app.call_from_thread(self.notify, f"Exported {len(done.files)} files to "
                             f"{Path(done.folder).resolve()}" + (
                                 f" ({'; '.join(done.notes)})" if done.notes else ""),
                             timeout=12, markup=False)
