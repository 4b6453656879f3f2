"""Where everything of a terminal drawing goes, before anything is painted: which lane each long edge
takes, where each lane end meets its box, the columns of the boxes, the tracks in each channel and the
rows of boxes and channels.

Why this order: lanes are numbered first (shortest span first, so nested loops stack outward), then
each box decides its ports (clockwise from the top, so no stub crosses a lane of its own box), then
columns, then tracks (lane stubs outside, buses between them, so stubs never cross), then rows. Every
step is deterministic: the same topology always gives the same picture.
"""

from __future__ import annotations

from inspector.layout._parts import Box, Channel, End, Lane

__all__ = ["assign_lanes", "assign_tracks", "attach", "place_columns", "place_rows", "port_order"]

_COLUMN_GAP = 4  # blank cells between boxes side by side: room for the TUI's `×N` visit counts

_FAR = 1 << 30  # the column of "the lanes", before their columns are known


def assign_lanes(lanes: list[Lane]) -> None:
    """Interval colouring over row spans, shortest span first, so nested loops stack outward."""
    occupied: list[list[tuple[int, int]]] = []
    for lane in sorted(lanes, key=lambda ln: (ln.span[1] - ln.span[0], ln.span[0])):
        low, high = lane.span
        for index, used in enumerate(occupied):
            if all(high < a or low > b for a, b in used):
                used.append((low, high))
                lane.lane = index
                break
        else:
            occupied.append([(low, high)])
            lane.lane = len(occupied) - 1


def _other(end: End) -> str:
    return end.lane.target if end.outgoing else end.lane.source


def port_order(end: End, key: str, seq: dict[str, tuple[int, int]]) -> tuple[int, int, int]:
    """Clockwise from the top of the box: ends leading up first (inner lanes first), then ends leading
    down (outer lanes first). Then no end's stub crosses a lane of its own box."""
    lane = end.lane
    other = _other(end)
    if other == key:  # a self-loop: leave first, arrive after
        return (1, -lane.lane, 0 if end.outgoing else 1)
    if seq[other] < seq[key]:
        return (0, lane.lane, 0)
    return (1, -lane.lane, 0)


def _slots(width: int) -> list[int]:
    """Box-relative columns right of the middle where a lane may meet the top or bottom border."""
    return [c for c in range(width - 2, width // 2 + 1, -2)]


def attach(box: Box, *, rightmost: bool, seq: dict[str, tuple[int, int]]) -> None:
    """Decide where each lane end meets the box: the right side (only the rightmost box of a row has
    one free), one end per content row; ends leading down that do not fit go to the bottom border,
    ends leading up to the top border. The box widens for border slots rather than grow taller."""
    ends = box.ends
    ups = sum(1 for e in ends if port_order(e, box.node.key, seq)[0] == 0)
    downs = len(ends) - ups
    rows = max(box.content.height, 1) if rightmost else 0
    overflow = max(0, len(ends) - rows)
    bottoms = min(downs, overflow)
    tops = min(ups, overflow - bottoms)
    box.side = len(ends) - tops - bottoms
    while len(_slots(box.width)) < max(tops, bottoms):
        box.width += 1
    for end in ends[:tops]:
        end.where = "top"
    for end in ends[len(ends) - bottoms :]:
        end.where = "bottom"


def place_columns(layers: list[list[str]], boxes: dict[str, Box], margin: int = 0) -> None:
    """Centre each row on one axis; `margin` blank columns on the left leave room for labels."""
    widths = [sum(boxes[k].width for k in layer) + _COLUMN_GAP * (len(layer) - 1) for layer in layers]
    axis = max(widths, default=0) // 2 + 1 + margin
    for layer, width in zip(layers, widths, strict=True):
        col = axis - width // 2 if len(layer) > 1 else axis - boxes[layer[0]].width // 2
        for key in layer:
            box = boxes[key]
            box.col = col
            col += box.width + _COLUMN_GAP
            tops = _slots(box.width)
            top_ends = [e for e in box.ends if e.where == "top"]
            for end, slot in zip(top_ends, sorted(tops[: len(top_ends)]), strict=True):
                end.col = box.col + slot
            bottom_ends = [e for e in box.ends if e.where == "bottom"]
            for end, slot in zip(bottom_ends, tops, strict=False):
                end.col = box.col + slot


def _conflict(a: tuple[int, int, tuple[int, ...]], b: tuple[int, int, tuple[int, ...]]) -> bool:
    """Two horizontal runs may share a track unless they overlap; touching at a column where both
    drop into the same box (a fan-in) is fine."""
    lo, hi = max(a[0], b[0]), min(a[1], b[1])
    if lo > hi:
        return False
    return not (lo == hi and lo in a[2] and lo in b[2])


def assign_tracks(channel: Channel) -> None:
    """Lane stubs of the row above take the top tracks (rightmost first), lane stubs of the row below
    the bottom ones (leftmost first), buses first-fit between them: that order keeps stubs from
    crossing each other."""
    tracks: list[list[tuple[int, int, tuple[int, ...]]]] = []
    for end in sorted(channel.below, key=lambda e: -e.col):
        end.track = len(tracks)
        tracks.append([(end.col, _FAR, ())])
    for net in sorted(channel.nets, key=lambda n: (n.span[1] - n.span[0], n.span[0])):
        if net.span[0] == net.span[1]:
            continue  # straight down: no track
        run = (*net.span, net.drops)
        for index, used in enumerate(tracks):
            if not any(_conflict(run, other) for other in used):
                used.append(run)
                net.track = index
                break
        else:
            net.track = len(tracks)
            tracks.append([run])
    for end in sorted(channel.above, key=lambda e: e.col):
        end.track = len(tracks)
        tracks.append([(end.col, _FAR, ())])
    channel.tracks = len(tracks)


def place_rows(layers: list[list[str]], boxes: dict[str, Box], channels: list[Channel]) -> None:
    row = 0
    for index, channel in enumerate(channels):
        channel.top = row
        row += channel.rows
        if index == len(layers):
            break
        for key in layers[index]:
            boxes[key].row = row
        row += max(boxes[k].height for k in layers[index])
    for box in boxes.values():
        side = 0
        for end in box.ends:
            if end.where == "side":
                end.row = box.row + 1 + side
                side += 1
            elif end.where == "bottom":
                end.row = channels[box.layer + 1].track_row(end.track)
            else:
                end.row = channels[box.layer].track_row(end.track)
