"""Helpers for the DataTables the screens share."""

from __future__ import annotations

from textual.widgets import DataTable


def cursor_key(table: DataTable) -> str | None:
    """The key of the row under the cursor, or None for an empty table."""
    if not table.row_count:
        return None
    return table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value
