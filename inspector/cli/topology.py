"""`inspector topology (TARGET | RUN.jsonl) [--run RUN.jsonl]`: draw a graph, or what a run did on it.

The graph comes from a TARGET (imported, so its module's top-level code runs) or from a run file's
header (the topology recorded with the run: nothing is imported). `--run` overlays a recorded run: visit
counts, edges taken with counts, how the run ended and the loop that burned the budget, in every
format (text, DOT, Mermaid, JSON, SVG and PNG, where it is a heat map).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.cli.console import write_json, write_text
from inspector.errors import InspectorError

if TYPE_CHECKING:  # the exporters, the drawing and networkx load only for this command
    from graph_core.topology import Topology
    from inspector.export import RunOverlay

FORMATS = ("text", "dot", "json", "mermaid", "svg", "png")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "topology",
        help="show a graph's nodes and edges, or a run on its graph (text, DOT, JSON, Mermaid, SVG, PNG)",
        description="Export the topology of TARGET (`package.module:attr` or `path/to/file.py:attr`, naming "
        "a CompiledGraph, Graph, agent or a zero-argument factory; the module is imported, so its top-level "
        "code runs) or of the graph recorded in RUN.jsonl. With --run, draw what that run did on the graph.",
    )
    parser.add_argument("target", metavar="TARGET_OR_RUN")
    parser.add_argument(
        "--format", "-f", choices=FORMATS, default="text", help="output format (default: text)"
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    parser.add_argument(
        "--run",
        metavar="RUN",
        action="append",
        help="overlay a recorded run: visits, edges taken, how it ended; a folder, or --run given "
        "several times, sums many runs (visits, and the share of runs that took each edge)",
    )
    parser.add_argument("--highlight", metavar="KEY", help="text format: draw this node with a heavy box")
    parser.add_argument("--expand", action="store_true", help="text format: draw nested graphs expanded")
    parser.add_argument("--names", action="store_true", help="text format: show display names next to keys")
    from inspector.sources.langgraph import add_thread_options

    add_thread_options(parser, target=False)
    parser.set_defaults(handler=run)


def _open_threads(args: argparse.Namespace) -> None:
    """A LangGraph checkpointer given as the graph or as a --run becomes its thread's run file."""
    from inspector.sources.langgraph import is_checkpointer, run_source

    picks = {"branch": args.branch, "checkpoint": args.checkpoint}
    found = is_checkpointer(args.target)
    if found:
        args.target = run_source(args.target, args.thread, **picks)
    for position, source in enumerate(args.run or []):
        if is_checkpointer(source):
            found = True
            if args.thread is not None:  # without it, every thread is summed (inspector.catalog.overlay)
                args.run[position] = run_source(source, args.thread, **picks)
    if not found:
        run_source(args.target, args.thread, **picks)  # refuses --thread for what is no checkpointer


def _text(subject: Any, args: argparse.Namespace, overlay: RunOverlay | None) -> str:
    from graph_core.topology import END, START
    from inspector.layout import draw

    options: dict[str, Any] = {
        "highlight": args.highlight,
        "expand_nested": args.expand,
        "show_names": args.names,
    }
    if overlay is None:
        return draw(subject, **options)
    drawing = draw(
        subject,
        executed_nodes=[k for k in overlay.visits if k not in (START, END)],
        executed_edges=list(overlay.edges),
        node_notes=overlay.node_notes(),
        edge_notes=overlay.edge_notes(),
        **options,
    )
    return drawing + "".join(f"{line}\n" for line in overlay.key_lines())


def produce(subject: Any, args: argparse.Namespace, overlay: RunOverlay | None = None) -> str | bytes:
    """The requested output, as text or (for images) bytes."""
    from inspector.export import render, to_dot, to_mermaid, topology_document

    fmt = args.format
    if fmt == "text":
        return _text(subject, args, overlay)
    if fmt == "dot":
        return to_dot(subject, overlay=overlay)
    if fmt == "json":
        document = topology_document(subject)
        if overlay is not None:
            document["run"] = overlay.to_dict()
        return json.dumps(document, sort_keys=True, ensure_ascii=False, indent=2) + "\n"
    if fmt == "mermaid":
        return to_mermaid(subject, overlay=overlay)
    return render(subject, format=fmt, overlay=overlay)


