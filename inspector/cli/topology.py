"""`inspector topology TARGET`: print or write a graph's topology as text, DOT, JSON, Mermaid, SVG or PNG."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from inspector.errors import InspectorError
from inspector.export import render, to_dot, to_json, to_mermaid
from inspector.layout import draw
from inspector.target import load_target

FORMATS = ("text", "dot", "json", "mermaid", "svg", "png")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "topology",
        help="show a graph's nodes and edges (text drawing, DOT, JSON, Mermaid, SVG, PNG)",
        description="Export the topology of TARGET (`package.module:attr` or `path/to/file.py:attr`, naming "
        "a CompiledGraph, Graph, agent or a zero-argument factory).",
    )
    parser.add_argument("target", metavar="TARGET")
    parser.add_argument(
        "--format", "-f", choices=FORMATS, default="text", help="output format (default: text)"
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    parser.add_argument("--highlight", metavar="KEY", help="text format: draw this node with a heavy box")
    parser.add_argument("--expand", action="store_true", help="text format: draw nested graphs expanded")
    parser.add_argument("--names", action="store_true", help="text format: show display names next to keys")
    parser.set_defaults(handler=run)


def produce(subject: Any, args: argparse.Namespace) -> str | bytes:
    """The requested output, as text or (for images) bytes."""
    fmt = args.format
    if fmt == "text":
        return draw(subject, highlight=args.highlight, expand_nested=args.expand, show_names=args.names)
    if fmt == "dot":
        return to_dot(subject)
    if fmt == "json":
        return to_json(subject)
    if fmt == "mermaid":
        return to_mermaid(subject)
    return render(subject, format=fmt)


def _write(path: Path, output: str | bytes) -> None:
    """Write the export, creating missing folders as `inspector record -o` does."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(output, bytes):
            path.write_bytes(output)
        else:
            path.write_text(output, encoding="utf-8")
    except OSError as exc:
        raise InspectorError(f"could not write {path}: {exc.strerror or exc}") from None


def _keys(topology: Any) -> list[str]:
    """Every node key, nested graphs' included (a highlight may name either)."""
    keys: list[str] = []
    for node in topology.nodes:
        keys.append(node.key)
        if node.graph is not None:
            keys.extend(_keys(node.graph))
    return keys


def _check_highlight(key: str, topology: Any, spec: str) -> None:
    keys = _keys(topology)
    if key not in keys:
        listed = ", ".join(f"`{k}`" for k in keys[:20])
        raise InspectorError(f"--highlight `{key}` is not a node of TARGET `{spec}`; its nodes are {listed}")


def run(args: argparse.Namespace) -> int:
    if args.format == "png" and not args.output and sys.stdout.isatty():
        raise InspectorError(
            "--format png writes binary image data, not something to show in a terminal: add "
            "`-o graph.png` (or redirect standard output), or use --format text to draw the graph here"
        )
    target = load_target(args.target)
    if args.highlight is not None:
        _check_highlight(args.highlight, target.topology(), args.target)
    output = produce(target.compiled, args)
    if args.output:
        _write(Path(args.output), output)
        return 0
    if isinstance(output, bytes):
        sys.stdout.flush()
        sys.stdout.buffer.write(output)
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(output)
    return 0
