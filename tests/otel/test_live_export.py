"""Live export: `inspector record --otlp` and the `OtlpRecorder` callback send a run as it ends, the
same spans `inspector export` makes; a backend that is down never fails or holds up the run."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan

from inspector.cli import main
from inspector.otel.exporters import run_spans
from inspector.recording import read_run
from tests.otel.receiver import attrs, otlp_receiver


def _span_id(span: ReadableSpan) -> bytes:
    context = span.get_span_context()
    assert context is not None
    return context.span_id.to_bytes(8, "big")


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_record_sends_the_run_it_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run.jsonl"
    with otlp_receiver() as received:
        code = main(
            [
                "record",
                "fixtures.weather:agent",
                "--input",
                "Weather?",
                "-o",
                str(out),
                "-q",
                "--otlp",
                received.url,
            ]
        )
    assert code == 0
    assert "warning" not in capsys.readouterr().err
    expected = run_spans(read_run(out))
    assert sorted(s.name for s in received.spans) == sorted(s.name for s in expected)
    assert {s.span_id for s in received.spans} == {_span_id(s) for s in expected}
    chats = [s for s in received.spans if attrs(s)["gen_ai.operation.name"] == "chat"]
    assert len(chats) == read_run(out).steps[-1].budget.model_calls


def test_a_down_backend_never_fails_record_and_warns_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run.jsonl"
    started = time.monotonic()
    code = main(
        [
            "record",
            "fixtures.weather:agent",
            "--input",
            "Weather?",
            "-o",
            str(out),
            "-q",
            "--otlp",
            f"http://127.0.0.1:{_closed_port()}",
        ]
    )
    assert code == 0
    assert time.monotonic() - started < 10
    err = capsys.readouterr().err
    assert err.count("inspector: warning:") == 1
    assert "7 of 7 spans were not delivered" in err
    assert read_run(out).status == "ok"


def test_the_callback_sends_a_langgraph_run() -> None:
    from fixtures.langgraph_react import build_agent
    from inspector.adapters.langgraph import LangGraphTarget
    from inspector.otel.live import OtlpRecorder

    target = LangGraphTarget(build_agent())
    with otlp_receiver() as received:
        sink = OtlpRecorder(received.url)
        target.invoke(target.input_from_text("Weather in Hangzhou?"), callbacks=[sink])
        assert sink.shutdown() is None
    names = [s.name for s in received.spans]
    assert (
        names.count(
            "invoke_workflow "
            + attrs(next(s for s in received.spans if not s.parent_span_id))["gen_ai.workflow.name"]
        )
        == 1
    )
    assert any(n.startswith("invoke_node") for n in names)
    assert not Path(sink.path).exists()  # the temporary recording is gone


class _HeadlessDebugApp:
    """Stands in for the debug TUI: starts the run and continues it at every pause until it is over."""

    def __init__(self, controller: Any) -> None:
        self.controller = controller

    def run(self) -> None:
        controller = self.controller
        if controller.status == "ready":
            controller.start()
        while controller.wait(60) is not None:
            controller.resume()


def test_debug_sends_the_debugged_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("inspector.tui.debug_app.make_debug_app", _HeadlessDebugApp)
    out = tmp_path / "live.jsonl"
    with otlp_receiver() as received:
        args = [
            "debug",
            "fixtures.weather:agent",
            "--input",
            "Weather?",
            "-o",
            str(out),
            "--otlp",
            received.url,
        ]
        assert main(args) == 0
    assert "warning" not in capsys.readouterr().err
    assert sorted(s.name for s in received.spans) == sorted(s.name for s in run_spans(read_run(out)))


def _blocking_agent(release: threading.Event) -> Any:
    """Two tool rounds: the first tool takes a few ms (a slow node, so the recorder writes the steps
    before its next run during that run), the second waits for `release`."""
    from graph_core.agents.react import ReActAgent
    from graph_core.models import ScriptedChatModel
    from graph_core.schema import Message, ToolCall
    from graph_core.tools import tool

    @tool
    def look(city: str) -> str:
        """Look a city up.

        Args:
            city: The city.
        """
        time.sleep(0.01)
        return f"{city}: found"

    @tool
    def wait(city: str) -> str:
        """Wait until the test says so.

        Args:
            city: The city.
        """
        assert release.wait(60), "the earlier steps' spans never arrived while the run went on"
        return f"{city}: done"

    script = [
        Message.assistant("", tool_calls=[ToolCall("call_1", "look", '{"city": "Hangzhou"}')]),
        Message.assistant("", tool_calls=[ToolCall("call_2", "wait", '{"city": "Hangzhou"}')]),
        Message.assistant("done", finish_reason="stop"),
    ]
    return ReActAgent(ScriptedChatModel(script), tools=[look, wait])


def test_spans_are_sent_step_by_step_while_the_run_goes_on() -> None:
    from inspector.otel.live import OtlpRecorder

    release = threading.Event()
    agent = _blocking_agent(release)
    with otlp_receiver() as received:
        sink = OtlpRecorder(received.url, timeout=5)
        thread = threading.Thread(target=lambda: agent.invoke("Hangzhou?", callbacks=[sink]), daemon=True)
        thread.start()
        deadline = time.monotonic() + 60
        while "execute_tool look" not in [s.name for s in received.spans] and time.monotonic() < deadline:
            time.sleep(0.05)
        during = [s.name for s in received.spans]
        release.set()
        thread.join(60)
        assert sink.shutdown() is None
    assert "execute_tool look" in during  # the first round arrived while the second was running
    assert not any(name.startswith("invoke_workflow") for name in during)  # the root ends last
    assert "execute_tool wait" not in during
    names = [s.name for s in received.spans]
    assert names.count("execute_tool wait") == 1 and names.count("execute_tool look") == 1
    assert sum(name.startswith("invoke_workflow") for name in names) == 1
    assert len({s.span_id for s in received.spans}) == len(names)  # each span sent once


def test_the_standard_variables_name_the_endpoint_and_its_headers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run.jsonl"
    with otlp_receiver() as received:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", received.url)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=abc123,x-team=graph")
        args = ["record", "fixtures.weather:agent", "--input", "Weather?", "-o", str(out), "-q", "--otlp"]
        assert main(args) == 0
    assert "warning" not in capsys.readouterr().err
    assert set(received.paths) == {"/v1/traces"}
    assert all(h.get("x-api-key") == "abc123" and h.get("x-team") == "graph" for h in received.headers)
    assert len(received.spans) == 7
