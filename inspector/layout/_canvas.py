"""A character canvas whose lines are stored as directions, so crossings and junctions compose.

Routing code says "this cell connects north and south, dashed" and never picks glyphs itself; two routes
through one cell merge into the right junction (`┼`, `├`, ...). Each contribution names its net (the
edges that may legitimately join there): where a purely vertical net meets a purely horizontal one of
another net, the cell is a crossing, not a junction, and the vertical line is drawn over the gap
(`─│─`), so `┼` only ever means "these lines connect". Text, borders and arrow heads are fixed
characters that win over lines. Columns are terminal cells: a wide character (CJK, most emoji) takes
two, the second holding an empty string. A cell holds a whole cluster: a character with the combining
marks, joiners and variation selectors that follow it, so `e` + U+0301 keeps its accent and a joined
emoji sequence takes the two cells a terminal gives it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter

__all__ = ["Canvas", "E", "N", "S", "W", "cell_width", "clusters"]

N, S, E, W = 1, 2, 4, 8
_ALL = N | S | E | W

_LIGHT = {
    N: "│", S: "│", N | S: "│", E: "─", W: "─", E | W: "─",
    S | E: "╭", S | W: "╮", N | E: "╰", N | W: "╯",
    N | S | E: "├", N | S | W: "┤", E | W | S: "┬", E | W | N: "┴", _ALL: "┼",
}  # fmt: skip
_HEAVY = {
    N: "┃", S: "┃", N | S: "┃", E: "━", W: "━", E | W: "━",
    S | E: "┏", S | W: "┓", N | E: "┗", N | W: "┛",
    N | S | E: "┣", N | S | W: "┫", E | W | S: "┳", E | W | N: "┻", _ALL: "╋",
}  # fmt: skip
_DASHED = {(False, True): "┆", (False, False): "╌", (True, True): "┇", (True, False): "┅"}


_ZWJ = "\u200d"
_VS16 = "\ufe0f"


def _char_width(ch: str) -> int:
    if ch != "\xad" and (unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf")):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def clusters(text: str) -> list[tuple[str, int]]:
    """`text` cut into what a terminal draws in one place, each with its cells.

    Zero-width characters ride on the character before them (a leading one on the next), a zero-width
    joiner also pulls in the character after it, and an emoji variation selector widens a narrow base.
    """
    out: list[tuple[str, int]] = []
    joined = False
    for ch in text:
        width = _char_width(ch)
        if out and (width == 0 or joined or out[-1][1] == 0):
            chars, cells = out[-1]
            if ch == _VS16 and cells == 1:
                cells = 2
            elif cells == 0:
                cells = width
            out[-1] = (chars + ch, cells)
        else:
            out.append((ch, width))
        joined = ch == _ZWJ
    return out


def cell_width(text: str) -> int:
    """Terminal cells `text` occupies: wide East Asian characters count 2, combining marks 0."""
    return sum(cells for _, cells in clusters(text))


@dataclass(slots=True)
class _Part:
    """One net's contribution to a cell."""

    mask: int = 0
    dashed: bool = True
    heavy_vertical: bool = False
    heavy_horizontal: bool = False


@dataclass(slots=True)
class _Line:
    nets: dict[Hashable, _Part] = field(default_factory=dict)

    def shown(self) -> _Part:
        """The merged line to draw: every net's directions, or only the vertical ones at a crossing."""
        parts = list(self.nets.values())
        masks = {p.mask for p in parts}
        if len(parts) > 1 and masks == {N | S, E | W}:
            parts = [p for p in parts if p.mask == N | S]
        merged = _Part()
        for part in parts:
            merged.mask |= part.mask
            merged.dashed = merged.dashed and part.dashed
            merged.heavy_vertical = merged.heavy_vertical or part.heavy_vertical
            merged.heavy_horizontal = merged.heavy_horizontal or part.heavy_horizontal
        return merged


