"""`inspector receive [--port 4318] [--host 127.0.0.1] -o DIR`: a local OTLP/HTTP receiver.

Point an OpenTelemetry-instrumented agent's `OTEL_EXPORTER_OTLP_ENDPOINT` at it: every trace becomes
a run file in DIR, rewritten as its spans arrive, which `inspector replay --follow DIR/FILE` shows
live. Binds to loopback unless `--host` says otherwise; Ctrl-C stops it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "receive",
        help="receive OTLP/HTTP traces on loopback and write one run file per trace",
        description="Listen for OTLP/HTTP (protobuf or JSON) on /v1/traces; write each trace as a run "
        "file in DIR.",
    )
    parser.add_argument("-o", "--output", metavar="DIR", required=True, help="folder for the run files")
    parser.add_argument(
        "--port", type=int, default=4318, help="port to listen on (default 4318; 0: any free)"
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from inspector.otel.receiver import Receiver

    receiver = Receiver(Path(args.output), host=args.host, port=args.port)
    print(
        f"inspector: receiving OTLP/HTTP on {receiver.url}/v1/traces, writing runs to {args.output}",
        file=sys.stderr,
        flush=True,
    )
    try:
        receiver.serve_forever()
    except KeyboardInterrupt:
        return 130
    finally:
        receiver.shutdown()
    return 0
