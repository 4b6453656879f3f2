"""`inspector topology TARGET --run FOLDER` (or --run given several times): many runs summed on the
graph in every format, visits and edge counts adding up to the runs' own overlays, each edge carrying
the share of runs that took it, and the legend saying how many runs were summed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench.catalog_runs import Expected
from inspector.cli import main
from inspector.export import RunOverlay
from inspector.recording import read_run

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "runs"
GRAPH = str(FIXTURES / "weather.jsonl")


def test_json_sums_the_runs_overlays(
    generated: tuple[Path, list[Expected]], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, expected = generated
    capsys.readouterr()
    assert main(["topology", GRAPH, "--run", str(folder), "--format", "json"]) == 0
    summed = json.loads(capsys.readouterr().out)["run"]
    singles = [RunOverlay.from_run(read_run(e.path)) for e in expected]
    visits: dict[str, int] = {}
    for overlay in singles:
        for key, count in overlay.visits.items():
            visits[key] = visits.get(key, 0) + count
    assert summed["visits"] == dict(sorted(visits.items()))
    assert summed["runs"] == len(expected)
    shares = {(e["source"], e["target"]): e["share"] for e in summed["edge_runs"]}
    ok = sum(e.status == "ok" for e in expected)
    assert shares[("chat", "end")] == ok / len(expected)
    assert shares[("start", "chat")] == 1.0
    assert summed["summary"].startswith(f"{len(expected)} runs summed")


def test_every_format_says_how_many_runs(
    generated: tuple[Path, list[Expected]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder, expected = generated
    n = len(expected)
    for fmt, words in (
        ("text", f"{n} runs summed"),
        ("dot", f"{n} runs summed"),
        ("mermaid", f"%% {n} runs summed"),
    ):
        capsys.readouterr()
        assert main(["topology", GRAPH, "--run", str(folder), "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert words in out, fmt
        assert ("#37; of runs" if fmt == "mermaid" else "% of runs" if fmt == "dot" else "100%") in out, fmt
    png = tmp_path / "fleet.png"
    assert main(["topology", GRAPH, "--run", str(folder), "--format", "png", "-o", str(png)]) == 0
    assert png.read_bytes().startswith(b"\x89PNG")
    svg = tmp_path / "fleet.svg"
    assert main(["topology", GRAPH, "--run", str(folder), "--format", "svg", "-o", str(svg)]) == 0
    assert f"{n} runs summed" in svg.read_text(encoding="utf-8")


def test_run_given_several_times_and_runs_of_other_graphs_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for name in ("weather", "runaway", "adk"):
        shutil.copy(FIXTURES / f"{name}.jsonl", mixed / f"{name}.jsonl")
    capsys.readouterr()
    assert main(["topology", GRAPH, "--run", str(mixed), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["run"]["runs"] == 2
    assert "left out 1 runs that do not fit" in captured.err and "adk.jsonl" in captured.err
    two = ["--run", str(FIXTURES / "weather.jsonl"), "--run", str(FIXTURES / "runaway.jsonl")]
    assert main(["topology", GRAPH, *two, "--format", "json"]) == 0
    run = json.loads(capsys.readouterr().out)["run"]
    assert run["runs"] == 2 and run["summary"] == "2 runs summed: 1 error, 1 ok"


def test_one_run_draws_as_before(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topology", GRAPH, "--run", GRAPH, "--format", "json"]) == 0
    assert "runs" not in json.loads(capsys.readouterr().out)["run"]


def test_many_runs_read_in_parts_sum_the_same(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bench.catalog_runs import generate

    written = generate(tmp_path / "runs", 40, rounds=(1, 3))
    capsys.readouterr()
    assert main(["topology", GRAPH, "--run", str(tmp_path / "runs"), "--format", "json"]) == 0
    summed = json.loads(capsys.readouterr().out)["run"]
    one_by_one = RunOverlay.combine(
        [RunOverlay.from_run(read_run(e.path)) for e in written], statuses=[e.status for e in written]
    )
    assert summed == json.loads(json.dumps(one_by_one.to_dict()))


def test_a_checkpointers_threads_are_summed_on_the_langgraph_graph(
    checkpointer: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The ReAct threads and the loop that hit the recursion limit ran the agent's nodes; the approval
    threads ran another graph's and are left out, with a note naming them."""
    from inspector.sources.langgraph_threads import thread_run_file
    from inspector.target import load_target

    target = "fixtures.langgraph_react:agent"
    capsys.readouterr()
    assert main(["topology", target, "--run", str(checkpointer), "--format", "json"]) == 0
    captured = capsys.readouterr()
    summed = json.loads(captured.out)["run"]
    topology = load_target(target).topology()
    fitting = ["ok-1", "ok-2", "runaway"]
    singles = [RunOverlay.from_run(read_run(thread_run_file(checkpointer, t)), topology) for t in fitting]
    expected = RunOverlay.combine(singles, statuses=["ok", "ok", "interrupted"])
    assert summed == json.loads(json.dumps(expected.to_dict()))
    assert summed["runs"] == 3 and summed["visits"]["tools"] == 1 + 1 + 6
    assert "left out 2 runs that do not fit" in captured.err
    assert f"{checkpointer}#approved" in captured.err and f"{checkpointer}#waiting" in captured.err
    png = tmp_path / "threads.png"
    assert main(["topology", target, "--run", str(checkpointer), "--format", "png", "-o", str(png)]) == 0
    assert png.read_bytes().startswith(b"\x89PNG")


def test_a_trace_files_runs_are_summed_with_a_folders(
    trace_file: Path, generated: tuple[Path, list[Expected]], capsys: pytest.CaptureFixture[str]
) -> None:
    """Sources of every kind in one `--run`: the folder's 30 runs, and the trace file's weather, runaway
    and observed chat/tools runs; its approval run is another graph's, its last trace no run at all."""
    folder, expected = generated
    capsys.readouterr()
    argv = ["topology", GRAPH, "--run", str(folder), "--run", str(trace_file), "--format", "json"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    summed = json.loads(captured.out)["run"]
    assert summed["runs"] == len(expected) + 3
    from_folder = sum(RunOverlay.from_run(read_run(e.path)).visits["chat"] for e in expected)
    from_trace = 2 + 7 + 2  # weather, runaway, the observed helper
    assert summed["visits"]["chat"] == from_folder + from_trace
    assert "left out 2 runs" in captured.err and f"{trace_file}#approval" in captured.err
