"""Home's "pooled" column: for a family run more than once on the current model in the same
way (settings and rule; any seed), the verdict of all those runs pooled, with how many."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.widgets import DataTable

from probe.errors import ProbeError
from probe.metrics import LABEL_TEXT


class PooledColumn:
    """Mixed into Home, whose table is ``#families``."""

    repeats: dict = {}

    def find_repeats(self) -> dict:
        """Family name → the pool that stands for it on the current model, when that pool
        holds two runs or more."""
        from probe.pooling import pools, standing

        by_family: dict[str, list] = {}
        for pool in pools(self.app.store, model=self.app.model_display):  # type: ignore
            by_family.setdefault(pool.family, []).append(pool)
        out = {}
        for name, candidates in by_family.items():
            pool = standing(candidates)
            if pool is not None and len(pool.run_ids) > 1:
                out[name] = pool
        return out

    def pooled_cell(self, name: str) -> Text:
        pool = self.repeats.get(name)
        return Text(f"… ×{len(pool.run_ids)}" if pool else "", style="dim")

    def fill_pooled(self, rows: dict[str, str]) -> None:
        """``rows``: family name → row key. The pooled verdicts arrive from a worker (the
        reference rule loads its embedding model the first time)."""
        wanted = {rows[name]: pool for name, pool in self.repeats.items() if name in rows}
        if wanted:
            self._pool_cells(wanted)

    @work(thread=True, exclusive=True, exit_on_error=False, group="home-pooled",
          description="pooling repeat runs")
    def _pool_cells(self, wanted: dict) -> None:
        from probe.pooling import pooled

        for key, pool in wanted.items():
            try:
                s = pooled(self.app.store, pool).scored.scores  # type: ignore[attr-defined]
                text = f"{LABEL_TEXT[s.label]} π {s.pi:.2f} ×{len(pool.run_ids)}"
            except ProbeError:
                text = "—"
            self.app.call_from_thread(self._set_pooled, key, text)

    def _set_pooled(self, key: str, text: str) -> None:
        table = self.query_one("#families", DataTable)
        try:
            table.update_cell(key, "pooled", Text(text, overflow="ellipsis"))
        except Exception:            # the row or the column went away meanwhile
            pass
