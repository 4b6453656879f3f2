"""Secrets in recordings: keys inside JSON text, credential shapes in any string, error text, the key list.

Cases from the secrets campaign (issue 19): a ToolCall's JSON arguments and a tool's JSON result carried
`password`/`api_key` to the run file and `inspector show`; an exception's text (`login failed for
secret=...`) was recorded verbatim; `token`-like keys were not on the default list. Each is checked on
the file itself, through `read_run`, and on what `inspector show` prints.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from graph_core import END, START, Graph
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from graph_core.schema import Message, ToolCall
from graph_core.tools import tool
from inspector.cli import main
from inspector.recording import Recorder, Redaction, read_run, redact
from inspector.recording.redact import DEFAULT_REDACT_PATTERNS, make_redaction
from inspector.recording.secret_keys import KEY_STEMS
from inspector.recording.secret_shapes import SHAPES

PASSWORD = "hunter2-Pa55"
API_KEY = "k-0f1e2d3c4b5a"
OPENAI_KEY = "sk-proj-Zq8Xw7Vu6Ts5Rq4Po3Nm"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib2IifQ.c2lnbmF0dXJlLW9mLWJvYg"
BEARER = "Bearer tok_9a8b7c6d5e4f3a2b"
LOGIN_SECRET = "s3cr3t-Login-Value"


def _clock() -> Any:
    ticks = iter(range(10_000))
    return lambda: float(next(ticks))


def _shown(path: Path, capsys: Any, *options: str) -> str:
    capsys.readouterr()
    assert main(["show", str(path), *options]) == 0
    return capsys.readouterr().out


@tool
def login(user: str, password: str, api_key: str) -> str:
    """Log in; answers with JSON holding a token, the way an auth API does."""
    return json.dumps({"user": user, "access_token": f"at-{password[:4]}-granted", "expires_in": 3600})


def _agent(arguments: str) -> ReActAgent:
    script = [
        Message.assistant("logging in", tool_calls=[ToolCall("c1", "login", arguments)]),
        Message.assistant("done"),
    ]
    return ReActAgent(ScriptedChatModel(script), tools=[login])


def test_tool_call_arguments_and_json_results_are_masked_by_key(tmp_path: Path, capsys: Any) -> None:
    arguments = json.dumps({"user": "bob", "password": PASSWORD, "api_key": API_KEY})
    path = tmp_path / "run.jsonl"
    _agent(arguments).invoke([Message.user("log in")], callbacks=[Recorder(path, clock=_clock(), run_id="r")])
    text = path.read_text()
    for secret in (PASSWORD, API_KEY, "at-hunt-granted"):
        assert secret not in text
    run = read_run(path)
    model_out = run.steps[0].node_runs[0].output
    recorded = json.loads(model_out["tool_calls"][0]["arguments"])  # still JSON, only the values masked
    assert recorded == {"user": "bob", "password": "[REDACTED]", "api_key": "[REDACTED]"}
    tool_run = run.steps[1].node_runs[0]
    assert json.loads(tool_run.tools[0].input)["password"] == "[REDACTED]"
    result = json.loads(tool_run.tools[0].output)
    assert result == {"user": "bob", "access_token": "[REDACTED]", "expires_in": 3600}
    shown = _shown(path, capsys, "--json") + _shown(path, capsys)
    assert PASSWORD not in shown and API_KEY not in shown and "at-hunt-granted" not in shown


def test_cut_off_json_arguments_are_masked_as_far_as_they_go() -> None:
    redaction = make_redaction(True)
    assert redaction.scrub('{"user": "bob", "password": "hunt') == '{"user": "bob", "password": "[REDACTED]"'
    nested = '[{"auth": {"refresh_token": {"v": [1, 2]}, "n": 1}}]'
    assert redaction.scrub(nested) == '[{"auth": {"refresh_token": "[REDACTED]", "n": 1}}]'


def _failing_graph(message: str) -> Any:
    def check(x: Any) -> Any:
        raise ValueError(message)

    graph = Graph()
    graph.add_lambda_node("login", check)
    graph.add_edge(START, "login")
    graph.add_edge("login", END)
    return graph.compile()


def test_exception_text_is_masked_end_to_end(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "run.jsonl"
    compiled = _failing_graph(f"login failed for secret={LOGIN_SECRET} (user bob)")
    with pytest.raises(Exception, match="login failed"):
        compiled.invoke({"user": "bob"}, callbacks=[Recorder(path)])
    assert LOGIN_SECRET not in path.read_text()
    run = read_run(path)
    assert run.status == "error" and run.error is not None
    assert "login failed for secret=[REDACTED] (user bob)" in run.error.message
    node_error = run.steps[0].node_runs[0].error
    assert node_error is not None and "secret=[REDACTED]" in node_error.message
    shown = _shown(path, capsys) + _shown(path, capsys, "--json")
    assert LOGIN_SECRET not in shown and "secret=[REDACTED]" in shown


def test_known_secret_values_are_masked_in_any_text(tmp_path: Path, capsys: Any) -> None:
    # No shape gives this one away: the caller names it, and it is masked wherever it appears.
    secret = "correct horse battery staple"
    path = tmp_path / "run.jsonl"
    compiled = _failing_graph(f"could not log in with {secret!r}")
    recorder = Recorder(path, redact=Redaction(values=(secret,)))
    with pytest.raises(Exception, match="could not log in"):
        compiled.invoke({"note": f"try {secret}"}, callbacks=[recorder])
    text = path.read_text()
    assert secret not in text and "battery" not in text
    assert "could not log in with '[REDACTED]'" in (read_run(path).error or pytest.fail()).message
    assert secret not in _shown(path, capsys)
    assert secret not in repr(Redaction(values=(secret,)))


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"calling with {OPENAI_KEY} now", OPENAI_KEY),
        (f"Authorization: {BEARER}", BEARER.split()[1]),
        (f"session {JWT}.", JWT),
        ("GET /v1/items?api_key=AbC123xyz&page=2", "AbC123xyz"),
        ("{'user': 'bob', 'password': 'two words'}", "two words"),
    ],
)
def test_credential_shapes_are_masked_in_every_recorded_string(
    tmp_path: Path, text: str, secret: str
) -> None:
    graph = Graph(state=lambda: {"log": [text]})
    graph.add_lambda_node("echo", lambda x: Message.assistant(x["q"]))
    graph.add_edge(START, "echo")
    graph.add_edge("echo", END)
    path = tmp_path / "run.jsonl"
    graph.compile().invoke({"q": text}, callbacks=[Recorder(path)])
    assert secret not in path.read_text()
    run = read_run(path)
    assert "[REDACTED]" in run.steps[0].state["log"][0]
    assert "[REDACTED]" in run.output["content"]


def test_a_secret_at_the_truncation_point_is_not_half_recorded(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    text = "x" * 40 + " " + OPENAI_KEY + " " + "y" * 100
    recorder = Recorder(path, max_str=50, clock=_clock(), run_id="r")
    recorder.on_start(_graph_info(), text)
    recorder.on_end(_graph_info(), None)
    assert OPENAI_KEY[:8] not in path.read_text()  # the preview keeps 9 of its characters unmasked


def _graph_info() -> Any:
    from graph_core.callbacks import RunInfo

    return RunInfo(None, "g", "Graph")


NEW_KEYS = ["token", "access_token", "refresh_token", "id_token", "auth_token", "passwd", "bearer"]
NEW_KEYS += ["accessToken", "X-Auth-Token", "AUTH_TOKEN", "bearer_token"]
NOT_SECRETS = ["max_tokens", "tokens_used", "total_tokens", "prompt_tokens", "token_type", "tokenizer"]
NOT_SECRETS += ["TOKENS", "keyboard", "monkey"]


@pytest.mark.parametrize("key", NEW_KEYS)
def test_the_default_key_list_masks_token_like_keys(key: str) -> None:
    assert make_redaction(True).masks_key(key)


@pytest.mark.parametrize("key", NOT_SECRETS)
def test_token_counts_and_settings_are_not_masked(key: str) -> None:
    assert not make_redaction(True).masks_key(key)


def test_token_keys_in_state_are_masked_and_counts_kept(tmp_path: Path) -> None:
    state: dict[str, Any] = {key: f"value-of-{key}" for key in NEW_KEYS}
    state.update({key: 128 for key in NOT_SECRETS})
    graph = Graph(state=lambda: dict(state))
    graph.add_lambda_node("n", lambda x: x)
    graph.add_edge(START, "n")
    graph.add_edge("n", END)
    path = tmp_path / "run.jsonl"
    graph.compile().invoke(json.dumps(state), callbacks=[Recorder(path)])
    assert "value-of-" not in path.read_text()
    recorded = read_run(path).steps[0].state
    assert {key: recorded[key] for key in NOT_SECRETS} == dict.fromkeys(NOT_SECRETS, 128)
    assert json.loads(read_run(path).output)["max_tokens"] == 128


def test_redact_keeps_its_older_forms(tmp_path: Path) -> None:
    def run_with(redact: Any) -> str:
        path = tmp_path / "r.jsonl"
        recorder = Recorder(path, clock=_clock(), run_id="r", redact=redact)
        recorder.on_start(_graph_info(), {"password": "p1", "tok": "t1", "note": f"key {OPENAI_KEY}"})
        recorder.on_end(_graph_info(), None)
        return path.read_text()

    everything = run_with(False)
    assert "p1" in everything and OPENAI_KEY in everything
    keys_replaced = run_with(["tok"])  # replaces the key patterns; the value patterns stay
    assert "t1" not in keys_replaced and "p1" in keys_replaced and OPENAI_KEY not in keys_replaced
    custom = run_with(Redaction(patterns=(r"key \S+",), mask="***"))
    assert '"note":"***"' in custom and "p1" not in custom


PIECES = [
    *("Bearer ", "bearer ", "BEARER ", "BeArEr ", "tok_9a8b7c6d5e4f", OPENAI_KEY, "sk-", JWT, "eyJ"),
    *("=", " = ", "'", '"', ":", " : ", "password", "PassWord", "passwd", "ſecret", "SECRET", "api_key"),
    *("API-KEY", "access_key", "pwd", "token", "Token", "{", "}", "[", "]", ",", " ", "\n", "\\", "é"),
    *("hello", "42", "b", "B", "J", "-", "max_tokens", "keyboard", "result 7: lorem ipsum"),
    *("eyJ0eXAi.eyJ4In0.s1g", "Bearer 0123456789aDeFgZ"),  # no other character the tests look for
    # the shapes of issue 37, whole and in pieces
    *("ghp_" + "a1" * 18, "github_pat_" + "Z9_" * 8, "ghp_", "AKIAIOSFODNN7EXAMPLE", "AKIA", "A", "_"),
    *("AIza" + "x-Y_" * 9, "AIza", "xoxb-12-34-ab", "xox", "sk_live_" + "a1" * 12, "glpat-" + "k" * 20),
    *("npm_" + "N" * 36, "https://hooks.slack.com/services/T1/B2/c3", "://", "@", "bob:", "pw@h", "db_pwd"),
    *("Basic ", "basic ", "YWxpY2U6cHc=", "dXNlcg==", "-----BEGIN RSA PRIVATE KEY-----", "PRIVATE KEY"),
    *("-----END RSA PRIVATE KEY-----", "MIIE", "Cookie: ", "cookie", "COOKIE:", "a=b; c=d", "Set-"),
    *("passphrase", "credentials", "private_key", "max_token", "--", "pwd=/home", "k", "K"),
]


def _texts(count: int, seed: int) -> list[str]:
    """Strings made of the pieces credential shapes are made of, in every order (seeded: the same list
    on every run)."""
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 9))) for _ in range(count)]


def test_the_cheap_test_before_the_value_patterns_never_skips_a_match() -> None:
    # The default patterns are searched only in a string that holds a character and a literal each
    # of their matches holds (`redact._GUARDS`); the same patterns written differently have no such
    # test and are searched in every string. Outside JSON text both must mask exactly the same.
    guarded = make_redaction(True)
    unguarded = Redaction(patterns=tuple(f"(?:{p})" for p in DEFAULT_REDACT_PATTERNS))
    texts = [t for t in _texts(3000, seed=15) if t.lstrip()[:1] not in ("{", "[")]
    assert sum(unguarded.scrub(t) != t for t in texts) > 500  # the pieces do make credential shapes
    for text in texts:
        assert guarded.scrub(text) == unguarded.scrub(text), text


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ('Config: {"password" : "hunter2"}', 'Config: {"password" : "[REDACTED]"}'),
        ("note: 'password' : hunter2", "note: 'password' : [REDACTED]"),
        ("use BeArEr abcdefghijklmnop", "use [REDACTED]"),
        ("ſecret=abc", "ſecret=[REDACTED]"),
        ('{"\\u0070assword": "x", "n": 1}', '{"\\u0070assword": "[REDACTED]", "n": 1}'),
        ('{"ſecret": "x"}', '{"ſecret": "[REDACTED]"}'),
        ('{"AUTHORIZATION": "Basic eA=="}', '{"AUTHORIZATION": "[REDACTED]"}'),
    ],
)
def test_shapes_the_cheap_test_once_let_through_are_masked(text: str, masked: str) -> None:
    # Each of these reached the file before the cheap test was rebuilt on single characters: a space
    # before the colon, a bearer token in mixed case, `ſ` (which `(?i)s` matches), an escaped key.
    assert make_redaction(True).scrub(text) == masked


def test_text_with_nothing_to_mask_is_returned_as_it_is() -> None:
    redaction = make_redaction(True)
    for text in ["result 7: lorem ipsum", '{"n": 7}', "[1, 2]", "Looking up item 7.", ""]:
        assert redaction.scrub(text) is text


def test_the_cheap_test_before_json_keys_and_values_never_skips_one() -> None:
    # JSON text (tool arguments, JSON results) first goes through a test written out for the default
    # keys and patterns; a Redaction that also masks a known value takes the general path (every key
    # stem, every guard) instead. Both must mask the same.
    fast = make_redaction(True)
    general = Redaction(values=("\x00never\x00",))
    rng = random.Random(19)
    keys = ["n", "city", "password", "PASSWD", "ſecret", "api_key", "Authorization", "refresh_token"]
    keys += ["max_tokens", "\\u0070assword", "\\u0073\\u0065\\u0063\\u0072\\u0065\\u0074", "pwd", "K"]
    texts = [f'{{"n": {json.dumps(piece)}}}' for piece in PIECES]
    for piece in _texts(1500, seed=20):
        key = rng.choice(keys)
        texts.append(f'{{"{key}": {json.dumps(piece)}, "n": {rng.randint(0, 9)}}}')
        texts.append(f'[{json.dumps(piece)}, "{key}"]')
    assert sum(general.scrub(t) != t for t in texts) > 500
    for text in texts:
        assert fast.scrub(text) == general.scrub(text), text


def test_each_literal_holds_one_of_the_characters_the_json_test_looks_for() -> None:
    for stems in KEY_STEMS.values():
        for stem in stems:
            assert set(stem) & set(redact._STEM_CHARS), stem  # pyright: ignore[reportPrivateUsage]
    folded_chars = set("kcwhbj")
    raw_chars = set(redact._JSON_VALUE_CHARS) - folded_chars  # pyright: ignore[reportPrivateUsage]
    for shape in SHAPES:
        for literal in shape.literals:
            held = set(literal.casefold()) & folded_chars or set(literal) & raw_chars
            assert held or any(t[0] in raw_chars for t in shape.triggers), (shape.name, literal)


def test_the_first_test_holds_the_first_character_of_every_trigger() -> None:
    first_chars = redact._FIRST  # pyright: ignore[reportPrivateUsage]
    colon_seconds = redact._COLON_SECONDS  # pyright: ignore[reportPrivateUsage]
    for shape in SHAPES:
        for first, second in shape.triggers:
            assert first in first_chars or (first == ":" and second and second in colon_seconds), shape.name
