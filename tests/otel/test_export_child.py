"""The export child's life (`inspector.otel.child`, started by `OtlpRecorder` and `--otlp`): it stops
when its parent dies, sends what the run got to, never holds up the run when the backend is down or
slow, says a refusing backend's complaint once, counts the spans it dropped, is waited for a bounded
time at the end, skips what a resumed file already held, and redacts as `export` does."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main
from inspector.otel.exporters import run_spans
from inspector.otel.ids import trace_id_of
from inspector.recording import read_run
from tests.otel.receiver import attrs, otlp_receiver
from tests.otel.test_live_export import _closed_port  # pyright: ignore[reportPrivateUsage]

ROOT = Path(__file__).resolve().parents[2]


def _gone(pid: int) -> bool:
    """Whether process `pid` has exited (reaped, or a zombie its new parent has not reaped yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def _wait_until(condition: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


_HELD_RUN = """
import sys, threading
from inspector.otel.live import OtlpRecorder
from tests.otel.test_live_export import _blocking_agent

agent = _blocking_agent(threading.Event())   # its second tool round waits (60 s) for the test
sink = OtlpRecorder(sys.argv[1], path=sys.argv[2], timeout=5)
print(sink.live.pid, flush=True)
agent.invoke("Hangzhou?", callbacks=[sink])
"""


def test_a_killed_run_s_export_sends_what_it_got_to_and_ends(tmp_path: Path) -> None:
    with otlp_receiver() as received:
        parent = subprocess.Popen(
            [sys.executable, "-c", _HELD_RUN, received.url, str(tmp_path / "run.jsonl")],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert parent.stdout is not None
            child = int(parent.stdout.readline())
            names = lambda: [s.name for s in received.spans]  # noqa: E731
            assert _wait_until(lambda: "execute_tool look" in names(), 60), names()
            assert not _gone(child)
            parent.send_signal(signal.SIGKILL)
            parent.wait(10)
            assert _wait_until(lambda: _gone(child), 30), "the export outlived its run"
        finally:
            parent.kill()
            parent.wait(10)
            if parent.stdout is not None:
                parent.stdout.close()
        root = next(s for s in received.spans if s.name.startswith("invoke_workflow"))
    assert attrs(root)["inspector.run.status"] == "incomplete"  # the run as far as it got
    assert sum(s.name == "execute_tool look" for s in received.spans) == 1


def test_a_down_backend_never_holds_up_the_run_and_the_child_says_so_once(tmp_path: Path) -> None:
    from fixtures.weather import QUESTION, build_agent
    from graph_core.schema import Message
    from inspector.otel.live import OtlpRecorder

    agent = build_agent()
    sink = OtlpRecorder(f"http://127.0.0.1:{_closed_port()}", path=tmp_path / "run.jsonl", timeout=2)
    started = time.monotonic()
    agent.invoke([Message.user(QUESTION)], callbacks=[sink])
    assert time.monotonic() - started < 2  # the run, not the export
    warning = sink.shutdown()
    assert warning is not None and "\n" not in warning
    assert "7 of 7 spans were not delivered" in warning
    assert sink.live is not None and sink.live.process is not None and sink.live.process.returncode == 0


def _rounds_after(sent: Any) -> Any:
    """Two tool rounds whose tool waits (up to a minute) until `sent()`: the export has sent what it
    had, so what comes after goes in another request."""
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
        assert _wait_until(sent, 60)
        return f"{city}: found"

    calls = [ToolCall(f"call_{i}", "look", '{"city": "Hangzhou"}') for i in range(2)]
    script = [Message.assistant("", tool_calls=[call]) for call in calls]
    return ReActAgent(
        ScriptedChatModel([*script, Message.assistant("done", finish_reason="stop")]), tools=[look]
    )


def test_a_backend_answering_4xx_is_reported_once(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    from inspector.otel.live import OtlpRecorder

    with otlp_receiver(status=400) as received:
        sink = OtlpRecorder(received.url, path=tmp_path / "run.jsonl", timeout=5)
        _rounds_after(lambda: len(received.paths) >= 1).invoke("Hangzhou?", callbacks=[sink])
        warning = sink.shutdown()
    assert len(received.paths) >= 2  # refused more than once...
    assert warning is not None and "\n" not in warning  # ...said once
    assert "11 of 11 spans were not delivered" in warning and "400" in warning
    assert capfd.readouterr().err == ""  # nothing else on the terminal, from either process


def test_record_reports_a_refusing_backend_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with otlp_receiver(status=403) as received:
        args = ["record", "fixtures.weather:agent", "--input", "Weather?", "-o", str(tmp_path / "run.jsonl")]
        assert main([*args, "-q", "--otlp", received.url]) == 0
    err = capsys.readouterr().err
    assert err.count("inspector: warning:") == 1
    warning = next(line for line in err.splitlines() if "warning" in line)
    assert "7 of 7 spans were not delivered" in warning and "403" in warning


@contextmanager
def _slow_backend(seconds: float) -> Iterator[str]:
    """An OTLP/HTTP endpoint that takes `seconds` to answer each request."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            time.sleep(seconds)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_slow_backend_never_holds_up_the_run_and_the_dropped_spans_are_counted(tmp_path: Path) -> None:
    from fixtures.weather import QUESTION, build_agent
    from graph_core.schema import Message
    from inspector.otel.live import OtlpRecorder

    agent = build_agent()
    with _slow_backend(5.0) as url:
        recorder = OtlpRecorder(
            url, path=tmp_path / "run.jsonl", timeout=0.5, queue_size=2
        )  # the rest dropped
        started = time.monotonic()
        agent.invoke([Message.user(QUESTION)], callbacks=[recorder])
        assert time.monotonic() - started < 4  # a request waits 5 s: the run did not
        warning = recorder.shutdown()
        assert time.monotonic() - started < 40
    assert warning is not None and "\n" not in warning
    assert "of 7 spans were not delivered" in warning
    dropped = int(warning.split(": ")[1].split(" of ")[0])
    assert 5 <= dropped <= 7  # a queue of two: at most two got through


def test_the_end_of_the_run_waits_a_bounded_time_and_says_what_was_not_sent(tmp_path: Path) -> None:
    from fixtures.weather import QUESTION, build_agent
    from graph_core.schema import Message
    from inspector.otel.live import OtlpRecorder

    with _slow_backend(60.0) as url:  # answers nothing for a minute; the export would wait 30 s
        recorder = OtlpRecorder(url, path=tmp_path / "run.jsonl", timeout=30, wait=1)
        build_agent().invoke([Message.user(QUESTION)], callbacks=[recorder])
        started = time.monotonic()
        warning = recorder.shutdown()
        waited = time.monotonic() - started
    assert waited < 12  # one second, and the child's start-up on a loaded machine
    assert warning is not None and "\n" not in warning
    assert "of 7 spans were not delivered: stopped after 1 s" in warning
    assert recorder.live is not None and recorder.live.pid is not None and _gone(recorder.live.pid)


def test_a_resumed_run_sends_its_own_segment_linked_to_the_one_it_continues(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("APPROVAL_CHECKPOINTS", str(tmp_path / "checkpoints.sqlite"))
    out = tmp_path / "run.jsonl"
    base = ["record", "fixtures.approval:graph", "-o", str(out), "-q", "--checkpoint-id", "t1"]
    with otlp_receiver() as first:
        assert main([*base, "--input", "Launch moved to Friday", "--otlp", first.url]) == 0
    with otlp_receiver() as second:
        assert main([*base, "--resume", "--resume-data", '"yes"', "--otlp", second.url]) == 0
    assert "warning" not in capsys.readouterr().err
    recorded = read_run(out)
    segments: dict[int, set[bytes]] = {0: set(), 1: set()}
    for span in run_spans(recorded):
        context = span.get_span_context()
        assert context is not None
        segment = 0 if context.trace_id == trace_id_of(recorded.run_id, 0) else 1
        segments[segment].add(context.span_id.to_bytes(8, "big"))
    assert {s.span_id for s in first.spans} == segments[0]
    assert {s.span_id for s in second.spans} == segments[1]  # not the first segment again
    root = next(s for s in second.spans if not s.parent_span_id)
    first_root = next(s for s in first.spans if not s.parent_span_id)
    assert [(link.trace_id, link.span_id) for link in root.links] == [
        (first_root.trace_id, first_root.span_id)
    ]


def test_secrets_are_redacted_as_export_redacts_them(tmp_path: Path) -> None:
    from graph_core.agents.react import ReActAgent
    from graph_core.models import ScriptedChatModel
    from graph_core.schema import Message
    from inspector.otel.live import OtlpRecorder

    secret = "sk-proj-" + "A1b2C3d4" * 5
    agent = ReActAgent(ScriptedChatModel([Message.assistant(f"your key is {secret}")]), tools=[])
    with otlp_receiver() as received:
        sink = OtlpRecorder(received.url, path=tmp_path / "run.jsonl", content=True, redact=False)
        agent.invoke([Message.user(f"remember {secret}")], callbacks=[sink])
        assert sink.shutdown() is None
    assert secret in (tmp_path / "run.jsonl").read_text()  # the recording kept it, as asked
    everything = json.dumps([attrs(s) for s in received.spans], default=str)
    assert "gen_ai.output.messages" in everything
    assert secret not in everything


def test_the_child_gets_the_headers_on_its_stdin_not_its_command_line(tmp_path: Path) -> None:
    from fixtures.weather import QUESTION, build_agent
    from graph_core.schema import Message
    from inspector.otel.live import OtlpRecorder

    with otlp_receiver() as received:
        sink = OtlpRecorder(received.url, path=tmp_path / "run.jsonl", headers={"x-api-key": "k-123"})
        assert sink.live is not None
        command = Path(f"/proc/{sink.live.pid}/cmdline").read_bytes()
        build_agent().invoke([Message.user(QUESTION)], callbacks=[sink])
        assert sink.shutdown() is None
    assert b"k-123" not in command
    assert {h.get("x-api-key") for h in received.headers} == {"k-123"}


def test_a_child_that_cannot_export_is_one_line_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspector.otel.child_process import ExportChild
    from inspector.otel.child_protocol import ChildSettings

    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # after the package's own folder: still importable
    (tmp_path / "opentelemetry").mkdir()  # ... but not the SDK: a package of that name without it
    (tmp_path / "opentelemetry" / "__init__.py").write_text("")
    settings = ChildSettings(path=str(tmp_path / "run.jsonl"), url="http://127.0.0.1:9", parent=os.getpid())
    child = ExportChild(settings)
    child.follow()
    warning = child.finish()
    assert warning is not None and "\n" not in warning
    assert (
        warning
        == "OTLP export skipped: the `otel` extra is not installed (pip install 'graph-inspector[otel]')"
    )


def test_no_process_to_be_had_is_one_line_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fixtures.weather import QUESTION, build_agent
    from graph_core.schema import Message
    from inspector.otel import child_process
    from inspector.otel.live import OtlpRecorder

    def refused(*args: object, **kwargs: object) -> None:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(child_process.subprocess, "Popen", refused)
    sink = OtlpRecorder("http://127.0.0.1:9", path=tmp_path / "run.jsonl")
    build_agent().invoke([Message.user(QUESTION)], callbacks=[sink])
    assert sink.shutdown() == (
        "OTLP export skipped: could not start the export process: [Errno 11] Resource temporarily unavailable"
    )
    assert read_run(tmp_path / "run.jsonl").status == "ok"


def test_the_child_imports_the_run_s_own_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from inspector.otel import child_process

    monkeypatch.setattr(child_process, "_installed", lambda: False)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    seen: dict[str, Any] = {}

    class Spy:
        def __init__(self, args: list[str], **options: Any) -> None:
            seen.update(options, args=args)
            raise OSError("spied")

    monkeypatch.setattr(child_process.subprocess, "Popen", Spy)
    from inspector.otel.child_protocol import ChildSettings

    child_process.ExportChild(ChildSettings(path="run.jsonl", parent=os.getpid()))
    assert seen["args"] == [sys.executable, "-m", "inspector.otel.child"]
    assert seen["env"]["PYTHONPATH"] == os.pathsep.join([str(ROOT), str(tmp_path)])
    monkeypatch.setattr(child_process, "_installed", lambda: True)  # a site folder: never before the stdlib
    child_process.ExportChild(ChildSettings(path="run.jsonl", parent=os.getpid()))
    assert seen["env"]["PYTHONPATH"] == str(tmp_path)
