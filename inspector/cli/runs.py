"""`inspector runs SOURCE...`: the catalog of every run in folders, run files, LangGraph checkpointers
(each thread) and OTLP trace files (each run), filtered, sorted, as a table, JSON or CSV, or as
statistics across the runs (`--stats`).

Exit status 0 when runs are listed, 1 when none is (for scripts and CI: `inspector runs ci/ --status
error` succeeds exactly when some run failed), 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["register", "run"]


def _pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, not {text!r}")
    return key, value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text!r}")
    return value


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "runs",
        help="list the runs in folders, run files, checkpointers and trace files, filter them, or sum "
        "them up (--stats)",
        description="List every run SOURCE holds (folders are searched recursively; run files named "
        "directly; every thread of a LangGraph checkpointer, listed as DB#THREAD; every run of an OTLP "
        "trace file, as TRACE#RUN): id, path, graph, status, steps, model and tool calls, tokens, "
        "duration, start, diagnostics, tags. A second listing reads only what changed (an index in the "
        "cache folder). Exit 0 with runs listed, 1 with none, 2 on bad input.",
    )
    parser.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="a folder, a run file, a LangGraph checkpointer (SQLite file or postgresql:// URL), an OTLP "
        "trace file; KIND:PATH names the kind (runfile, langgraph, otlp)",
    )
    parser.add_argument(
        "--status",
        action="append",
        default=[],
        help="keep runs with this status (ok, error, interrupted, incomplete, running, corrupt); "
        "repeat or comma-separate",
    )
    parser.add_argument(
        "--graph",
        action="append",
        default=[],
        metavar="GLOB",
        help="keep runs of this graph (target or name; a glob)",
    )
    parser.add_argument(
        "--visited", action="append", default=[], metavar="NODE", help="keep runs that ran NODE"
    )
    parser.add_argument(
        "--diag",
        action="append",
        default=[],
        metavar="CODE",
        help="keep runs with this diagnostic (budget-exhausted, tool-failed, ...)",
    )
    parser.add_argument(
        "--since", metavar="TIME", help="keep runs started at or after TIME (ISO date or date-time)"
    )
    parser.add_argument("--until", metavar="TIME", help="keep runs started at or before TIME")
    parser.add_argument(
        "--tag",
        action="append",
        default=[],
        type=_pair,
        metavar="KEY=VALUE",
        help="keep runs tagged KEY=VALUE (`inspector record --tag`)",
    )
    parser.add_argument(
        "--where",
        metavar="COND",
        help='a condition on the fields, as `--when` takes it: "tokens > 5000 and steps >= 10"',
    )
    parser.add_argument(
        "--sort",
        metavar="FIELD",
        help="sort by FIELD (steps, tokens, duration, started_at, ...); -FIELD for descending",
    )
    parser.add_argument("--limit", type=_count, metavar="N", help="list at most N runs (after sorting)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print a JSON list of runs")
    output.add_argument("--csv", action="store_true", help="print CSV")
    parser.add_argument(
        "--stats",
        action="store_true",
        help="statistics across the selected runs: per node, per branch, budget, slowest and costliest",
    )
    parser.add_argument(
        "--index", metavar="PATH", help="the index file (default: the user's cache folder); `-` for none"
    )
    parser.add_argument("--verbose", "-v", action="store_true", help="name the files skipped")
    parser.set_defaults(handler=run)


def filters_from(args: argparse.Namespace) -> Any:
    from inspector.catalog.listing import Filters, parse_time
    from inspector.catalog.where import parse_where

    statuses = [s.strip() for text in args.status for s in text.split(",") if s.strip()]
    return Filters(
        status=statuses,
        graph=list(args.graph),
        visited=list(args.visited),
        diag=list(args.diag),
        since=None if args.since is None else parse_time(args.since, option="--since"),
        until=None if args.until is None else parse_time(args.until, option="--until"),
        tags=list(args.tag),
        where=None if args.where is None else parse_where(args.where),
    )


def index_path(text: str | None) -> Path | None:
    from inspector.catalog.index import default_index_path

    if text == "-":
        return None
    return default_index_path() if text is None else Path(text)


def run(args: argparse.Namespace) -> int:
    from inspector.catalog import Catalog, fleet_stats, stats_text
    from inspector.catalog.listing import select, sort_records, to_csv, to_json, to_table

    filters = filters_from(args)
    if args.sort:
        sort_records([], args.sort)  # a bad field is refused before anything is read
    catalog = Catalog(index=index_path(args.index))
    try:
        from inspector.forked import can_fork, usable_cpus

        jobs = min(usable_cpus(), 4) if can_fork() else 1
        scan = catalog.scan(args.sources, walk=args.stats or filters.need_walk, jobs=jobs)
    finally:
        catalog.close()
        for note in catalog.notes:
            print(f"inspector: note: {note}", file=sys.stderr)
    _report_skipped(scan.skipped, verbose=args.verbose)
    records = sort_records(select(scan.records, filters), args.sort)
    if args.limit is not None:
        records = records[: args.limit]
    if args.stats:
        stats = fleet_stats(records)
        if args.json:
            sys.stdout.write(json.dumps(stats.to_json(), indent=2) + "\n")
        else:
            sys.stdout.write(stats_text(stats))
    elif args.json:
        sys.stdout.write(to_json(records))
    elif args.csv:
        sys.stdout.write(to_csv(records))
    elif records:
        sys.stdout.write(to_table(records))
    else:
        print(f"no runs match (of {len(scan.records)} found)", file=sys.stderr)
    return 0 if records else 1


def _report_skipped(skipped: Any, *, verbose: bool) -> None:
    if skipped.not_runs:
        hint = "" if verbose else " (--verbose names them)"
        print(f"inspector: skipped {len(skipped.not_runs)} files that are not runs{hint}", file=sys.stderr)
        if verbose:
            for path in skipped.not_runs:
                print(f"  not a run: {path}", file=sys.stderr)
    for path, why in skipped.unreadable:
        print(f"inspector: cannot read {path}: {why}", file=sys.stderr)
