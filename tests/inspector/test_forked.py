"""`forked.do_in_parts`: parts after the first in forked processes, results in order, and a part whose
process failed, warned or died done again in this process, so errors and warnings come as one process
would give them."""

from __future__ import annotations

import os
import warnings

import pytest

from inspector.forked import can_fork, do_in_parts, usable_cpus

pytestmark = pytest.mark.skipif(not can_fork(), reason="parts are forked on Linux only")


def _where(k: int) -> tuple[int, int]:
    return k, os.getpid()


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_parts_come_back_in_order_each_from_its_own_process() -> None:
    results = do_in_parts(_where, 4)
    assert [k for k, _ in results] == [0, 1, 2, 3]
    pids = [pid for _, pid in results]
    assert pids[0] == os.getpid()
    assert len(set(pids)) == 4  # three children, each its own
    assert _no_children_left()


def test_one_part_is_done_here() -> None:
    assert do_in_parts(_where, 1) == [(0, os.getpid())]


def test_a_part_that_fails_in_its_process_is_done_again_here() -> None:
    here = os.getpid()

    def work(k: int) -> tuple[int, int]:
        if k == 1 and os.getpid() != here:
            raise RuntimeError("only in the child")
        return _where(k)

    assert do_in_parts(work, 3)[1] == (1, here)
    assert _no_children_left()


def test_a_part_whose_process_dies_is_done_again_here() -> None:
    here = os.getpid()

    def work(k: int) -> tuple[int, int]:
        if k == 2 and os.getpid() != here:
            os._exit(3)
        return _where(k)

    results = do_in_parts(work, 3)
    assert results[2] == (2, here) and results[1][1] != here


def test_a_part_that_warns_is_done_again_here_so_its_warning_comes_in_order() -> None:
    def work(k: int) -> int:
        warnings.warn(f"part {k}", UserWarning, stacklevel=1)
        return k

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert do_in_parts(work, 3) == [0, 1, 2]
    assert [str(w.message) for w in caught] == ["part 0", "part 1", "part 2"]


def test_an_error_in_the_first_part_stops_the_others() -> None:
    def work(k: int) -> int:
        if k == 0:
            raise ValueError("first part failed")
        return k

    with pytest.raises(ValueError, match="first part failed"):
        do_in_parts(work, 3)
    assert _no_children_left()


def test_usable_cpus_is_at_least_one() -> None:
    assert usable_cpus() >= 1


def test_a_part_that_fails_here_too_raises_its_error_and_stops_the_parts_after_it() -> None:
    def work(k: int) -> int:
        if k == 1:
            raise ValueError("part 1 failed")  # in its process, then again here
        return k

    with pytest.raises(ValueError, match="part 1 failed"):
        do_in_parts(work, 4)
    assert _no_children_left()
