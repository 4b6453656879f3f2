"""Keeping the credentials the client sends out of everything it produces: errors, answers, logs.

A credential is the API key, the value of every header that carries one (`Authorization`,
`Api-Key`, `X-Api-Key`, and any header the user marks), and the password of a `base_url` that holds
one (`https://user:password@gateway/v1`: `url_password` splits it off, and the URL is shown with
`***` in its place). A server may echo any of them back: in an
error body, in a stream error event, in a 200 answer's text, in a response header that httpx and
httpcore log at DEBUG. Each of those paths goes through one `Redactor`:

- errors and `.body`: the decoders call it on every excerpt they quote;
- answers: `decode_completion` masks the message it builds, and `StreamMasker` masks streamed text,
  holding back the end of a chunk while it could be the start of a secret split across chunks;
- logs: `mask_http_logs` adds one filter to the httpx/httpcore loggers that masks every record with
  every live model's redactor (a record is only built when its logger is enabled, so the filter costs
  nothing at the usual levels).
"""

from __future__ import annotations

import logging
import threading
import weakref
from urllib.parse import unquote, urlsplit, urlunsplit

__all__ = ["CREDENTIAL_HEADERS", "MASK", "Redactor", "StreamMasker", "mask_http_logs", "url_password"]

MASK = "***"

CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "api-key", "x-api-key"})
"""Headers (lower case) whose values are credentials wherever they are set: masked like the API key."""

HTTP_LOGGERS = (
    "httpx",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
)
"""The loggers httpx and httpcore write to (a filter on a logger does not apply to its children)."""


def url_password(url: str) -> tuple[str, tuple[str, ...]]:
    """`url` with the password of its user-info replaced by `MASK`, and that password as written and
    percent-decoded (a server or a log may quote either); `url` itself and `()` when it holds none."""
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL httpx could send to either: its own error says so
        return url, ()
    userinfo, at, host = parts.netloc.rpartition("@")
    user, colon, password = userinfo.partition(":")
    if not (at and colon and password):
        return url, ()
    shown = urlunsplit(parts._replace(netloc=f"{user}:{MASK}@{host}"))
    return shown, tuple(dict.fromkeys((password, unquote(password))))


class Redactor:
    """Removes the client's secrets from any text that could reach an error message, a log or a recording."""

    def __init__(self, *secrets: str | None) -> None:
        forms: set[str] = set()
        for secret in secrets:
            if secret:
                forms |= _forms_of(secret)
        self._forms = sorted((form for form in forms if form), key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._forms)

    def __call__(self, text: str) -> str:
        for form in self._forms:
            if form in text:
                text = text.replace(form, MASK)
        return text

    def pending(self, text: str) -> int:
        """Length of the longest end of `text` that begins a secret (0 when none does)."""
        best = 0
        for form in self._forms:
            tail = text[-(len(form) - 1) :] if len(form) > 1 else ""
            at = tail.find(form[0])
            while at != -1 and len(tail) - at > best:
                if form.startswith(tail[at:]):
                    best = len(tail) - at
                    break
                at = tail.find(form[0], at + 1)
        return best


def _forms_of(secret: str) -> set[str]:
    """A secret as text may quote it: stripped of the whitespace a key file leaves, escaped as `repr` of
    text or bytes shows it (httpx quotes an illegal header value that way, httpcore logs headers as
    bytes), and the credential alone without its scheme (`Bearer abc` also masks `abc`)."""
    forms = {secret, secret.strip(), repr(secret)[1:-1], repr(secret.encode())[2:-1]}
    scheme, _, credential = secret.strip().partition(" ")
    if credential.strip() and scheme.isalpha() and len(credential.strip()) >= 8:
        forms.add(credential.strip())
    return forms


class StreamMasker:
    """Masks secrets in text that arrives in pieces (a streamed answer's content, a tool call's arguments).

    A secret split across two chunks is caught by holding back the end of a chunk while it could begin
    a secret; the held text goes out with the next piece, or with `flush` when the text ends.
    """

    __slots__ = ("_held", "_redact")

    def __init__(self, redact: Redactor) -> None:
        self._redact = redact
        self._held = ""

    def feed(self, text: str) -> str:
        if not self._redact:
            return text
        text = self._redact(self._held + text)
        keep = self._redact.pending(text)
        self._held = text[len(text) - keep :] if keep else ""
        return text[: len(text) - keep]

    def flush(self) -> str:
        held, self._held = self._held, ""
        return held


class _LogMask(logging.Filter):
    """Masks, in every record of the loggers it is added to, the secrets of every live model."""

    def __init__(self) -> None:
        super().__init__()
        self.redactors: weakref.WeakSet[Redactor] = weakref.WeakSet()

    def filter(self, record: logging.LogRecord) -> bool:
        redactors = list(self.redactors)
        if not redactors:
            return True
        try:
            message = record.getMessage()
        except Exception:  # a record that cannot format is the handler's business, not ours
            return True
        masked = message
        for redact in redactors:
            masked = redact(masked)
        if masked != message:
            record.msg = masked
            record.args = None
        return True


_LOG_MASK = _LogMask()
_LOCK = threading.Lock()


def mask_http_logs(redact: Redactor) -> None:
    """Mask `redact`'s secrets in what httpx and httpcore log, for as long as `redact` lives."""
    if not redact:
        return
    with _LOCK:
        if not _LOG_MASK.redactors:
            for name in HTTP_LOGGERS:
                logger = logging.getLogger(name)
                if _LOG_MASK not in logger.filters:
                    logger.addFilter(_LOG_MASK)
        _LOG_MASK.redactors.add(redact)
