"""Shared fixtures: every test gets its own database and families folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"   # copies of ../shared/data: a clone alone must pass
FAMILIES = ROOT / "families"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Point the database, families and cache at a temp folder."""
    monkeypatch.setenv("PROBE_DB", str(tmp_path / "probe.db"))
    fam = tmp_path / "families"
    fam.mkdir()
    monkeypatch.setenv("PROBE_FAMILIES", str(fam))
    monkeypatch.setenv("PROBE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PROBE_MODELS", str(tmp_path / "models"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def butterfly_path(isolated) -> Path:
    dst = isolated / "families" / "butterfly.toml"
    shutil.copy(FAMILIES / "butterfly.toml", dst)
    return dst


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    from tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "tiny-llama")


@pytest.fixture(scope="session")
def tiny_chat_model(tmp_path_factory) -> Path:
    from tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tinychat") / "tiny-chat", chat=True)


@pytest.fixture(scope="session")
def default_gguf() -> Path:
    from probe.backends import default_model_path

    return default_model_path()
