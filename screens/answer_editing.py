"""The run view's side of merges and splits: where the change goes (this run only, the
family file too, or a recreated file), asked before anything changes; the change itself is
the core's (``probe.services.apply_answer_edit``)."""

from __future__ import annotations

from screens.markup import escape

from probe import family as fam_mod
from probe.errors import ProbeError
from probe.paths import families_dir
from screens.dialogs import Choice


class AnswerEditing:
    """The run view's side of merges and splits: where the change goes, and the re-score
    it makes (a new result version; the result as sampled is never changed)."""


    def edit_answers(self, edit, note: str, done) -> None:
        """Merge or split: ask where the change goes, then re-score as a new result version.

        ``edit(answers, earlier_edits)`` changes an answers table in place and returns a
        record of the change. The run's result as sampled is never changed."""
        if self.running:
            self.notify("Wait for the run to end (or stop it with s) before changing answers.",
                        severity="warning")
            return
        if self.run_id is None:
            return
        if self.settings.rule == "reference":
            self.notify("This run is scored with the reference rule, which clusters answers "
                        "itself and ignores the family's aliases: a merge or split would not "
                        "change its result.", severity="warning", timeout=10)
            return
        try:
            path = self.family.path or fam_mod.path_for(self.family.name, families_dir())
        except ProbeError:
            path = None
        exists = path is not None and path.exists()
        lines = [f"[b]{escape(note[0].upper() + note[1:])}?[/b]",
                 "The run's result as sampled is kept; the change adds a re-scored result "
                 "beside it."]
        if path is None:
            choices = [("r", "re-score this run only")]
        elif not exists:
            lines.append(f"The family file {escape(str(path))} no longer exists.")
            choices = [("r", "re-score this run only"), ("c", "recreate the file")]
        elif self.read_only:
            lines.append(f"This is a past run. Change the family file {escape(str(path))} "
                         "too, so the next runs agree?")
            choices = [("f", "change the file too"), ("r", "re-score this run only")]
        else:
            lines.append(f"Saved to {escape(str(path))} too, so the next runs agree.")
            choices = [("y", "apply and save the file"), ("r", "this run only")]

        def answer(choice: str | None) -> None:
            if choice is not None and self._apply_edit(edit, note, path if choice in "ycf"
                                                       else None):
                done()

        self.app.push_screen(Choice("\n".join(lines), choices), answer)

    def _apply_edit(self, edit, note: str, path) -> bool:
        from probe.services import apply_answer_edit

        try:
            done = apply_answer_edit(self.app.store, self.run_id, self.family,  # type: ignore
                                     self.settings, edit, note, path)
        except ProbeError as exc:
            self.notify(str(exc)[:1].upper() + str(exc)[1:], severity="error", timeout=10)
            return False
        self.family, self.scored = done.family, done.scored
        self._load_versions()
        self.tick()
        where = f" and saved to {path}" if path is not None else " (family file unchanged)"
        self.notify(f"Re-scored as result v{done.version}{where}; the result as sampled is "
                    "kept.")
        return True
