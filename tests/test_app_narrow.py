"""What a new user saw at 80×24 and 120×36: Home's columns say something at 80 columns (no
"Choose a r…" in every row, names whole or ending in …, the pooled cell keeps its run
count), the footer shows f where it fits and keeps ? Help where it does not, help names the
quick path, and a non-default answer format is said wherever settings are."""

from __future__ import annotations

import asyncio

from textual.widgets import DataTable, Footer, Static

from probe import family as fam_mod
from probe.backends.fake import FakeBackend
from probe.runner import Runner, RunSettings
from screens.help import HELP
from test_app import make, wait_until


def lines_of(widget) -> list[str]:
    return [s.text for s in widget.render_lines(widget.region.reset_offset)]


def families(isolated):
    out = []
    for name, direct in (("programming-language", "Choose a random programming language."),
                         ("b", "Choose a random popular butterfly.")):
        fam = fam_mod.Family(name, direct, [f"Scenario {i}: which one?" for i in range(4)])
        fam_mod.save(fam, isolated / "families" / f"{name}.toml")
        out.append(fam)
    return out


def two_runs(store, fam):
    backend = FakeBackend("Monarch")
    backend.load()
    for seed in (1, 2):
        r = Runner(store, backend)
        r.execute(r.create(fam, RunSettings(samples=3, seed=seed), "fake-model"))


def footer_text(app) -> str:
    """The footer's keys as drawn, left to right (only those inside the screen)."""
    keys = [w for w in app.screen.query_one(Footer).query("*") if getattr(w, "key", None)]
    width = app.screen.size.width
    return " ".join(" ".join(lines_of(w)).strip() for w in
                    sorted(keys, key=lambda w: w.region.x)
                    if w.region.width and w.region.right <= width)


def test_home_at_80_and_120_columns(isolated):
    fams = families(isolated)

    async def go(width, height):
        app = make(isolated)
        app.run_settings = RunSettings(answer_format="braces")
        async with app.run_test(size=(width, height)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            table = app.screen.query_one("#families", DataTable)
            await wait_until(pilot, lambda: "×2" in str(table.get_cell(
                str(isolated / "families" / "b.toml"), "pooled")))
            await pilot.pause(0.2)
            rows = [line for line in lines_of(table)]
            text = "\n".join(rows)
            # The pooled cell keeps its count: "Deep π 1.00 ×2", never "Deep π 1.00 …".
            assert "×2" in text
            assert "programming-language" in text or "programming-la…" in text
            settings = lines_of(app.screen.query_one("#settings-line", Static))[0]
            assert "braces" in settings
            await wait_until(pilot, lambda: "? Help" in footer_text(app))
            footer = footer_text(app)
            if width < 100:
                assert "direct prompt" not in rows[0] and "Choose a r" not in text
                # The highlighted family's prompt, whole, under the table instead.
                hint = app.screen.query_one("#home-hint", Static)
                assert "Choose a random popular butterfly." in " ".join(lines_of(hint))
                await pilot.press("down")
                assert "Choose a random programming language." in " ".join(lines_of(hint))
                await pilot.press("f")          # not in the footer, still a key
                assert app.screen.__class__.__name__ == "QuickFamily"
            else:
                assert "f Quick family" in footer
                assert "direct prompt" in rows[0]

    from probe.store import Store

    two_runs(Store(isolated / "probe.db"), fams[1])
    asyncio.run(go(80, 24))
    asyncio.run(go(120, 36))


def test_help_names_the_quick_path_and_the_editors_drafts_truly():
    keys = dict(HELP)
    assert "f quick family" in keys["Home"]
    assert "chat models" not in keys["Editor"] and "templates" in keys["Editor"]


def test_history_and_pooled_show_the_answer_format_and_whole_words(isolated):
    fams = families(isolated)
    from probe.store import Store

    store = Store(isolated / "probe.db")
    backend = FakeBackend("{Monarch}")
    backend.load()
    for seed in (1, 2):
        r = Runner(store, backend)
        r.execute(r.create(fams[1], RunSettings(samples=15, seed=seed, temperature=0.9,
                                                answer_format="braces"), "fake-model"))

    async def go(width, height):
        app = make(isolated, autoload=False)
        async with app.run_test(size=(width, height)) as pilot:
            await pilot.press("h")
            await pilot.pause(0.2)
            runs = app.screen.query_one("#runs", DataTable)
            # The table has the focus, and the filter box says how to reach it and back.
            assert runs.has_focus
            placeholder = app.screen.query_one("#filter").placeholder
            assert placeholder.startswith("/ ") and "back to the table" in placeholder
            text = "\n".join(lines_of(runs))
            if width >= 120:
                assert "braces" in text, text          # never cut before the format
            detail = " ".join(lines_of(app.screen.query_one("#run-detail", Static)))
            assert "answer format braces" in detail
            await pilot.press("p")
            pools = app.screen.query_one("#pools", DataTable)
            await wait_until(pilot, lambda: "[" in "\n".join(lines_of(pools)))
            text = "\n".join(lines_of(pools))
            assert "Deep" in text and "b " in text and "…" not in text.split("\n")[1], text
            detail = " ".join(lines_of(app.screen.query_one("#run-detail", Static)))
            assert "braces" in detail and "seed 1" in detail and "seed 2" in detail
            if width >= 120:
                assert "braces" in text

    asyncio.run(go(80, 24))
    asyncio.run(go(120, 36))
