"""Node and edge statements appended straight to a `graphviz.Digraph`'s body, byte for byte what its
`node()` and `edge()` methods write, at a fraction of the cost.

Why: at 10,000 nodes most of `to_dot` went into the graphviz package re-quoting the same few attribute
names and values (`shape`, `box`, `#bbdefb`, ...) through a signature-checking wrapper, once per
statement. Here the quoting of our own constant strings is remembered; user text (always a
`graphviz.nohtml` string from `dot_text`) is quoted afresh each time, by the package's own `quote`, so
a `<...>` key still never becomes an HTML label. The statement layout (`\\t{id} [label=... k=v]\\n`,
label first, other attributes sorted by name, `None` left out) is the package's; a test holds the two
side by side.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, cast

from graphviz import quoting

if TYPE_CHECKING:
    import graphviz

__all__ = ["add_edge", "add_node"]

# the package's `quote` without its positional-argument deprecation wrapper (same function underneath)
_quote = cast("Callable[[str], str]", getattr(quoting.quote, "__wrapped__", quoting.quote))
_quote_constant: Callable[[str], str] = functools.lru_cache(maxsize=4096)(_quote)


_is_id = quoting.ID.match
_KEYWORDS = quoting.KEYWORDS


def _quoted(value: str) -> str:
    """The package's `quote(value)`.

    Only exact `str` is cached: a `nohtml` string equal to an HTML-looking constant quotes differently.
    A `nohtml` string without a double quote or a final backslash (what `dot_text` gives for almost
    every label) skips the package's quote-escaping substitution, which would leave it unchanged.
    """
    if type(value) is str:
        return _quote_constant(value)
    if isinstance(value, quoting.NoHtml) and '"' not in value and not value.endswith("\\"):
        if _is_id(value) and value.lower() not in _KEYWORDS:
            return value
        return f'"{value}"'
    return _quote(value)


def _attr_list(label: str | None, attrs: Mapping[str, str | None]) -> str:
    parts = [f"label={_quoted(label)}"] if label is not None else []
    parts += [f"{_quoted(k)}={_quoted(v)}" for k, v in sorted(attrs.items()) if v is not None]
    return f" [{' '.join(parts)}]" if parts else ""


def add_node(dot: graphviz.Digraph, node_id: str, attrs: Mapping[str, str | None]) -> None:
    """`dot.node(node_id, **attrs)`; `attrs` may hold `label` (written first, as the package does)."""
    rest = {k: v for k, v in attrs.items() if k != "label"}
    dot.body.append(f"\t{_quoted(node_id)}{_attr_list(attrs.get('label'), rest)}\n")


def add_edge(dot: graphviz.Digraph, tail: str, head: str, attrs: Mapping[str, str | None]) -> None:
    """`dot.edge(tail, head, **attrs)` for plain node ids (no `:port`, which ours never have)."""
    if ":" in tail or ":" in head:
        dot.edge(tail, head, **attrs)
        return
    rest = {k: v for k, v in attrs.items() if k != "label"}
    dot.body.append(f"\t{_quoted(tail)} -> {_quoted(head)}{_attr_list(attrs.get('label'), rest)}\n")
