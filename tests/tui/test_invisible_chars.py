"""Bidi overrides/isolates and zero-width characters from a run show as `\\uXXXX` on the TUI's screen,
as control characters show as `\\xNN`: a node key must not reorder the row around it or vanish."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph_core.callbacks import Budget, RunInfo, StepInfo
from graph_core.schema import Message
from graph_core.topology import END, START, TopologyEdge, TopologyNode, build_topology
from inspector.recording import Recorder
from inspector.tui import make_app
from inspector.tui.literal import one_line, visible
from inspector.tui.messages_pane import render_messages
from tests.tui.conftest import SIZE, clock, screen_text

pytestmark = pytest.mark.anyio

INVISIBLE = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u200e\u200f\ufeff"
KEY = "ab\u202ecd"


def test_visible_escapes_every_bidi_and_zero_width_character() -> None:
    assert visible(f"x{INVISIBLE}y") == "x" + "".join(f"\\u{ord(c):04x}" for c in INVISIBLE) + "y"
    assert one_line("\u200b").plain == "\\u200b"


def test_messages_show_bidi_overrides_escaped() -> None:
    plain = render_messages([Message.user("pay \u202e1000\u202c now\ufeff")]).plain
    assert "pay \\u202e1000\\u202c now\\ufeff" in plain
    assert not any(ch in plain for ch in INVISIBLE)


def _run(path: Path) -> Path:
    topology = build_topology(
        name="g\u2067name",
        nodes=[TopologyNode(key=KEY, kind="Lambda"), TopologyNode(key="\u200b", kind="Lambda")],
        edges=[
            TopologyEdge(source=START, target=KEY),
            TopologyEdge(source=KEY, target="\u200b"),
            TopologyEdge(source="\u200b", target=END),
        ],
    )
    recorder = Recorder(path, topology=topology, clock=clock(), run_id="bidi")
    graph = RunInfo(node_key=None, name="g\u2067name", kind="Graph", graph_name="g\u2067name")
    recorder.on_start(graph, "in")
    for i, key in enumerate((KEY, "\u200b")):
        recorder.on_step_start(StepInfo(index=i, nodes=(key,), budget=Budget.of(i, 10)))
        info = RunInfo(node_key=key, name=key, kind="Lambda", path=(key,), step=i)
        recorder.on_start(info, "in\u2066put")
        recorder.on_end(info, "out\u200fput")
        recorder.on_step_end(StepInfo(index=i, nodes=(key,), budget=Budget.of(i + 1, 10)))
    recorder.on_end(graph, "done")
    recorder.close()
    return path


async def test_the_screen_shows_them_escaped(tmp_path: Path) -> None:
    app = make_app(_run(tmp_path / "bidi.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert not any(ch in text for ch in INVISIBLE)
        assert "ab\\u202ecd" in text  # graph pane, timeline and node detail
        assert "g\\u2067name" in text  # status line
        assert "in\\u2066put" in text and "out\\u200fput" in text  # node detail
        await pilot.press("n")
        await pilot.pause()
        assert "\\u200b" in screen_text(app)
