"""`inspector export RUN (-o TRACE.json | --otlp [URL])`: a recorded run as OpenTelemetry traces.

`-o` writes OTLP JSON (the OpenTelemetry Collector file exporter's format, one request per line);
`--otlp URL` sends OTLP/HTTP (protobuf) to a collector or backend (`--otlp` alone: the endpoint in
`OTEL_EXPORTER_OTLP_ENDPOINT`). Ids and times come from the recording, so exporting twice gives the
same trace. A backend that does not take the spans is one warning line and exit status 1; the mapping
is in docs/opentelemetry.md.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from inspector.errors import InspectorError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export",
        help="send a recorded run to an OpenTelemetry backend, or write it as OTLP JSON",
        description="Export RUN as OpenTelemetry GenAI spans: -o writes OTLP JSON, --otlp sends OTLP/HTTP.",
    )
    parser.add_argument("run_file", metavar="RUN", help="run file (or any run source) to export")
    parser.add_argument("-o", "--output", metavar="TRACE.json", help="write OTLP JSON to this file")
    parser.add_argument(
        "--otlp",
        metavar="URL",
        nargs="?",
        const="",
        help="send over OTLP/HTTP to URL (a collector address such as http://127.0.0.1:4318, or its "
        "/v1/traces endpoint); without URL, OTEL_EXPORTER_OTLP_ENDPOINT",
    )
    parser.add_argument("--lenient", action="store_true", help="skip corrupt lines instead of failing")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.output is None and args.otlp is None:
        raise InspectorError("export needs somewhere to put the trace: -o TRACE.json, --otlp URL, or both")
    from inspector.otel.exporters import send_run, write_trace_file
    from inspector.sources import open_run

    recorded = open_run(args.run_file, lenient=args.lenient)
    code = 0
    if args.output is not None:
        try:
            count = write_trace_file(recorded, args.output)
        except OSError as exc:
            raise InspectorError(f"cannot write {args.output}: {exc.strerror or exc}") from None
        print(f"wrote {count} spans to {args.output}", file=sys.stderr)
    if args.otlp is not None:
        count, warning = send_run(recorded, args.otlp or None)
        if warning:
            print(f"inspector: warning: {warning}", file=sys.stderr)
            code = 1
        else:
            print(f"sent {count} spans", file=sys.stderr)
    return code
