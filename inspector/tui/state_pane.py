"""`StatePane`: the state after the current step as a tree, or only what the step changed.

Full view: the whole state, with every path the step changed (and the containers holding it) in the
change colour and expanded. Diff view: one entry per change (`+` added/appended, `-` removed, `~`
changed) with old and new values. Long lists show their head and tail; long values are clipped, and
selecting a leaf (enter, or a click) toggles it between clipped and whole.

Each step's tree is planned first (`_Plan`), then the shown tree is brought to it in place
(`_update`): a node that keeps its kind and place is relabelled (which repaints the pane), folded as
planned, and only where a node's children changed in number or kind are they built again. Building
the whole tree anew would lay the whole screen out again, and an agent's history changes its tail's
shape at every step (assistant and tool messages alternate). A folded container's children are not
planned or built until it is unfolded (`_lazy`): a long history's 50 shown messages cost a row each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, cast

from rich.text import Text
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from inspector.recording.statediff import Change, Path
from inspector.recording.valuelist import LISTS
from inspector.tui.literal import literal, one_line

__all__ = ["StatePane"]

CHANGED = "bold yellow"
LEAF_LIMIT = 160
LIST_HEAD, LIST_TAIL = 10, 40
_SIGNS = {
    "added": ("+", "green"),
    "appended": ("+", "green"),
    "removed": ("-", "red"),
    "changed": ("~", "yellow"),
}


class _Parent(Protocol):
    """What the builders add to: a `TreeNode`, or a `_Plan` standing in for one."""

    def add(self, label: Text, data: tuple[Path, Any] | None = None, *, expand: bool = False) -> Any: ...

    def add_leaf(
        self, label: Text, data: tuple[Path, Any] | None = None, *, name: tuple[str, str] | None = None
    ) -> Any: ...


class _Plan:
    """A tree node to be: label, data, whether it folds open, and its children."""

    def __init__(
        self, label: Text, data: tuple[Path, Any] | None, *, expand: bool, leaf: bool, depth: int = -1
    ) -> None:
        self.label, self.data, self.expand, self.leaf = label, data, expand, leaf
        self.depth = depth  # the tree's root is -1: its children are drawn at the pane's left edge
        self.name: tuple[str, str] | None = None  # a leaf labelled other than by its key: (label, style)
        self.children: list[_Plan] = []
        self.lazy: tuple[Path, Any] | None = None  # folded: its children are planned when unfolded

    def add(self, label: Text, data: tuple[Path, Any] | None = None, *, expand: bool = False) -> _Plan:
        child = _Plan(label, data, expand=expand, leaf=False, depth=self.depth + 1)
        self.children.append(child)
        return child

    def add_folded(self, label: Text, data: tuple[Path, Any], path: Path, value: Any) -> _Plan:
        """A folded container whose children (`value`'s items under `path`) wait until it is unfolded."""
        child = self.add(label, data)
        child.lazy = (path, value)
        return child

    def add_leaf(
        self, label: Text, data: tuple[Path, Any] | None = None, *, name: tuple[str, str] | None = None
    ) -> _Plan:
        child = _Plan(label, data, expand=False, leaf=True, depth=self.depth + 1)
        child.name = name
        self.children.append(child)
        return child


_Node = TreeNode[tuple[Path, Any]]


def _depth(node: _Node) -> int:
    """A shown node's depth, counted as `_Plan.depth` is (the root is -1)."""
    depth = -1
    while node.parent is not None:
        node, depth = node.parent, depth + 1
    return depth


def _key_text(key: str | int) -> str:
    return f"[{key}]" if isinstance(key, int) else str(key)


class StatePane(Tree[tuple[Path, Any]]):
    """The app calls `show(state, changes, diff=...)`; `expand_all_values` lifts every clip."""

    DEFAULT_CSS = """
    StatePane { height: 1fr; }
    """

    class WidthChanged(Message):
        """The pane's width changed while it shows wrapped rows: they need wrapping again."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(Text("state"), id=id)
        self.show_root = False
        self.guide_depth = 3
        self.expanded_values: set[Path] = set()
        self.expand_all_values = False
        self._changed: set[Path] = set()
        self._ancestors: set[Path] = set()
        self._names: dict[int, tuple[str, str]] = {}  # leaf node id -> the name and style it is shown with
        self._lazy: dict[int, tuple[Path, Any]] = {}  # folded node id -> what its children come from
        self._shown: tuple[Any, list[Change], bool, str | None] | None = None  # `show`'s last arguments

    # --- building -------------------------------------------------------------------------------

    def show(self, state: Any, changes: list[Change], *, diff: bool, empty: str | None = None) -> None:
        """Show `state` (or its `changes` when `diff`); `empty` replaces both with a note."""
        self._shown = (state, changes, diff, empty)
        self._changed = {c.path for c in changes}
        self._ancestors = {c.path[:i] for c in changes for i in range(len(c.path))}
        plan = _Plan(Text("state"), None, expand=True, leaf=False)
        if empty is not None:  # a note, wrapped to the pane (cut, `(no state: this graph keeps no`)
            width = self.scrollable_content_region.width
            note = Text(empty, style="dim")
            for line in note.wrap(self.app.console, width) if width > 0 else [note]:
                plan.add_leaf(line)
        elif diff:
            self._show_diff(plan, changes)
        else:
            self._add_value(plan, (), state)
        self._update(self.root, plan)
        if not self.root.is_expanded:
            self.root.expand()

    def _update(self, node: _Node, plan: _Plan) -> None:
        """Bring `node`'s children to the plan's, in place: the same number of children of the same kinds
        are relabelled and refolded, anything else is built again."""
        shown = node.children
        if len(shown) != len(plan.children):
            node.remove_children()
            self._grow(node, plan)
            return
        for old, child in zip(list(shown), plan.children, strict=True):
            if old.allow_expand == child.leaf:  # a leaf where a container was, or the other way round
                self._grow_one(node, child, before=old)
                old.remove()
                continue
            self._relabel(old, child)
            if child.leaf:
                continue
            if child.lazy is not None:
                if old.is_expanded:
                    old.collapse()
                if old.children:
                    old.remove_children()
                self._lazy[old.id] = child.lazy
                continue
            self._lazy.pop(old.id, None)  # before unfolding it: its children come from the plan
            if old.is_expanded != child.expand:
                old.expand() if child.expand else old.collapse()
            self._update(old, child)

    def _grow(self, node: _Node, plan: _Plan) -> None:
        for child in plan.children:
            self._grow_one(node, child)

    def _grow_one(self, node: _Node, child: _Plan, *, before: _Node | None = None) -> None:
        if child.leaf:
            leaf = node.add_leaf(child.label, data=child.data, before=before)
            if child.name is not None:
                self._names[leaf.id] = child.name
            return
        grown = node.add(child.label, data=child.data, expand=child.expand, before=before)
        if child.lazy is not None:
            self._lazy[grown.id] = child.lazy
        else:
            self._grow(grown, child)

    def _relabel(self, shown: _Node, child: _Plan) -> None:
        shown.data = child.data
        if child.name is not None:
            self._names[shown.id] = child.name
        else:
            self._names.pop(shown.id, None)
        label = self.process_label(child.label)
        old = shown.label
        if not (isinstance(old, Text) and old == label and old.style == label.style):
            shown.set_label(label)

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[tuple[Path, Any]]) -> None:
        """A folded container is unfolded (space, a click): plan and build its children now."""
        self._build_folded(event.node)

    def unfold(self, node: _Node, *, everything: bool = False) -> None:
        """Unfold `node` (with `everything`, every container under it too), its children built first: a
        caller that goes on to look at them finds them there."""
        self._build_folded(node, deep=everything)
        node.expand_all() if everything else node.expand()

    def _build_folded(self, node: _Node, *, deep: bool = False) -> None:
        """Build the children a folded `node` left for later (with `deep`, theirs too)."""
        lazy = self._lazy.pop(node.id, None)
        if lazy is not None:
            path, value = lazy
            plan = _Plan(Text(""), None, expand=True, leaf=False, depth=_depth(node))
            self._add_items(plan, path, value)
            self._grow(node, plan)
        if deep:
            for child in node.children:
                self._build_folded(child, deep=True)

    def _show_diff(self, root: _Parent, changes: list[Change]) -> None:
        if not changes:
            root.add_leaf(Text("(this step changed nothing in the state)", style="dim"))
            return
        for change in changes:
            sign, colour = _SIGNS.get(change.op, ("~", "yellow"))
            label = Text(f"{sign} ", style=f"bold {colour}")
            label.append_text(one_line(change.path_text or "(root)", limit=None, style=colour))
            label.append(f"  {change.op}", style="dim")
            node = root.add(label, data=(change.path, change.new), expand=True)
            if change.op == "changed":
                self._add_value(node, change.path, change.old, label="old", style="red")
                self._add_value(node, change.path, change.new, label="new", style="green")
            elif change.op == "removed":
                self._add_value(node, change.path, change.old, label="old", style="red")
            else:
                self._add_value(node, change.path, change.new, label="new", style="green")

    def _label(self, key: str, path: Path, value: Any, style: str) -> Text:
        marked = style or (CHANGED if path in self._changed else "")
        text = Text()
        text.append_text(one_line(key, limit=60, style=marked or "bold"))
        if isinstance(value, dict):
            text.append(f"  {{{len(value)}}}", style="dim")  # pyright: ignore[reportUnknownArgumentType]
        elif isinstance(value, LISTS):
            text.append(f"  [{len(value)}]", style="dim")  # pyright: ignore[reportUnknownArgumentType]
        else:
            whole = self.expand_all_values or path in self.expanded_values
            text.append(": ")
            # A tree row is one terminal line: line breaks stay `⏎` even when the value is shown whole.
            text.append_text(literal(value, limit=None if whole else LEAF_LIMIT, style=marked))
        return text

    def _add_value(
        self,
        parent: _Parent,
        path: Path,
        value: Any,
        *,
        label: str | None = None,
        style: str = "",
    ) -> None:
        """Add `value`'s children under `parent` (or `value` itself as `label` when given)."""
        if label is not None:
            if isinstance(value, dict | LISTS):
                node = parent.add(self._label(label, path, value, style), data=(path, value), expand=True)
                self._add_items(node, path, value)  # pyright: ignore[reportUnknownArgumentType]
            else:
                text = self._label(label, path, value, style)
                self._add_leaf(parent, text, (path, value), name=(label, style))
            return
        if isinstance(value, dict | LISTS):
            self._add_items(parent, path, value)  # pyright: ignore[reportUnknownArgumentType]
        else:
            text = self._label("value", path, value, style)
            self._add_leaf(parent, text, (path, value), name=("value", style))

    def _add_items(self, parent: _Parent, path: Path, value: dict[Any, Any] | Sequence[Any]) -> None:
        items: list[tuple[str | int, Any]]
        hidden = 0
        if isinstance(value, dict):
            items = list(value.items())
        elif len(value) > LIST_HEAD + LIST_TAIL:  # only the shown ends: a history can be 100,000 long
            hidden = len(value) - LIST_HEAD - LIST_TAIL
            tail = len(value) - LIST_TAIL
            items = [*enumerate(value[:LIST_HEAD]), *zip(range(tail, len(value)), value[tail:], strict=True)]
        else:
            items = list(enumerate(value))
        for n, (key, child) in enumerate(items):
            if hidden and n == LIST_HEAD:
                parent.add_leaf(Text(f"… {hidden} items not shown …", style="dim"))
            child_path = (*path, key)
            label = self._label(_key_text(key), child_path, child, "")
            if isinstance(child, dict | LISTS):
                open_it = child_path in self._ancestors or child_path in self._changed or len(path) == 0
                if not open_it and isinstance(parent, _Plan):
                    parent.add_folded(label, (child_path, child), child_path, child)
                    continue
                node = parent.add(label, data=(child_path, child), expand=open_it)
                self._add_items(node, child_path, child)  # pyright: ignore[reportUnknownArgumentType]
            else:
                self._add_leaf(parent, label, (child_path, child))

    def _add_leaf(
        self,
        parent: _Parent,
        label: Text,
        data: tuple[Path, Any],
        *,
        name: tuple[str, str] | None = None,
    ) -> None:
        """A value's row; with every value shown whole (`x`), one longer than the pane is wide goes on
        over rows of its own under it (a tree row is one terminal line, cut at the pane's edge)."""
        width = self._wrap_width(parent)
        if width is None or label.cell_len <= width:
            parent.add_leaf(label, data, name=name)
            return
        lines = label.wrap(self.app.console, width, overflow="fold")
        head = parent.add(lines[0], data, expand=True)
        for line in lines[1:]:
            head.add_leaf(line)

    def _wrap_width(self, parent: _Parent) -> int | None:
        """How wide a whole value's rows may be under `parent`, or None when values are not shown whole
        or the pane has no width yet: each level of the tree indents 3 columns, and the rows that go
        on are one level deeper than the value's own."""
        if not self.expand_all_values:
            return None
        pane = self.scrollable_content_region.width
        if pane <= 0:
            return None
        depth = (parent.depth if isinstance(parent, _Plan) else _depth(cast(_Node, parent))) + 2
        return max(4, pane - 3 * depth)

    def on_resize(self) -> None:
        """Whole values and notes are wrapped to the pane's width: a new width asks the app to show
        the step again (the app also unfolds what it unfolds at a step, such as a pause's inputs)."""
        if self._shown is not None and (self.expand_all_values or self._shown[3] is not None):
            self.post_message(self.WidthChanged())

    # --- expanding clipped values ---------------------------------------------------------------

    def on_tree_node_selected(self, event: Tree.NodeSelected[tuple[Path, Any]]) -> None:
        node = event.node
        if node.data is None or node.allow_expand:
            return
        path, value = node.data
        if path in self.expanded_values:
            self.expanded_values.discard(path)
        else:
            self.expanded_values.add(path)
        key = path[-1] if path else "value"
        name, style = self._names.get(node.id, (_key_text(key), ""))  # diff view: `old`/`new`, coloured
        node.set_label(self._label(name, path, value, style))
