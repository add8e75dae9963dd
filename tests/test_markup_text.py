"""Text that looks like markup is shown as written, never read as markup: a question, a
family or model name, an answer or an error holding square brackets, backslashes or
escape sequences. Textual reads markup with its own parser, so Rich's escape is not
enough (a question cut to width inside a tag crashed the run view)."""

from __future__ import annotations

import asyncio
import random

import pytest
from textual.content import Content
from textual.widgets import Static

from probe import family as fam_mod
from probe.backends.fake import FakeBackend
from probe.runner import Runner, RunSettings
from probe.terminal import marked
from screens.app import make_app
from screens.fit import shorten
from screens.markup import escape

# Tags close together, so any width cuts the question inside one of them.
DENSE_TAGS = "Pick a fruit " + "[link=https://evil.example]click[/link] [b]x[/b] " * 12
QUESTIONS = [
    DENSE_TAGS,
    "Pick a [reverse]fruit[/reverse] [/dim] now [/] and [@click=app.quit]quit[/] " * 3,
    "Name a \x1b[2J\x1b[31mred fruit \x1b[0mevil\x1b[0m. " * 3,
    "Which fruit ends in a backslash \\",
    "A [/lin" + "k] [dim] \\[b] \\\\[/b] $var [" * 10,
]


def test_escaped_text_reads_back_as_written_inside_any_markup():
    rng = random.Random(7)
    alphabet = "[]/\\ab=@#$ \x1b2J.…:"
    for _ in range(3000):
        a, b = ("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
                for _ in range(2))
        content = Content.from_markup(f"[b]{escape(a)}[/b] · [dim]{escape(b)}[/dim]")
        assert content.plain.replace("\u034f", "") == f"{marked(a)} · {marked(b)}"


def test_a_cut_line_counts_cells_as_drawn():
    assert shorten("一二三四五六", 7) == "一二三…"
    assert shorten("ab\x1b[2Jcd", 5) == "ab␛[…"        # ESC is drawn as one cell: ␛
    assert shorten("short", 5) == "short"


def _family(i: int, question: str) -> fam_mod.Family:
    return fam_mod.Family(f"markup{i}", question,
                          [f"Scenario {k}: which fruit [/b] for {question[:20]}?"
                           for k in range(3)],
                          {"Apple [/dim]": ["apple"], "Pear\\": []})


@pytest.mark.parametrize("width", [80, 120])
def test_run_view_shows_bracketed_questions_as_written(isolated, width):
    backend = FakeBackend(lambda prompt: "Apple")
    backend.load()
    app = make_app(db_path=isolated / "probe.db", autoload=False)
    runs = []
    for i, question in enumerate(QUESTIONS):
        fam = _family(i, question)
        runner = Runner(app.store, backend)
        run_id = runner.create(fam, RunSettings(samples=3), f"model [/b] {i} \\")
        runner.execute(run_id)
        runs.append((fam, run_id))

    async def go():
        async with app.run_test(size=(width, 30)) as pilot:
            for fam, run_id in runs:
                app.open_run(fam, run_id=run_id, read_only=True)
                await pilot.pause(0.3)
                screen = app.screen
                title = screen.query_one("#run-title", Static).render().plain
                name_line, question_line = title.replace("\u034f", "").split("\n")
                assert name_line.lstrip().startswith(fam.name)
                shown = question_line.strip()
                # The start of the question, exactly as written (controls as marks).
                expected = shorten(fam.direct, width - 3)
                assert shown == expected.strip()
                assert "model [/b]" in name_line
                top = screen.query_one("#pi", Static).render().plain
                assert "top: Apple [/dim]" in top
                await pilot.press("escape")
                await pilot.pause(0.1)
            assert app.return_code in (None, 0)

    asyncio.run(go())


def test_a_toast_shows_an_error_holding_tags_as_written(isolated):
    from probe.errors import BadInput

    message = "cannot load model [/b] from [link=https://evil.example]x[/lin"
    app = make_app(db_path=isolated / "probe.db",
                   backend_factory=lambda spec: (_ for _ in ()).throw(BadInput(message)))

    async def go():
        async with app.run_test(size=(100, 30), notifications=True) as pilot:
            for _ in range(100):
                if app.model_state == "failed":
                    break
                await pilot.pause(0.05)
            await pilot.pause(0.3)
            toasts = [t.render().plain for t in app.screen.query("Toast")]
            assert any(message in t for t in toasts), toasts

    asyncio.run(go())


def test_home_columns_line_up_when_names_and_questions_hold_controls(isolated):
    """Controls and invisible characters are drawn as one-cell marks (␛, �); a column
    measured without them would be pushed right by them on screen."""
    from rich.cells import cell_len
    from textual.widgets import DataTable

    from screens.terminal_filter import TERMINAL_SAFE

    rows = {"plain": "Name a random fruit.", "esc": "Name a \x1b[9J\x07 fruit\x1b[0m.",
            "zero": "Name\u200b a\u200b\u200d random\ufeff fruit."}
    for name, question in rows.items():
        fam_mod.save(fam_mod.Family(name, question, ["Which fruit?", "Which one?", "Why?"]),
                     isolated / "families" / f"{name}.toml")
    app = make_app(db_path=isolated / "probe.db", autoload=False)

    async def go():
        async with app.run_test(size=(100, 20)) as pilot:
            await pilot.pause(0.3)
            table = app.screen.query_one("#families", DataTable)
            labels, lines = [], []
            for y in range(1, table.row_count + 1):          # row 0 is the header
                strip = table.render_line(y)
                shown = "".join(s.text for s in TERMINAL_SAFE.apply(list(strip), None))
                labels.append(cell_len(shown[:shown.index("—")]))   # the label column
                lines.append(shown)
            assert len(labels) == 3 and len(set(labels)) == 1, lines
            assert any("␛[9J␇ fruit" in line for line in lines), lines     # BEL shown

    asyncio.run(go())


def test_a_sample_shows_its_bell_and_backspace_as_marks(isolated):
    from screens.dialogs import SampleDetail

    app = make_app(db_path=isolated / "probe.db", autoload=False)

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            app.push_screen(SampleDetail("Reframing 1 \x07", [
                ("raw response", "Apple\x07 [/b]\nthen\x08 Pear\\")]))
            await pilot.pause(0.3)
            shown = [w.render().plain.replace("\u034f", "")
                     for w in app.screen.query(Static)]
            assert "Reframing 1 ␇" in shown
            assert "Apple␇ [/b]\nthen␈ Pear\\" in shown

    asyncio.run(go())
