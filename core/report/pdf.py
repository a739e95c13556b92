"""The report as a PDF (A4 portrait), laid out with fpdf2.

Text uses DejaVu Sans from matplotlib's bundled fonts, so any Unicode the
report holds (τ, ≥, accented names) prints. Tables repeat their header row
on each page and shrink to 9, 8 or 7 pt to fit the text width; figures are
scaled to the text width, keeping their aspect ratio.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

from fpdf import FPDF
from fpdf.enums import XPos, YPos
from fpdf.fonts import FontFace

from referee.core.formats.text_files import write_bytes
from referee.core.progress import ProgressCallback
from referee.core.progress import report as report_progress
from referee.core.report.document import (
    Block,
    Cell,
    Definitions,
    Figure,
    Paragraph,
    Report,
    Section,
    Table,
    cell_number,
    cell_text,
)

_FONT = "DejaVu"
_BODY_PT = 10
_TABLE_PT = (9, 8, 7)
_LINE_MM = 5.0
#: A figure's natural size: its pixels at this resolution (then capped to the text width).
_FIGURE_DPI = 150
_MM_PER_INCH = 25.4
#: A column wider than this share of the text width wraps instead of widening the table.
_WIDEST_COLUMN = 0.5
#: Left plus right padding of a table cell, with a little slack for rounding (mm).
_CELL_PADDING_SIDE = 1.2
_CELL_PADDING = 2 * _CELL_PADDING_SIDE + 1.0
_MUTED = (110, 115, 125)
_HEADING_FILL = (225, 231, 238)
_ZEBRA_FILL = (245, 246, 248)


class _ReportPDF(FPDF):
    """FPDF with the report's fonts and a footer naming the Referee version and the page."""

    def __init__(self, version: str) -> None:
        super().__init__(orientation="portrait", unit="mm", format="A4")
        self._version = version
        fonts = _font_folder()
        self.add_font(_FONT, "", fonts / "DejaVuSans.ttf")
        self.add_font(_FONT, "B", fonts / "DejaVuSans-Bold.ttf")
        self.set_auto_page_break(auto=True, margin=18)

    def footer(self) -> None:
        self.set_y(-12)
        self.set_font(_FONT, size=8)
        self.set_text_color(*_MUTED)
        self.cell(0, 6, f"Referee {self._version} — page {self.page_no()} of {{nb}}", align="C")
        self.set_text_color(0)


def write_pdf(report: Report, path: str | Path, progress: ProgressCallback | None = None) -> int:
    """Write ``report`` as an A4 PDF to ``path`` atomically; return its page count.

    ``progress(done, total)`` is called once per section laid out.

    Raises
    ------
    InputFileError
        If the folder of ``path`` does not exist or is not writable.
    """
    pdf = _ReportPDF(report.version)
    pdf.set_title(report.title)
    pdf.set_creator(f"Referee {report.version}")
    pdf.add_page()
    _title_block(pdf, report)
    total = len(report.sections)
    for done, section in enumerate(report.sections, start=1):
        _section(pdf, section)
        report_progress(progress, done, total)
    data = bytes(pdf.output())
    write_bytes(path, data)
    return pdf.pages_count


def _font_folder() -> Path:
    import matplotlib  # only for its bundled DejaVu fonts

    return Path(matplotlib.get_data_path()) / "fonts" / "ttf"


