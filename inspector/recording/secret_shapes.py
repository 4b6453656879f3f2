"""Credential shapes: the value patterns searched in every recorded string, each with the cheap test
that lets most strings skip the search.

The list is modeled on detect-secrets (Yelp; its `detect_secrets.plugins.*` classes' `denylist`
regexes), with the shapes' real prefixes and lengths, and kept here rather than depended on:

- **Speed.** Redaction runs inside the observed run, on every new string. Searching detect-secrets'
  46 `denylist` regexes in a short string costs about 150 µs (56 µs joined into one pattern), where a
  whole recorded superstep costs about 90 µs; importing its plugins takes 0.3 s (they pull in
  `requests` and `yaml` for verification). Here a string is searched only after a test of a few
  `memchr`s and literals says a shape may be in it (`Shape.triggers`, `Shape.literals`).
- **Shapes.** Some of its shapes are missing or too narrow for what runs carry: no Google API key
  (`AIza...`), no fine-grained GitHub token (`github_pat_...`), OpenAI keys only in their old
  `...T3BlbkFJ...` form (not `sk-proj-...`), a private key by its `BEGIN` line alone (the key body
  would stay), no `Basic` header, no `Cookie` header. Its keyword plugin is built for lines of
  source code.

What is kept of it: the AWS key id prefixes, the GitHub, Slack, Stripe, GitLab, npm and PyPI token
shapes, URL passwords (`BasicAuthDetector`), PEM private keys, JWTs. The project's own additions sit
beside them in `SHAPES` (marked `project`).

A shape may keep part of its match visible (`Authorization: Basic [REDACTED]`, `postgres://bob:[REDACTED]@db`):
the part to mask is its group named in `Shape.secret`, and `Shape.check` may refuse a match that only
looks like one (a `Basic` word that is not base64 of `user:password`, an assignment whose name is a
count such as `max_token=512`).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass

from inspector.recording.secret_keys import names_secret

__all__ = ["DEFAULT_REDACT_PATTERNS", "SHAPES", "Shape", "shape_of"]

Trigger = tuple[str, str]
"""Two characters a text must both hold (the second may be empty): `in` finds one at `memchr` speed,
several times faster than a longer literal, and far faster than running a pattern."""

_B64 = r"A-Za-z0-9_\-"  # URL-safe base64 and the token alphabets built on it
_NOT_B64 = rf"(?<![{_B64}])"
_END_B64 = rf"(?![{_B64}])"


@dataclass(frozen=True)
class Shape:
    """One credential shape. `pattern` is wrapped in a group named `shape_<name>`, so a match tells
    which shape it is; `secret` names the groups (in order, the first that matched counts) holding
    the part to mask, none: the whole match. Every match holds one of `triggers` and one of
    `literals`: as written, in the text's `lower()` (`fold="ascii"`: the pattern ignores ASCII case
    only, `(?ai:...)`), or in its `casefold()` (`fold="unicode"`: the pattern ignores case the Unicode
    way, where `(?i)s` also matches `ſ`). Lowering is several times cheaper than case folding on text
    that is not ASCII, and `b`/`B` (bearer, basic) are in most text."""

    name: str
    pattern: str
    triggers: tuple[Trigger, ...]
    literals: tuple[str, ...]
    fold: str = ""
    secret: tuple[str, ...] = ()
    check: Callable[[re.Match[str]], bool] | None = None
    source: str = "detect-secrets"

    @property
    def regex(self) -> str:
        return f"(?P<shape_{self.name}>{self.pattern})"


def _is_basic_credential(match: re.Match[str]) -> bool:
    """`Basic xyz` is a credential when xyz is base64 of `user:password` (so `basic understanding`
    is left alone)."""
    encoded = match.group("basic_s")
    try:
        decoded = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True).decode()
    except (binascii.Error, ValueError):
        return False
    return ":" in decoded and decoded.isprintable()


def _names_secret(match: re.Match[str]) -> bool:
    """An assignment masks its value when its name would be masked as a key (whole words:
    `db_password=` yes, `password_policy=`, `--max_token=` and `pwd=` no)."""
    return names_secret(match.group("assign_name"))


_ASSIGNED_NAMES = r"passw(?:or)?ds?|passphrase|secrets?|cookies?|credentials?|keys?|token|pwd"
"""Last words of a name whose value an assignment in text may hide (`_names_secret` decides)."""

SHAPES: tuple[Shape, ...] = (
    Shape(
        "bearer",
        # a token: 8+ characters with a digit, or 16+ of any ("The bearer instrument" is prose)
        r"(?ai:bearer)\s+(?:(?=[A-Za-z0-9\-._~+/]*[0-9])[A-Za-z0-9\-._~+/]{8,}|[A-Za-z0-9\-._~+/]{16,})=*",
        (("b", ""), ("B", "")),
        ("bearer",),
        fold="ascii",
        source="project",
    ),
    Shape(
        "basic",
        r"(?ai:basic)\s+(?P<basic_s>[A-Za-z0-9+/]{4,}={0,2})(?![A-Za-z0-9+/=])",
        (("b", ""), ("B", "")),
        ("basic",),
        fold="ascii",
        secret=("basic_s",),
        check=_is_basic_credential,
        source="project",
    ),
    Shape(
        "openai",  # sk-proj-, sk-svcacct-, sk-admin-, sk-ant-api03- (Anthropic), or the old 48 characters
        rf"{_NOT_B64}sk-(?:(?:proj|svcacct|admin|None|ant-[a-z0-9]+)-[{_B64}]{{20,}}|[A-Za-z0-9]{{32,}}){_END_B64}",
        (("-", ""),),
        ("sk-",),
    ),
    Shape(
        "jwt",
        rf"{_NOT_B64}eyJ[{_B64}]+\.eyJ[{_B64}]+\.[{_B64}]*",
        (("J", ""),),
        ("eyJ",),
    ),
    Shape(
        "aws_key_id",
        r"(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])",
        (("A", ""),),
        ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
    ),
    Shape(
        "google_api_key",
        rf"{_NOT_B64}AIza[{_B64}]{{35}}{_END_B64}",
        (("A", ""),),
        ("AIza",),
        source="project",
    ),
    Shape(
        "github",
        r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9_]{36,}|github_pat_[A-Za-z0-9_]{22,})(?![A-Za-z0-9_])",
        (("_", ""),),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    Shape(
        "slack",
        r"(?<![A-Za-z0-9])xox[abposr]-(?:[0-9]+-)+[A-Za-z0-9]+",
        (("-", ""),),
        ("xox",),
    ),
    Shape(
        "slack_webhook",
        r"https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+",
        ((":", "k"),),
        ("hooks.slack.com",),
    ),
    Shape(
        "stripe",
        r"(?<![A-Za-z0-9])[rs]k_(?:live|test)_[0-9a-zA-Z]{24,}",
        (("_", ""),),
        ("k_live_", "k_test_"),
    ),
    Shape(
        "gitlab",
        rf"(?<![A-Za-z0-9])glpat-[{_B64}]{{20,50}}{_END_B64}",
        (("-", ""),),
        ("glpat-",),
    ),
    Shape("npm", r"(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])", (("_", ""),), ("npm_",)),
    Shape("pypi", rf"pypi-AgE[{_B64}]{{50,}}", (("-", ""),), ("pypi-AgE",)),
    Shape(
        "url_password",  # scheme://user:password@host; the user (and the host) stay visible
        r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s/?#@:'\"]*:(?P<url_s>[^\s/?#@'\"]+)@",
        (("@", ""),),
        ("://",),
        secret=("url_s",),
    ),
    Shape(
        "private_key",  # the whole block, or to the end of the key's body when the END line is cut off
        r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:(?s:.*?)-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=\s]|\\[nr])*)",
        (("-", ""),),
        ("PRIVATE KEY",),
    ),
    Shape(
        "cookie",  # Cookie: / Set-Cookie: headers in text (as keys, they are masked by key)
        r"(?<![A-Za-z0-9_\-])(?:[Ss]et-|SET-)?(?:[Cc]ookie|COOKIE)\s*:\s*"
        r"(?P<cookie_s>[^\s=;,\"'\\]+=[^\r\n\"'\\]*)",
        ((":", "k"), (":", "K")),
        ("ookie", "OOKIE"),
        secret=("cookie_s",),
        source="project",
    ),
    Shape(
        "assign",  # password=..., db_pwd = '...', 'api_key': "...": the name is kept, the value masked
        rf"(?<![\w.\-])(?P<assign_name>[\w.\-]*?(?i:{_ASSIGNED_NAMES}))(?:\s*=\s*|['\"]\s*:\s*)"
        r"""(?:"(?P<assign_dq>[^"\n]*)"|'(?P<assign_sq>[^'\n]*)'|(?P<assign_s>[^\s'",;&<>{}\[\]()]+))""",
        (("=", ""), (":", "'"), (":", '"')),
        ("passw", "phrase", "secret", "cookie", "credential", "key", "token", "pwd"),
        fold="unicode",
        secret=("assign_dq", "assign_sq", "assign_s"),
        check=_names_secret,
        source="project",
    ),
)
"""Every default shape; `source` says where its pattern comes from."""

DEFAULT_REDACT_PATTERNS: tuple[str, ...] = tuple(shape.regex for shape in SHAPES)
"""Credential shapes searched in every recorded string (see `SHAPES`)."""

_BY_GROUP = {f"shape_{shape.name}": shape for shape in SHAPES}


def shape_of(match: re.Match[str]) -> Shape | None:
    """The default shape `match` is a match of (a pattern's outer group closes last), or None for a
    pattern of the caller's own."""
    name = match.lastgroup
    return _BY_GROUP.get(name) if name is not None else None
