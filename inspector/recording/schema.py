"""The published JSON Schema of run-file lines, generated from the records in `format.py`.

`python3 -m inspector.recording.schema` rewrites `docs/run-format.schema.json`; `--check` exits 1 when
the file is stale (a test runs the check, so the published schema cannot drift from the models).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from inspector.recording.format import FORMAT_NAME, FORMAT_VERSION, line_schema

__all__ = ["SCHEMA_PATH", "render_schema", "run_format_schema"]

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "docs" / "run-format.schema.json"


def run_format_schema() -> dict[str, Any]:
    """JSON Schema for one line of a run file (the header or any event)."""
    schema = line_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://graph-inspector.dev/schemas/{FORMAT_NAME}/v{FORMAT_VERSION}.json",
        "title": f"{FORMAT_NAME} v{FORMAT_VERSION}: one line of a run file (JSON Lines, header first)",
        **schema,
    }


def render_schema() -> str:
    return json.dumps(run_format_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m inspector.recording.schema",
        description=f"Rewrite {SCHEMA_PATH.name} from the run-file models (or check that it is current).",
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if the file is stale")
    args = parser.parse_args(argv)
    text = render_schema()
    if args.check:
        current = SCHEMA_PATH.read_text(encoding="utf-8") if SCHEMA_PATH.exists() else ""
        if current != text:
            print(f"{SCHEMA_PATH} is stale; run `python3 -m inspector.recording.schema`", file=sys.stderr)
            return 1
        return 0
    SCHEMA_PATH.parent.mkdir(parents=True, exist_ok=True)
    SCHEMA_PATH.write_text(text, encoding="utf-8")
    print(f"wrote {SCHEMA_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
