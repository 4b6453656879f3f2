"""httpx plumbing: one SSL context per process, the shared sync connection pool, response sniffing."""

from __future__ import annotations

import functools
import ssl
import threading
import weakref
from typing import Any

import httpx

__all__ = ["SharedClient", "default_ssl_context", "is_whole_json"]


def is_whole_json(response: httpx.Response) -> bool:
    """Some servers and proxies ignore `stream: true` and answer with one JSON completion; accept that."""
    return response.headers.get("content-type", "").split(";")[0].strip().lower() == "application/json"


@functools.cache
def default_ssl_context() -> ssl.SSLContext:
    """httpx builds a fresh SSL context (~30 ms, certifi load) per client; build it once per process."""
    return httpx.create_ssl_context()


class SharedClient:
    """The lazily created sync client shared by a model and its `with_tools` copies.

    Closed explicitly by `close()`, or when the last copy is garbage-collected (a finalizer), so that an
    unclosed model never leaks sockets or trips `ResourceWarning`.
    """

    def __init__(self, client: httpx.Client | None) -> None:
        self._client = client
        self._owned = client is None
        self._lock = threading.Lock()
        self._finalizer: weakref.finalize[Any, Any] | None = None

    def get(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                client = httpx.Client(verify=default_ssl_context())
                self._client = client
                self._finalizer = weakref.finalize(self, client.close)
            return self._client

    def close(self) -> None:
        with self._lock:
            if self._owned and self._finalizer is not None:
                self._finalizer()
                self._finalizer = None
                self._client = None
