"""The debugger's keys, in one table: app bindings, the help screen and the command palette read it.

Keeping one list means a key cannot exist without a palette command or be missing from help.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

__all__ = ["DEBUG_KEYS", "KEYS", "OTHER_KEYS", "Key", "bindings", "help_rows"]


@dataclass(frozen=True)
class Key:
    keys: str
    action: str
    title: str
    description: str
    show: bool = False
    label: str = ""


KEYS: tuple[Key, ...] = (
    Key("right,n", "next", "Next step", "Move to the next superstep", True, "→/n"),
    Key("left,p", "previous", "Previous step", "Move to the previous superstep", True, "←/p"),
    Key("home", "first", "First step", "Jump to the first step"),
    Key("end", "last", "Last step", "Jump to the last step"),
    Key("g", "goto", "Go to step…", "Jump to a step by its position, or segment:step", True),
    Key("slash", "search", "Search…", "Find steps by node, text or state key", True, "/"),
    Key("right_square_bracket", "next_hit", "Next search hit", "Move to the next search hit", False, "]"),
    Key("left_square_bracket", "previous_hit", "Previous search hit", "Move to the previous hit", False, "["),
    Key("k", "next_change", "Next change of state key…", "Jump to where a state key next changes"),
    Key("K", "repeat_next_change", "Next change (same key)", "Repeat the last state-key jump"),
    Key("b", "breakpoint", "Toggle breakpoint", "Breakpoint on the current step's node", True),
    Key("B", "breakpoint_on", "Breakpoint on node…", "Toggle a breakpoint on any node"),
    Key("c", "continue", "Continue", "Run forward to the next breakpoint", True),
    Key("space", "play", "Play / pause", "Step forward automatically", True, "space"),
    Key("plus,equals_sign", "faster", "Faster", "Play faster", False, "+"),
    Key("minus", "slower", "Slower", "Play slower", False, "-"),
    Key("d", "diff", "Toggle diff", "State pane: full state or only this step's changes", True),
    Key("x", "expand", "Expand values", "Show clipped values whole (and clip them again)"),
    Key("f", "fork", "Fork from this step…", "Run on from this step with an edit or another model answer"),
    Key("o", "open_nested", "Open nested runs", "This step's nested runs (agent tools, nested graphs)"),
    Key("question_mark", "help", "Help", "Show every key", True, "?"),
    Key("q", "quit", "Quit", "Leave the debugger", True),
)

DEBUG_KEYS: tuple[Key, ...] = (
    Key("s", "step_live", "Step live", "Live run: run one superstep and pause again", True),
    Key(
        "c",
        "continue",
        "Continue",
        "Live run: run on to the next breakpoint (over: jump to one)",
        True,
    ),
    Key("a", "abort", "Abort run", "Live run: end it cleanly; the recording says it was aborted", True),
    Key("e", "edit", "Edit value…", "Paused: change PATH = VALUE (state.… or input.NODE.…)", True),
    Key("b", "breakpoint", "Toggle breakpoint", "Live run: breakpoint on the pending node(s)", True),
    Key("B", "breakpoint_on", "Breakpoint on node…", "Live run: toggle a breakpoint on any node by name"),
    Key(
        "w",
        "when",
        "Break when…",
        "Break when: len(messages) > 6, calls(X); empty clears",
    ),
    Key("r", "resume_with", "Resume with data…", "Interrupted run: resume with data (JSON, or plain text)"),
)
"""`inspector debug`'s keys: new ones, and replay keys that mean something else on a live run (same
action). The debug app binds the new ones and shows all of them first in its help."""


def bindings(keys: tuple[Key, ...] = KEYS) -> list[Binding]:
    """App-level priority bindings, so the keys work whichever pane has focus."""
    return [
        Binding(
            k.keys,
            k.action,
            k.title.removesuffix("…"),
            show=k.show,
            key_display=k.label or None,
            priority=True,
            tooltip=k.description,
        )
        for k in keys
    ]


def _key_names(keys: str) -> str:
    names = {
        "right": "→",
        "left": "←",
        "slash": "/",
        "question_mark": "?",
        "plus": "+",
        "equals_sign": "=",
        "minus": "-",
        "right_square_bracket": "]",
        "left_square_bracket": "[",
        "home": "Home",
        "end": "End",
    }
    return " ".join(names.get(k, k) for k in keys.split(","))


OTHER_KEYS: tuple[tuple[str, str], ...] = (
    ("enter", "State pane: fold/unfold; a clipped leaf shows whole"),
    ("tab shift+tab", "Move focus between the panes"),
    ("click", "Timeline: go to the clicked step"),
    ("ctrl+p", "Command palette: every action by name"),
    ("escape", "Close a prompt, this help or the palette"),
)
"""Keys that are not app bindings (widget keys, Textual's own) but belong in the help."""


def help_rows(first: tuple[Key, ...] = ()) -> list[tuple[str, str]]:
    """Every key the debugger answers to: `first` (keys of the live debugger, replacing the replay
    key with the same action), its bindings, then the widget and Textual keys."""
    replaced = {k.action for k in first}
    keys = [*first, *(k for k in KEYS if k.action not in replaced)]
    return [(_key_names(k.keys), k.description) for k in keys] + list(OTHER_KEYS)
