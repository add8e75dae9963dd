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
            await pilot.press("p", "enter")           # back to the runs; one opened
            await wait_until(pilot, lambda: app.screen.__class__.__name__ == "RunScreen")
            settings = lines_of(app.screen.query_one("#run-settings", Static))[0]
            assert "answer format braces" in settings, settings

    asyncio.run(go(80, 24))
    asyncio.run(go(120, 36))


def test_charts_and_the_settings_dialog_at_80_columns_say_whole_phrases(isolated):
    fams = families(isolated)
    from probe.store import Store

    store = Store(isolated / "probe.db")
    backend = FakeBackend("{Monarch}")
    backend.load()
    for fam, fmt in ((fams[0], "words"), (fams[1], "braces")):
        r = Runner(store, backend)
        r.execute(r.create(fam, RunSettings(samples=4, seed=1, answer_format=fmt),
                           "gemma-3-270m (Q4_K_M, default)"))

    async def go():
        app = make(isolated, autoload=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("g")
            await pilot.pause(0.3)
            status = lines_of(app.screen.query_one("#charts-status", Static))[0]
            assert "Non-bias" in status and "Deep" in status and status.rstrip()[-1] == "%"
            legend = [ln.rstrip() for ln in lines_of(app.screen.query_one("#charts-legend",
                                                                          Static))]
            assert not any(ln.endswith("…") for ln in legend), legend
            assert any("⚠ points measured with different settings" in ln for ln in legend)
            # Select the braces run: its settings line keeps the format.
            while "b " not in lines_of(app.screen.query_one("#charts-point", Static))[0]:
                await pilot.press("right")
            point = lines_of(app.screen.query_one("#charts-point", Static))[1]
            assert "braces" in point, point
            await pilot.press("escape", "s")
            await pilot.pause(0.2)
            hints = [" ".join(" ".join(lines_of(h)).split())
                     for h in app.screen.query(".hint")]
            assert "times the direct question is sampled" in hints
            assert "blank: a fresh seed each run" in hints

    asyncio.run(go())


def test_the_run_view_at_80_columns_keeps_help_one_separator_and_read_only(isolated):
    fam = fam_mod.Family("colour", "Choose a random colour.",
                         [f"Scenario {i}: which colour?" for i in range(29)])
    fam_mod.save(fam, isolated / "families" / "colour.toml")
    direct = iter(["Red"] * 19 + ["Blue"] * 10 + ["I can't choose."] * 5)

    def answer(prompt: str) -> str:
        if prompt.startswith("Choose"):
            return next(direct, "Red")
        n = int(prompt.split()[1].rstrip(":"))
        return "I can't choose." if n == 0 else "Red" if n < 6 else "Green"

    async def go():
        app = make(isolated, backend=FakeBackend(answer, delay=0.1))
        app.run_settings = RunSettings(samples=30, seed=8)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: app.model_state == "ready")
            await pilot.press("r")
            rs = app.screen
            await wait_until(pilot, lambda: rs.samples_done >= 3 and rs.scored is not None)
            await pilot.pause(0.3)
            assert rs.state == "running"
            footer = footer_text(app)
            assert footer.startswith("? Help") and "s Stop" in footer, footer
            assert "a Answers" in footer and "w Why" in footer and "q Quit" in footer, footer
            await wait_until(pilot, lambda: rs.state.startswith("finished"), timeout=30)
            await pilot.pause(0.3)
            dr = lines_of(rs.query_one("#dr", Static))[2]
            fr = lines_of(rs.query_one("#fr", Static))[2]
            # The two boxes count alike: "19/29 picks · 1⊘" beside "5/29 picks · 1⊘".
            assert ("picks" in dr) == ("picks" in fr) and "," not in dr + fr, (dr, fr)
            assert dr.count("·") == fr.count("·") == 1, (dr, fr)
            await pilot.press("escape", "h", "enter")
            await wait_until(pilot, lambda: app.screen.__class__.__name__ == "RunScreen")
            await pilot.pause(0.3)
            title = lines_of(app.screen.query_one("#run-title", Static))[0]
            assert "(read-only)" in title and "seed 8" in title, title

    asyncio.run(go())
