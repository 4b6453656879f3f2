"""A small generated folder of runs (the bench's generator, 30 runs of a few rounds) and a private
index, so no test touches the user's cache folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.catalog_runs import Expected, generate
from inspector.cli import main


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Expected]]:
    folder = tmp_path_factory.mktemp("fleet")
    return folder, generate(folder, 30, rounds=(2, 9))


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The default index lives in a temporary cache folder."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return cache


def runs_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, Any]]]:
    """`inspector runs ARGV --json`, in process: the exit status and the runs listed."""
    capsys.readouterr()
    code = main(["runs", *argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


@pytest.fixture
def anyio_backend() -> str:
    """Textual runs on asyncio."""
    return "asyncio"
