"""Conditional breakpoints: a small expression language over a run paused at a superstep boundary.

    len(messages) > 6                   a list (or string, mapping) has more than 6 items
    calls(get_weather)                  the next step runs a call of tool `get_weather`
    before(tools)                       the next step runs node `tools` (a node breakpoint)
    state.approved == true              a value compared with a JSON literal (==, !=, <, <=, >, >=)
    calls(search) and len(messages) >= 10 or not before(chat)
                                        `not` binds tightest, then `and`, then `or`; parentheses group

Paths are those of `inspector.debug.paths` (`state.` may be left out; `input.NODE...` reads a pending
node's input). `calls(T)` looks at the tool calls not yet answered, so it holds once per round, before
the step that runs them: a pending node's input when one is an assistant message (a ReAct agent's
`tools` input), else the last item of `state.messages` when it is an assistant message whose calls no
tool message answers yet, in the state or in a pending input (a graph whose tools node reads the
state); once the tool results are there, it is false until the model calls again. A path
that does not exist at a boundary makes its comparison false (the state's shape may change during a
run); a condition that does not parse raises `DebugError` naming the column. Parentheses and `not`
nest at most `MAX_CONDITION_DEPTH` levels: the parser and the test it builds recurse once per level,
and a condition is typed by a person, so a deeper one is refused before it can exhaust the stack.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from graph_core.schema import Message
from inspector.debug.paths import Path, get_at, parse_path, plain
from inspector.errors import DebugError

__all__ = ["MAX_CONDITION_DEPTH", "Condition", "View", "parse_condition"]

MAX_CONDITION_DEPTH = 50
"""Levels of parentheses and `not` a condition may nest (each level is one Python call deep)."""

_PATH = r'[A-Za-z_][A-Za-z0-9_\-]*(?:\.[A-Za-z_][A-Za-z0-9_\-]*|\[\s*-?\d+\s*\]|\[\s*"(?:[^"\\]|\\.)*"\s*\])*'
_TOKEN = re.compile(
    rf'\s*(?:(?P<op>>=|<=|==|!=|>|<)|(?P<paren>[()])|(?P<string>"(?:[^"\\]|\\.)*")'
    rf"|(?P<number>-?\d+(?:\.\d+)?)|(?P<word>{_PATH}))"
)
_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
}


@dataclass(frozen=True, slots=True)
class View:
    """What a condition sees at a boundary: the state, and the pending nodes with their inputs."""

    state: Any
    pending: Sequence[tuple[str, Any]]

    def root(self, path: Path) -> Any:
        if path.root == "state":
            return self.state
        for key, value in self.pending:
            if key == path.node:
                return value
        raise DebugError(f"no pending node `{path.node}`")

    def unanswered_calls(self) -> Message | None:
        """The assistant message whose tool calls the next step runs (see `calls(T)` above), if any."""
        for _, value in self.pending:
            if isinstance(value, Message) and value.role == "assistant":
                return value
        messages = getattr(self.state, "messages", None)
        if messages is None and isinstance(self.state, dict):
            messages = self.state.get("messages")  # pyright: ignore[reportUnknownMemberType]
        last = messages[-1] if isinstance(messages, list) and messages else None
        if not isinstance(last, Message) or last.role != "assistant":
            return None
        answered = self._answered()  # the tool results a pending node is about to add (ReAct's `chat`)
        if any(call.id in answered for call in last.tool_calls):
            return None
        return last

    def _answered(self) -> set[str]:
        """The tool call IDs answered by tool messages in the pending nodes' inputs."""
        ids: set[str] = set()
        for _, value in self.pending:
            items: list[Any] = value if isinstance(value, list) else [value]  # pyright: ignore[reportUnknownVariableType]
            for item in items:
                if isinstance(item, Message) and item.role == "tool" and item.tool_call_id:
                    ids.add(item.tool_call_id)
        return ids


Test = Callable[[View], bool]


@dataclass(frozen=True, slots=True)
class Condition:
    """A parsed condition: `text` as written, `test(view)` its value at a boundary."""

    text: str
    test: Test

    def holds(self, view: View) -> bool:
        return self.test(view)


