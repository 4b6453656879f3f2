"""`inspector topology TARGET`: print or write a graph's topology as text, DOT, JSON, Mermaid, SVG or PNG."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

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


def run(args: argparse.Namespace) -> int:
    target = load_target(args.target)
    output = produce(target.compiled, args)
    if args.output:
        path = Path(args.output)
        if isinstance(output, bytes):
            path.write_bytes(output)
        else:
            path.write_text(output, encoding="utf-8")
        return 0
    if isinstance(output, bytes):
        sys.stdout.flush()
        sys.stdout.buffer.write(output)
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(output)
    return 0
