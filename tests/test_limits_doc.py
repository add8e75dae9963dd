"""docs/storage.md's "Reliability and limits" table states every bound in probe/limits.py,
with the number the code uses."""

from __future__ import annotations

from pathlib import Path

import probe.limits as limits

DOC = Path(__file__).resolve().parent.parent / "docs" / "storage.md"


def shown(name: str, value) -> str:
    """How the table writes a bound: bytes in binary units, seconds in s, counts with
    thousands separators."""
    if name.endswith("_BYTES"):
        for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
            if value >= size and value % size == 0:
                return f"{value // size} {unit}"
        return f"{value:,} bytes"
    if name.endswith("_S"):
        return f"{value:g} s"
    return f"{value:,}"


def table_rows() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Reliability and limits", 1)[1]
    return [line for line in section.splitlines() if line.startswith("|")]


def test_every_bound_in_limits_is_in_the_table_with_its_number():
    bounds = {name: value for name, value in vars(limits).items()
              if name.isupper() and isinstance(value, (int, float))}
    assert len(bounds) > 15
    rows = table_rows()
    for name, value in bounds.items():
        row = next((r for r in rows if f"`{name}`" in r), None)
        assert row is not None, f"{name} is not in docs/storage.md's limits table"
        # The number sits just before the name, e.g. "16 MiB (`MAX_FAMILY_BYTES`)".
        before = (row.split(f"(`{name}`)")[0] if f"(`{name}`)" in row else row)[-30:]
        assert shown(name, value) in before, f"{name}: the table does not say {shown(name, value)}"
