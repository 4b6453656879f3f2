"""`inspector export`: a recording as GenAI spans, checked span by span as an OTLP/HTTP receiver gets
them, and as OTLP JSON (the same spans, the same bytes every time)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.otel.exporters import run_spans
from inspector.recording import read_run
from tests.otel.receiver import attrs, otlp_receiver

RUNS = Path(__file__).resolve().parents[2] / "fixtures" / "runs"
WEATHER = RUNS / "weather.jsonl"


def test_the_react_run_arrives_span_by_span(capsys: pytest.CaptureFixture[str]) -> None:
    with otlp_receiver() as received:
        assert main(["export", str(WEATHER), "--otlp", received.url]) == 0
    assert set(received.paths) == {"/v1/traces"}
    assert received.headers[0]["content-type"] == "application/x-protobuf"
    spans = received.spans
    by_id = {span.span_id: span for span in spans}
    roots = [s for s in spans if not s.parent_span_id]
    assert len(roots) == 1
    root = roots[0]
    assert root.name == "invoke_workflow ReActAgent"
    root_attrs = attrs(root)
    assert root_attrs["gen_ai.operation.name"] == "invoke_workflow"
    assert root_attrs["gen_ai.workflow.name"] == "ReActAgent"
    assert root_attrs["inspector.run.status"] == "ok"
    assert root_attrs["inspector.budget.steps_max"] == 13
    assert root_attrs["inspector.budget.steps_used"] == 3
    assert root_attrs["openinference.span.kind"] == "CHAIN"

    run = read_run(WEATHER)
    nodes = [s for s in spans if attrs(s)["gen_ai.operation.name"] == "invoke_node"]
    assert [(attrs(s)["inspector.step"], s.name) for s in nodes] == [
        (step.index, f"invoke_node {node}") for step in run.steps for node in step.nodes
    ]
    assert all(s.parent_span_id == root.span_id for s in nodes)
    assert [attrs(s)["graph.node.parent_id"] for s in nodes] == ["ReActAgent", "chat", "tools"]
    assert attrs(nodes[1])["inspector.node.triggered_by"] == (nodes[0].span_id.hex(),)
    assert attrs(nodes[1])["inspector.node.type"] == "ToolsNode"

    chats = [s for s in spans if attrs(s)["gen_ai.operation.name"] == "chat"]
    assert len(chats) == run.steps[-1].budget.model_calls == 2
    assert all(by_id[s.parent_span_id].name == "invoke_node chat" for s in chats)
    assert sum(attrs(s)["gen_ai.usage.input_tokens"] for s in chats) == run.steps[-1].budget.prompt_tokens
    assert (
        sum(attrs(s)["gen_ai.usage.output_tokens"] for s in chats) == run.steps[-1].budget.completion_tokens
    )
    assert [attrs(s)["gen_ai.response.finish_reasons"] for s in chats] == [("tool_calls",), ("stop",)]
    assert all(attrs(s)["gen_ai.provider.name"] and attrs(s)["gen_ai.request.model"] for s in chats)

    tools = [s for s in spans if attrs(s)["gen_ai.operation.name"] == "execute_tool"]
    assert [(s.name, attrs(s)["gen_ai.tool.name"], attrs(s)["gen_ai.tool.call.id"]) for s in tools] == [
        ("execute_tool get_weather", "get_weather", "call_weather_1")
    ]
    assert by_id[tools[0].parent_span_id].name == "invoke_node tools"
    assert len(spans) == 1 + 3 + 2 + 1

    branches = [attrs(e) for e in root.events if e.name == "inspector.branch"]
    assert [(b["inspector.branch.source"], b["inspector.branch.chosen"]) for b in branches] == [
        ("chat", ("tools",)),
        ("tools", ("chat",)),
        ("chat", ("end",)),
    ]
    states = [attrs(e) for e in root.events if e.name == "inspector.state_change"]
    assert states[0]["inspector.state.keys"] == ("messages", "return_directly_tool_call_id")
    assert all(not any("umbrella" in str(v) for v in s.values()) for s in states)
    # no message content unless asked for
    assert not any("umbrella" in str(value) for s in spans for value in attrs(s).values())
    assert "sent 7 spans" in capsys.readouterr().err


def test_message_content_only_when_asked_and_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = read_run(WEATHER)
    assert not any("gen_ai.input.messages" in (s.attributes or {}) for s in run_spans(run))
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    chats = [s for s in run_spans(run) if (s.attributes or {}).get("gen_ai.operation.name") == "chat"]
    assert "Hangzhou" in str((chats[0].attributes or {})["gen_ai.input.messages"])
    from inspector.otel.mapping import emit_run  # noqa: F401 - the redaction path below

    secret = "sk-proj-" + "A1b2C3d4" * 5
    from graph_core.agents.react import ReActAgent
    from graph_core.models import ScriptedChatModel
    from graph_core.schema import Message
    from inspector.recording import Recorder

    agent = ReActAgent(ScriptedChatModel([Message.assistant(f"your key is {secret}")]), tools=[])
    path = tmp_path / "secret.jsonl"
    agent.invoke([Message.user(f"remember {secret}")], callbacks=[Recorder(path, redact=False)])
    spans = run_spans(read_run(path))
    everything = json.dumps([dict(s.attributes or {}) for s in spans], default=str)
    assert "gen_ai.output.messages" in everything
    assert secret not in everything


def test_trace_file_is_otlp_json_and_byte_stable(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["export", str(WEATHER), "-o", str(first)]) == 0
    assert main(["export", str(WEATHER), "-o", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()
    lines = first.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    spans = data["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert len(spans) == 7
    assert all(len(s["traceId"]) == 32 and len(s["spanId"]) == 16 for s in spans)
    int(spans[0]["traceId"], 16)  # hex, as OTLP/JSON writes ids
    assert data["resourceSpans"][0]["scopeSpans"][0]["schemaUrl"].startswith(
        "https://opentelemetry.io/schemas/"
    )
    root = next(s for s in spans if "parentSpanId" not in s)
    assert root["startTimeUnixNano"] == "1767225600000000000"  # the recording's started_at


def test_failed_run_names_the_error_and_the_exhausted_budget() -> None:
    spans = run_spans(read_run(RUNS / "runaway.jsonl"))
    root = next(s for s in spans if s.parent is None)
    assert root.status.status_code.name == "ERROR"
    assert (root.attributes or {})["error.type"] == "MaxStepsExceededError"
    assert (root.attributes or {})["inspector.budget.exhausted"] == "steps"


def test_a_collector_answering_500_is_reported_once(capsys: pytest.CaptureFixture[str]) -> None:
    with otlp_receiver(status=400) as received:
        assert main(["export", str(WEATHER), "--otlp", received.url]) == 1
    err = capsys.readouterr().err
    assert err.count("warning") == 1
    assert "7 of 7 spans were not delivered" in err


def test_a_down_backend_is_one_warning(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert main(["export", str(WEATHER), "--otlp", f"http://127.0.0.1:{port}"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "7 of 7 spans were not delivered" in err


def test_export_needs_a_destination(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(WEATHER)]) == 2
    assert "export needs somewhere" in capsys.readouterr().err


def test_a_long_run_keeps_every_step_event() -> None:
    spans = run_spans(read_run(RUNS / "runaway.jsonl"))
    root = next(s for s in spans if s.parent is None)
    assert len([e for e in root.events if e.name == "inspector.step"]) == len(
        read_run(RUNS / "runaway.jsonl").steps
    )
