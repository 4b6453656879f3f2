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


# Bidi overrides and isolates reorder what a terminal (or a browser showing an SVG) draws around them;
# zero-width characters hide, so a key made only of them draws as an empty box. Both show as \uXXXX.
INVISIBLE = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u200e\u200f\ufeff"
BIDI_KEY = "safe\u202eexe.txt"


def _has_invisible(text: str) -> bool:
    return any(ch in INVISIBLE for ch in text)


def test_bidi_and_zero_width_characters_are_escaped_in_the_terminal_drawing() -> None:
    text = draw(_topology(BIDI_KEY, "g\u2066x\u2069"))
    assert not _has_invisible(text)
    assert "safe\\u202eexe.txt" in text
    every = draw(_topology(f"k{INVISIBLE}", "g"))
    assert not _has_invisible(every)
    assert "k" + "".join(f"\\u{ord(ch):04x}" for ch in INVISIBLE) in every


def test_a_key_of_only_a_zero_width_space_draws_visibly() -> None:
    text = draw(_topology("\u200b", "g"))
    assert "\\u200b" in text
    assert "\u200b" not in text


def test_bidi_and_zero_width_characters_are_escaped_in_dot_and_mermaid() -> None:
    for key, name in ((BIDI_KEY, "g\u202b"), ("\u200b", "\ufeffg")):
        assert not _has_invisible(to_dot(_topology(key, name)))
        assert not _has_invisible(to_mermaid(_topology(key, name)))
    assert str(dot_text(BIDI_KEY)) == "safe\\\\u202eexe.txt"
    assert mermaid_text("\u200b") == "#92;u200b"


def test_a_joiner_inside_an_emoji_sequence_is_kept() -> None:
    """U+200D between two pictographs draws one visible glyph (a family); only a stray one hides."""
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert family in draw(_topology(f"{family} fam", "g"))
    assert mermaid_text(f"{family}") == family
    assert mermaid_text("a\u200db") == "a#92;u200db"
    assert mermaid_text("\u200d\U0001f469") == "#92;u200d\U0001f469"
