"""OTLP traces as run sources: our own exports read back as the recording (every fixture run), other
tracers' spans as observed runs, and bad trace files as one paragraph and exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.otel.exporters import run_spans, write_trace_file
from inspector.recording import read_run

RUNS = Path(__file__).resolve().parents[2] / "fixtures" / "runs"
FIXTURE_RUNS = sorted(p.name for p in RUNS.glob("*.jsonl"))


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(tmp_path / "cache"))


def _show(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    main(["show", str(path), *extra])
    return capsys.readouterr().out


@pytest.mark.parametrize("name", FIXTURE_RUNS)
def test_an_export_with_content_shows_as_the_recording(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "trace.json"
    write_trace_file(read_run(RUNS / name), trace, content=True)
    assert _show(trace, capsys) == _show(RUNS / name, capsys)
    assert main(["diff", str(RUNS / name), str(trace)]) == 0


def test_an_export_without_content_keeps_steps_budgets_branches_and_tools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "trace.json"
    write_trace_file(read_run(RUNS / "parallel.jsonl"), trace, content=False)
    original, imported = read_run(RUNS / "parallel.jsonl"), _open(trace)
    assert [s.nodes for s in imported.steps] == [s.nodes for s in original.steps]
    assert [s.budget for s in imported.steps] == [s.budget for s in original.steps]
    assert [[(b.source, b.chosen) for b in s.branches] for s in imported.steps] == [
        [(b.source, b.chosen) for b in s.branches] for s in original.steps
    ]
    assert [[(t.name, t.tool_call_id) for r in s.node_runs for t in r.tools] for s in imported.steps] == [
        [(t.name, t.tool_call_id) for r in s.node_runs for t in r.tools] for s in original.steps
    ]
    assert imported.status == original.status
    text = _show(trace, capsys)
    assert "step 1  tools" in text and "Hangzhou" not in text.split("conversation")[0].split("step 0")[1]


def _open(path: Path):
    from inspector.sources import open_run

    return open_run(path)


def test_a_protobuf_dump_opens_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    dump = tmp_path / "trace.pb"
    dump.write_bytes(
        encode_spans(run_spans(read_run(RUNS / "weather.jsonl"), content=True)).SerializeToString()
    )
    assert _show(dump, capsys) == _show(RUNS / "weather.jsonl", capsys)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"resourceSpans": [}\n', "trace.json:1: not an OTLP JSON trace line"),
        ('{"resourceSpans": []}\n', "the trace file holds no spans"),
        (
            '{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": 5, "traceId": "zz"}]}]}]}\n',
            "trace.json:1:",
        ),
    ],
)
def test_a_malformed_trace_is_one_paragraph(
    content: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "trace.json"
    trace.write_text(content, encoding="utf-8")
    assert main(["show", str(trace)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("inspector: error:") and expected in " ".join(err.split())
    assert "Traceback" not in err


def test_a_truncated_protobuf_dump_is_one_paragraph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    data = encode_spans(run_spans(read_run(RUNS / "weather.jsonl"))).SerializeToString()
    dump = tmp_path / "trace.pb"
    dump.write_bytes(data[: len(data) // 2])
    assert main(["show", str(dump)]) == 2
    err = capsys.readouterr().err
    assert "not an OTLP protobuf trace" in " ".join(err.split()) and "Traceback" not in err


def test_plain_genai_spans_become_an_observed_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from inspector.otel.exporters import request_lines

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("someone-else")
    with tracer.start_as_current_span(
        "invoke_agent helper",
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper"},
    ):
        with tracer.start_as_current_span(
            "chat gpt-x",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.usage.input_tokens": 10,
                "gen_ai.usage.output_tokens": 3,
            },
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool lookup",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "lookup",
                "gen_ai.tool.call.id": "c1",
            },
        ):
            pass
        with tracer.start_as_current_span(
            "chat gpt-x",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.usage.input_tokens": 20,
                "gen_ai.usage.output_tokens": 5,
            },
        ):
            pass
    trace = tmp_path / "foreign.json"
    trace.write_text(
        "".join(line + "\n" for line in request_lines(memory.get_finished_spans())), encoding="utf-8"
    )
    run = _open(trace)
    assert run.graph_name == "helper (observed)"
    assert run.header.meta["observed"] is True
    assert [s.nodes for s in run.steps] == [("chat",), ("tools",), ("chat",)]
    assert run.steps[-1].budget.model_calls == 2 and run.steps[-1].budget.tool_calls == 1
    assert run.steps[-1].budget.prompt_tokens == 30
    assert [t.name for t in run.steps[1].node_runs[0].tools] == ["lookup"]
    assert run.topology is not None and {(e.source, e.target) for e in run.topology.edges} >= {
        ("chat", "tools"),
        ("tools", "chat"),
    }
    assert "helper (observed)" in _show(trace, capsys)
    assert main(["topology", str(trace)]) == 0


def test_a_trace_file_is_json_lines(tmp_path: Path) -> None:
    trace = tmp_path / "t.json"
    write_trace_file(read_run(RUNS / "approval.jsonl"), trace)
    lines = trace.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2  # the run and its resumed segment: one trace each
    second = json.loads(lines[1])["resourceSpans"][0]["scopeSpans"][0]["spans"]
    root = next(s for s in second if "parentSpanId" not in s)
    assert len(root["links"]) == 1  # the resume links to the root it continues
