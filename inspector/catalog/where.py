"""`--where`: a condition on a run's numbers and fields, parsed like the debugger's `--when`.

    tokens > 5000 and steps >= 10
    status == "error" or not duration < 2.5

The parser is `inspector.debug.conditions` (comparisons with JSON literals joined with and/or/not,
parentheses; never evaluated as Python); a run's record stands in for the state the debugger's
conditions look at. Names are checked here first, so a misspelt field is an error naming the fields
rather than a condition that is silently never true.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from inspector.catalog.errors import CatalogError
from inspector.catalog.record import FIELDS, RunRecord

__all__ = ["parse_where"]

_WORDS = re.compile(r'"(?:[^"\\]|\\.)*"|([A-Za-z_][A-Za-z0-9_.\-]*)')
_KEYWORDS = {"and", "or", "not", "true", "false", "null"}


def parse_where(text: str) -> Callable[[RunRecord], bool]:
    """A test over records; `CatalogError` naming the column or the unknown field when it does not parse."""
    from inspector.debug.conditions import View, parse_condition
    from inspector.errors import DebugError

    for match in _WORDS.finditer(text):
        name = match.group(1)
        if name is None or name in _KEYWORDS:
            continue
        if name not in FIELDS:
            fields = ", ".join(f"`{f}`" for f in FIELDS)
            raise CatalogError(f"--where `{text}`: no field `{name}`; the fields are {fields}")
    try:
        condition = parse_condition(text)
    except DebugError as exc:
        raise CatalogError(f"--where: {str(exc).split(' (see ')[0]}") from None

    def test(record: RunRecord) -> bool:
        view = View({name: record.field(name) for name in FIELDS}, ())
        return condition.holds(view)

    return test
