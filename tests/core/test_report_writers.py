"""The report writers: HTML, PDF, CSV and JSON say the same thing as the document."""

from __future__ import annotations

import base64
import csv
import io
import json
import math

import cv2
import lxml.html
import numpy as np
import pytest
from pypdf import PdfReader

from referee.core.errors import RefereeError
from referee.core.measures.indicators import IndicatorValue, undefined
from referee.core.report.document import (
    Definitions,
    Figure,
    Paragraph,
    Report,
    Section,
    Table,
)
from referee.core.report.html import render_html, write_html
from referee.core.report.pdf import write_pdf
from referee.core.report.tables_out import report_to_dict, write_csv_tables, write_json

NO_POSITIVES = "undefined: no positive pixels"


def _png() -> bytes:
    image = np.zeros((12, 20, 3), np.uint8)
    image[:, :10] = (0, 0, 255)
    ok, encoded = cv2.imencode(".png", image)
    assert ok
    return encoded.tobytes()


PNG = _png()

SCORES = Table(
    key="scores",
    title="Scores per method",
    columns=("method", "frames", "precision", "recall"),
    rows=(
        ("mog2", 1200, 0.123456, IndicatorValue(0.5)),
        ("knn", 35, 2.0, undefined(NO_POSITIVES)),
        ("Kendall τ ≥ 0", 0, 1e-5, IndicatorValue(0.987654321)),
    ),
    notes=("Recall is undefined when the ground truth has no positive pixel.",),
)


def _report() -> Report:
    return Report(
        title="Evaluation of highway",
        created="2024-05-01T10:20:30",
        version="1.2.3",
        facts=(("project", "demo.referee"), ("videos", "highway (frames 1–1700)")),
        sections=(
            Section("results", "Results", (Paragraph("Two methods were compared."), SCORES)),
            Section(
                "errors",
                "Where methods err",
                (Figure("error-map", "Error map", PNG, "Red: false positives."),),
            ),
            Section(
                "definitions",
                "Definitions",
                (Definitions((("precision", "TP / (TP + FP)"), ("recall", "TP / (TP + FN)"))),),
            ),
        ),
    )


# Numbers and texts as worked out by hand from SCORES.
EXPECTED_VALUES = [[1200.0, 0.123456, 0.5], [35.0, 2.0, math.nan], [0.0, 1e-5, 0.987654321]]
EXPECTED_TEXT = [
    ["mog2", "1200", "0.1235", "0.5000"],
    ["knn", "35", "2.0000", NO_POSITIVES],
    ["Kendall τ ≥ 0", "0", "1.000e-05", "0.9877"],
]


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


# --- HTML -------------------------------------------------------------------------


def test_html_is_self_contained() -> None:
    tree = lxml.html.fromstring(render_html(_report()))
    for element in tree.iter():
        for attribute in ("src", "href"):
            target = element.get(attribute)
            if target is not None:
                assert target.startswith(("data:", "#")), target
    assert not tree.xpath("//script | //link")
    contents = [a.get("href") for a in tree.xpath("//nav//a")]
    assert contents == ["#results", "#errors", "#definitions"]
    for href in contents:
        assert tree.xpath(f"//section[@id='{href[1:]}']")


def test_html_header_and_facts() -> None:
    tree = lxml.html.fromstring(render_html(_report()))
    assert tree.xpath("string(//h1)") == "Evaluation of highway"
    meta = tree.xpath("string(//header//p)")
    assert "1.2.3" in meta and "2024-05-01T10:20:30" in meta
    facts = [
        [c.text_content() for c in tr.xpath("th|td")]
        for tr in tree.xpath("//table[@id='facts']//tr")
    ]
    assert facts == [["project", "demo.referee"], ["videos", "highway (frames 1–1700)"]]


def test_html_table_values_and_text() -> None:
    tree = lxml.html.fromstring(render_html(_report()))
    (table,) = tree.xpath("//table[@id='table-scores']")
    assert table.xpath("string(caption)") == "Scores per method"
    assert [th.text_content() for th in table.xpath("thead//th")] == list(SCORES.columns)
    rows = table.xpath("tbody/tr")
    assert [[td.text_content() for td in tr.xpath("td")] for tr in rows] == EXPECTED_TEXT
    for tr, expected in zip(rows, EXPECTED_VALUES):
        tds = tr.xpath("td")
        assert tds[0].get("data-value") is None
        values = [float(td.get("data-value")) for td in tds[1:]]
        assert all(_same(v, e) for v, e in zip(values, expected)), (values, expected)
        assert all("num" in td.get("class").split() for td in tds[1:])
    (missing,) = table.xpath(".//td[contains(@class, 'undefined')]")
    assert missing.text_content() == NO_POSITIVES
    assert missing.get("data-value") == "nan"
    notes = table.xpath("following-sibling::p[@class='note']")
    assert notes[0].text_content() == SCORES.notes[0]


def test_html_escapes_text() -> None:
    report = Report(
        "a <b> & c",
        "now",
        "1",
        (
            (
                "x",
                "<script>",
            ),
        ),
        (Section("s", "S", (Paragraph("1 < 2 & 3 > 2"),)),),
    )
    tree = lxml.html.fromstring(render_html(report))
    assert tree.xpath("string(//h1)") == "a <b> & c"
    assert not tree.xpath("//script | //b")
    assert tree.xpath("string(//section[@id='s']/p)") == "1 < 2 & 3 > 2"


