"""Every ```` ```console ```` example in README.md and docs/*.md is run, and the output it shows is checked
against what the commands really print.

pytest-examples finds and runs Python blocks only, so console sessions are read here. A page's console
blocks run in order in one fresh working directory that looks like the checkout's root (`fixtures/` is
there), as a reader's shell session would: a block may show a file that an earlier block recorded.
`inspector` runs this checkout's code (`python3 -m inspector`); `export` lines carry over.

- The lines after a `$ command` are what it prints (stdout and stderr, in order). `...` on a line of its
  own stands for any number of lines, and inside a line for any text (run IDs, times, durations), as
  in doctest's ELLIPSIS. A command shown without output is run too, and must not fail as a user error
  (exit status 2) or be unknown to the shell.
- Commands that open the terminal UI (`inspector replay`, `inspector demo` without `--headless`,
  `inspector debug`, and `inspector serve`, which serves it until Ctrl-C) are not run: tests/tui and
  tests/report drive the UI.
- A block that cannot run here (it needs a model server) says so in its fence, with pytest-examples'
  prefix-setting syntax: ```` ```console test="skip" reason="..." ````.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^( *)```console(?P<settings>[^\n]*)\n(?P<body>.*?)^\1```", re.M | re.S)
_SETTING = re.compile(r"""(\w+)=(["'])(.*?)\2""")
_MARK = "@@inspector-docs-status "
_TUI = re.compile(r"^inspector (replay|debug|serve)\b|^inspector demo\b(?!.*--headless)")


@dataclass(frozen=True)
class Command:
    line: int
    command: str
    expected: tuple[str, ...]


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    settings: dict[str, str]
    commands: tuple[Command, ...]

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def _blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    blocks: list[Block] = []
    for match in _FENCE.finditer(text):
        first = text[: match.start("body")].count("\n") + 1
        commands: list[Command] = []
        continued = False  # the previous command line ended in a backslash
        for offset, raw in enumerate(match.group("body").splitlines()):
            if raw.startswith("$ ") or (continued and commands):
                if continued:
                    last = commands.pop()
                    commands.append(Command(last.line, f"{last.command[:-1]} {raw.strip()}", ()))
                else:
                    commands.append(Command(first + offset, raw[2:].rstrip(), ()))
                continued = commands[-1].command.endswith("\\")
            elif commands:
                last = commands[-1]
                commands[-1] = Command(last.line, last.command, (*last.expected, raw.rstrip()))
        commands = [_without_trailing_blanks(c) for c in commands]
        settings = {m.group(1): m.group(3) for m in _SETTING.finditer(match.group("settings"))}
        blocks.append(Block(page, first - 1, settings, tuple(commands)))
    return blocks


def _without_trailing_blanks(command: Command) -> Command:
    """Blank lines that separate one command's output from the next command's are not output."""
    expected = list(command.expected)
    while expected and not expected[-1].strip():
        expected.pop()
    return Command(command.line, command.command, tuple(expected))


BLOCKS = [block for page in PAGES for block in _blocks(page)]
PAGES_TO_RUN = sorted({b.page for b in BLOCKS if b.settings.get("test") != "skip"})


def _shell_command(command: str) -> str:
    """The command without its trailing `# comment`, `inspector` replaced by this checkout's."""
    words = shlex.split(command, comments=True)
    if words and words[0] == "inspector":
        return shlex.join([sys.executable, "-m", "inspector", *words[1:]])
    return shlex.join(words)


def _pattern(expected: tuple[str, ...]) -> re.Pattern[str]:
    parts: list[str] = []
    for line in expected:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(piece) for piece in line.split("...")) + r"\n")
    return re.compile("".join(parts))


def _run_page(page: Path, tmp_path: Path) -> list[tuple[Block, Command, int, str]]:
    """Run the page's console blocks in order in one shell; each command's status and output."""
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures", target_is_directory=True)
    steps: list[tuple[Block, Command]] = []
    script: list[str] = []
    for block in (b for b in BLOCKS if b.page == page and b.settings.get("test") != "skip"):
        for command in block.commands:
            if _TUI.search(" ".join(shlex.split(command.command, comments=True))):
                continue
            steps.append((block, command))
            script.append(f"{_shell_command(command.command)} 2>&1; echo {_MARK}$?")
    done = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"},
        timeout=300,
        check=False,
    )
    chunks = re.split(rf"{re.escape(_MARK)}(\d+)\n", done.stdout)
    outputs, statuses = chunks[0:-1:2], [int(s) for s in chunks[1::2]]
    assert len(statuses) == len(steps), done.stdout + done.stderr
    return [(b, c, status, out) for (b, c), status, out in zip(steps, statuses, outputs, strict=True)]


def test_the_docs_have_console_examples_that_run() -> None:
    checked = [c for b in BLOCKS if b.settings.get("test") != "skip" for c in b.commands if c.expected]
    assert len(checked) >= 4, [b.id for b in BLOCKS]


@pytest.mark.parametrize("page", PAGES_TO_RUN, ids=lambda p: str(p.relative_to(ROOT)))
def test_console_examples_print_what_they_show(page: Path, tmp_path: Path) -> None:
    for block, command, status, output in _run_page(page, tmp_path):
        where = f"{page.relative_to(ROOT)}:{command.line}: $ {command.command}"
        assert status not in (2, 126, 127), f"{where}\nexit status {status}:\n{output}"
        if command.expected:
            assert _pattern(command.expected).fullmatch(output), (
                f"{where}\nshows:\n" + "\n".join(command.expected) + f"\nprints:\n{output}"
            )
        assert block.settings.get("test") != "skip"


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.settings.get("test") == "skip"], ids=lambda b: b.id)
def test_a_console_example_marked_not_to_run_says_why(block: Block) -> None:
    assert block.settings.get("reason"), f'{block.id}: test="skip" needs reason="..."'
