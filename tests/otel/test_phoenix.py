"""A real OTLP backend: Arize Phoenix (`phoenix serve`, the `phoenix` extra) receives exported and live
runs over OTLP/HTTP; the spans are read back through Phoenix's own client (names, parents, GenAI and
OpenInference attributes), and what Phoenix exports again (its OTLP span endpoint) opens as the run.

Phoenix starts once per session (about a minute on a loaded machine), on free ports, with a working
directory of its own (`PHOENIX_WORKING_DIR`) and its telemetry off. Its HTTP server (the UI, its API
and the OTLP receiver) listens on 127.0.0.1 only; Phoenix has no setting to bind its gRPC receiver to
loopback, so that one gets a free port and is never used.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main
from inspector.otel.ids import trace_id_of
from inspector.recording import read_run

RUNS = Path(__file__).resolve().parents[2] / "fixtures" / "runs"
START_TIMEOUT = 360.0

pytestmark = [pytest.mark.phoenix_server, pytest.mark.timeout(START_TIMEOUT + 120)]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=5) as answer:
            return answer.status == 200
    except (urllib.error.URLError, OSError):
        return False


@pytest.fixture(scope="session")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a `phoenix serve` started for this session, once its health endpoint answers."""
    folder = tmp_path_factory.mktemp("phoenix")
    port = _free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(folder),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(_free_port()),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    env.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)
    executable = shutil.which("phoenix")
    command = [executable, "serve"] if executable else [sys.executable, "-m", "phoenix.server.main", "serve"]
    log = (folder / "phoenix.log").open("wb")
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=folder)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not _healthy(url):
            if process.poll() is not None or time.monotonic() > deadline:
                tail = (folder / "phoenix.log").read_text(errors="replace")[-3000:]
                pytest.fail(f"phoenix serve did not come up on {url} (exit {process.poll()}):\n{tail}")
            time.sleep(1.0)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        log.close()


def _spans(url: str, trace_ids: list[str], count: int) -> list[dict[str, Any]]:
    """The spans of `trace_ids` as Phoenix's client gives them, once all `count` have been ingested
    (Phoenix writes what it receives in the background)."""
    from phoenix.client import Client

    client = Client(base_url=url)
    spans: list[Any] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        spans = client.spans.get_spans(project_identifier="default", trace_ids=trace_ids, limit=1000)
        if len(spans) >= count:
            break
        time.sleep(0.5)
    assert len(spans) == count, f"Phoenix has {len(spans)} of the {count} spans sent"
    return [dict(span) for span in spans]


def _otlp_export(url: str, trace_id: str) -> list[dict[str, Any]]:
    """One trace as Phoenix exports it (its OTLP span endpoint)."""
    query = f"{url}/v1/projects/default/spans/otlpv1?trace_id={trace_id}&limit=1000"
    with urllib.request.urlopen(query, timeout=30) as answer:
        return json.load(answer)["data"]


def test_an_exported_run_arrives_with_its_spans_parents_and_genai_attributes(
    phoenix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(RUNS / "weather.jsonl"), "--otlp", phoenix]) == 0
    assert "sent 7 spans" in capsys.readouterr().err
    trace = format(trace_id_of("weather", 0), "032x")
    spans = _spans(phoenix, [trace], 7)
    by_id = {s["context"]["span_id"]: s for s in spans}
    names = sorted(s["name"] for s in spans)
    assert names == [
        "chat ScriptedChatModel",
        "chat ScriptedChatModel",
        "execute_tool get_weather",
        "invoke_node chat",
        "invoke_node chat",
        "invoke_node tools",
        "invoke_workflow ReActAgent",
    ]
    root = next(s for s in spans if s["parent_id"] is None)
    assert root["name"] == "invoke_workflow ReActAgent"
    assert root["span_kind"] == "CHAIN" and root["status_code"] == "OK"
    assert root["attributes"]["gen_ai.workflow.name"] == "ReActAgent"
    for span in spans:
        if span["name"].startswith("invoke_node"):
            assert span["parent_id"] == root["context"]["span_id"]
        if span["name"].startswith(("chat", "execute_tool")):
            assert by_id[span["parent_id"]]["name"].startswith("invoke_node")
    chats = [s for s in spans if s["name"].startswith("chat ")]
    assert {s["span_kind"] for s in chats} == {"LLM"}
    recorded = read_run(RUNS / "weather.jsonl").steps[-1].budget
    assert sum(s["attributes"]["gen_ai.usage.input_tokens"] for s in chats) == recorded.prompt_tokens
    assert sum(s["attributes"]["gen_ai.usage.output_tokens"] for s in chats) == recorded.completion_tokens
    tool = next(s for s in spans if s["name"] == "execute_tool get_weather")
    assert tool["span_kind"] == "TOOL"
    assert tool["attributes"]["gen_ai.tool.name"] == "get_weather"
    assert tool["attributes"]["gen_ai.tool.call.id"]
    nodes = [s for s in spans if s["name"] == "invoke_node tools"]
    assert nodes[0]["attributes"]["graph.node.parent_id"] == "chat"
    branches = [e for e in root["events"] if e["name"] == "inspector.branch"]
    assert [e["attributes"]["inspector.branch.chosen"] for e in branches] == [["tools"], ["chat"], ["end"]]


def test_what_phoenix_exports_again_opens_as_the_recorded_run(
    phoenix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    assert main(["export", str(RUNS / "approval.jsonl"), "--otlp", phoenix]) == 0
    traces = [format(trace_id_of("approval", segment), "032x") for segment in (0, 1)]
    _spans(phoenix, traces, 6)  # the run and its resumed segment: two traces, linked
    trace_file = tmp_path / "from-phoenix.json"
    lines = [
        json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": _otlp_export(phoenix, t)}]}]}) for t in traces
    ]
    trace_file.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    capsys.readouterr()
    assert main(["show", str(trace_file)]) == 0
    from_phoenix = capsys.readouterr().out
    assert main(["show", str(RUNS / "approval.jsonl")]) == 0
    assert from_phoenix == capsys.readouterr().out


def test_a_recording_sent_live_arrives_while_recorded(
    phoenix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run.jsonl"
    args = ["record", "fixtures.weather:agent", "--input", "Weather?", "-o", str(out), "-q"]
    args += ["--otlp", phoenix]
    assert main(args) == 0
    assert "warning" not in capsys.readouterr().err
    recorded = read_run(out)
    trace = format(trace_id_of(recorded.run_id, 0), "032x")
    spans = _spans(phoenix, [trace], 7)
    chats = [s for s in spans if s["attributes"].get("gen_ai.operation.name") == "chat"]
    assert len(chats) == recorded.steps[-1].budget.model_calls
