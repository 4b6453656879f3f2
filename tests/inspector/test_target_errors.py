"""TARGET errors name what the attribute is, in readable English."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.target import TargetError, load_target


def test_a_target_of_the_wrong_type_says_what_it_is(tmp_path: Path) -> None:
    module = tmp_path / "targets.py"
    module.write_text("count = 5\nlabel = 'x'\n\ndef make():\n    return 3\n")
    with pytest.raises(TargetError, match=r"is an `int` object, not a CompiledGraph"):
        load_target(f"{module}:count")
    with pytest.raises(TargetError, match=r"is a `str` object"):
        load_target(f"{module}:label")
    with pytest.raises(TargetError, match=r"was called and returned an `int` object"):
        load_target(f"{module}:make")