@dataclass
class Canvas:
    """A growable grid; `put` writes fixed characters, `connect` adds line directions to a cell."""

    fixed: dict[tuple[int, int], str] = field(default_factory=dict)
    lines: dict[tuple[int, int], _Line] = field(default_factory=dict)
    height: int = 0
    width: int = 0

    def _grow(self, row: int, col: int) -> None:
        self.height = max(self.height, row + 1)
        self.width = max(self.width, col + 1)

    def put(self, row: int, col: int, text: str) -> int:
        """Write `text` from (row, col); return the column after it."""
        for chars, w in clusters(text):
            if w == 0:
                continue
            self.fixed[(row, col)] = chars
            if w == 2:
                self.fixed[(row, col + 1)] = ""
            col += w
        self._grow(row, col - 1)
        return col

    def connect(
        self,
        row: int,
        col: int,
        mask: int,
        *,
        dashed: bool = False,
        heavy: bool = False,
        net: Hashable = None,
    ) -> None:
        part = self.lines.setdefault((row, col), _Line()).nets.setdefault(net, _Part())
        part.mask |= mask
        part.dashed = part.dashed and dashed
        if mask & (N | S):
            part.heavy_vertical = part.heavy_vertical or heavy
        if mask & (E | W):
            part.heavy_horizontal = part.heavy_horizontal or heavy
        self._grow(row, col)

    def connect_cells(
        self,
        cells: Sequence[tuple[int, int]],
        masks: Sequence[int],
        *,
        dashed: bool = False,
        heavy: bool = False,
        net: Hashable = None,
    ) -> None:
        """`connect` for each cell with its mask, in one call: a route's cells are most of a drawing's
        work, and a wide fan-out has hundreds of thousands of them."""
        lines = self.lines
        for cell, mask in zip(cells, masks, strict=True):
            line = lines.get(cell)
            part = None if line is None else line.nets.get(net)
            if part is None:
                part = _Part(mask, dashed, heavy and mask & (N | S) != 0, heavy and mask & (E | W) != 0)
                if line is None:
                    lines[cell] = _Line({net: part})
                else:
                    line.nets[net] = part
                continue
            part.mask |= mask
            part.dashed = part.dashed and dashed
            if heavy and mask & (N | S):
                part.heavy_vertical = True
            if heavy and mask & (E | W):
                part.heavy_horizontal = True
        if cells:
            self._grow(max(cells)[0], max(map(itemgetter(1), cells)))

    def blit(self, other: Canvas, row: int, col: int) -> None:
        """Copy another canvas (a nested drawing) with its top-left corner at (row, col)."""
        for (r, c), ch in other.fixed.items():
            self.fixed[(r + row, c + col)] = ch
        for (r, c), line in other.lines.items():
            self.lines[(r + row, c + col)] = _Line(
                {net: _Part(p.mask, p.dashed, p.heavy_vertical, p.heavy_horizontal)
                 for net, p in line.nets.items()}
            )  # fmt: skip
        self._grow(row + other.height - 1, col + other.width - 1)

    def free(self, row: int, col: int) -> bool:
        """Nothing drawn at this cell."""
        return (row, col) not in self.fixed and (row, col) not in self.lines

    def only_net(self, row: int, col: int) -> Hashable:
        """The single net with a line at this cell, or None when there are none or several."""
        line = self.lines.get((row, col))
        if line is None or len(line.nets) != 1 or (row, col) in self.fixed:
            return None
        return next(iter(line.nets))

    def glyph(self, row: int, col: int) -> str:
        fixed = self.fixed.get((row, col))
        if fixed is not None:
            return fixed
        found = self.lines.get((row, col))
        if found is None:
            return " "
        return _line_glyph(found.shown())

    def rows(self) -> list[str]:
        """The text, row by row (trailing blanks cut). Only drawn cells are visited: a wide drawing is
        mostly blank, and cells with the same merged line share one glyph lookup."""
        height, width = self.height, self.width
        grid = [[" "] * width for _ in range(height)]
        memo: dict[tuple[int, bool, bool, bool], str] = {}
        for (row, col), line in self.lines.items():
            if 0 <= row < height and 0 <= col < width:
                nets = line.nets
                part = next(iter(nets.values())) if len(nets) == 1 else line.shown()
                key = (part.mask, part.dashed, part.heavy_vertical, part.heavy_horizontal)
                glyph = memo.get(key)
                if glyph is None:
                    glyph = memo[key] = _line_glyph(part)
                grid[row][col] = glyph
        for (row, col), chars in self.fixed.items():
            if 0 <= row < height and 0 <= col < width:
                grid[row][col] = chars
        return ["".join(cells).rstrip() for cells in grid]


def _line_glyph(line: _Part) -> str:
    """The box-drawing character of a merged line."""
    mask = line.mask
    vertical = mask & (N | S) != 0
    horizontal = mask & (E | W) != 0
    if line.dashed and vertical != horizontal:
        heavy = line.heavy_vertical if vertical else line.heavy_horizontal
        return _DASHED[(heavy, vertical)]
    if mask == _ALL and line.heavy_vertical != line.heavy_horizontal:
        return "╂" if line.heavy_vertical else "┿"
    heavy = line.heavy_vertical or line.heavy_horizontal
    return (_HEAVY if heavy else _LIGHT)[mask]
