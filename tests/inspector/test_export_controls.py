"""C1 control characters (U+0080-U+009F) in keys: terminals read `\\x9b` as CSI, so they must show as
escapes in every picture, as C0 controls already do."""

from __future__ import annotations

from graph_core.topology import END, START, Topology, TopologyEdge, TopologyNode, build_topology
from inspector.export import dot_text, mermaid_text, to_dot, to_mermaid
from inspector.layout import draw

KEY = "a\x9b31mb\x85c\x80"


def _topology(key: str = KEY, name: str = "g\x9b") -> Topology:
    return build_topology(
        name=name,
        nodes=[TopologyNode(key=key, kind="Lambda")],
        edges=[TopologyEdge(source=START, target=key), TopologyEdge(source=key, target=END)],
    )


def _has_c1(text: str) -> bool:
    return any(0x80 <= ord(ch) < 0xA0 for ch in text)


def test_c1_controls_are_escaped_in_the_terminal_drawing() -> None:
    text = draw(_topology())
    assert not _has_c1(text)
    assert "a\\x9b31mb\\x85c\\x80" in text


def test_c1_controls_are_escaped_in_dot_and_mermaid() -> None:
    assert not _has_c1(to_dot(_topology()))
    assert not _has_c1(to_mermaid(_topology()))
    assert "\\\\x9b" in str(dot_text(KEY))
    assert mermaid_text(KEY) == "a#92;x9b31mb#92;x85c#92;x80"


def test_printable_latin1_is_kept() -> None:
    assert "café ÿ ¡" in draw(_topology("café ÿ ¡", "g"))
