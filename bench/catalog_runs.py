"""A generator of many run files for the catalog's bench and tests, keeping its own record of what it
wrote: status, steps, model and tool calls, tokens, graph, tags and the nodes each run visited.

The files are written line by line in the run-file format (a ReAct agent's topology, taken from the
weather fixture, under several targets), not recorded through the `Recorder`: 200,000 recorded steps
would take the bench minutes, and writing the lines directly lets the record say exactly what each run
holds. Three kinds: `ok` (rounds of chat -> tools, then a final answer), `error` (a tool raises in the
last round: an unfinished step and a failed run) and `runaway` (the step budget runs out in the
chat -> tools loop, `budget-exhausted`).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Expected", "generate", "write_threads", "write_traces"]

_FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "runs" / "weather.jsonl"
GRAPHS = ("agents.support:agent", "agents.research:agent", "agents.triage:agent")
KINDS = ("ok", "ok", "ok", "error", "runaway")


@dataclass
class Expected:
    """What the generator wrote into one file."""

    path: Path
    run_id: str
    kind: str
    status: str
    graph: str
    steps: int
    model_calls: int
    tool_calls: int
    tokens: int
    started_at: str
    tags: dict[str, str] = field(default_factory=dict)
    visited: set[str] = field(default_factory=set)
    diagnostics: set[str] = field(default_factory=set)


def _dump(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _topology() -> dict[str, Any]:
    with _FIXTURE.open(encoding="utf-8") as f:
        return json.loads(f.readline())["topology"]


def generate(
    folder: Path, count: int, *, rounds: tuple[int, int] = (80, 120), seed: int = 7, nest: int = 3
) -> list[Expected]:
    """Write `count` runs under `folder` (spread over `nest` sub-folders), each of a random number of
    `rounds` (one chat and one tools step a round), and return the record of them."""
    rng = random.Random(seed)
    topology = _topology()
    out: list[Expected] = []
    for i in range(count):
        kind = KINDS[i % len(KINDS)]
        graph = GRAPHS[i % len(GRAPHS)]
        n = rng.randint(*rounds)
        tags = {"suite": ("ci", "nightly")[i % 2], "shard": str(i % 4)}
        day = 1 + i % 28
        started = f"2026-02-{day:02d}T{i % 24:02d}:{i % 60:02d}:00+00:00"
        where = folder / f"batch{i % nest}" if nest else folder
        where.mkdir(parents=True, exist_ok=True)
        path = where / f"run-{i:05d}.jsonl"
        out.append(_write(path, f"run{i:05d}", kind, graph, n, tags, started, topology))
    return out


def _write(
    path: Path,
    run_id: str,
    kind: str,
    graph: str,
    rounds: int,
    tags: dict[str, str],
    started: str,
    topology: dict[str, Any],
) -> Expected:
    max_steps = 2 * rounds + 1 if kind == "runaway" else 4 * rounds + 10
    header = {
        "kind": "header",
        "format": "graph-inspector-run",
        "version": 2,
        "run_id": run_id,
        "graph_name": "ReActAgent",
        "started_at": started,
        "trigger_mode": "AnyPredecessor",
        "max_run_steps": max_steps,
        "topology": {**topology, "max_run_steps": max_steps},
        "input": {"$refs": [[0, 1]]},
        "resumed_from": None,
        "meta": {"target": graph, "mode": "invoke", "tags": tags},
    }
    lines = [_dump(header), _dump({"kind": "value", "value": {"role": "user", "content": "Weather?"}})]
    value = 1
    model = tools = tokens = prompt = completion = 0
    t = 0.0
    index = 0
    status = "ok"
    visited: set[str] = set()
    diagnostics: set[str] = set()
    steps_total = 2 * rounds + 1 if kind == "ok" else 2 * rounds - 1 if kind == "error" else max_steps
    while index < steps_total:
        chat = index % 2 == 0
        last = index == steps_total - 1
        if chat:
            model += 1
            p, c = 100 + 3 * index, 20
            prompt, completion, tokens = prompt + p, completion + c, tokens + p + c
            final = last and kind == "ok"
            message: dict[str, Any] = {
                "role": "assistant",
                "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c},
            }
            if final:
                message["content"] = "Take an umbrella."
            else:
                message["tool_calls"] = [
                    {"id": f"call_{index}", "name": "get_weather", "arguments": '{"city": "Hangzhou"}'}
                ]
            lines.append(_dump({"kind": "value", "value": message}))
            step: dict[str, Any] = {"kind": "step"}
            if index == 0:
                step["full"] = True
            step.update({"index": index, "nodes": ["chat"], "t": round(t, 3), "duration": 0.003})
            if final:
                step["ended"] = True
            step["budget"] = {
                "model_calls": model,
                "tool_calls": tools,
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": tokens,
            }
            step["runs"] = [
                {
                    "node": "chat",
                    "input": {"$refs": [[0, value]]},
                    "output": {"$ref": value},
                    "t": 0.001,
                    "duration": 0.002 + (index % 7) / 1000,
                }
            ]
            step["branches"] = [{"chosen": ["end" if final else "tools"]}]
            if index == 0:
                step["state"] = {"messages": {"$refs": [[0, value + 1]]}, "return_directly_tool_call_id": ""}
            else:
                step["delta"] = [["append", ["messages"], {"$refs": [[value, value + 1]]}]]
            value += 1
            visited.add("chat")
        else:
            tools += 1
            tool_message = {
                "role": "tool",
                "content": "light rain",
                "tool_call_id": f"call_{index - 1}",
                "tool_name": "get_weather",
            }
            lines.append(_dump({"kind": "value", "value": tool_message}))
            step = {
                "kind": "step",
                "index": index,
                "nodes": ["tools"],
                "t": round(t, 3),
                "duration": 0.005,
                "budget": {
                    "model_calls": model,
                    "tool_calls": tools,
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": tokens,
                },
                "runs": [
                    {
                        "node": "tools",
                        "input": {"$ref": value - 1},
                        "output": {"$refs": [[value, value + 1]]},
                        "t": 0.001,
                        "duration": 0.003 + (index % 5) / 1000,
                        "tools": [
                            {
                                "tool_call_id": f"call_{index - 1}",
                                "input": '{"city": "Hangzhou"}',
                                "output": {"$call": "content"},
                                "t": 0.001,
                                "duration": 0.001,
                            }
                        ],
                    }
                ],
                "branches": [{"chosen": ["chat"]}],
                "delta": [["append", ["messages"], {"$refs": [[value, value + 1]]}]],
            }
            value += 1
            visited.add("tools")
        lines.append(_dump(step))
        t += 0.01
        index += 1
    if kind == "error":
        error = {
            "type": "NodeRunError",
            "message": "[NodeRunError] node tools: ValueError: weather service down",
            "node_path": ["tools"],
            "cause_type": "ValueError",
            "cause_message": "weather service down",
        }
        lines.append(
            _dump(
                {
                    "kind": "step_unfinished",
                    "index": index,
                    "nodes": ["tools"],
                    "t": round(t, 3),
                    "runs": [
                        {
                            "node": "tools",
                            "input": {"$ref": value - 1},
                            "error": {"type": "ValueError", "message": "weather service down"},
                            "t": 0.001,
                            "duration": 0.002,
                        }
                    ],
                }
            )
        )
        visited.add("tools")
        lines.append(
            _dump(
                {
                    "kind": "run_finished",
                    "status": "error",
                    "error": error,
                    "t": round(t + 0.005, 3),
                    "duration": round(t + 0.005, 3),
                }
            )
        )
        status = "error"
        diagnostics.add("tool-failed")
    elif kind == "runaway":
        lines.append(
            _dump(
                {
                    "kind": "run_finished",
                    "status": "error",
                    "error": {
                        "type": "MaxStepsExceededError",
                        "message": "[GraphRunError] exceeds max steps",
                    },
                    "t": round(t, 3),
                    "duration": round(t, 3),
                }
            )
        )
        status = "error"
        diagnostics.add("budget-exhausted")
    else:
        lines.append(
            _dump(
                {
                    "kind": "run_finished",
                    "status": "ok",
                    "output": {"$ref": value - 1},
                    "t": round(t, 3),
                    "duration": round(t, 3),
                }
            )
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Expected(
        path,
        run_id,
        kind,
        status,
        graph,
        steps_total,
        model,
        tools,
        tokens,
        started,
        tags,
        visited,
        diagnostics,
    )


def write_threads(path: Path, count: int) -> None:
    """A LangGraph SQLite checkpointer holding `count` threads of the LangGraph ReAct fixture (three
    supersteps each), written by LangGraph's own `SqliteSaver`."""
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    from fixtures.langgraph_react import QUESTION, build_agent

    conn = sqlite3.connect(path, check_same_thread=False)
    agent = build_agent()
    agent.checkpointer = SqliteSaver(conn)
    for i in range(count):
        agent.invoke({"messages": [("user", QUESTION)]}, {"configurable": {"thread_id": f"thread-{i:05d}"}})
    conn.close()


def write_traces(path: Path, runs: list[Expected]) -> None:
    """One OTLP JSON trace file holding `runs`, as `inspector export RUN -o` writes each (appended)."""
    from inspector.otel.exporters import request_lines, run_spans
    from inspector.recording import read_run

    with path.open("w", encoding="utf-8") as out:
        for expected in runs:
            out.writelines(line + "\n" for line in request_lines(run_spans(read_run(expected.path))))
