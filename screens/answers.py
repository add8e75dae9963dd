"""The answers screen: canonical answers with their surface forms and merge reasons;
merge and split, each said in words and confirmed before it happens."""

from __future__ import annotations

from screens.markup import escape
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from probe.answer_edits import merge, same_word, split
from probe.errors import ProbeError
from probe.verdict import AnswerGroup, answer_groups
from screens.answer_editing import AnswerEditing  # noqa: F401 (the run view's side)
from screens.tables import RowTable, cursor_key, fit_columns


class AnswersScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("space", "mark", "Mark"),
        Binding("m", "merge", "Merge marked → selected"),
        Binding("x", "split", "Split a surface form"),
        Binding("g", "suggest", "Suggest merges"),
        Binding("escape", "dismiss(None)", "Close"),
    ]

    def __init__(self, run_screen) -> None:
        super().__init__()
        self.run_screen = run_screen
        self.marked: set[str] = set()
        # Pairs (a, b, cosine) the embedding model finds close; None until asked for.
        self.suggestions: list[tuple[str, str, float]] | None = None
        self._next_suggestion = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="answers-box"):
            yield Static("[b]Answers[/b]  space mark · m merge the marked answers into the "
                         "one under the cursor · x split · g suggest merges · escape close",
                         id="answers-help")
            yield RowTable(id="answers", cursor_type="row")
            yield Static("", id="answer-plan")
            yield Static("", id="answer-suggest")
            yield Static("", id="answer-detail")

    def on_mount(self) -> None:
        table = self.query_one("#answers", DataTable)
        table.add_column(" ", key="mark")
        table.add_column("answer", key="answer")
        table.add_column("direct", key="direct")
        table.add_column("framed", key="framed")
        table.add_column("counts", key="counts")
        table.add_column("surface forms", key="forms")
        self.refresh_table()

    def on_resize(self) -> None:
        # The box is 95% of the screen, less its border and padding.
        fit_columns(self.query_one("#answers", DataTable), int(self.size.width * 0.95) - 4,
                    {"mark": 1, "direct": 6, "framed": 6, "counts": 6},
                    {"answer": 1.0, "forms": 1.6})

    def clusters(self) -> dict[str, AnswerGroup]:
        """The answers of the result the run view shows, as it counts them, by row key (an
        answer's non-picks are a row of their own)."""
        return {g.key: g for g in answer_groups(self.run_screen.scored,
                                                self.run_screen.settings.rule)}

    def refresh_table(self) -> None:
        """Rebuild after a merge or split, keeping the cursor on the same answer."""
        table = self.query_one("#answers", DataTable)
        keep = self.selected()
        table.clear()
        clusters = self.clusters()
        self.marked &= set(clusters)
        for key, c in clusters.items():
            # Text cells: DataTable would parse a plain str as markup.
            # ⊘: a refusal or an echo of the question — shown, never counted as a pick.
            label = Text(c.name) + (Text(" ⊘", style="dim") if c.nonpick else Text(""))
            label.overflow = "ellipsis"          # a long answer or form list ends in …
            table.add_row("●" if key in self.marked else " ", label, str(c.direct),
                          str(c.framed), Text(c.counts_text, style="green" if c.counts
                                              else "dim"),
                          Text(", ".join(c.forms), overflow="ellipsis"), key=key)
        if keep in clusters:
            table.move_cursor(row=table.get_row_index(keep))
        self.show_detail()

    def selected(self) -> str | None:
        return cursor_key(self.query_one("#answers", DataTable))

    @on(DataTable.RowHighlighted)
    def show_detail(self) -> None:
        name = self.selected()
        detail = self.query_one("#answer-detail", Static)
        self.show_plan()
        if name is None:
            detail.update("")
            return
        group = self.clusters().get(name)
        if group is None:
            detail.update("")
            return
        lines = [f"[b]{escape(group.name)}[/b] ({escape(group.counts_words)}) — surface forms "
                 "and why they joined:"]
        forms = group.forms
        lines += [f"  {escape(form)}  [dim]{escape(', '.join(sorted(reasons)))}[/dim]"
                  for form, reasons in forms.items()]
        detail.update("\n".join(lines))

    def show_plan(self) -> None:
        """What m would do, before it does it."""
        target = self.selected()
        sources = sorted(self.marked - {target})
        plan = self.query_one("#answer-plan", Static)
        if sources and target:
            plan.update(f"m merges [b]{escape(', '.join(sources))}[/b] into "
                        f"[b]{escape(target)}[/b]")
        else:
            plan.update("[dim]nothing marked[/dim]" if not self.marked else
                        "[dim]move to the answer to merge the marked ones into[/dim]")

    def action_mark(self) -> None:
        # The mark cell changes in place: the cursor stays where the user put it.
        name = self.selected()
        if name:
            self.marked ^= {name}
            self.query_one("#answers", DataTable).update_cell(
                name, "mark", "●" if name in self.marked else " ")
            self.show_plan()

    def _no_nonpicks(self, keys) -> bool:
        """Non-picks are not answers: merging or splitting them changes no rate."""
        clusters = self.clusters()
        if any(k in clusters and clusters[k].nonpick for k in keys):
            self.notify("A non-pick (⊘) is left out of both rates: merging or splitting it "
                        "would change nothing. Only picks merge and split.", severity="warning")
            return False
        return True

    def action_merge(self) -> None:
        target = self.selected()
        sources = sorted(self.marked - {target})
        if not target or not sources:
            self.notify("Mark answers with space, then move to the one to merge them into.",
                        severity="warning")
            return
        if not self._no_nonpicks([target, *sources]):
            return
        clusters = self.clusters()
        forms = {src: list(clusters[src].forms) if src in clusters else [] for src in sources}

        def edit(answers, _edits):
            return merge(answers, target, forms)

        def done() -> None:
            self.marked.clear()
            self.refresh_table()

        self.run_screen.edit_answers(edit, f"merge {', '.join(sources)} into {target}", done)

    def action_split(self) -> None:
        name = self.selected()
        if not self._no_nonpicks([name]):
            return
        group = self.clusters().get(name or "")
        all_forms = [f for f in (group.forms if group else {})
                     if f.casefold() != (name or "").casefold()]
        # A form the matcher reads as the very same word as the answer ("Rubies" for Ruby,
        # "the Monarch") cannot stand apart: splitting it would only rename the answer.
        forms = [f for f in all_forms if not same_word(f, name or "")]
        if not forms:
            self.notify(f"Every surface form of {name} is the same word to the matcher "
                        "(plural, case, article or spelling): nothing to split."
                        if all_forms else
                        "This answer has only its own name as a surface form; nothing to "
                        "split.")
            return

        def chosen(form: str | None) -> None:
            if form:
                self.run_screen.edit_answers(lambda answers, edits: split(answers, name, form,
                                                                          edits),
                                             f"split {form} out of {name}", self.refresh_table)

        self.app.push_screen(SplitPicker(name, forms), chosen)


    # -------------------------------------------------------------- suggestions

    def action_suggest(self) -> None:
        """First press: ask the embedding model which answers mean the same (a few seconds,
        off the UI thread). Later presses: mark the next suggested pair for ``m`` — nothing
        is merged without the usual confirmation."""
        box = self.query_one("#answer-suggest", Static)
        if self.suggestions is None:
            box.update("[dim]looking for answers that mean the same (embedding model)…[/dim]")
            names = [g.name for g in self.clusters().values() if not g.nonpick]
            prompt = self.run_screen.family.direct
            self.run_worker(lambda: self._compute_suggestions(names, prompt), thread=True,
                            exclusive=True, group="suggest", exit_on_error=False)
            return
        current = set(self.clusters())
        pairs = [p for p in self.suggestions if p[0] in current and p[1] in current]
        if not pairs:
            box.update("[dim]no merge suggestions left[/dim]")
            return
        a, b, cos = pairs[self._next_suggestion % len(pairs)]
        self._next_suggestion += 1
        self.marked = {a}
        self.refresh_table()
        table = self.query_one("#answers", DataTable)
        table.move_cursor(row=table.get_row_index(b))
        self._show_suggestions(pairs)

    def _compute_suggestions(self, names: list[str], prompt: str) -> None:
        try:
            from probe.reference.suggest import suggest_merges

            pairs = suggest_merges(names, prompt)
        except ProbeError as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error")
            self.app.call_from_thread(self.query_one("#answer-suggest", Static).update, "")
            return
        self.app.call_from_thread(self._suggestions_ready, pairs)

    def _suggestions_ready(self, pairs: list[tuple[str, str, float]]) -> None:
        self.suggestions = pairs
        self._show_suggestions(pairs)

    def _show_suggestions(self, pairs: list[tuple[str, str, float]]) -> None:
        box = self.query_one("#answer-suggest", Static)
        if not pairs:
            box.update("[dim]no two answers here look alike to the embedding model[/dim]")
            return
        lines = ["[b]Suggested merges[/b] [dim](cosine; g marks the next pair, m merges "
                 "it)[/dim]"]
        lines += [f"  {escape(a)} ↔ {escape(b)}  [dim]{cos:.2f}[/dim]" for a, b, cos in pairs[:5]]
        if len(pairs) > 5:
            lines.append(f"  [dim]… {len(pairs) - 5} more[/dim]")
        box.update("\n".join(lines))


class SplitPicker(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, name: str, forms: list[str]):
        super().__init__()
        self.name_ = name
        self.forms = forms

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(f"[b]Split which surface form out of {escape(self.name_)} into an "
                         "answer of its own?[/b]")
            yield OptionList(*[Option(escape(f), id=str(i)) for i, f in enumerate(self.forms)])
            yield Static("[dim]enter to split · escape to cancel[/dim]")

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.forms[int(event.option.id)])


__all__ = ["AnswerEditing", "AnswersScreen", "SplitPicker"]
