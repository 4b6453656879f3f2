"""Secrets that leaked outside the run file: `record`'s summary on stderr, and a password in the OpenAI
client's `base_url`.

Cases from the hostile-input campaign (issue 37): `inspector record` printed the failing run's exception
text unredacted on stderr (the file itself had it masked); `OpenAIChatModel(base_url=
"https://user:password@gateway/v1")` showed the password in `repr`, `base_url`, `endpoint` and every
error message.
"""

from __future__ import annotations

import base64
import logging
from pathlib import Path
from typing import Any

import pytest

from graph_core.models.openai import ChatModelError, OpenAIChatModel
from graph_core.schema import Message
from inspector.cli import main
from tests.graph_core.openai_server import ChatServer, Reply, completion

PASSWORD = "gw-Pa55-word-0f1e"
FAILING = f"""
from graph_core import END, START, Graph

def boom(x):
    raise ConnectionError("could not reach postgres://app:{PASSWORD}@db:5432/main (password={PASSWORD})")

def graph():
    graph = Graph()
    graph.add_lambda_node("n", boom)
    graph.add_edge(START, "n")
    graph.add_edge("n", END)
    return graph.compile()
"""


def test_records_failure_summary_is_masked_like_the_file(tmp_path: Path, capsys: Any) -> None:
    target = tmp_path / "failing.py"
    target.write_text(FAILING)
    output = tmp_path / "run.jsonl"
    assert main(["record", f"{target}:graph", "--input", "hi", "-o", str(output)]) == 1
    err = capsys.readouterr().err
    assert "the run failed: NodeRunError: could not reach postgres://app:[REDACTED]@db" in err
    assert PASSWORD not in err and PASSWORD not in output.read_text()


def _model(base_url: str, **options: Any) -> OpenAIChatModel:
    return OpenAIChatModel(model="m", base_url=base_url, max_retries=0, timeout=5.0, **options)


def _with_password(server: ChatServer) -> str:
    return server.base_url.replace("http://", f"http://gw-user:{PASSWORD}@")


def test_a_password_in_base_url_is_never_shown_and_still_sent() -> None:
    with ChatServer([Reply.json(completion("hi"))]) as server:
        model = _model(_with_password(server))
        for shown in (repr(model), model.base_url, model.endpoint, str(vars(model))):
            assert PASSWORD not in shown
        assert model.base_url == _with_password(server).replace(PASSWORD, "***")
        assert model.generate([Message.user("hello")]).content == "hi"
        sent = server.requests[0].headers["authorization"]
    assert sent == "Basic " + base64.b64encode(f"gw-user:{PASSWORD}".encode()).decode()


def test_a_password_in_base_url_is_masked_in_errors_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    echo = {"error": {"message": f"bad gateway credentials {PASSWORD} for gw-user"}}
    with ChatServer([Reply.json(echo, status=401)]) as server:
        model = _model(_with_password(server))
        with caplog.at_level(logging.DEBUG, logger="httpx"), pytest.raises(ChatModelError) as raised:
            model.generate([Message.user("hello")])
    error = raised.value
    assert PASSWORD not in str(error) and PASSWORD not in str(getattr(error, "body", ""))
    assert PASSWORD not in error.endpoint and "***" in error.endpoint
    assert PASSWORD not in caplog.text


def test_a_percent_encoded_password_is_masked_in_both_forms() -> None:
    model = _model("https://bob:p%40ss%3Aword@gateway.example/v1")
    assert model.base_url == "https://bob:***@gateway.example/v1"
    masked = model._redact("echo p%40ss%3Aword and p@ss:word")  # pyright: ignore[reportPrivateUsage]
    assert masked == "echo *** and ***"
