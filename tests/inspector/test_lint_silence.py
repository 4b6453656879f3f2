"""Lint findings can be silenced by code: per call, per graph (next to the code that builds it), and on
the command line with `--ignore`; a silenced finding is counted, and an unknown code is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.weather import get_weather
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from inspector.cli import main
from inspector.lint import CODES, lint, lint_report, silence


def _agent() -> ReActAgent:
    return ReActAgent(model=ScriptedChatModel([]), tools=[get_weather])


def _codes(findings: object) -> set[str]:
    return {f.code for f in findings}  # type: ignore[attr-defined]


def test_ignore_per_call_leaves_the_code_out_and_counts_it() -> None:
    agent = _agent()
    assert {"cycle", "step-budget", "branch-target-never-chosen"} == _codes(lint(agent))
    assert _codes(lint(agent, ignore=["cycle"])) == {"step-budget", "branch-target-never-chosen"}
    report = lint_report(agent, ignore=["cycle", "step-budget"])
    assert report.silenced == {"cycle": 1, "step-budget": 1}
    assert _codes(report.findings) == {"branch-target-never-chosen"}


def test_silence_on_the_agent_its_compiled_graph_or_its_graph_holds_for_every_lint() -> None:
    agent = silence(_agent(), "cycle")
    assert "cycle" not in _codes(lint(agent))
    other = _agent()
    assert "cycle" in _codes(lint(other))  # only that object
    silence(other.compiled, "step-budget")
    assert "step-budget" not in _codes(lint(other)) and "step-budget" not in _codes(lint(other.compiled))
    third = _agent()
    silence(third.graph, "branch-target-never-chosen")
    assert "branch-target-never-chosen" not in _codes(lint(third.compiled))


def test_unknown_codes_are_refused_everywhere() -> None:
    with pytest.raises(ValueError, match=r"unknown lint code.*cycles.*the codes are"):
        silence(_agent(), "cycles")
    with pytest.raises(ValueError, match="unknown lint code"):
        lint(_agent(), ignore=["nope"])
    assert "cycle" in CODES and "unreachable" in CODES


AGENTS = """
from fixtures.weather import get_weather
from graph_core.agents.react import ReActAgent
from graph_core.models import ScriptedChatModel
from inspector.lint import silence

agent = ReActAgent(model=ScriptedChatModel([]), tools=[get_weather])
quiet = silence(ReActAgent(model=ScriptedChatModel([]), tools=[get_weather]), "cycle", "step-budget")
"""


def test_cli_ignore_and_in_code_silence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "agents.py").write_text(AGENTS)
    target = f"{tmp_path / 'agents.py'}:agent"
    assert (
        main(["lint", target, "--ignore", "cycle", "--ignore", "step-budget,branch-target-never-chosen"]) == 0
    )
    out = capsys.readouterr().out
    assert out.strip() == (
        "0 error(s), 0 warning(s), 0 info "
        "(3 silenced: branch-target-never-chosen ×1, cycle ×1, step-budget ×1)"
    )
    assert main(["lint", f"{tmp_path / 'agents.py'}:quiet"]) == 0
    out = capsys.readouterr().out
    assert "cycle:" not in out and "(2 silenced: cycle ×1, step-budget ×1)" in out
    assert main(["lint", target, "--ignore", "cycles"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "--ignore cycles: no such lint code" in err and "Traceback" not in err
