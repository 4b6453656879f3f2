"""A message list as stored: `{"$refs": [[start, stop], ...]}`, runs of consecutive value ids.

The encoder grows a list's runs when the list grows at its end and cuts them when a step held only a
prefix of it; both rules live here, next to each other, so the stored marker of a prefix is always the
marker the list had at that length.
"""

from __future__ import annotations

__all__ = ["extend_runs", "prefix_runs"]


def extend_runs(runs: list[list[int]], refs: list[int]) -> list[list[int]]:
    """`runs` (sorted [start, stop) pairs) followed by `refs`, as a new list; consecutive ids merge."""
    if len(refs) == 1 and runs and runs[-1][1] == refs[0]:  # the usual growth: one more id in the last run
        out = runs[:-1]
        out.append([runs[-1][0], refs[0] + 1])
        return out
    out = runs[:-1]
    if runs:
        out.append(list(runs[-1]))
    for ref in refs:
        if out and out[-1][1] == ref:
            out[-1][1] = ref + 1
        else:
            out.append([ref, ref + 1])
    return out


def prefix_runs(runs: list[list[int]], n: int) -> list[list[int]]:
    """The runs of the first `n` ids of `runs`, as a new list: what `extend_runs` had made when the
    list was `n` long."""
    out: list[list[int]] = []
    left = n
    for start, stop in runs:
        if left <= 0:
            break
        size = stop - start
        if size >= left:
            out.append([start, start + left])
            break
        out.append([start, stop])
        left -= size
    return out