def test_html_figure_is_embedded(tmp_path) -> None:
    path = tmp_path / "report.html"
    write_html(_report(), path)
    tree = lxml.html.fromstring(path.read_text(encoding="utf-8"))
    (img,) = tree.xpath("//figure[@id='figure-error-map']/img")
    prefix = "data:image/png;base64,"
    assert img.get("src").startswith(prefix)
    assert base64.b64decode(img.get("src")[len(prefix) :]) == PNG
    assert img.get("alt") == "Error map"
    assert "Red: false positives." in tree.xpath("string(//figcaption)")


# --- PDF --------------------------------------------------------------------------


def _pdf_pages(path) -> list[str]:
    return [page.extract_text() for page in PdfReader(path).pages]


def test_pdf_text_and_page_count(tmp_path) -> None:
    path = tmp_path / "report.pdf"
    calls = []
    pages = write_pdf(_report(), path, progress=lambda done, total: calls.append((done, total)))
    texts = _pdf_pages(path)
    assert len(texts) == pages
    text = "\n".join(texts)
    for expected in (
        "Evaluation of highway",
        "Where methods err",
        NO_POSITIVES,
        "0.1235",
        "1.000e-05",
        "Kendall τ ≥ 0",
        "frames 1–1700",
        "TP / (TP + FP)",
        f"Referee 1.2.3 — page 1 of {pages}",
    ):
        assert expected in text, expected
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_pdf_long_table_repeats_its_header(tmp_path) -> None:
    rows = tuple((f"frame {i}", i, i / 7) for i in range(200))
    table = Table("long", "Per frame", ("Frame name", "Frame number", "Score"), rows)
    report = Report("Long", "now", "0.1", (), (Section("all", "All frames", (table,)),))
    path = tmp_path / "long.pdf"
    pages = write_pdf(report, path)
    texts = _pdf_pages(path)
    assert pages == len(texts) >= 3
    assert all("Frame number" in text for text in texts)
    assert "frame 199" in texts[-1]
    assert f"{199 / 7:.4f}" in texts[-1]


def test_pdf_wide_table_fits(tmp_path) -> None:
    columns = tuple(f"indicator number {i}" for i in range(11))
    table = Table("wide", "Wide", columns, ((0.123456,) * 11,))
    report = Report("Wide", "now", "0.1", (), (Section("w", "W", (table,)),))
    path = tmp_path / "wide.pdf"
    assert write_pdf(report, path) == 1
    text = _pdf_pages(path)[0]
    assert text.count("indicator") == 11  # no heading word cut across lines
    assert text.count("0.1235") == 11


# --- CSV --------------------------------------------------------------------------


def _read_csv(path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_csv_tables(tmp_path) -> None:
    folder = tmp_path / "out" / "tables"
    figureless = Table("counts", "Counts", ("video", "frames"), (("a", 3), ("b", None)))
    report = Report(
        "r",
        "now",
        "1",
        (),
        (Section("one", "One", (SCORES,)), Section("two", "Two", (figureless,))),
    )
    paths = write_csv_tables(report, folder)
    assert paths == [folder / "scores.csv", folder / "counts.csv"]
    header, *rows = _read_csv(paths[0])
    assert header == ["method", "frames", "precision", "recall", "undefined"]
    assert [r[0] for r in rows] == ["mog2", "knn", "Kendall τ ≥ 0"]
    for row, expected in zip(rows, EXPECTED_VALUES):
        values = [float(x) if x else math.nan for x in row[1:4]]
        assert all(_same(v, e) for v, e in zip(values, expected)), (values, expected)
    assert rows[0][1] == "1200"
    assert rows[1][3] == ""
    assert [r[4] for r in rows] == ["", f"recall: {NO_POSITIVES}", ""]
    assert _read_csv(paths[1]) == [["video", "frames"], ["a", "3"], ["b", ""]]


def test_csv_folder_under_a_file(tmp_path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(RefereeError, match="a-file"):
        write_csv_tables(_report(), blocker / "tables")


# --- JSON -------------------------------------------------------------------------


def test_json(tmp_path) -> None:
    path = tmp_path / "report.json"
    write_json(_report(), path)
    text = path.read_text(encoding="utf-8")
    assert "NaN" not in text and "Infinity" not in text
    data = json.loads(text)
    assert data["title"] == "Evaluation of highway"
    assert data["created"] == "2024-05-01T10:20:30"
    assert data["version"] == "1.2.3"
    assert data["facts"] == {"project": "demo.referee", "videos": "highway (frames 1–1700)"}
    assert [s["key"] for s in data["sections"]] == ["results", "errors", "definitions"]
    paragraph, table = data["sections"][0]["blocks"]
    assert paragraph == {"paragraph": "Two methods were compared."}
    assert table["table"] == "scores" and table["title"] == "Scores per method"
    assert table["columns"] == ["method", "frames", "precision", "recall"]
    assert table["rows"] == [
        ["mog2", 1200, 0.123456, 0.5],
        ["knn", 35, 2.0, {"value": None, "reason": NO_POSITIVES}],
        ["Kendall τ ≥ 0", 0, 1e-5, 0.987654321],
    ]
    (figure,) = data["sections"][1]["blocks"]
    assert figure == {
        "figure": "error-map",
        "title": "Error map",
        "caption": "Red: false positives.",
    }
    assert report_to_dict(_report()) == data


# --- errors -----------------------------------------------------------------------


@pytest.mark.parametrize("write", [write_html, write_pdf, write_json])
def test_unwritable_path_is_named(tmp_path, write) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    target = blocker / "report.out"
    with pytest.raises(RefereeError, match=r"report\.out"):
        write(_report(), target)
