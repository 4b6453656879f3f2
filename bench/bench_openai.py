"""OpenAIChatModel overhead over raw httpx, against the loopback test server (no network).

Targets: `generate` within 1.3x of a bare `httpx.Client.post` + `json.loads`; a 1,000-event stream decoded
into chunks and concatenated within 3x of bare `iter_lines` + `json.loads`; an async call (fresh
`AsyncClient` per call, shared SSL context) at least 5x cheaper to set up than httpx's default client.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable

import httpx

from graph_core.models.openai import OpenAIChatModel, _default_ssl_context
from graph_core.schema import Message, concat_messages
from tests.graph_core.openai_server import ChatServer, Reply, completion, delta_event

_ROUNDS = 200
_EVENTS = 1000


def _best(fn: Callable[[], object], rounds: int) -> float:
    """Median seconds per call, after one warm-up."""
    fn()
    samples: list[float] = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    samples.sort()
    return samples[len(samples) // 2]


def _report(label: str, subject: float, baseline: float, target: str) -> None:
    print(
        f"{label}: subject {subject * 1e3:.3f} ms, baseline {baseline * 1e3:.3f} ms, "
        f"ratio {subject / baseline:.2f}x (target {target})"
    )


def run() -> None:
    body = completion("hello " * 50, usage={"prompt_tokens": 10, "completion_tokens": 50, "total_tokens": 60})
    events = [delta_event({"content": f"tok{i} "}) for i in range(_EVENTS)]
    events.append(delta_event({}, finish_reason="stop"))
    messages = [Message.user("hi")]
    with ChatServer() as server:
        url = server.base_url + "/chat/completions"
        with (
            OpenAIChatModel(model="m", base_url=server.base_url, api_key="sk-bench") as model,
            httpx.Client() as raw,
        ):

            def subject_generate() -> None:
                server.script(Reply.json(body))
                model.generate(messages)

            def baseline_generate() -> None:
                server.script(Reply.json(body))
                json.loads(raw.post(url, json=model.request_body(messages, stream=False)).text)

            _report(
                "generate", _best(subject_generate, _ROUNDS), _best(baseline_generate, _ROUNDS), "<= 1.3x"
            )

            def subject_stream() -> None:
                server.script(Reply.sse(events))
                concat_messages(list(model.stream(messages)))

            def baseline_stream() -> None:
                server.script(Reply.sse(events))
                with raw.stream("POST", url, json=model.request_body(messages, stream=True)) as response:
                    for line in response.iter_lines():
                        if line.startswith("data: ") and line != "data: [DONE]":
                            json.loads(line[6:])

            _report(
                f"stream of {_EVENTS} events", _best(subject_stream, 20), _best(baseline_stream, 20), "<= 3x"
            )

        async def open_close(make: Callable[[], httpx.AsyncClient]) -> None:
            client = make()
            await client.aclose()

        _default_ssl_context()
        shared = _best(
            lambda: asyncio.run(open_close(lambda: httpx.AsyncClient(verify=_default_ssl_context()))), 20
        )
        fresh = _best(lambda: asyncio.run(open_close(httpx.AsyncClient)), 20)
        print(
            f"async client setup: shared SSL context {shared * 1e3:.2f} ms, "
            f"httpx default {fresh * 1e3:.2f} ms, speed-up {fresh / shared:.1f}x (target >= 5x)"
        )
