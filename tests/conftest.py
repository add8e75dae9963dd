"""Shared fixtures: every test gets its own database and families folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"   # the labelled data the tests need, kept in the repository
FAMILIES = ROOT / "families"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Point the database, families, cache, config and exports at a temp folder."""
    monkeypatch.setenv("PROBE_DB", str(tmp_path / "probe.db"))
    fam = tmp_path / "families"
    fam.mkdir()
    monkeypatch.setenv("PROBE_FAMILIES", str(fam))
    monkeypatch.setenv("PROBE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PROBE_MODELS", str(tmp_path / "models"))
    monkeypatch.setenv("PROBE_CONFIG", str(tmp_path / "config"))     # the app's settings
    monkeypatch.setenv("PROBE_EXPORTS", str(tmp_path / "exports"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def butterfly_path(isolated) -> Path:
    dst = isolated / "families" / "butterfly.toml"
    shutil.copy(FAMILIES / "butterfly.toml", dst)
    return dst


def peak_rss_mib(args: list[str], timeout: float = 120) -> tuple[int, float, str]:
    """Run ``probe ARGS`` under a wrapper process that reports its child's peak RSS:
    (exit code, peak MiB, stderr). The wrapper isolates the figure from every other
    process this test session has started."""
    import subprocess
    import sys

    wrapper = ("import resource, subprocess, sys\n"
               "p = subprocess.run([sys.executable, '-m', 'probe'] + sys.argv[1:], "
               "capture_output=True, text=True)\n"
               "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
               "sys.stderr.write(p.stderr)\n")
    out = subprocess.run([sys.executable, "-c", wrapper, *args], capture_output=True,
                         text=True, timeout=timeout)
    rc, kib = out.stdout.split()
    return int(rc), int(kib) / 1024, out.stderr


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


@pytest.fixture
def serve():
    """Start scripted HTTP servers on 127.0.0.1 (tests/servers.py); all stop at the end."""
    from servers import ScriptedServer

    made = []

    def start(script):
        made.append(ScriptedServer(script))
        return made[-1]

    yield start
    for s in made:
        s.close()
