"""The report document: what a report says, independent of the file format.

A :class:`Report` is a title, a list of facts about the run (what was
evaluated, with which parameters) and a sequence of :class:`Section` s.
Each section holds blocks: :class:`Paragraph`, :class:`Table`,
:class:`Figure` and :class:`Definitions`. The writers (HTML, PDF, CSV,
JSON) only lay out these blocks; every number is computed before a writer
sees it, so all formats say the same thing.

Table cells keep their machine value: an ``int``, a ``float``, a ``str``,
``None`` (nothing to say) or an :class:`~referee.core.measures.indicators.IndicatorValue`
(which may be undefined, with its reason). :func:`cell_text` is the one place
that turns a cell into the text every format shows.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field

from referee.core.measures.indicators import IndicatorValue

Cell = int | float | str | None | IndicatorValue

#: Decimals shown for a float cell (the JSON and CSV keep every digit).
SHOWN_DIGITS = 4

_KEY = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


def _check_key(key: str, what: str) -> None:
    if not _KEY.match(key):
        raise ValueError(f"{what} key {key!r} must be lower-case letters, digits, '-' or '_'")


def cell_text(cell: Cell) -> str:
    """The text a report shows for ``cell``: floats to :data:`SHOWN_DIGITS` significant digits."""
    if cell is None:
        return ""
    if isinstance(cell, IndicatorValue):
        return cell.reason or "undefined" if not cell.defined else _float_text(cell.value)
    if isinstance(cell, bool):
        return "yes" if cell else "no"
    if isinstance(cell, int):
        return str(cell)
    if isinstance(cell, float):
        return "undefined" if math.isnan(cell) else _float_text(cell)
    return str(cell)


def _float_text(value: float) -> str:
    if value == 0 or math.isinf(value):
        return f"{value:g}"
    if abs(value) < 1e-3 or abs(value) >= 1e6:
        return f"{value:.{SHOWN_DIGITS - 1}e}"
    return f"{value:.{SHOWN_DIGITS}f}"


def cell_number(cell: Cell) -> float | None:
    """The numeric value of ``cell`` (NaN when undefined), or ``None`` for text and blanks."""
    if isinstance(cell, IndicatorValue):
        return cell.value
    if isinstance(cell, bool) or not isinstance(cell, (int, float)):
        return None
    return float(cell)


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of plain text (no markup)."""

    text: str


@dataclass(frozen=True)
class Table:
    """A table with a header row; ``key`` names its CSV file and its JSON entry."""

    key: str
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_key(self.key, "table")
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(
                    f"table {self.key}: a row has {len(row)} cells for {len(self.columns)} columns"
                )


@dataclass(frozen=True)
class Figure:
    """A plot or image, as PNG bytes, with a caption that says what it shows."""

    key: str
    title: str
    png: bytes = field(repr=False)
    caption: str = ""

    def __post_init__(self) -> None:
        _check_key(self.key, "figure")
        if not self.png.startswith(b"\x89PNG\r\n\x1a\n"):
            raise ValueError(f"figure {self.key}: the image is not a PNG")

    @property
    def size_px(self) -> tuple[int, int]:
        """Width and height in pixels, read from the PNG's IHDR chunk."""
        width, height = struct.unpack(">II", self.png[16:24])
        return width, height


@dataclass(frozen=True)
class Definitions:
    """Terms and what they mean (indicator definitions, parameter meanings)."""

    items: tuple[tuple[str, str], ...]


Block = Paragraph | Table | Figure | Definitions


@dataclass(frozen=True)
class Section:
    """A titled part of the report."""

    key: str
    title: str
    blocks: tuple[Block, ...]

    def __post_init__(self) -> None:
        _check_key(self.key, "section")


@dataclass(frozen=True)
class Report:
    """A whole report: title, facts about the run, and sections in reading order.

    ``facts`` are (name, value) pairs shown first: the project, the Referee
    version, the date, the videos and frame ranges, every parameter and default.
    ``versions`` names the version of each library the numbers came from.
    """

    title: str
    created: str
    version: str
    facts: tuple[tuple[str, str], ...]
    sections: tuple[Section, ...]
    versions: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        keys = [t.key for t in self.tables()] + [f.key for f in self.figures()]
        duplicates = sorted({k for k in keys if keys.count(k) > 1})
        if duplicates:
            raise ValueError(f"report keys used twice: {', '.join(duplicates)}")

    def tables(self) -> Iterator[Table]:
        """Every table, in reading order."""
        for section in self.sections:
            yield from (b for b in section.blocks if isinstance(b, Table))

    def figures(self) -> Iterator[Figure]:
        """Every figure, in reading order."""
        for section in self.sections:
            yield from (b for b in section.blocks if isinstance(b, Figure))

    def table(self, key: str) -> Table:
        """The table called ``key``."""
        for table in self.tables():
            if table.key == key:
                return table
        raise KeyError(key)


def figure_key(text: str) -> str:
    """A figure or table key made from ``text``: lower case, runs of other characters as ``-``."""
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")