def is_topology_export(start: bytes) -> bool:
    """Whether `start` (a file's first bytes) begins something this command writes, in any format: an
    earlier export is overwritten, anything else refused (`refuse_to_clobber`). A PNG carries no mark of
    what drew it, so any PNG counts; an SVG must say Graphviz made it; a text drawing starts with a
    line of box-drawing characters."""
    from inspector.export._canonical import FORMAT

    if start.startswith((b"digraph ", b"strict digraph ", b"flowchart ", _PNG)):
        return True
    if re.match(rb'\{\s*"format":\s*"' + re.escape(FORMAT.encode()) + rb'"', start):
        return True
    if start.startswith(b"<?xml") or start.startswith(b"<svg"):
        return b"Generated by graphviz" in start
    first = start.decode("utf-8", errors="ignore").split("\n", 1)[0].strip()
    return bool(first) and all("\u2500" <= ch <= "\u257f" for ch in first)


_PNG = b"\x89PNG\r\n\x1a\n"


def _write(path: Path, output: str | bytes) -> None:
    """Write the export, creating missing folders as `inspector record -o` does, never over a file that
    is not an earlier export (`refuse_to_clobber`, the rule of every -o)."""
    from inspector.cli.record import refuse_to_clobber

    refuse_to_clobber(path, ours=is_topology_export, what="a topology export", writing="the export")
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


def _check_highlight(key: str, topology: Any, where: str) -> None:
    keys = _keys(topology)
    if key not in keys:
        listed = ", ".join(f"`{k}`" for k in keys[:20])
        raise InspectorError(f"--highlight `{key}` is not a node of {where}; its nodes are {listed}")


def _is_run_file(spec: str) -> bool:
    """A run file is named by its path (an existing file or a `.jsonl` name); a TARGET always has
    `:attribute` after a module or .py file, and anything else gets TARGET's own error message."""
    path = Path(spec)
    if path.suffix == ".jsonl":
        return True
    return path.is_file() and path.suffix != ".py"


def _recorded_topology(path: str) -> Topology:
    from inspector.sources import open_run

    run = open_run(path)
    if run.topology is None:
        raise InspectorError(
            f"run file {path} holds no topology (it was recorded without one): draw the graph from its "
            "TARGET instead, `inspector topology module:attr` (with `--run {path}` to overlay the run)"
        )
    return run.topology


def run(args: argparse.Namespace) -> int:
    from inspector.target import load_target

    if args.format == "png" and not args.output and sys.stdout.isatty():
        raise InspectorError(
            "--format png writes binary image data, not something to show in a terminal: add "
            "`-o graph.png` (or redirect standard output), or use --format text to draw the graph here"
        )
    subject: Any
    _open_threads(args)
    if Path(args.target).is_dir():
        raise InspectorError(
            f"{args.target} is a folder: draw a graph from a TARGET or one run file, and sum the folder's "
            f"runs on it with `--run {args.target}`"
        )
    if _is_run_file(args.target):
        subject = _recorded_topology(args.target)
        topology = subject
        where = f"the graph recorded in `{args.target}`"
    else:
        target = load_target(args.target)
        subject = target.compiled
        topology = target.topology()
        where = f"TARGET `{args.target}`"
    if args.highlight is not None:
        _check_highlight(args.highlight, topology, where)
    overlay = None
    if args.run:  # one run, or many summed (folders, checkpointers, trace files: the catalog finds them)
        from inspector.catalog.overlay import fleet_overlay

        overlay = fleet_overlay(list(args.run), topology, spec=args.target)
    output = produce(subject, args, overlay)
    if args.output:
        _write(Path(args.output), output)
        return 0
    if isinstance(output, bytes):
        sys.stdout.flush()
        sys.stdout.buffer.write(output)
        sys.stdout.buffer.flush()
    elif args.format == "json":
        write_json(output)
    else:
        write_text(output)
    return 0
