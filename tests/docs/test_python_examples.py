"""Every fenced Python block in README.md and docs/*.md runs as written, on its own, with pytest-examples.

A reader copies one block, not the page: so each block runs alone, in a fresh module, from a working
directory that looks like the checkout's root (`fixtures/` is there, the bundled agents and recordings)
but is a fresh one (files a block writes land there). A block that cannot run here (it needs a model server)
says so in its fence, in pytest-examples' prefix settings: ```` ```python test="skip" reason="..." ````.
It must give a reason, and it is still compiled, so it cannot rot into invalid Python.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pytest_examples import CodeExample, EvalExample, find_examples

ROOT = Path(__file__).parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXAMPLES = [example for page in PAGES for example in find_examples(page)]
RUN = [e for e in EXAMPLES if e.prefix_settings().get("test") != "skip"]
SKIPPED = [e for e in EXAMPLES if e.prefix_settings().get("test") == "skip"]


def _id(example: CodeExample) -> str:
    return f"{example.path.relative_to(ROOT)}:{example.start_line}"


def test_the_docs_have_python_examples() -> None:
    assert len(RUN) >= 10, [_id(e) for e in EXAMPLES]


@pytest.mark.parametrize("example", RUN, ids=_id)
def test_example_runs_alone(
    example: CodeExample, eval_example: EvalExample, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    # pytest-examples runs the block as `__main__` and leaves it in sys.modules: put ours back after.
    monkeypatch.setitem(sys.modules, "__main__", sys.modules["__main__"])
    try:
        eval_example.run(example)
    except Exception as exc:
        # The example's frames are rewritten to point into the Markdown file, and pytest cannot format
        # them (an INTERNALERROR on Python 3.11): report the failing line ourselves.
        tb, line = exc.__traceback__, example.start_line
        while tb is not None:
            line = tb.tb_lineno
            tb = tb.tb_next
        where = f"{example.path.relative_to(ROOT)}:{line}"
        raise AssertionError(f"{where}: the example fails: {type(exc).__name__}: {exc}") from None


@pytest.mark.parametrize("example", SKIPPED, ids=_id)
def test_an_example_marked_not_to_run_says_why_and_compiles(example: CodeExample) -> None:
    assert example.prefix_settings().get("reason"), f'{_id(example)}: test="skip" needs reason="..."'
    compile(example.source, _id(example), "exec")
