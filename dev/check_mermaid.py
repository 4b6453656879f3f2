"""Developer check: the Mermaid export parses with the real Mermaid parser, hostile labels included.

Not a unit test: it needs Node and the npm packages `mermaid` and `jsdom`, which the project does not
install. Set up once, anywhere outside the checkout:

    mkdir -p /tmp/mmd && cd /tmp/mmd && npm init -y && npm install mermaid jsdom

then, from the checkout: `MERMAID_NODE_MODULES=/tmp/mmd/node_modules python3 dev/check_mermaid.py`.
It exports the weather agent, the hostile topologies of the tests and every hostile text as a node key,
a tool name and a branch label, parses each with Mermaid, and checks that Mermaid read every edge and
vertex label back as the text we meant (after decoding Mermaid's own entity placeholders). Exit status
0 when all agree.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fixtures.weather import build_agent  # noqa: E402
from graph_core.topology import END, START, TopologyEdge, TopologyNode, build_topology  # noqa: E402
from inspector.export import to_mermaid  # noqa: E402
from tests.inspector.test_export_details import HOSTILE_TEXT, _hostile_topology  # noqa: E402
from tests.inspector.test_export_shapes import HOSTILE_KEYS, hostile_topology  # noqa: E402

# Mermaid turns `#name;` into these placeholders while parsing and back into `&name;` when it draws.
_PLACEHOLDER = re.compile(r"ﬂ°(°?)(\w+)¶ß")


def _shown(text: str) -> str:
    """What a browser shows for a parsed Mermaid label: placeholders -> entities -> characters."""
    entities = _PLACEHOLDER.sub(lambda m: f"&#{m.group(2)};" if m.group(1) else f"&{m.group(2)};", text)
    return html.unescape(re.sub(r"<br/?>", "\n", entities))


def _cases() -> dict[str, tuple[str, list[str], list[str]]]:
    """name -> (mermaid text, expected edge labels, expected texts that must appear among vertices)."""
    cases: dict[str, tuple[str, list[str], list[str]]] = {}
    cases["weather"] = (
        to_mermaid(build_agent()),
        ["", "", "tool calls", "final answer", "next round", "return directly"],
        ["chat\n(ChatModel)\nScriptedChatModel", "tools\n(Tools)\nget_weather(city: string)"],
    )
    cases["hostile_keys"] = (
        to_mermaid(hostile_topology()),
        [""] * len(hostile_topology().edges),
        [f"{key}\n(name of {key})" for key in HOSTILE_KEYS],
    )
    hostile = _hostile_topology()
    cases["hostile_details"] = (
        to_mermaid(hostile),
        ["" if e.label is None else e.label for e in hostile.edges],
        ['chat\nModel<T> gpt "4" & <o>'],
    )
    from inspector.export import RunOverlay
    from inspector.recording import read_run

    run = read_run(ROOT / "fixtures" / "runs" / "runaway.jsonl")
    cases["runaway_overlay"] = (
        to_mermaid(build_agent(), overlay=RunOverlay.from_run(run)),
        ["×1", "", "tool calls ×6", "final answer", "next round ×6", "return directly"],
        ["chat\n(ChatModel)\nScriptedChatModel\nran 7×", "direct_return\nnot run"],
    )
    for i, text in enumerate(HOSTILE_TEXT):
        topology = build_topology(
            name=text,
            nodes=[TopologyNode(key=text, kind="Lambda")],
            edges=[
                TopologyEdge(source=START, target=text, kind="branch", branch_index=0, label=text),
                TopologyEdge(source=text, target=END, label=text),
            ],
        )
        cases[f"text_{i}"] = (to_mermaid(topology), [text, text], [text])
    return cases


def main() -> int:
    modules = os.environ.get("MERMAID_NODE_MODULES")
    node = shutil.which("node")
    if not modules or not node:
        print(
            "needs `node` and MERMAID_NODE_MODULES=<dir>/node_modules with mermaid and jsdom (see docstring)"
        )
        return 2
    cases = _cases()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "parse.mjs"
        shutil.copy(Path(__file__).with_name("mermaid_parse.mjs"), script)
        os.symlink(modules, Path(tmp) / "node_modules")
        files = []
        for name, (text, _, _) in cases.items():
            path = Path(tmp) / f"{name}.mmd"
            path.write_text(text, encoding="utf-8")
            files.append(str(path))
        result = subprocess.run([node, str(script), *files], capture_output=True, text=True, check=False)
    problems = 0
    results = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    for (name, (_, edge_labels, vertex_texts)), parsed in zip(cases.items(), results, strict=True):
        if not parsed["ok"]:
            print(f"FAIL {name}: Mermaid could not parse it: {parsed['error'][:300]}")
            problems += 1
            continue
        got_edges = [_shown(e[2]) for e in parsed["edges"]]
        got_vertices = [_shown(v[1]) for v in parsed["vertices"]]
        missing = [t for t in vertex_texts if t not in got_vertices]
        if got_edges != edge_labels or missing:
            print(f"FAIL {name}: edges {got_edges!r} != {edge_labels!r} or vertices missing {missing!r}")
            problems += 1
        else:
            print(f"ok   {name}: {len(got_edges)} edges, {len(got_vertices)} vertices read back literally")
    if result.returncode not in (0, 1) or len(results) != len(cases):
        print(result.stderr[-2000:])
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
