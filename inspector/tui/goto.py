"""What the go-to-step prompt (`g`) accepts: a position in the timeline, or `segment:step`.

A run resumed into the same file has one timeline but step numbers that restart at each resume (the
engine's counter does), so a bare number cannot mean both. A bare number is a position, the number the
status line counts and `inspector replay --step` takes, whatever the run; `k:i` is step `i` of segment
`k`, the numbers the timeline rows and the node detail show. Negative numbers count from the end (of
the timeline, of the segments, of the segment's steps).
"""

from __future__ import annotations

from inspector.recording.reader import Run

__all__ = ["GotoError", "goto_prompt", "resolve_goto", "resolve_step"]


class GotoError(ValueError):
    """The answer names no step; the message says what would."""


def goto_prompt(run: Run) -> str:
    """The question the prompt asks, with the ranges that answer it."""
    last = max(len(run.steps) - 1, 0)
    if len(run.segments) < 2:
        return f"Go to step (0–{last}; negative counts from the end)"
    final = run.segments[-1]
    return (
        f"Go to position (0–{last}) or segment:step (0:0–{final.index}:{max(len(final.steps) - 1, 0)}); "
        "negative counts from the end"
    )


def resolve_goto(answer: str, run: Run) -> int:
    """The position `answer` names (a bare position is returned as typed, for `Replay.go` to clamp)."""
    text = answer.strip()
    if ":" not in text:
        return _number(text, answer)
    segment_text, _, step_text = text.partition(":")
    segments = run.segments
    k = _number(segment_text, answer)
    if not -len(segments) <= k < len(segments):
        raise GotoError(f"no segment {k}: the run has {len(segments)} (0–{len(segments) - 1})")
    segment = segments[k]
    i = _number(step_text, answer)
    count = len(segment.steps)
    if not -count <= i < count:
        have = f"steps 0–{count - 1}" if count else "no complete step"
        raise GotoError(f"segment {segment.index} has {have}, no step {i}")
    return segment.start + (i % count)


def _number(text: str, answer: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise GotoError(f"not a step number or segment:step: {answer!r}") from None


def resolve_step(answer: str, run: Run) -> int:
    """The position `answer` names, checked: `--step` and `g` refuse a step the run does not have
    instead of opening somewhere else without a word. Negative numbers count from the end."""
    position = resolve_goto(answer, run)
    count = len(run.steps)
    if not -count <= position < count:
        have = (
            f"{count} step{'' if count == 1 else 's'} (0–{count - 1}; -1 is the last)" if count else "no step"
        )
        raise GotoError(f"no step {answer.strip()}: the run has {have}")
    return position % count
