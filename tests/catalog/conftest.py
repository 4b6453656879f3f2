"""A small generated folder of runs (the bench's generator, 30 runs of a few rounds), a LangGraph
SQLite checkpointer whose threads real LangGraph graphs wrote, an OTLP trace file `inspector export`
wrote, and private cache folders (the index, the converted threads and traces), so no test touches the
user's."""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import pytest

from bench.catalog_runs import Expected, generate
from inspector.cli import main

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "runs"


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Expected]]:
    folder = tmp_path_factory.mktemp("fleet")
    return folder, generate(folder, 30, rounds=(2, 9))


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The default index lives in a temporary cache folder, threads and traces are converted into
    temporary folders of the test's own."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(tmp_path / "otlp-cache"))
    converted = tmp_path / "tmp"
    converted.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(converted))
    return cache


THREADS = {"ok-1": "ok", "ok-2": "ok", "runaway": "interrupted", "waiting": "interrupted", "approved": "ok"}
"""The threads the checkpointer fixture holds, and the status each is read with: a ReAct agent's two
conversations, a hand-built loop that hit LangGraph's recursion limit (stopped before its next step),
an approval waiting at `interrupt()`, and one resumed to its end."""


@pytest.fixture(scope="session")
def checkpointer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite checkpointer with the `THREADS`, written by LangGraph's own `SqliteSaver`."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.errors import GraphRecursionError
    from langgraph.types import Command

    from fixtures import langgraph_approval, langgraph_react, langgraph_runaway

    path = tmp_path_factory.mktemp("checkpointer") / "threads.sqlite"
    conn = sqlite3.connect(path, check_same_thread=False)
    saver = SqliteSaver(conn)
    react = langgraph_react.build_agent()
    react.checkpointer = saver
    for thread in ("ok-1", "ok-2"):
        react.invoke({"messages": [("user", langgraph_react.QUESTION)]}, _thread(thread))
    loop = langgraph_runaway.build_agent()
    loop.checkpointer = saver
    with pytest.raises(GraphRecursionError):
        loop.invoke(
            {"messages": [("user", langgraph_runaway.QUESTION)]},
            {"configurable": {"thread_id": "runaway"}, "recursion_limit": langgraph_runaway.RECURSION_LIMIT},
        )
    approval = langgraph_approval.builder().compile(checkpointer=saver)
    for thread in ("waiting", "approved"):
        approval.invoke({"request": "Send the quarterly report."}, _thread(thread))
    approval.invoke(Command(resume="yes"), _thread("approved"))
    conn.close()  # the write-ahead log is checkpointed into the file
    return path


def _thread(thread_id: str) -> Any:
    return {"configurable": {"thread_id": thread_id}}


@pytest.fixture(scope="session")
def trace_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """OTLP JSON lines as `inspector export -o` writes them, for the weather, runaway and approval
    recordings (the approval run was resumed: two traces, one run), then another tracer's GenAI spans
    (an observed run) and a span that makes no run at all, in one file."""
    folder = tmp_path_factory.mktemp("traces")
    lines: list[str] = []
    for name in ("weather", "runaway", "approval"):
        out = folder / f"{name}.json"
        assert main(["export", str(FIXTURES / f"{name}.jsonl"), "-o", str(out)]) == 0
        lines += out.read_text(encoding="utf-8").splitlines()
        out.unlink()
    lines += _foreign_lines()
    path = folder / "traces.json"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _foreign_lines() -> list[str]:
    """Another tracer's spans: an agent with two model calls and a tool call; then a lone HTTP span."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from inspector.otel.exporters import request_lines

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("someone-else")
    agent = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper"}
    with tracer.start_as_current_span("invoke_agent helper", attributes=agent):
        for prompt in (10, 20):
            chat = {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": prompt}
            with tracer.start_as_current_span(
                "chat gpt-x", attributes={**chat, "gen_ai.usage.output_tokens": 3}
            ):
                pass
            if prompt == 10:
                tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup"}
                with tracer.start_as_current_span("execute_tool lookup", attributes=tool):
                    pass
    with tracer.start_as_current_span("GET /health"):
        pass
    return request_lines(memory.get_finished_spans())


def runs_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, Any]]]:
    """`inspector runs ARGV --json`, in process: the exit status and the runs listed."""
    capsys.readouterr()
    code = main(["runs", *argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


@pytest.fixture
def anyio_backend() -> str:
    """Textual runs on asyncio."""
    return "asyncio"
