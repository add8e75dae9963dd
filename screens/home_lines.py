"""What Home shows around its table, and the family under the cursor as it is on disk: the
prompt column's cells, the line of run settings, and why a row cannot be run or edited."""

from __future__ import annotations

import os
from pathlib import Path

from rich.text import Text
from textual.widgets import DataTable

from probe.terminal import marked

from probe import family as fam_mod
from probe.errors import ProbeError
from probe.paths import families_dir
from screens.fit import fit_line
from screens.tables import cursor_key


def prompt_cell(prompts: list[str]):
    """How a family's direct prompt reads in its column: the words every family starts
    with ("Choose a random") are left out, so a narrow column shows what differs."""
    common = os.path.commonprefix(prompts) if len(prompts) > 1 else ""
    common = common[:common.rfind(" ") + 1]
    cut = len(common) if len(common) >= 6 else 0

    def cell(text: str) -> Text:
        shown = "…" + text[cut:] if cut and text.startswith(common) else text
        # Controls as the one-cell marks they are drawn as, so the column stays aligned.
        return Text(marked(shown), overflow="ellipsis")      # a cut prompt ends in …
    return cell


def settings_line(s, width: int) -> str:
    """What the next runs use, fitted: the rule, a non-default answer format and the counts
    stay, the reminders go."""
    seed = "fresh seed each run" if s.seed is None else f"seed {s.seed}"
    parts = [(9, f"runs: {s.samples} direct samples"), (8, f"T {s.temperature:g}"),
             (7, f"{s.rule} rule")]
    if s.answer_format != "words":      # the default goes unsaid; another never does
        parts.append((7, f"{s.answer_format} answer format"))
    parts += [(5, seed), (4, f"DR > {s.dr_threshold:g}, π > {s.pi_threshold:g}")]
    if s.base:
        parts.append((6, f"base prompts, {s.shots} shots"))
    if s.quick:
        parts.append((6, "quick check"))
    parts.append((3, "(s: settings)"))
    return fit_line(parts, width, sep=" · ")


class FamilyOnDisk:
    """Mixed into Home: the family under the cursor, read from its file as it is now."""

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
