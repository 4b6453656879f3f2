"""A recorded LangGraph run rebuilt in LangGraph's own checkpoints, step by step, without running a node.

A fork of a LangGraph recording (`inspector.adapters.langgraph.fork`) needs the thread LangGraph would
hold at the boundary before step N. `Rebuild` makes it on a copy of the graph with an in-memory
checkpointer of its own (a graph that brings a checkpointer keeps it for its own runs; the fork never
writes to it):

- the recorded input goes in as LangGraph's input and `__start__` step (`bulk_update_state` with
  `as_node="__input__"`, then `"__start__"`), exactly the writes a fresh run makes;
- each replayed step is one superstep of `bulk_update_state`, one `StateUpdate` per recorded node run
  with that run's recorded output (`as_node` the node), so LangGraph applies the writes through the
  graph's reducers and runs the node's edges and conditional edges itself: the next tasks (`Send`s
  included) come from the graph, not from the recording;
- at every boundary the rebuilt thread is checked against the recording (the nodes about to run, the
  state after the step before), and a difference refuses the fork naming the first one;
- an edit (`--set state.KEY...=JSON`) is typed on the state as the recording shows it (graph_core's
  `inspector.debug.paths`, so the same paths and the same refusals), then written as one more
  superstep "as" the nodes of the step before (LangGraph's `update_state` with `as_node`), with the
  edited keys overwritten (`Overwrite` past a reducer): the graph goes on as it would have after those
  nodes, its conditional edges deciding on the edited state;
- a model answer (`--model-answer`) is the model node's output at step N, written as that node.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graph_core.callbacks import Boundary, Budget
from graph_core.schema import Message
from inspector.adapters.langgraph.messages import Neutralizer
from inspector.adapters.langgraph.restore import from_message, to_langchain
from inspector.adapters.langgraph.topology import LG_END, LG_START
from inspector.debug.controller import Edit, apply_edit
from inspector.debug.fork_plan import first_difference
from inspector.debug.paths import parse_path
from inspector.debug.settled import Settled
from inspector.errors import DebugError
from inspector.recording import Run
from inspector.recording.encode import Encoder
from inspector.recording.redact import make_redaction
from inspector.recording.valuelist import plain

__all__ = ["Rebuild", "ReplayedRun", "ReplayedStep"]

_INPUT = "__input__"


@dataclass
class ReplayedRun:
    """One node run of a replayed step, as the fork records it: LangChain values."""

    node: str
    input: Any
    output: Any


@dataclass
class ReplayedStep:
    """A step the fork did not run: its node runs and the state LangGraph holds after it."""

    runs: list[ReplayedRun]
    state: Any = None


@dataclass
class Rebuild:
    """The rebuilt thread of `parent` on a checkpointed copy of `graph`; see the module docstring."""

    graph: Any
    parent: Run
    config: dict[str, Any] = field(default_factory=lambda: {})
    steps: list[ReplayedStep] = field(default_factory=lambda: [])

    def __post_init__(self) -> None:
        from langgraph.checkpoint.memory import InMemorySaver

        self.graph = self.graph.copy(update={"checkpointer": InMemorySaver()})
        self.config = {"configurable": {"thread_id": f"inspector-fork-{self.parent.run_id}"}}
        self._encoder = Encoder(redaction=make_redaction(True), intern=False)
        self._settled = Settled(self._encoder)
        self._neutral = Neutralizer()
        self._snapshot: tuple[dict[str, Any], Any] | None = None

    # --- LangGraph's thread -----------------------------------------------------------------------

    def snapshot(self) -> Any:
        """The thread's state at the latest superstep (read once per superstep: LangGraph builds it)."""
        if self._snapshot is None or self._snapshot[0] is not self.config:
            self._snapshot = (self.config, self.graph.get_state(self.config))
        return self._snapshot[1]

    def values(self) -> Any:
        return self.snapshot().values

    def next_nodes(self) -> list[str]:
        return list(dict.fromkeys(str(n) for n in self.snapshot().next if n != LG_END))

    def _superstep(self, updates: Sequence[tuple[Any, str]], what: str) -> None:
        from langgraph.types import StateUpdate

        try:
            self.config = self.graph.bulk_update_state(
                self.config, [[StateUpdate(values, node) for values, node in updates]]
            )
        except Exception as exc:  # LangGraph's own refusal (InvalidUpdateError, a reducer's error)
            raise DebugError(f"LangGraph refused {what}: {type(exc).__name__}: {exc}") from None

    # --- the replay -------------------------------------------------------------------------------

    def start(self, input: Any) -> None:
        """The recorded input, written as a fresh run writes it (LangGraph's input, then `__start__`)."""
        self._superstep([(input, _INPUT)], "the recorded input")
        self._superstep([(input, LG_START)], "the recorded input")

    def replay(self, index: int, runs: list[ReplayedRun]) -> None:
        """Step `index` as recorded: one superstep with each node run's recorded output."""
        self._superstep([(run.output, run.node) for run in runs], f"the recorded outputs of step {index}")
        self.steps.append(ReplayedStep(runs, self.values()))

    def check_nodes(self, index: int) -> None:
        """The nodes about to run before step `index` must be the recorded ones."""
        recorded = list(dict.fromkeys(self.parent.steps[index].nodes))
        rebuilt = self.next_nodes()
        if sorted(rebuilt) != sorted(recorded):
            raise DebugError(
                f"the target does not replay the recording: before step {index} it would run "
                f"[{', '.join(rebuilt)}], the recording ran [{', '.join(recorded)}]"
            )

    def neutral_state(self) -> Any:
        """The thread's state as the recorder sees it (LangChain messages as `Message`s)."""
        return self._neutral.value(self.values())

    def check_state(self, after: int) -> None:
        """The rebuilt state must be the one recorded after step `after`."""
        stored = self.parent.state_at(after)
        state = self.neutral_state()
        if self._settled.same(state, stored):
            return
        rebuilt = json.loads(json.dumps(self._encoder.encode(state)))
        difference = first_difference(rebuilt, plain(stored))
        if difference is not None:
            raise DebugError(
                f"the rebuilt run does not match the recording after step {after}: {difference}. The "
                f"recorded outputs of steps 0..{after} were written into LangGraph's checkpoints and the "
                "topology matches, so a reducer or edge of the target now computes something else than "
                "when the run was recorded (its code or what it reads changed, it is not deterministic, "
                "or the recording was edited by hand); the run cannot be forked at that step"
            )

    # --- edits ------------------------------------------------------------------------------------

    def edit(
        self,
        step: int,
        sets: Sequence[tuple[str, Any]],
        as_nodes: Sequence[str],
        goto: Mapping[str, Sequence[str]] | None = None,
    ) -> list[Edit]:
        """Apply `sets` (path, value) at the boundary before `step`, as one superstep written as
        `as_nodes` (the nodes of the step before; `__start__` before step 0). `goto` names, for a node
        that went on with `Command(goto=...)`, where it went (its edges cannot say it again). Returns
        the edits as they are recorded; a path that does not exist or a value of the wrong type raises
        `DebugError` and changes nothing."""
        live = self.values()
        if not isinstance(live, dict):
            raise DebugError(
                f"this LangGraph graph's state is a {type(live).__name__}, not a mapping of keys: "
                "`--set` edits a graph whose state has keys (a TypedDict, a dataclass or pydantic "
                "state read as a mapping)"
            )
        state: dict[str, Any] = dict(self._neutral.value(live))  # pyright: ignore[reportUnknownArgumentType]
        # a boundary as graph_core's debugger holds one, so its typed edits apply as they are (the
        # budget is not read by an edit)
        boundary = Boundary(step, Budget.of(step, 1 << 30), [(n, None) for n in self.next_nodes()], state)
        edits: list[Edit] = []
        keys: list[str] = []
        for path, value in sets:
            text = path.strip()
            if text.startswith("input.") or text == "input":
                raise DebugError(
                    f"path `{text}`: a LangGraph node reads the state, so there is no separate node "
                    "input to edit; edit the state instead (`state.KEY...`), and the nodes that run "
                    "next read it"
                )
            edit = self._unset(boundary, text, value) or apply_edit(boundary, text, value)
            edits.append(edit)
            key = self._top_key(edit.path)
            if key not in keys:
                keys.append(key)
        edited: dict[str, Any] = boundary.state  # apply_edit assigns into the same dict
        updates: dict[str, Any] = {}
        for key in keys:
            value = to_langchain(edited[key], live.get(key))  # pyright: ignore[reportUnknownMemberType]
            updates[key] = self._overwrite(key, value)
        from langgraph.types import Command

        first, *others = as_nodes or [LG_START]
        writes: list[tuple[Any, str]] = []
        for node, values in [(first, updates), *((node, None) for node in others)]:
            targets = list((goto or {}).get(node, ()))
            writes.append((Command(update=values, goto=targets) if targets else values, node))
        self._superstep(writes, f"the edit before step {step}")
        return edits

    def _unset(self, boundary: Boundary, text: str, value: Any) -> Edit | None:
        """The edit of a state key the graph declares but the run has not set yet (a `TypedDict` with
        `total=False`, say), checked against the key's annotation; None for any other path."""
        path = parse_path(text)
        state: dict[str, Any] = boundary.state
        key = path.segments[0] if path.segments else None
        if not isinstance(key, str) or key in state:
            return None
        hints = self._declared()
        if key not in hints:
            return None  # not declared: `apply_edit` names the keys there are
        if len(path.segments) > 1:
            raise DebugError(
                f"path `{path.text}`: `state.{key}` has no value yet in this run, so nothing under it "
                f"exists; set the whole key (`state.{key}=JSON`)"
            )
        from pydantic import TypeAdapter, ValidationError

        try:
            state[key] = TypeAdapter(hints[key]).validate_python(value)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(value)'}: {err['msg']}" for err in exc.errors()
            )
            raise DebugError(f"`state.{key}` is declared as {_type_name(hints[key])}: {problems}") from None
        except Exception as exc:  # an annotation pydantic cannot check (a class of its own, a forward ref)
            raise DebugError(
                f"`state.{key}` has no value yet and its type ({_type_name(hints[key])}) cannot be checked "
                f"here ({type(exc).__name__}), so it cannot be set"
            ) from None
        return Edit(boundary.step, path.text, None, value)

    def _declared(self) -> dict[str, Any]:
        """The state keys the graph's state schema declares, with their types (reducers left out)."""
        import typing

        schema = getattr(getattr(self.graph, "builder", None), "state_schema", None)
        try:
            return typing.get_type_hints(schema) if schema is not None else {}
        except Exception:  # an annotation that does not resolve: no key is known to be declared
            return {}

    @staticmethod
    def _top_key(path_text: str) -> str:
        return str(parse_path(path_text).segments[0])

    def _overwrite(self, key: str, value: Any) -> Any:
        """`value` for channel `key`, past the channel's reducer when it has one (`Overwrite`)."""
        from langgraph.types import Overwrite

        channel = self.graph.channels.get(key)
        return Overwrite(value) if type(channel).__name__ == "BinaryOperatorAggregate" else value

    # --- the model answer -------------------------------------------------------------------------

    def answer(self, step: int, node: str, message: Message) -> ReplayedStep:
        """Step `step` with `message` as what `node`'s model answered (the node does not run)."""
        pending = self.next_nodes()
        if node not in pending:
            raise DebugError(
                f"--model-answer: after the edits, step {step} would run [{', '.join(pending)}], not the "
                f"model node `{node}` that the answer is for"
            )
        if len(pending) > 1:
            others = ", ".join(n for n in pending if n != node)
            raise DebugError(
                f"--model-answer: step {step} runs [{others}] alongside the model node `{node}`; the "
                "answer takes the place of the whole step, so fork at a step where the model node runs "
                "alone"
            )
        # LangChain names what a chat model generated `lc_run-...`, which is how the recording knows
        # a model answered (and `add_messages` needs an id of its own for every message)
        seed = uuid.uuid5(uuid.NAMESPACE_URL, f"{self.parent.run_id}/{step}")
        reply = from_message(message, id=f"lc_run--inspector-fork-{seed}")
        state_input = self.values()
        self._superstep([({"messages": [reply]}, node)], f"the model answer at step {step}")
        replayed = ReplayedStep([ReplayedRun(node, state_input, {"messages": [reply]})], self.values())
        self.steps.append(replayed)
        return replayed


def _type_name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")
