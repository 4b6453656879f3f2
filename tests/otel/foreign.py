"""Real foreign traces for the tests, made the way their users make them: the framework's own run,
traced by its OpenInference instrumentation, exported with the OpenTelemetry SDK to an OTLP JSON file.

`langgraph_trace`: the LangGraph ReAct fixture (`fixtures.langgraph_react`) traced by
`openinference-instrumentation-langchain`.

`agents_sdk_trace`: an OpenAI Agents SDK triage agent handing off to a weather agent that calls a
function tool, both on the project's loopback OpenAI-compatible server (`ChatServer`, scripted
answers with usage), traced by `openinference-instrumentation-openai-agents`. The SDK's own trace
processors (which send to OpenAI) are removed first: nothing leaves the machine.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from inspector.otel.exporters import request_lines
from tests.graph_core.openai_server import ChatServer, Reply, completion

AGENT_USAGE = ((30, 4), (50, 10), (70, 5))  # (prompt, completion) tokens of the three model calls


def _call(call_id: str, name: str, arguments: dict[str, str]) -> dict[str, object]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def _usage(prompt: int, completion_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt + completion_tokens,
    }


def agents_sdk_trace(path: Path) -> Path:
    """Run the handoff agent under the OpenInference instrumentation; write its trace to `path`."""
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_trace_processors
    from openai import AsyncOpenAI
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    @function_tool
    def get_weather(city: str) -> str:
        """Today's weather for a city."""
        return f"Sunny, 25 C in {city}"

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    set_trace_processors([])
    instrumentor = OpenAIAgentsInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    (p0, c0), (p1, c1), (p2, c2) = AGENT_USAGE
    replies = [
        Reply.json(
            completion(
                None,
                tool_calls=[_call("call_0", "transfer_to_weather_agent", {})],
                finish_reason="tool_calls",
                usage=_usage(p0, c0),
            )
        ),
        Reply.json(
            completion(
                None,
                tool_calls=[_call("call_1", "get_weather", {"city": "Hangzhou"})],
                finish_reason="tool_calls",
                usage=_usage(p1, c1),
            )
        ),
        Reply.json(completion("Sunny, 25 C in Hangzhou.", usage=_usage(p2, c2))),
    ]

    async def run(base_url: str) -> str:
        client = AsyncOpenAI(base_url=base_url, api_key="sk-test-not-a-key")
        try:
            model = OpenAIChatCompletionsModel(model="test-model", openai_client=client)
            weather = Agent(name="Weather agent", instructions="Answer.", tools=[get_weather], model=model)
            triage = Agent(name="Triage", instructions="Route.", handoffs=[weather], model=model)
            result = await Runner.run(triage, "Weather in Hangzhou?")
            return str(result.final_output)
        finally:
            await client.close()

    try:
        with ChatServer(replies) as server:
            assert asyncio.run(run(server.base_url)) == "Sunny, 25 C in Hangzhou."
    finally:
        instrumentor.uninstrument()
        provider.shutdown()
    path.write_text("".join(line + "\n" for line in request_lines(memory.get_finished_spans())), "utf-8")
    return path


def langgraph_trace(path: Path) -> Path:
    """Run the LangGraph ReAct fixture under the OpenInference instrumentation; write its trace to `path`."""
    from langchain_core.messages import HumanMessage
    from openinference.instrumentation.langchain import LangChainInstrumentor

    from fixtures.langgraph_react import QUESTION, build_agent

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        build_agent().invoke({"messages": [HumanMessage(QUESTION)]})
    finally:
        instrumentor.uninstrument()
        provider.shutdown()
    path.write_text("".join(line + "\n" for line in request_lines(memory.get_finished_spans())), "utf-8")
    return path
