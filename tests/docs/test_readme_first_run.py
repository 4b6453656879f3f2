"""The README answers a first run's questions: what needs Graphviz and how to get it, a virtual
environment, an agent example that prints its answer, and a `.gitignore` for the files the tour writes."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_first_two_commands_are_unchanged() -> None:
    assert README.startswith(
        "# graph-inspector\n\n```bash\n"
        "python3 -m pip install -e . && inspector demo\n"
        'python3 -m pip install -e ".[test]" && python3 -m pytest\n```\n'
    )


def test_graphviz_is_explained_with_install_commands() -> None:
    flat = " ".join(README.split())
    assert "`dot`" in flat and "--format svg" in flat and "--format png" in flat
    assert "sudo apt-get install graphviz" in flat and "brew install graphviz" in flat


def test_a_virtual_environment_is_advised() -> None:
    assert "python3 -m venv .venv" in README


def test_the_agent_example_prints_its_answer() -> None:
    block = README.split("## Building an agent", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    main = block.split('if __name__ == "__main__":', 1)[1]
    assert re.search(r"^\s+print\(answer\.content\)", main, re.MULTILINE)


def test_the_files_the_tour_writes_are_ignored() -> None:
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    for name in ("runaway.jsonl", "fork.jsonl", "live.jsonl", "run.jsonl"):
        assert f"/{name}" in ignored, name
        assert name in README
