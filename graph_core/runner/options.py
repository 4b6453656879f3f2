"""`RunOptions`: the keyword options every run entry point takes, declared once.

`CompiledGraph.invoke`/`ainvoke`/`stream`/`astream` (and the agents that forward to them) accept these as
`**options: Unpack[RunOptions]`, so pyright and editors still see each option by name and type while the
four entry points do not repeat them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypedDict

__all__ = ["RUN_OPTION_NAMES", "RunOptions", "check_run_options"]


class RunOptions(TypedDict, total=False):
    """Options of one run; every one may be left out.

    - `callbacks` (default `()`): observers of the run (`on_start`/`on_end`/`on_error`, step hooks).
    - `max_steps` overrides the compiled budget for this run (Pregel only; `None` keeps it).
    - `cancel_event`: setting it stops the run before its next step with
      `GraphRunError("context has been canceled: ...")`.
    - `checkpoint_id` (with a `checkpoint_store` at compile time): an interrupted run saves its checkpoint
      under that ID (or `write_checkpoint_id`), and a run with the ID of a saved checkpoint resumes it:
      `input` is ignored, `state_modifier(state)` may change the restored state (or return a new one),
      `resume_data` reaches the interrupted nodes through `get_resume_data()` (a mapping keyed by interrupt
      addresses targets single points).
    - `force_new_run` (default `False`) ignores the store: it is neither read nor written.
    - `interrupt_event` (Eino `WithGraphInterrupt`): setting it lets the running tasks finish, then stops
      the run with an `InterruptError` (and a checkpoint) naming them as after nodes, the next tasks
      saved to run first on resume; a `graph_core.interrupt.GraphInterrupt` adds a timeout after which
      running tasks are abandoned as rerun nodes. With it, rerun nodes keep their original input
      (otherwise they get their input type's zero value).
    - `tools_node_options` (Eino `WithToolsNodeOption`): a `graph_core.tools.ToolsNodeOptions` (a tool
      list and aliases for this run) given to every ToolsNode of the top-level graph.
    - `parent_path` (default `()`): the node path of the node this run runs inside, when it is run from
      inside another run's node rather than embedded (an agent used as a tool: `AgentTool` passes its
      tool call's path). Observers then see it as that node's nested graph: `RunInfo.path` and
      `StepInfo.path` start with it, and it has no step boundaries of its own.
    - `options` (Eino's per-call `compose.Option`s): `graph_core.call_options.CallOption`s, component
      options and callbacks for every node of their kind or for designated nodes, nested ones included
      (`with_chat_model_options(...).designate_node("chat")`; see `graph_core.call_options`).
    """

    callbacks: Iterable[Any]
    max_steps: int | None
    checkpoint_id: str | None
    cancel_event: threading.Event | None
    state_modifier: Callable[[Any], Any] | None
    resume_data: Any
    force_new_run: bool
    write_checkpoint_id: str | None
    interrupt_event: threading.Event | None
    tools_node_options: Any
    parent_path: tuple[str, ...]
    options: Sequence[Any]


RUN_OPTION_NAMES: frozenset[str] = frozenset(RunOptions.__annotations__)


def check_run_options(entry: str, options: RunOptions) -> None:
    """Reject an unknown option as a misspelt keyword argument would be (callers go through `**options`)."""
    if not RUN_OPTION_NAMES.issuperset(options):
        unknown = min(options.keys() - RUN_OPTION_NAMES)
        raise TypeError(f"{entry}() got an unexpected keyword argument {unknown!r}")