class _Parser:
    def __init__(self, text: str) -> None:
        text = text.rstrip()
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):  # (text ends in a token: trailing blanks were stripped above)
            match = _TOKEN.match(text, pos)
            if match is None or match.end() == pos:
                column = len(text) - len(text[pos:].lstrip()) + 1
                raise self.error(f"unexpected `{text[column - 1]}`", column)
            kind = match.lastgroup or ""
            start = match.start(kind)
            self.tokens.append((kind, match.group(kind), start + 1))
            pos = match.end()
        self.at = 0
        self.depth = 0

    def error(self, what: str, column: int | None = None) -> DebugError:
        if column is None:
            column = self.tokens[self.at][2] if self.at < len(self.tokens) else len(self.text) + 1
        shown = self.text if len(self.text) <= 120 else f"{self.text[:60]}…{self.text[-20:]}"
        return DebugError(
            f"condition `{shown}`: {what} at column {column} (see `len(PATH) > N`, `calls(TOOL)`, "
            "`before(NODE)`, `PATH == JSON`, joined with and/or/not)"
        )

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, kind: str, value: str | None = None) -> str:
        token = self.peek()
        if token is None or token[0] != kind or (value is not None and token[1] != value):
            wanted = f"`{value}`" if value is not None else {"word": "a name or path"}.get(kind, kind)
            found = "the end" if token is None else f"`{token[1]}`"
            raise self.error(f"expected {wanted}, found {found}")
        self.at += 1
        return token[1]

    def word_is(self, word: str) -> bool:
        token = self.peek()
        return token is not None and token[0] == "word" and token[1] == word

    def parse(self) -> Test:
        if not self.tokens:
            raise self.error("empty condition", 1)
        test = self.or_expr()
        if self.peek() is not None:
            raise self.error(f"unexpected `{self.tokens[self.at][1]}`")
        return test

    def or_expr(self) -> Test:
        tests = [self.and_expr()]
        while self.word_is("or"):
            self.at += 1
            tests.append(self.and_expr())
        return tests[0] if len(tests) == 1 else (lambda view: any(t(view) for t in tests))

    def and_expr(self) -> Test:
        tests = [self.atom()]
        while self.word_is("and"):
            self.at += 1
            tests.append(self.atom())
        return tests[0] if len(tests) == 1 else (lambda view: all(t(view) for t in tests))

    def atom(self) -> Test:
        token = self.peek()
        if token is None:
            raise self.error("expected a condition, found the end")
        kind, value, _ = token
        if kind == "paren" and value == "(":
            self.deeper()
            inner = self.or_expr()
            self.take("paren", ")")
            self.depth -= 1
            return inner
        if kind != "word":
            raise self.error(f"expected a condition, found `{value}`")
        if value == "not":
            self.deeper()
            inner = self.atom()
            self.depth -= 1
            return lambda view: not inner(view)
        if value in ("calls", "before", "len"):
            self.at += 1
            self.take("paren", "(")
            arg = self.take("word")
            self.take("paren", ")")
            if value == "calls":
                return _calls(arg)
            if value == "before":
                return lambda view: any(key == arg for key, _ in view.pending)
            return self.comparison(self.path(arg), measure=True)
        self.at += 1
        return self.comparison(self.path(value), measure=False)

    def deeper(self) -> None:
        """Take the `(` or `not` at hand, one level deeper; past `MAX_CONDITION_DEPTH`, refused."""
        if self.depth == MAX_CONDITION_DEPTH:
            raise self.error(
                f"parentheses and `not` nest more than {MAX_CONDITION_DEPTH} levels deep (the limit)"
            )
        self.depth += 1
        self.at += 1

    def path(self, text: str) -> Path:
        try:
            return parse_path(text)
        except DebugError as exc:
            raise self.error(str(exc)) from None

    def comparison(self, path: Path, *, measure: bool) -> Test:
        op = self.take("op")
        token = self.peek()
        if token is None or token[0] not in ("number", "string", "word"):
            raise self.error("expected a JSON value after the operator")
        self.at += 1
        try:
            literal = json.loads(token[1])
        except ValueError:
            raise self.error(
                f"`{token[1]}` is not a JSON value (strings need double quotes)", token[2]
            ) from None
        if measure and (isinstance(literal, bool) or not isinstance(literal, int | float)):
            raise self.error(f"`len(...)` compares with a number, not `{token[1]}`", token[2])
        compare = _OPS[op]

        def test(view: View) -> bool:
            try:
                value = plain(get_at(view.root(path), path))
            except DebugError:
                return False  # the path does not exist at this boundary
            if measure:
                if not isinstance(value, list | str | dict):
                    return False
                value = len(value)  # pyright: ignore[reportUnknownArgumentType]
            try:
                return compare(value, literal)
            except TypeError:  # `<` between a string and a number: not a match
                return False

        return test


def _calls(tool: str) -> Test:
    def test(view: View) -> bool:
        message = view.unanswered_calls()
        return message is not None and any(call.name == tool for call in message.tool_calls)

    return test


def parse_condition(text: str) -> Condition:
    """Parse a condition (see the module docstring); `DebugError` with the column if it does not parse."""
    return Condition(text.strip(), _Parser(text).parse())
