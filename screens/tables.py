"""Helpers for the DataTables the screens share."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import DataTable


class RowTable(DataTable):
    """A table whose cursor is a row: Home and End go to the first and the last row
    (DataTable's own Home/End move between columns, which a row cursor does not have)."""

    BINDINGS = [Binding("home", "scroll_top", "First row", show=False),
                Binding("end", "scroll_bottom", "Last row", show=False)]


def cursor_key(table: DataTable) -> str | None:
    """The key of the row under the cursor, or None for an empty table."""
    if not table.row_count:
        return None
    return table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value


def move_to_key(table: DataTable, key: str | None) -> bool:
    """Put the cursor on the row with ``key``, if it is still there."""
    if key is None:
        return False
    try:
        table.move_cursor(row=table.get_row_index(key))
    except Exception:          # RowDoesNotExist: the row went away
        return False
    return True


def fit_columns(table: DataTable, total: int, fixed: dict[str, int],
                flexible: dict[str, float], minimum: int = 8) -> dict[str, int]:
    """Size columns to the width there is: ``fixed`` ones as given, the ``flexible`` ones
    share the rest by weight. (Auto widths are measured from the first rows only, so a
    placeholder or one long error would set a column's width for the whole session.)"""
    padding = 2 * table.cell_padding * len(table.columns)
    room = max(0, total - padding - sum(fixed.values()) - 2)     # 2: the scrollbar
    weight = sum(flexible.values()) or 1
    widths = dict(fixed)
    for key, w in flexible.items():
        widths[key] = max(minimum, int(room * w / weight))
    for key, width in widths.items():
        column = table.columns[key]  # type: ignore[index]
        column.auto_width = False
        column.width = width
    # DataTable has no public call to re-lay out columns; these are what add_column sets.
    table._clear_caches()
    table._require_update_dimensions = True
    table.refresh()
    return widths
