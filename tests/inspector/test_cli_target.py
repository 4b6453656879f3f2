"""A dotted TARGET attribute whose later part is missing names that part, not the whole path."""

from __future__ import annotations

import pytest

from inspector.errors import TargetError
from inspector.target import load_target


def test_a_missing_inner_attribute_names_the_object_that_lacks_it() -> None:
    # `build_agent` exists; it is a function, which has no `.compiled`. The message used to say the
    # module had no attribute `build_agent.compiled` and then list `build_agent` among its names.
    with pytest.raises(TargetError) as raised:
        load_target("fixtures.weather:build_agent.compiled")
    text = str(raised.value)
    assert "`fixtures.weather:build_agent` has no attribute `compiled`" in text
    assert "Available names" not in text


def test_a_missing_first_attribute_still_lists_the_module_names() -> None:
    with pytest.raises(TargetError, match=r"has no attribute `nope`. Available names: .*build_agent"):
        load_target("fixtures.weather:nope.x")


def test_a_dotted_attribute_that_exists_resolves() -> None:
    assert load_target("fixtures.weather:agent.compiled").compiled is not None
