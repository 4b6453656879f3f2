"""Credential shapes and secret keys: each kind the campaign found missed is masked, and ordinary values
are left alone.

Cases from the hostile-input campaign (issue 37). Missed: GitHub, AWS, Slack and Google keys, passwords
in URLs, `Basic` headers, PEM private keys, `Cookie` headers, and state keys such as `private_key`,
`cookie`, `database_url`. Mangled although not secrets: keys `secretary`, `authorization_status`,
`password_policy`; "The bearer instrument must be presented"; `pwd=/home/alice/project`;
`--max_token=512`; 17 of 20,000 random URL-safe base64 blobs taken for OpenAI keys. The false-positive
rate is measured on a seeded corpus of ordinary values and must stay 0.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import uuid
from pathlib import Path
from typing import Any

import pytest

from graph_core import END, START, Graph
from inspector.recording import Recorder, read_run
from inspector.recording.redact import make_redaction

MASK = "[REDACTED]"
PEM_BODY = "MIIEowIBAAKCAQEA0Zq8Xw7Vu6Ts5Rq4Po3Nm\nZq8Xw7Vu6Ts5Rq4Po3NmAbCdEfGh+/==\n"
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}-----END RSA PRIVATE KEY-----"
BASIC = base64.b64encode(b"alice:s3cret-pw").decode()

# (text holding a secret, the secret) for each shape; the secrets are made up, in their real formats
SHAPES = {
    "github classic": ("push with ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5", "ghp_aB3dE5gH7j"),
    "github oauth": ("token gho_" + "Z" * 36 + " expired", "gho_ZZZZ"),
    "github fine-grained": ("GH_TOKEN=github_pat_11ABCDEFG0" + "a1B2c3D4e5" * 8, "github_pat_11ABC"),
    "aws key id": ("aws configure set AKIAIOSFODNN7EXAMPLE done", "AKIAIOSFODNN7EXAMPLE"),
    "aws session key id": ("key ASIAY34FZKBOKMUTVV7A in use", "ASIAY34FZKBOKMUTVV7A"),
    "slack bot": ("slack: xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "AbCdEfGhIjKl"),
    "slack user": ("xoxp-1234-5678-90ab1cd2ef", "90ab1cd2ef"),
    "slack webhook": (
        "post to https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/XXXXXXXXXXXXXXXXXXXXXXXX",
        "XXXXXXXXXXXXXXXXXXXXXXXX",
    ),
    "google api key": ("maps key AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", "AIzaSyA1b2C3d4E5"),
    "url password": ("connecting to postgres://bob:hunter2-pw@db.internal:5432/app", "hunter2-pw"),
    "url password, no user": ("redis://:r3dis-Pass@cache:6379/0", "r3dis-Pass"),
    "url password in json": ('{"dsn": "mysql://root:toor-99@127.0.0.1/db"}', "toor-99"),
    "basic header": (f"Authorization: Basic {BASIC}", BASIC),
    "basic header, lower case": (f"authorization: basic {BASIC}", BASIC),
    "pem private key": (f"key file:\n{PEM}\nend", "MIIEowIBAAKCAQEA"),
    "pem in json text": (json.dumps({"note": f"here {PEM}", "n": 1}), "MIIEowIBAAKCAQEA"),
    "pem cut off": ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU", "b3BlbnNzaC1rZX"),
    "cookie header": ("Cookie: session=9f8e7d6c5b4a; theme=dark", "9f8e7d6c5b4a"),
    "set-cookie header": ("Set-Cookie: sid=abc123XYZ; Path=/; HttpOnly", "abc123XYZ"),
    "openai project key": ("key sk-proj-Zq8Xw7Vu6Ts5Rq4Po3Nm_-aB9 set", "Zq8Xw7Vu6Ts5"),
    "openai legacy key": ("sk-" + "Ab1" * 16, "Ab1Ab1Ab1Ab1"),
    "anthropic key": ("sk-ant-api03-" + "x9Y8-z7W6" * 10, "x9Y8-z7W6x9Y8"),
    "stripe": ("sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWD"),
    "gitlab": ("glpat-xYz12345AbCdE6789fGhI", "xYz12345AbCdE"),
    "npm": ("//registry.npmjs.org/:_authToken=npm_" + "a1B2c3D4e5" * 3 + "F6g7H8", "npm_a1B2c3D4e5"),
    "bearer": ("Authorization: Bearer abc123.def456-ghi789", "abc123.def456"),
    "assignment": ("login with db_password='pa ss' failed", "pa ss"),
    "assignment, camel case": ("userPassword=Winter2024!", "Winter2024!"),
    "assignment, prefixed pwd": ("MYSQL_PWD=m7sq1 mysql -u root", "m7sq1"),
    "assignment, cookie": ("{'Cookie': 'sid=abc987'}", "abc987"),
}


@pytest.mark.parametrize("kind", list(SHAPES))
def test_each_credential_shape_is_masked(kind: str) -> None:
    text, secret = SHAPES[kind]
    masked = make_redaction(True).scrub(text)
    assert secret not in masked and MASK in masked, masked


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("postgres://bob:hunter2@db/app", f"postgres://bob:{MASK}@db/app"),
        (f"Authorization: Basic {BASIC}", f"Authorization: Basic {MASK}"),
        ("Cookie: a=1; b=2", f"Cookie: {MASK}"),
        (f"before {PEM} after", f"before {MASK} after"),
        ("db_password='x y' ok", f"db_password='{MASK}' ok"),
    ],
)
def test_what_a_shape_keeps_visible(text: str, masked: str) -> None:
    # The user, the host, the header name and the assignment's name say what was there.
    assert make_redaction(True).scrub(text) == masked


SECRET_KEYS = ["private_key", "privateKey", "cookie", "Cookie", "Set-Cookie", "database_url", "DATABASE_URL"]
SECRET_KEYS += ["db_uri", "connectionString", "client_secret", "secretKey", "aws_secret_access_key"]
SECRET_KEYS += ["aws_access_key_id", "x-api-key", "APIKey", "api_key", "Authorization", "Proxy-Authorization"]
SECRET_KEYS += ["password", "userPassword", "DB_PWD", "passphrase", "credentials", "password_hash", "secret"]
SECRET_KEYS += ["access_token", "refreshToken", "AccountKey", "ſecret"]

NOT_SECRET_KEYS = ["secretary", "authorization_status", "password_policy", "passwordPolicy", "pwd", "PWD"]
NOT_SECRET_KEYS += ["max_token", "max_tokens", "total_token", "token_type", "tokenizer", "keyboard", "monkey"]
NOT_SECRET_KEYS += ["key", "sort_key", "secret_name", "cookie_consent", "bearer_type", "database_name"]


@pytest.mark.parametrize("key", SECRET_KEYS)
def test_secret_keys_are_masked(key: str) -> None:
    assert make_redaction(True).masks_key(key)


@pytest.mark.parametrize("key", NOT_SECRET_KEYS)
def test_keys_that_only_contain_a_secret_word_are_not_masked(key: str) -> None:
    assert not make_redaction(True).masks_key(key)


@pytest.mark.parametrize(
    "text",
    [
        "The bearer instrument must be presented",
        "The bearer instrument must be presented.",
        "pwd=/home/alice/project",
        "run it with --max_token=512 and --max_tokens 64",
        "a basic understanding of graphs",
        "Basic auth is off",
        "Cookie: a chocolate chip one",
        "secretary=Ms. Moneypenny",
        "password_policy=strict",
        "ssh://git@github.com/org/repo.git and http://example.com:8080/a@b",
        "mail bob@example.com at https://example.com/path?q=1",
        "key=value sort_key=name monkey=3",
    ],
)
def test_ordinary_text_is_not_mangled(text: str) -> None:
    assert make_redaction(True).scrub(text) == text


def _corpus(seed: int) -> list[str]:
    """Ordinary values a run carries, none a secret: seeded random blobs (URL-safe and standard base64,
    hex), UUIDs, hashes, paths, URLs without passwords, numbers, prose, timestamps, JSON."""
    rng = random.Random(seed)
    out: list[str] = []
    for _ in range(20_000):
        out.append(base64.urlsafe_b64encode(rng.randbytes(rng.randint(12, 96))).decode().rstrip("="))
    for _ in range(3_000):
        blob = rng.randbytes(rng.randint(8, 64))
        out.extend([base64.b64encode(blob).decode(), blob.hex(), blob.hex().upper()])
        out.append(str(uuid.UUID(int=rng.getrandbits(128), version=4)))
        out.append(hashlib.sha256(blob).hexdigest())
        out.append(hashlib.sha1(blob).hexdigest())
    words = [
        "the",
        "a",
        "graph",
        "node",
        "step",
        "run",
        "token",
        "key",
        "secret",
        "basic",
        "bearer",
        "cookie",
        "pass",
        "word",
        "agent",
        "tool",
        "said",
    ]
    for n in range(2_000):
        out.append(" ".join(rng.choice(words) for _ in range(rng.randint(3, 12))).capitalize() + ".")
        out.append(f"/home/user{n}/project/src/module_{n}.py")
        out.append(f"C:\\Users\\user{n}\\AppData\\Local\\Temp\\tmp{n:08x}")
        out.append(f"https://api.example.com/v{n % 3}/items/{n}?page={n % 7}&sort=name")
        out.append(f"postgres://db.internal:5432/app{n}")
        out.append(str(rng.randint(-(10**12), 10**12)))
        out.append(repr(rng.random() * 10 ** rng.randint(-5, 9)))
        out.append(f"2026-{n % 12 + 1:02d}-{n % 28 + 1:02d}T{n % 24:02d}:{n % 60:02d}:00+00:00")
        out.append(json.dumps({"n": n, "query": f"item {n}", "max_tokens": 256, "temperature": 0.5}))
        out.append(f"--max_token={n} --max_tokens={n} pwd=/srv/app{n} key=k{n}")
    return out


def test_the_false_positive_rate_on_ordinary_values_is_zero() -> None:
    redaction = make_redaction(True)
    corpus = _corpus(seed=37)
    assert len(corpus) == 58_000
    mangled = [text for text in corpus if redaction.scrub(text) != text]
    assert mangled == []  # rate 0 of len(corpus)


def test_secret_keys_in_state_are_masked_and_look_alikes_kept(tmp_path: Path) -> None:
    state: dict[str, Any] = {key: f"value-of-{key}" for key in SECRET_KEYS}
    state.update({key: f"kept-{key}" for key in NOT_SECRET_KEYS})
    graph = Graph(state=lambda: dict(state))
    graph.add_lambda_node("n", lambda x: x)
    graph.add_edge(START, "n")
    graph.add_edge("n", END)
    path = tmp_path / "run.jsonl"
    graph.compile().invoke("go", callbacks=[Recorder(path)])
    assert "value-of-" not in path.read_text()
    recorded = read_run(path).steps[0].state
    assert {key: recorded[key] for key in NOT_SECRET_KEYS} == {key: f"kept-{key}" for key in NOT_SECRET_KEYS}
    assert all(recorded[key] == MASK for key in SECRET_KEYS)


def test_secret_shapes_in_recorded_text_never_reach_the_file(tmp_path: Path) -> None:
    texts = [text for text, _secret in SHAPES.values()]
    graph = Graph(state=lambda: {"log": list(texts)})
    graph.add_lambda_node("n", lambda x: x)
    graph.add_edge(START, "n")
    graph.add_edge("n", END)
    path = tmp_path / "run.jsonl"
    graph.compile().invoke("go", callbacks=[Recorder(path)])
    written = path.read_text()
    for kind, (_text, secret) in SHAPES.items():
        assert json.dumps(secret)[1:-1] not in written, kind
