"""Recount docs/eino-conformance.md from its rows, so its numbers are never typed by hand.

    python3 -m tests.eino.conformance_table --check          # exit 1 if a summary is stale
    python3 -m tests.eino.conformance_table --write          # rewrite the summaries from the rows
    python3 -m tests.eino.conformance_table --check --eino PATH   # also count Go tests in an Eino checkout

The page has one section per Go test file (`## compose/graph_test.go`), each a table with one row per Go
test function and its status: `ported...` (any qualifier: `ported (engine part)`, `ported (adapted)`),
`deviation`, `not applicable` or `not yet ported`. The summaries between `<!-- recount:NAME -->` and
`<!-- /recount -->` are generated from those rows; `--check` also verifies that every Python test a row
names (`test_file.py::test_name`) exists in tests/eino. With `--eino` (a checkout, or a bare git
directory such as a `git clone --mirror`) it compares each section's rows with the file's `func Test...`
functions and the "Other adk/ test files" counts with the files they name.
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "eino-conformance.md"
TESTS = ROOT / "tests" / "eino"
COLUMNS: tuple[str, ...] = ("ported", "deviation", "not applicable", "not yet ported")
SECTION = re.compile(r"^## (\S+_test\.go)\b")
ROW = re.compile(r"^\| (Test\w*) \| ([^|]+?) \| (.*) \|\s*$")
OTHER_ROW = re.compile(r"^\| (adk/\S+(?: \([^)]*\))?(?:, \S+)?) \| (\d+) \| ([^|]+?) \| (.*) \|\s*$")
BLOCK = re.compile(r"(<!-- recount:(\w[\w-]*) -->\n)(.*?)(<!-- /recount -->)", re.S)
PY_REF = re.compile(r"`(test_\w+\.py)::(\w+)")
PART = "# Interrupts, checkpoints"


@dataclass
class Section:
    """One Go file's table: its rows' statuses, in order, and the part of the page it is in."""

    go_file: str
    part: str
    past_pin: bool = False
    rows: list[tuple[str, str]] = field(default_factory=lambda: [])

    def count(self) -> dict[str, int]:
        counts = dict.fromkeys(COLUMNS, 0)
        for _name, status in self.rows:
            counts[kind(status)] += 1
        return counts


def kind(status: str) -> str:
    """The column a row's status counts in."""
    lowered = status.strip().lower()
    for column in ("not yet ported", "not applicable", "deviation"):
        if lowered.startswith(column):
            return column
    if lowered.startswith("ported"):
        return "ported"
    raise ValueError(f"unknown status {status!r}")


def sections(text: str) -> list[Section]:
    found: list[Section] = []
    part = "compose"
    current: Section | None = None
    for line in text.splitlines():
        if line.startswith(PART):
            part = "adk"
        match = SECTION.match(line)
        if match:
            current = Section(match.group(1), part, past_pin="past the pin" in line)
            found.append(current)
            continue
        if line.startswith("## "):
            current = None
            continue
        row = ROW.match(line)
        if row and current is not None:
            current.rows.append((row.group(1), row.group(2)))
    return found


def other_files(text: str) -> list[tuple[str, int]]:
    """The "Other adk/ test files" rows: (file or pattern, test functions)."""
    return [(m.group(1), int(m.group(2))) for m in map(OTHER_ROW.match, text.splitlines()) if m]


def summary(found: list[Section], part: str) -> str:
    lines = [
        "| Go file | Test functions | Ported | Deviation | Not applicable | Not yet ported |",
        "|---|---|---|---|---|---|",
    ]
    total = dict.fromkeys(COLUMNS, 0)
    for section in (s for s in found if s.part == part):
        counts = section.count()
        for column in COLUMNS:
            total[column] += counts[column]
        lines.append(
            f"| {section.go_file} | {len(section.rows)} | "
            + " | ".join(str(counts[c]) for c in COLUMNS)
            + " |"
        )
    lines.append(
        f"| **total** | {sum(total.values())} | " + " | ".join(str(total[c]) for c in COLUMNS) + " |"
    )
    return "\n".join(lines) + "\n"


def render(text: str) -> str:
    """The page with every recount block regenerated from the rows."""
    found = sections(text)

    def block(match: re.Match[str]) -> str:
        return match.group(1) + summary(found, match.group(2)) + match.group(4)

    return BLOCK.sub(block, text)


def missing_python_tests(text: str) -> list[str]:
    """`file::test` references whose file or function does not exist in tests/eino."""
    defined: dict[str, set[str]] = {}
    problems: list[str] = []
    for file_name, test_name in PY_REF.findall(text):
        if file_name not in defined:
            path = TESTS / file_name
            if not path.exists():
                defined[file_name] = set()
            else:
                tree = ast.parse(path.read_text())
                defined[file_name] = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        if test_name not in defined[file_name]:
            problems.append(f"{file_name}::{test_name}")
    return sorted(set(problems))


def _go_files(eino: Path) -> dict[str, str]:
    """Every `_test.go` file of the checkout (or bare git directory), path -> text."""
    if (eino / "HEAD").exists() and not (eino / ".git").exists() and not (eino / "go.mod").exists():
        names = subprocess.run(
            ["git", "--git-dir", str(eino), "ls-tree", "-r", "--name-only", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        return {
            n: subprocess.run(
                ["git", "--git-dir", str(eino), "show", f"HEAD:{n}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            for n in names
            if n.endswith("_test.go")
        }
    return {str(p.relative_to(eino)): p.read_text() for p in eino.rglob("*_test.go")}


def go_mismatches(text: str, eino: Path) -> Iterator[str]:
    files = _go_files(eino)
    functions = {name: re.findall(r"^func (Test\w*)\(", body, re.M) for name, body in files.items()}
    for section in sections(text):
        if section.past_pin:
            continue  # a pull request's test file, not in the pinned tree
        wanted = functions.get(section.go_file)
        if wanted is None:
            yield f"{section.go_file}: not in the Eino tree"
            continue
        have = [name for name, _ in section.rows]
        if section.go_file == "schema/message_test.go":
            wanted = [w for w in wanted if w in have]  # the page lists the one test past the pin
        if sorted(have) != sorted(wanted):
            yield f"{section.go_file}: rows {len(have)}, Go functions {len(wanted)} " + (
                f"(missing {sorted(set(wanted) - set(have))}, extra {sorted(set(have) - set(wanted))})"
            )
    for pattern, count in other_files(text):
        matched: set[str] = set()
        for item in pattern.split(", "):
            prefix = item.split(" ")[0].rstrip("*")
            matched |= {
                n for n in functions if n == prefix or (prefix.endswith("/") and n.startswith(prefix))
            }
        real = sum(len(functions[n]) for n in matched)
        if real != count:
            yield f"{pattern}: the page says {count}, the Eino tree has {real} in {len(matched)} files"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    parser.add_argument(
        "--eino", type=Path, help="an Eino checkout or bare git directory to count Go tests in"
    )
    args = parser.parse_args(argv)
    text = PAGE.read_text()
    fresh = render(text)
    problems: list[str] = []
    if args.write:
        PAGE.write_text(fresh)
    elif fresh != text:
        problems.append(
            "the summaries differ from the rows: run `python3 -m tests.eino.conformance_table --write`"
        )
    problems += [f"no such Python test: {ref}" for ref in missing_python_tests(text)]
    if args.eino is not None:
        problems += list(go_mismatches(text, args.eino))
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
