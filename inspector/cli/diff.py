"""`inspector diff`: (in progress)."""

from __future__ import annotations

import argparse
from typing import Any

from inspector.errors import InspectorError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("diff", help="(in progress)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    raise InspectorError("`inspector diff` is not available yet in this build.")
