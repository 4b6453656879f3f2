"""TARGET errors name what the attribute is, in readable English."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.target import TargetError, load_target


def test_a_target_of_the_wrong_type_says_what_it_is(tmp_path: Path) -> None:
    module = tmp_path / "targets.py"
    module.write_text("count = 5\nlabel = 'x'\n\ndef make():\n    return 3\n")
    with pytest.raises(TargetError, match=r"is an `int` object, not a CompiledGraph"):
        load_target(f"{module}:count")
    with pytest.raises(TargetError, match=r"is a `str` object"):
        load_target(f"{module}:label")
    with pytest.raises(TargetError, match=r"was called and returned an `int` object"):
        load_target(f"{module}:make")


def test_a_multi_agent_flow_is_refused_with_what_to_name_instead(tmp_path: Path) -> None:
    module = tmp_path / "flows.py"
    module.write_text(
        "from graph_core.agents.adk import ChatModelAgent\n"
        "from graph_core.agents.adk_flow import set_sub_agents\n"
        "from graph_core.models import ScriptedChatModel\n"
        "from graph_core.schema import Message\n"
        "def _agent(name):\n"
        "    model = ScriptedChatModel([Message.assistant('ok')])\n"
        "    return ChatModelAgent(name=name, description=name, model=model)\n"
        "router = _agent('router')\n"
        "flow = set_sub_agents(router, [_agent('weather')])\n"
    )
    with pytest.raises(
        TargetError, match=r"is a multi-agent flow \(`FlowAgent` `router`\).*Name one of its agents"
    ):
        load_target(f"{module}:flow")
    assert load_target(f"{module}:router").is_agent  # one of its agents is a target