def _title_block(pdf: FPDF, report: Report) -> None:
    pdf.set_font(_FONT, "B", 20)
    pdf.multi_cell(0, 9, report.title, align="L", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_font(_FONT, size=_BODY_PT)
    pdf.set_text_color(*_MUTED)
    pdf.multi_cell(
        0,
        _LINE_MM,
        f"Referee {report.version} · {report.created}",
        align="L",
        new_x=XPos.LMARGIN,
        new_y=YPos.NEXT,
    )
    pdf.set_text_color(0)
    pdf.ln(3)
    if report.facts:
        _grid(pdf, ("About this run", ""), report.facts, numeric=(False, False))


def _section(pdf: FPDF, section: Section) -> None:
    if pdf.will_page_break(30):
        pdf.add_page()
    pdf.ln(4)
    pdf.start_section(section.title)
    pdf.set_font(_FONT, "B", 14)
    pdf.multi_cell(0, 7, section.title, align="L", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.ln(2)
    for block in section.blocks:
        _block(pdf, block)


def _block(pdf: FPDF, block: Block) -> None:
    if isinstance(block, Paragraph):
        _paragraph(pdf, block.text)
    elif isinstance(block, Table):
        _table(pdf, block)
    elif isinstance(block, Figure):
        _figure(pdf, block)
    elif isinstance(block, Definitions):
        _definitions(pdf, block)
    else:
        raise TypeError(f"unknown report block {type(block).__name__}")


def _paragraph(pdf: FPDF, text: str) -> None:
    pdf.set_font(_FONT, size=_BODY_PT)
    pdf.multi_cell(0, _LINE_MM, text, align="L", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.ln(2)


def _table(pdf: FPDF, table: Table) -> None:
    if pdf.will_page_break(20):
        pdf.add_page()
    pdf.set_font(_FONT, "B", _BODY_PT)
    pdf.multi_cell(0, _LINE_MM, table.title, align="L", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.ln(1)
    numeric = tuple(
        all(cell is None or cell_number(cell) is not None for cell in column)
        for column in zip(*table.rows)
    ) or (False,) * len(table.columns)
    _grid(pdf, table.columns, table.rows, numeric)
    pdf.set_font(_FONT, size=8)
    pdf.set_text_color(*_MUTED)
    for note in table.notes:
        pdf.multi_cell(0, 4, note, align="L", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_text_color(0)
    pdf.ln(3)


def _grid(
    pdf: FPDF,
    columns: tuple[str, ...],
    rows: tuple[tuple[Cell, ...], ...],
    numeric: tuple[bool, ...],
) -> None:
    """A table with a repeated header row, zebra rows and numbers right-aligned."""
    texts = [[cell_text(cell) for cell in row] for row in rows]
    size, widths = _fit_columns(pdf, columns, texts)
    pdf.set_font(_FONT, size=size)
    muted = FontFace(color=_MUTED)
    heading = FontFace(emphasis="BOLD", fill_color=_HEADING_FILL)
    with pdf.table(
        col_widths=widths,
        width=min(sum(widths), pdf.epw),
        align="LEFT",
        text_align="LEFT",
        headings_style=heading,
        repeat_headings=1,
        cell_fill_mode="ROWS",
        cell_fill_color=_ZEBRA_FILL,
        line_height=size * 0.5,
        padding=(0.8, _CELL_PADDING_SIDE),
    ) as grid:
        header = grid.row()
        for column, is_number in zip(columns, numeric):
            header.cell(column, align="RIGHT" if is_number else "LEFT")
        for row, shown in zip(rows, texts):
            line = grid.row()
            for cell, text, is_number in zip(row, shown, numeric):
                number = cell_number(cell)
                undefined = number is not None and math.isnan(number)
                line.cell(
                    text, align="RIGHT" if is_number else "LEFT", style=muted if undefined else None
                )


def _fit_columns(
    pdf: FPDF, columns: tuple[str, ...], texts: list[list[str]]
) -> tuple[int, list[float]]:
    """A table font size (9, 8 or 7 pt) and column widths (mm) that fit the text width.

    The largest size at which no cell wraps wins; failing that, the largest size
    at which no word is cut, the spare width shared in proportion to what each
    column lacks; failing that, 7 pt with the narrowest widths scaled down.
    """
    measured = {size: _column_widths(pdf, size, columns, texts) for size in _TABLE_PT}
    for size, (_, natural) in measured.items():
        if sum(natural) <= pdf.epw:
            return size, natural
    for size, (narrowest, natural) in measured.items():
        spare = pdf.epw - sum(narrowest)
        if spare >= 0:
            lacking = [n - m for m, n in zip(narrowest, natural)]
            return size, [m + spare * gap / sum(lacking) for m, gap in zip(narrowest, lacking)]
    return _TABLE_PT[-1], measured[_TABLE_PT[-1]][0]


def _column_widths(
    pdf: FPDF, size: int, columns: tuple[str, ...], texts: list[list[str]]
) -> tuple[list[float], list[float]]:
    """Per column, the width (mm) of its longest word and of its longest cell, padding included."""
    narrowest, natural = [], []
    for i, column in enumerate(columns):
        pdf.set_font(_FONT, "B", size)
        words = [_string_width(pdf, word) for word in column.split()]
        lines = [_string_width(pdf, column)]
        pdf.set_font(_FONT, size=size)
        for row in texts:
            words += [_string_width(pdf, word) for word in row[i].split()]
            lines.append(_string_width(pdf, row[i]))
        natural.append(min(max(lines), _WIDEST_COLUMN * pdf.epw))
        narrowest.append(min(max(words, default=_CELL_PADDING), natural[-1]))
    return narrowest, natural


def _string_width(pdf: FPDF, text: str) -> float:
    return pdf.get_string_width(text) + _CELL_PADDING


def _figure(pdf: FPDF, figure: Figure) -> None:
    width_px, height_px = figure.size_px
    width = min(pdf.epw, width_px / _FIGURE_DPI * _MM_PER_INCH)
    height = width * height_px / width_px
    room = pdf.eph - 25
    if height > room:
        width, height = width * room / height, room
    if pdf.will_page_break(height + 10):
        pdf.add_page()
    pdf.image(
        io.BytesIO(figure.png),
        x=pdf.l_margin + (pdf.epw - width) / 2,
        w=width,
        h=height,
        alt_text=figure.title,
    )
    pdf.ln(1)
    pdf.set_font(_FONT, "B", 9)
    pdf.multi_cell(0, 4.5, figure.title, align="C", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    if figure.caption:
        pdf.set_font(_FONT, size=9)
        pdf.set_text_color(*_MUTED)
        pdf.multi_cell(0, 4.5, figure.caption, align="C", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.set_text_color(0)
    pdf.ln(3)


def _definitions(pdf: FPDF, definitions: Definitions) -> None:
    for term, meaning in definitions.items:
        pdf.set_font(_FONT, "B", _BODY_PT)
        pdf.write(_LINE_MM, f"{term}: ")
        pdf.set_font(_FONT, size=_BODY_PT)
        pdf.write(_LINE_MM, meaning)
        pdf.ln(_LINE_MM + 1.5)
    pdf.ln(1)
