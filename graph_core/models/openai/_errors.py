"""The errors `OpenAIChatModel` raises; `_secrets` keeps the API key and credential headers out of them.

Every error carries `.endpoint`; none ever contains the API key, and none chains an httpx exception, since
those hold the request and with it the `Authorization` header:

```
ChatModelError                          base; the message names the endpoint
├── ChatModelStatusError                HTTP status >= 300 (`.status_code`, `.body`, `.request_id`)
├── ChatModelTimeoutError (TimeoutError)
├── ChatModelConnectionError (ConnectionError)
└── ChatModelResponseError (ValueError) a 2xx response we cannot use (bad JSON, no choices)
    ├── ChatModelStreamError            a stream that broke off, ended early or reported an error
    └── ToolCallArgumentsError          a finished tool call whose arguments are not a JSON object
```
"""

from __future__ import annotations

from graph_core.errors import ChatModelError
from graph_core.models.openai._secrets import Redactor  # where the error paths have always found it

__all__ = [
    "ChatModelConnectionError",
    "ChatModelError",
    "ChatModelResponseError",
    "ChatModelStatusError",
    "ChatModelStreamError",
    "ChatModelTimeoutError",
    "Redactor",
    "ToolCallArgumentsError",
]


class ChatModelStatusError(ChatModelError):
    """The server answered with an HTTP error status; `body` is a redacted excerpt of what it said."""

    def __init__(
        self, message: str, *, endpoint: str, status_code: int, body: str = "", request_id: str | None = None
    ) -> None:
        super().__init__(message, endpoint=endpoint)
        self.status_code = status_code
        self.body = body
        self.request_id = request_id


class ChatModelTimeoutError(ChatModelError, TimeoutError):
    """Connecting, sending, or waiting for the next bytes took longer than `timeout`."""


class ChatModelConnectionError(ChatModelError, ConnectionError):
    """No HTTP response could be obtained (refused, reset, DNS, TLS)."""


class ChatModelResponseError(ChatModelError, ValueError):
    """A successful status with a body this client cannot turn into a message."""


class ChatModelStreamError(ChatModelResponseError):
    """A streamed response broke off, ended before it finished, or carried an error event."""


class ToolCallArgumentsError(ChatModelResponseError):
    """A finished tool call's `arguments` are not a JSON object; names the call so it can be found."""

    def __init__(
        self, message: str, *, endpoint: str, tool_call_id: str, tool_name: str, arguments: str
    ) -> None:
        super().__init__(message, endpoint=endpoint)
        self.tool_call_id = tool_call_id
        self.tool_name = tool_name
        self.arguments = arguments
