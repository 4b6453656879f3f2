"""An OTLP trace file as a catalog source: every run in it is a run (our own exports by their run id, a
resumed run's two traces as one run; another tracer's trace as an observed run; a trace that makes no
run listed as corrupt with the reason), with the numbers of the recordings it was exported from,
filtered, summed up, and converted once per version of the file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.catalog import Catalog
from inspector.catalog.catalog import holds_many, record_run_file
from inspector.catalog.tracefile import claims_trace
from inspector.cli import main
from inspector.recording import read_run
from inspector.sources import otlp
from tests.catalog.conftest import FIXTURES, runs_json
from tests.catalog.recompute import recompute_stats

OWN = ("weather", "runaway", "approval")


def _by_part(runs: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    return {str(run["part"]): run for run in runs}


def test_every_run_in_the_file_is_listed_with_its_recordings_numbers(
    trace_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, runs = runs_json(capsys, str(trace_file), "--status", "ok,error,interrupted,corrupt")
    assert code == 0 and len(runs) == 5
    by_part = _by_part(runs)
    _, recordings = runs_json(capsys, *(str(FIXTURES / f"{name}.jsonl") for name in OWN))
    for recorded in recordings:
        run = by_part[str(recorded["run_id"])]
        assert run["path"] == f"{trace_file}#{recorded['run_id']}" and run["kind"] == "otlp"
        for field in ("graph", "status", "steps", "model_calls", "tool_calls", "tokens", "started_at"):
            assert run[field] == recorded[field], (run["part"], field)
    assert by_part["approval"]["steps"] == 4  # its run and its resumed segment: two traces, one run
    foreign = [run for part, run in by_part.items() if part not in OWN]
    observed = next(run for run in foreign if run["status"] != "corrupt")
    assert (observed["graph"], observed["steps"], observed["model_calls"], observed["tokens"]) == (
        "helper (observed)",
        3,
        2,
        36,
    )
    corrupt = next(run for run in foreign if run["status"] == "corrupt")
    assert corrupt["reason"] and str(trace_file) not in str(corrupt["reason"])


@pytest.mark.parametrize(
    ("argv", "parts"),
    [
        (["--status", "error"], {"runaway"}),
        (["--diag", "budget-exhausted"], {"runaway"}),
        (["--visited", "approve"], {"approval"}),
        (["--graph", "fixtures.*"], set(OWN)),
        (["--where", 'kind == "otlp" and model_calls >= 2'], {"weather", "runaway", "helper"}),
    ],
)
def test_filters_choose_runs_of_the_file(
    trace_file: Path, capsys: pytest.CaptureFixture[str], argv: list[str], parts: set[str]
) -> None:
    code, runs = runs_json(capsys, str(trace_file), *argv)
    named = {str(run["part"]) if run["graph"] != "helper (observed)" else "helper" for run in runs}
    assert named == parts and code == 0


def test_stats_equal_the_recomputation_from_the_recordings(
    trace_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["runs", str(trace_file), "--graph", "fixtures.*", "--stats", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    expected = recompute_stats([(f"{trace_file}#{name}", FIXTURES / f"{name}.jsonl") for name in sorted(OWN)])
    assert stats == expected


def test_the_file_is_converted_once_per_version(trace_file: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.json"
    shutil.copy(trace_file, copy)
    calls: list[Path] = []
    original = otlp.read_spans

    def counting(path: Path) -> object:
        calls.append(path)
        return original(path)

    index = tmp_path / "index.sqlite"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(otlp, "read_spans", counting)
        first = Catalog(index=index).scan([str(copy)], walk=True).records
        again = Catalog(index=index).scan([str(copy)], walk=True).records
        assert len(calls) == 1
        assert [r.to_json() for r in first] == [r.to_json() for r in again]
        weather = next(r for r in again if r.part == "weather")
        assert read_run(record_run_file(weather)).steps[-1].budget.total_tokens == 332
        copy.write_text(copy.read_text(encoding="utf-8").splitlines(keepends=True)[0], encoding="utf-8")
        only = Catalog(index=index).scan([str(copy)]).records
    assert len(calls) == 2 and [r.part for r in only] == ["weather"]


def test_a_file_of_one_run_is_that_run_and_of_several_a_list(trace_file: Path, tmp_path: Path) -> None:
    one = tmp_path / "one.json"
    assert main(["export", str(FIXTURES / "weather.jsonl"), "-o", str(one)]) == 0
    assert holds_many(str(trace_file)) and not holds_many(str(one))


@pytest.mark.parametrize(
    ("name", "head"),
    [
        ("t.json", b'{"resourceSpans": []}'),
        ("t.json", b'  {\n  "resourceSpans" : [{}]}'),
        ("t.json", b'{"kind": "header"}'),
        ("t.pb", b"\n\x12garbage"),
        ("t.otlp", b""),
        ("t.txt", b"hello"),
    ],
)
def test_the_claim_agrees_with_the_trace_reader(name: str, head: bytes) -> None:
    """Files a folder holds are claimed without importing protobuf: as `otlp.claims` would, except its
    guess that a first newline byte means protobuf (a text file may start with one)."""
    assert claims_trace(Path(name), head) == otlp.claims(Path(name), head)
    assert not claims_trace(Path("notes.txt"), b"\nsome text")
