"""docs/storage.md states every bound of probe/limits.py, with the number the code uses."""

from __future__ import annotations

import re

import probe.limits as limits
from conftest import ROOT


def human(name: str, value: float) -> str:
    """A bound as the table writes it: binary units for bytes, seconds, thousands."""
    if name.endswith("_BYTES"):
        for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
            if value >= 1 << shift and value % (1 << shift) == 0:
                return f"{value >> shift} {unit}"
    if name.endswith("_S"):
        return f"{value:g} s"
    return f"{value:,}"


def test_every_limit_is_in_the_table_with_its_value():
    doc = (ROOT / "docs" / "storage.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Reliability and limits"):]
    names = [n for n in vars(limits) if re.fullmatch(r"[A-Z][A-Z0-9_]+", n)]
    assert len(names) >= 20
    for name in names:
        rows = [line for line in section.splitlines() if f"`{name}`" in line]
        assert rows, f"{name} is not in docs/storage.md's limits table"
        value = human(name, getattr(limits, name))
        assert any(value in row for row in rows), f"{name}: the table does not say {value}"


def test_the_family_size_limit_reads_the_same_everywhere():
    value = human("MAX_FAMILY_BYTES", limits.MAX_FAMILY_BYTES)
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for said in re.findall(r"family file[^|\n]{0,40}?(\d+ [KMG]iB)", text):
            assert said == value, f"{page.name} says a family file may be {said}"
