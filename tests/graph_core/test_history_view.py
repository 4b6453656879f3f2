"""`HistoryView`: a fixed-length read-only view of a list, behaving as a read-only list where it can."""

# ruff: noqa: SIM300, RUF005 (the operators themselves are under test, with the list on either side)

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Sequence

import pytest

from graph_core.history import HistoryView


def _grown() -> tuple[list[int], HistoryView[int]]:
    """A view of [1, 2, 3, 2] taken before the list grew to 6 items."""
    items = [1, 2, 3, 2]
    view = HistoryView(items)
    items.extend([9, 2])
    return items, view


def test_later_appends_are_not_visible() -> None:
    items, view = _grown()
    assert len(view) == 4
    assert list(view) == [1, 2, 3, 2]
    assert view[-1] == 2 and view[3] == 2 and view[-4] == 1
    with pytest.raises(IndexError):
        view[4]  # the list has an item there; the view does not
    with pytest.raises(IndexError):
        view[-5]
    assert 9 not in view and 3 in view
    assert list(reversed(view)) == [2, 3, 2, 1]
    assert view.count(2) == 2 and view.index(2) == 1 and view.index(2, 2) == 3
    with pytest.raises(ValueError):
        view.index(9)  # at index 4 of the list, outside the view
    assert view.index(2, -1) == 3
    assert repr(view) == "[1, 2, 3, 2]" and str(view) == "[1, 2, 3, 2]"
    assert items == [1, 2, 3, 2, 9, 2]


@pytest.mark.parametrize(
    "key",
    [
        slice(None),
        slice(1, None),
        slice(None, -1),
        slice(-2, None),
        slice(None, None, -1),
        slice(None, None, 2),
        slice(3, 0, -1),
        slice(2, None, -2),
        slice(10, -10, -1),
        slice(-10, 10),
    ],
)
def test_slicing_gives_the_list_the_same_slice_of_a_list_gives(key: slice) -> None:
    _, view = _grown()
    part = view[key]
    assert type(part) is list
    assert part == [1, 2, 3, 2][key]


def test_comparing_and_combining_as_a_list() -> None:
    items, view = _grown()
    assert view == [1, 2, 3, 2] and [1, 2, 3, 2] == view
    assert view != items and view != [1, 2, 3]
    assert view == HistoryView(items, 4) and view != HistoryView(items)
    assert view != (1, 2, 3, 2)  # a list is never equal to a tuple either
    assert [[1, 2, 3, 2]] == [view]  # inside containers too: what `model.calls == [[...]]` relies on
    assert view < [1, 2, 4] and view > [1, 2] and view <= [1, 2, 3, 2] and view >= HistoryView(items, 2)
    assert view + [7] == [1, 2, 3, 2, 7] and type(view + [7]) is list
    assert [0] + view == [0, 1, 2, 3, 2] and type([0] + view) is list
    assert view + view == [1, 2, 3, 2] * 2
    assert view * 2 == [1, 2, 3, 2, 1, 2, 3, 2] and 2 * view == view * 2
    with pytest.raises(TypeError):
        view + (1,)  # pyright: ignore[reportOperatorIssue, reportUnusedExpression]


def test_copies_are_lists_of_the_view() -> None:
    items, view = _grown()
    for made in (view.copy(), list(view), copy.deepcopy(view), pickle.loads(pickle.dumps(view))):
        assert type(made) is list and made == [1, 2, 3, 2]
    assert view.copy() is not items
    assert view.as_list() == [1, 2, 3, 2]
    whole = HistoryView(items)
    assert whole.as_list() is items  # covers the whole list: no copy


def test_it_is_a_read_only_sequence_and_not_a_list() -> None:
    view = HistoryView([1, 2])
    assert isinstance(view, Sequence) and not isinstance(view, list)
    assert not hasattr(view, "append") and not hasattr(view, "__setitem__")
    with pytest.raises(TypeError):
        hash(view)
    with pytest.raises(TypeError):
        json.dumps(view)  # code that needs a list takes `list(view)`
    assert json.dumps(list(view)) == "[1, 2]"
    assert not HistoryView([]) and bool(view)


def test_a_view_of_part_of_a_list() -> None:
    assert list(HistoryView([1, 2, 3], 2)) == [1, 2]
    assert HistoryView([1, 2, 3], 0) == []
    with pytest.raises(ValueError):
        HistoryView([1, 2, 3], 4)
    with pytest.raises(ValueError):
        HistoryView([1], -1)
