"""graph_core must stay headless: importing it (and its agents) loads no UI, export or inspector code."""

import json
import subprocess
import sys

FORBIDDEN = ("textual", "networkx", "graphviz", "inspector", "rich", "httpx", "langgraph", "langchain_core")
MODULES = (
    "graph_core.schema",
    "graph_core.topology",
    "graph_core.callbacks",
    "graph_core.errors",
    "graph_core.graph",
    "graph_core.branch",
    "graph_core.lambda_",
    "graph_core.state",
    "graph_core.stream",
    "graph_core.runner",
    "graph_core.tools",
    "graph_core.models",
    "graph_core.agents.react",
    "graph_core.agents.adk",
)


def test_import_graph_core_loads_no_inspector_dependencies() -> None:
    code = (
        "import sys, json, importlib\n"
        f"MODULES = {MODULES!r}\n"
        "import graph_core\n"
        "for name in MODULES:\n"
        "    importlib.import_module(name)\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == []
