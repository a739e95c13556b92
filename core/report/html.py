"""The report as one self-contained HTML5 file (inline style, figures as data URLs).

Every table cell shows :func:`~referee.core.report.document.cell_text`; a
numeric cell also carries its exact value in ``data-value`` (``repr`` of the
float, ``nan`` when undefined) so scripts and tests can read it back.
"""

from __future__ import annotations

import base64
import math
from html import escape
from pathlib import Path

from referee.core.formats.text_files import write_text
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

_STYLE = """
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", "Segoe UI", Helvetica, Arial, sans-serif;
       color: #1d1d1f; line-height: 1.45; max-width: 1100px; margin: 2rem auto;
       padding: 0 1.25rem; }
header { border-bottom: 2px solid #3b6ea5; margin-bottom: 1.5rem; }
h1 { margin: 0 0 .25rem; font-size: 1.8rem; }
h2 { margin-top: 2.2rem; border-bottom: 1px solid #d0d4da; padding-bottom: .2rem; }
.meta, .note, figcaption, footer { color: #555; font-size: .9rem; }
nav ol { padding-left: 1.4rem; }
a { color: #2a5d94; }
table { border-collapse: collapse; margin: 1rem 0 .4rem; font-size: .92rem; }
caption { caption-side: top; text-align: left; font-weight: bold; padding-bottom: .3rem; }
th, td { border: 1px solid #c8ccd2; padding: .25rem .55rem; text-align: left;
         vertical-align: top; }
thead th { background: #e9edf2; }
tbody tr:nth-child(even) { background: #f6f7f9; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.undefined { color: #8a8f98; font-style: italic; white-space: normal; }
#facts th { font-weight: normal; color: #444; background: #f6f7f9; }
figure { margin: 1.2rem 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #e0e3e7; }
dl.definitions dt { font-weight: bold; margin-top: .5rem; }
dl.definitions dd { margin-left: 1.5rem; }
footer { margin-top: 3rem; border-top: 1px solid #d0d4da; padding-top: .5rem; }
@media print {
  body { margin: 0; max-width: none; }
  nav { display: none; }
  thead { display: table-header-group; }
  tr, figure { break-inside: avoid; }
  h2 { break-after: avoid; }
}
"""


def render_html(report: Report) -> str:
    """The whole report as an HTML5 document that needs no other file."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(report.title)}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
        _header(report),
        _facts(report.facts),
        _contents(report.sections),
        *(_section(section) for section in report.sections),
        f"<footer>Written by Referee {escape(report.version)} on {escape(report.created)}."
        "</footer>",
        "</body>",
        "</html>",
    ]
    return "\n".join(parts) + "\n"


def write_html(report: Report, path: str | Path) -> None:
    """Write :func:`render_html` to ``path`` atomically (UTF-8).

    Raises
    ------
    InputFileError
        If the folder of ``path`` does not exist or is not writable.
    """
    write_text(path, render_html(report))


def _header(report: Report) -> str:
    return (
        f"<header><h1>{escape(report.title)}</h1>"
        f'<p class="meta">Referee {escape(report.version)} · {escape(report.created)}</p>'
        "</header>"
    )


def _facts(facts: tuple[tuple[str, str], ...]) -> str:
    rows = "".join(
        f'<tr><th scope="row">{escape(name)}</th><td>{escape(value)}</td></tr>'
        for name, value in facts
    )
    return f'<table id="facts"><caption>About this run</caption><tbody>{rows}</tbody></table>'


def _contents(sections: tuple[Section, ...]) -> str:
    items = "".join(f'<li><a href="#{escape(s.key)}">{escape(s.title)}</a></li>' for s in sections)
    return f'<nav id="contents"><h2>Contents</h2><ol>{items}</ol></nav>'


def _section(section: Section) -> str:
    blocks = "\n".join(_block(block) for block in section.blocks)
    return (
        f'<section id="{escape(section.key)}"><h2>{escape(section.title)}</h2>\n'
        f"{blocks}\n</section>"
    )


def _block(block: Block) -> str:
    if isinstance(block, Paragraph):
        return f"<p>{escape(block.text)}</p>"
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, Figure):
        return _figure(block)
    if isinstance(block, Definitions):
        return _definitions(block)
    raise TypeError(f"unknown report block {type(block).__name__}")


def _table(table: Table) -> str:
    head = "".join(f'<th scope="col">{escape(column)}</th>' for column in table.columns)
    body = "".join("<tr>" + "".join(_cell(cell) for cell in row) + "</tr>" for row in table.rows)
    notes = "".join(f'<p class="note">{escape(note)}</p>' for note in table.notes)
    return (
        f'<table id="table-{escape(table.key)}"><caption>{escape(table.title)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{notes}"
    )


def _cell(cell: Cell) -> str:
    text = escape(cell_text(cell))
    number = cell_number(cell)
    if number is None:
        return f"<td>{text}</td>"
    kind = "num undefined" if math.isnan(number) else "num"
    return f'<td class="{kind}" data-value="{escape(repr(number))}">{text}</td>'


def _figure(figure: Figure) -> str:
    data = base64.b64encode(figure.png).decode("ascii")
    caption = f" {escape(figure.caption)}" if figure.caption else ""
    width, height = figure.size_px
    return (
        f'<figure id="figure-{escape(figure.key)}">'
        f'<img src="data:image/png;base64,{data}" alt="{escape(figure.title)}" '
        f'width="{width}" height="{height}">'
        f"<figcaption><strong>{escape(figure.title)}</strong>{caption}</figcaption>"
        "</figure>"
    )


def _definitions(definitions: Definitions) -> str:
    items = "".join(
        f"<dt>{escape(term)}</dt><dd>{escape(meaning)}</dd>" for term, meaning in definitions.items
    )
    return f'<dl class="definitions">{items}</dl>'
