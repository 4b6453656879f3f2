"""`under_valgrind`: one bench module's `MODE RUNS` entry run under a valgrind tool, in a given tree.

`callgrind_recorder` and `cachegrind_cold` compare this checkout with a baseline tree (a worktree of
an older commit) by running their own module there under valgrind. The run is made deterministic the
same way for both: a fixed hash seed, address-space randomisation off when `setarch` is there, and the
tree first on `sys.path`. Imported by the comparing process only, never by the module run in the tree
(a baseline tree may predate this file).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["ready_to_compare", "under_valgrind"]


def under_valgrind(
    tree: Path, tool: list[str], module: str, mode: str, runs: int
) -> subprocess.CompletedProcess[bytes]:
    """`valgrind TOOL... python -m MODULE MODE RUNS` run in `tree`, its output captured."""
    command = ["valgrind", *tool, sys.executable, "-m", module, mode, str(runs)]
    if shutil.which("setarch"):
        command = ["setarch", "-R", *command]
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(tree)}
    return subprocess.run(command, cwd=tree, env=env, capture_output=True, check=False)


def ready_to_compare(baseline: Path, module_file: str) -> Path:
    """This checkout's root, once valgrind is known to be there and `baseline` has the comparing module
    (`module_file`, copied into its `bench/` when the baseline commit predates it)."""
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    mine = baseline / "bench" / Path(module_file).name
    if not mine.exists():
        shutil.copy(module_file, mine)
    return Path(module_file).resolve().parents[1]
