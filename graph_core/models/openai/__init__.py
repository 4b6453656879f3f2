"""A chat model that speaks the OpenAI Chat Completions wire format over httpx.

Works with OpenAI itself and with any compatible server (vLLM, Ollama, LM Studio, llama.cpp, gateways).
The package is sans-io in its middle: request encoding and response decoding (`_wire`), the SSE stream
decoder (`_sse`) and the failure/retry decisions (`_retry`) are plain functions and classes, so the sync and
async paths of `OpenAIChatModel` (`_client`) differ only in how bytes move and how retries sleep. The error
hierarchy is drawn in `_errors`.

Retries: 429, 5xx and connection failures (before any response byte) are retried up to `max_retries`
times with exponential backoff, honouring `Retry-After`/`retry-after-ms`, or a wait the error body names
in words ("Please retry after 20 seconds"), up to `max_retry_delay`. Read
timeouts are not retried (the server may already be spending tokens on the request), and nothing is
retried once a stream has started yielding chunks.
"""

from graph_core.models.openai._client import DEFAULT_BASE_URL, OpenAIChatModel
from graph_core.models.openai._errors import (
    ChatModelConnectionError,
    ChatModelError,
    ChatModelResponseError,
    ChatModelStatusError,
    ChatModelStreamError,
    ChatModelTimeoutError,
    ToolCallArgumentsError,
)

# `_default_ssl_context` stays importable here for bench/bench_openai.py (it measures the shared context)
from graph_core.models.openai._http import default_ssl_context as _default_ssl_context  # noqa: F401

__all__ = [
    "DEFAULT_BASE_URL",
    "ChatModelConnectionError",
    "ChatModelError",
    "ChatModelResponseError",
    "ChatModelStatusError",
    "ChatModelStreamError",
    "ChatModelTimeoutError",
    "OpenAIChatModel",
    "ToolCallArgumentsError",
]
