"""Run the benchmarks named on the command line, or all of them."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    modules = pkgutil.iter_modules([str(here)])
    available = sorted(m.name.removeprefix("bench_") for m in modules if m.name.startswith("bench_"))
    names = argv or available
    unknown = [n for n in names if n not in available]
    if unknown:
        listing = ", ".join(available)
        print(f"unknown benchmark(s): {', '.join(unknown)}; available: {listing}", file=sys.stderr)
        return 2
    for name in names:
        print(f"== bench {name} ==")
        importlib.import_module(f"bench.bench_{name}").run()
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
