"""Rewriting a CSV file Referee read, keeping what was not edited (docs/measures.md §10).

The ground-truth writers (MOTChallenge boxes, counts) take the file as it was
read and change only the records whose values changed: a record is one CSV
row with its exact text, line ending included, so that every other record,
blank line and header comes back byte for byte. Cells are found as Python's
``csv`` module finds them (a field starting with ``"`` is quoted).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from referee.core.formats.text_files import numbered_csv_rows

#: One line with its ending (``\r\n``, ``\n`` or ``\r``), or a last line without one.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


@dataclass(frozen=True)
class Record:
    """One CSV row of a file as written there.

    Attributes
    ----------
    line
        The 1-based line it starts on (as the readers number rows in messages).
    text
        Its text, line ending included (none on a last line without one).
    cells
        Its cells as :mod:`csv` reads them, not stripped.
    """

    line: int
    text: str
    cells: list[str]

    @property
    def blank(self) -> bool:
        """Whether every cell is empty or white space (the readers skip such rows)."""
        return not any(cell.strip() for cell in self.cells)


def encoded_like(text: str, original: bytes) -> bytes:
    """``text`` in UTF-8, with a byte-order mark when ``original`` starts with one."""
    mark = codecs.BOM_UTF8 if original.startswith(codecs.BOM_UTF8) else b""
    return mark + text.encode("utf-8")


def csv_records(text: str) -> tuple[list[Record], str]:
    """Every row of ``text`` with its exact text (joined, they give ``text`` back), and
    ``text`` with every line ending made ``\\n``, which the readers parse to the same
    rows on the same lines.

    A line ends at ``\\r\\n``, ``\\n`` or ``\\r``; a row spanning lines (a quoted
    line break) is one record.
    """
    physical = _LINE.findall(text)
    plain = _plain(text)
    rows = list(numbered_csv_rows(plain))
    starts = [line for line, _ in rows] + [len(physical) + 1]
    records = [
        Record(start, "".join(physical[start - 1 : stop - 1]), cells)
        for (start, cells), stop in zip(rows, starts[1:])
    ]
    return records, plain


def line_ending(records: Iterable[Record]) -> str:
    """The file's line ending: that of its first ended line, ``\\n`` if none is."""
    for record in records:
        ending = _split_ending(record.text)[1]
        if ending:
            return ending
    return "\n"


def with_cells(record: Record, cells: Mapping[int, str]) -> str:
    """The record's text with cell ``k`` holding ``cells[k]``; every other character kept.

    White space around a replaced cell is kept; a quoted cell is replaced whole.
    """
    body, ending = _split_ending(record.text)
    pieces, end = [], 0
    for k, (start, stop) in enumerate(_cell_spans(body)):
        if k not in cells:
            continue
        old = body[start:stop]
        core = old.strip()
        if core and not core.startswith('"'):
            start += old.index(core)
            stop = start + len(core)
        pieces += [body[end:start], cells[k]]
        end = stop
    return "".join([*pieces, body[end:], ending])


def text_from_cell(record: Record, index: int) -> str:
    """The record's text from cell ``index`` on, as written (its line ending left out);
    empty when it has fewer cells."""
    body, _ = _split_ending(record.text)
    spans = _cell_spans(body)
    return body[spans[index][0] :] if index < len(spans) else ""


def joined(pieces: Iterable[str], ending: str) -> str:
    """``pieces`` (records' texts, ``""`` for a dropped one) as one text; a piece that
    does not end its line before another piece gets ``ending``."""
    out: list[str] = []
    for piece in pieces:
        if not piece:
            continue
        if out and not _split_ending(out[-1])[1]:
            out[-1] += ending
        out.append(piece)
    return "".join(out)


def _plain(text: str) -> str:
    """``text`` with every line ending (``\\r\\n``, ``\\r``) made ``\\n``."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _split_ending(text: str) -> tuple[str, str]:
    """``text`` without its line ending, and the ending."""
    for ending in ("\r\n", "\n", "\r"):
        if text.endswith(ending):
            return text[: -len(ending)], ending
    return text, ""


def _cell_spans(body: str) -> list[tuple[int, int]]:
    """``(start, stop)`` of every cell of one record's text, as :mod:`csv` splits it."""
    spans, start = [], 0
    while True:
        end = start
        if body.startswith('"', start):
            end = start + 1
            while (quote := body.find('"', end)) >= 0 and body.startswith('"', quote + 1):
                end = quote + 2
            end = len(body) if quote < 0 else quote + 1
        comma = body.find(",", end)
        if comma < 0:
            spans.append((start, len(body)))
            return spans
        spans.append((start, comma))
        start = comma + 1
