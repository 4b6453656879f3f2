"""`inspector runs`: every generated run listed with the generator's status and counts, each filter
returning exactly the expected set, sorting, limits and the three output formats."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from bench.catalog_runs import Expected
from inspector.cli import main
from tests.catalog.conftest import runs_json


def test_every_run_is_listed_with_the_generators_counts(
    generated: tuple[Path, list[Expected]], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, expected = generated
    code, runs = runs_json(capsys, str(folder))
    assert code == 0
    listed = {run["path"]: run for run in runs}
    assert set(listed) == {str(e.path) for e in expected}
    for e in expected:
        run = listed[str(e.path)]
        facts = (run["status"], run["steps"], run["model_calls"], run["tool_calls"], run["tokens"])
        assert facts == (e.status, e.steps, e.model_calls, e.tool_calls, e.tokens), e.path
        assert (run["graph"], run["run_id"], run["tags"], run["started_at"]) == (
            e.graph,
            e.run_id,
            e.tags,
            e.started_at,
        )


def _paths(expected: list[Expected], keep: object) -> set[str]:
    return {str(e.path) for e in expected if keep(e)}  # pyright: ignore[reportCallIssue]


@pytest.mark.parametrize(
    ("argv", "keep"),
    [
        (["--status", "error"], lambda e: e.status == "error"),
        (["--status", "ok,error"], lambda e: True),
        (["--graph", "agents.research:*"], lambda e: e.graph == "agents.research:agent"),
        (["--diag", "budget-exhausted"], lambda e: e.kind == "runaway"),
        (["--diag", "tool-failed"], lambda e: e.kind == "error"),
        (["--visited", "tools"], lambda e: "tools" in e.visited),
        (["--tag", "suite=nightly"], lambda e: e.tags["suite"] == "nightly"),
        (["--tag", "suite=ci", "--tag", "shard=2"], lambda e: e.tags == {"suite": "ci", "shard": "2"}),
        (["--since", "2026-02-10"], lambda e: e.started_at >= "2026-02-10"),
        (["--until", "2026-02-05T00:00"], lambda e: e.started_at <= "2026-02-05T00:00"),
        (["--where", "tokens > 2500 and steps >= 10"], lambda e: e.tokens > 2500 and e.steps >= 10),
        (
            ["--where", 'status == "error" or model_calls < 4'],
            lambda e: e.status == "error" or e.model_calls < 4,
        ),
    ],
)
def test_each_filter_returns_exactly_the_expected_runs(
    generated: tuple[Path, list[Expected]],
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    keep: object,
) -> None:
    folder, expected = generated
    wanted = _paths(expected, keep)
    code, runs = runs_json(capsys, str(folder), *argv)
    assert {run["path"] for run in runs} == wanted
    assert code == (0 if wanted else 1)


def test_no_match_exits_1(generated: tuple[Path, list[Expected]], capsys: pytest.CaptureFixture[str]) -> None:
    folder, _ = generated
    code, runs = runs_json(capsys, str(folder), "--status", "interrupted")
    assert (code, runs) == (1, [])


def test_sort_and_limit(generated: tuple[Path, list[Expected]], capsys: pytest.CaptureFixture[str]) -> None:
    folder, expected = generated
    _, runs = runs_json(capsys, str(folder), "--sort=-tokens", "--limit", "3")
    top = sorted(expected, key=lambda e: (-e.tokens, str(e.path)))[:3]
    assert [run["tokens"] for run in runs] == [e.tokens for e in top]
    _, runs = runs_json(capsys, str(folder), "--sort", "steps")
    assert [run["steps"] for run in runs] == sorted(e.steps for e in expected)


def test_table_and_csv_carry_the_columns(
    generated: tuple[Path, list[Expected]], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, expected = generated
    assert main(["runs", str(folder), "--limit", "2"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == [
        "id",
        "path",
        "graph",
        "status",
        "steps",
        "model",
        "tools",
        "tokens",
        "duration",
        "started",
        "diagnostics",
        "tags",
    ]
    assert len(table) == 3
    assert main(["runs", str(folder), "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {row["path"] for row in rows} == {str(e.path) for e in expected}


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--where", "tokenz > 1"], "no field `tokenz`"),
        (["--where", "tokens >"], "expected a JSON value"),
        (["--sort", "size"], "--sort `size`"),
        (["--status", "fine"], "--status `fine`"),
        (["--since", "yesterday"], "--since `yesterday`"),
    ],
)
def test_bad_filters_exit_2_with_a_message(
    generated: tuple[Path, list[Expected]], capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    folder, _ = generated
    assert main(["runs", str(folder), *argv]) == 2
    err = capsys.readouterr().err
    assert words in " ".join(err.split()) and "Traceback" not in err


def test_every_fixture_recording_lists_as_read_run_reads_it(capsys: pytest.CaptureFixture[str]) -> None:
    """The header and tail give what the whole reader gives, resumed runs (segments) included."""
    from inspector.recording import read_run

    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / "runs"
    _, runs = runs_json(capsys, str(fixtures))
    assert len(runs) == len(list(fixtures.glob("*.jsonl")))
    for listed in runs:
        run = read_run(listed["path"])
        budget = run.steps[-1].budget if len(run.steps) else None
        assert (listed["status"], listed["steps"]) == (run.status, len(run.steps)), listed["path"]
        assert listed["model_calls"] == (budget.model_calls if budget else 0), listed["path"]
        assert listed["tokens"] == ((budget.total_tokens or 0) if budget else 0), listed["path"]
