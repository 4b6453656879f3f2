"""`inspector serve RUN [--port N] [--host H]`: the replay debugger in a browser, through textual-serve.

Nothing of the TUI is written twice: each browser tab gets its own `inspector replay RUN` process, drawn
by Textual's web driver. The server listens on 127.0.0.1 unless `--host` says otherwise, and then says
that anyone who can reach the port can read the run.
"""

from __future__ import annotations

import argparse
import shlex
import socket
import sys
from pathlib import Path
from typing import Any

from inspector.errors import InspectorError
from inspector.recording import read_run

__all__ = ["LOOPBACK", "free_port", "register", "run"]

LOOPBACK = "127.0.0.1"


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {value}")
    return value


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="open the replay debugger in a browser (textual-serve, loopback only by default)",
        description=(
            "Serve the replay debugger for RUN over HTTP: open the printed URL in a browser. It listens on "
            "127.0.0.1 (this machine only) unless --host is given. Ctrl-C stops it."
        ),
    )
    parser.add_argument("run_file", metavar="RUN", help="run file (JSONL from `inspector record`)")
    parser.add_argument("--port", type=_port, default=0, metavar="N", help="port (default: a free one)")
    parser.add_argument(
        "--host",
        default=LOOPBACK,
        metavar="H",
        help="address to listen on (default 127.0.0.1; anyone who can reach another one can read the run)",
    )
    parser.add_argument("--lenient", action="store_true", help="skip corrupt lines instead of failing")
    parser.set_defaults(handler=run)


def free_port(host: str, port: int) -> int:
    """`port` if it can be bound on `host` (0: a free one the system picks); a busy port is refused."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError as error:
            raise InspectorError(
                f"cannot listen on {host} port {port}: {error.strerror or error} (choose another with --port)"
            ) from None
        return probe.getsockname()[1]


def run(args: argparse.Namespace) -> int:
    try:
        from textual_serve.server import Server
    except ImportError:
        raise InspectorError(
            "`inspector serve` needs textual-serve: pip install 'graph-inspector[serve]'"
        ) from None
    path = Path(args.run_file).resolve()
    read_run(path, lenient=args.lenient)  # a bad run file is refused here, not in each browser tab
    port = free_port(args.host, args.port)
    command = [sys.executable, "-m", "inspector", "replay", str(path)]
    if args.lenient:
        command.append("--lenient")
    if args.host not in (LOOPBACK, "localhost", "::1"):
        print(
            f"inspector: warning: listening on {args.host}: anyone who can reach port {port} there can "
            "read this run in their browser",
            file=sys.stderr,
        )
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"serving {path.name} at http://{shown_host}:{port}/ (Ctrl-C stops)", flush=True)
    server = Server(shlex.join(command), host=args.host, port=port, title=f"inspector: {path.name}")
    server.initialize_logging = lambda: None  # type: ignore[method-assign]  # our own line says it all
    server.console.quiet = True
    server.serve()
    return 0
