"""`StepPrompts`: the replay keys that ask something before they move the cursor.

`g` asks for a step, `k` for a state key whose next change to jump to (`K` repeats the last one), `B`
for a node to toggle a breakpoint on. Each opens a `PromptScreen` and acts on the answer; a wrong
answer (a step the run does not have, a node the graph does not have) is a warning, and the cursor
stays. They live apart from the app so the app keeps to layout and the keys that act at once.
"""

from __future__ import annotations

from inspector.tui.goto import GotoError, goto_prompt, resolve_step
from inspector.tui.host import ReplayHost
from inspector.tui.literal import visible
from inspector.tui.prompt import PromptScreen

__all__ = ["StepPrompts"]

NODES_LISTED = 20
"""A refused breakpoint names at most this many of the graph's nodes (a wide graph has hundreds)."""


class StepPrompts:
    """The prompting keys of one replay app (`host`); remembers the last state key asked for."""

    def __init__(self, host: ReplayHost) -> None:
        self.host = host
        self.last_key = ""

    def goto(self) -> None:
        """`g`: go to a step (a position, negative from the end, or segment:step)."""
        host = self.host

        def done(answer: str | None) -> None:
            if answer is None or not answer.strip():
                return
            try:
                position = resolve_step(answer, host.session.run)
            except GotoError as exc:
                host.notify(str(exc), severity="warning", markup=False)
                return
            host.go(position)

        host.push_screen(PromptScreen(goto_prompt(host.session.run)), done)

    def next_change(self) -> None:
        """`k`: ask for a state key, then jump to where it next changes."""

        def done(answer: str | None) -> None:
            if answer:
                self.jump_to_change(answer.strip())

        prompt = "Next change of state key (e.g. messages, a.b[2])"
        self.host.push_screen(PromptScreen(prompt, value=self.last_key), done)

    def repeat_next_change(self) -> None:
        """`K`: jump to the next change of the last key asked for (ask when there is none yet)."""
        if self.last_key:
            self.jump_to_change(self.last_key)
        else:
            self.next_change()

    def jump_to_change(self, key: str) -> None:
        self.last_key = key
        found = self.host.replay.next_change(key)
        if found is None:
            self.host.notify(f"no later change of {key!r}", severity="warning", markup=False)
            return
        self.host.go(found)

    def breakpoint_on(self) -> None:
        """`B`: toggle a breakpoint on a node named by the user; a name the graph lacks is refused
        (unless it is a breakpoint already: then it is switched off)."""
        host = self.host

        def done(answer: str | None) -> None:
            if not answer or not answer.strip():
                return
            node = answer.strip()
            known = host.session.node_keys()
            if known is not None and node not in known and node not in host.replay.breakpoints:
                listed = ", ".join(known[:NODES_LISTED])
                if len(known) > NODES_LISTED:
                    listed += f" and {len(known) - NODES_LISTED} more"
                said = f"no breakpoint set: {node!r} is not a node of this graph; its nodes are {listed}"
                host.notify(visible(said), severity="warning", markup=False)
                return
            on = host.replay.toggle_breakpoint(node)
            host.notify(f"breakpoint {'on' if on else 'off'}: {node}", markup=False)
            host.show_cursor()

        host.push_screen(PromptScreen("Toggle a breakpoint on node"), done)
