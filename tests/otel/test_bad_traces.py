"""Malformed OTLP traces: spans without parents, duplicate span ids, clock skew and impossible
timestamps, truncated files, huge attributes, attributes of the wrong kind. Each either opens (a
tolerant reading, saying what it skipped) or is one paragraph naming the file, exit status 2; never a
traceback."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main
from inspector.otel.exporters import request_lines, run_spans
from inspector.recording import read_run
from inspector.sources import open_run

RUNS = Path(__file__).resolve().parents[2] / "fixtures" / "runs"

Spans = list[dict[str, Any]]


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(tmp_path / "cache"))


def _trace(tmp_path: Path, change: Callable[[Spans], Spans]) -> Path:
    """The weather run's export with its spans changed by `change`."""
    request = json.loads(request_lines(run_spans(read_run(RUNS / "weather.jsonl")))[0])
    scope = request["resourceSpans"][0]["scopeSpans"][0]
    scope["spans"] = change(copy.deepcopy(scope["spans"]))
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(request) + "\n", encoding="utf-8")
    return path


def _named(spans: Spans, prefix: str) -> dict[str, Any]:
    return next(s for s in spans if s["name"].startswith(prefix))


def _show(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["show", str(path)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def _refused(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["show", str(path)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "Traceback" not in err and err.startswith(f"inspector: error: {path}")
    return err


def test_duplicate_span_ids_count_once_and_the_header_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = _trace(tmp_path, lambda spans: [*spans, copy.deepcopy(spans[1]), copy.deepcopy(spans[-1])])
    run = open_run(trace)
    assert [s.nodes for s in run.steps] == [("chat",), ("tools",), ("chat",)]
    assert [len(s.node_runs) for s in run.steps] == [1, 1, 1]
    assert run.header.meta["otlp_duplicate_spans_skipped"] == 2
    code, out, _ = _show(trace, capsys)
    assert code == 0 and "step 2  chat" in out


def test_a_span_whose_parent_never_arrived_is_left_out_of_its_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def orphan(spans: Spans) -> Spans:
        _named(spans, "invoke_node tools")["parentSpanId"] = "00000000deadbeef"
        return spans

    run = open_run(_trace(tmp_path, orphan))
    assert [s.nodes for s in run.steps] == [("chat",), ("tools",), ("chat",)]  # from the root's events
    assert [len(s.node_runs) for s in run.steps] == [1, 0, 1]
    assert _show(_trace(tmp_path, orphan), capsys)[0] == 0


def test_without_its_root_a_trace_is_an_observed_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = _trace(tmp_path, lambda spans: [s for s in spans if s.get("parentSpanId")])
    run = open_run(trace)
    assert run.header.meta["observed"] is True
    assert run.steps[-1].budget.model_calls == 2 and run.steps[-1].budget.tool_calls == 1
    assert _show(trace, capsys)[0] == 0


def test_clock_skew_opens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def skewed(spans: Spans) -> Spans:
        tool = _named(spans, "execute_tool")
        tool["startTimeUnixNano"], tool["endTimeUnixNano"] = tool["endTimeUnixNano"], "1000"
        _named(spans, "chat")["startTimeUnixNano"] = "0"
        return spans

    assert _show(_trace(tmp_path, skewed), capsys)[0] == 0


def test_an_impossible_timestamp_is_one_paragraph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def impossible(spans: Spans) -> Spans:
        spans[0]["startTimeUnixNano"] = "99999999999999999999"  # past 64 bits
        return spans

    err = _refused(_trace(tmp_path, impossible), capsys)
    assert "trace.json:1: not an OTLP JSON trace line" in err and "startTimeUnixNano" in err


def test_a_truncated_file_is_one_paragraph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = _trace(tmp_path, lambda spans: spans)
    trace.write_bytes(trace.read_bytes()[:3000])
    assert "trace.json:1: not an OTLP JSON trace line" in _refused(trace, capsys)


def test_an_attribute_of_the_wrong_kind_is_one_paragraph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def wrong(spans: Spans) -> Spans:
        for attribute in _named(spans, "invoke_workflow")["attributes"]:
            if attribute["key"] == "inspector.graph.topology":
                attribute["value"] = {"stringValue": '{"nodes": 3}'}
        return spans

    assert "the run made of this trace is malformed" in _refused(_trace(tmp_path, wrong), capsys)


def test_a_huge_attribute_opens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def huge(spans: Spans) -> Spans:
        _named(spans, "execute_tool")["attributes"].append(
            {"key": "tool.blob", "value": {"stringValue": "x" * 8_000_000}}
        )
        return spans

    code, out, _ = _show(_trace(tmp_path, huge), capsys)
    assert code == 0 and "tool get_weather" in out
