"""The report of the demo project: its numbers equal ones worked out here, in every format."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path

import cv2
import lxml.html
import numpy as np
import pytest
from pypdf import PdfReader

from referee.core.cli.main import main
from referee.core.demo.dataset import DemoLayout
from referee.core.demo.project import demo_project
from referee.core.errors import CancelledError
from referee.core.formats.cdnet import discover_videos
from referee.core.model.project import Project
from referee.core.progress import CancelToken
from referee.core.report.build import build_report
from referee.core.report.compute import compute_results
from referee.core.report.document import Report
from referee.core.report.html import render_html
from referee.core.report.options import ReportOptions
from referee.core.report.pdf import write_pdf
from referee.core.report.tables_out import report_to_dict
from tests.core.test_curve_areas import weighted_scikit_areas

CREATED = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def report(demo: DemoLayout) -> Report:
    return build_report(demo_project(demo), created=CREATED)


@pytest.fixture(scope="module")
def html_tables(report: Report) -> dict[str, list[list[lxml.html.HtmlElement]]]:
    """Table key → rows of <td> elements, parsed from the HTML report."""
    document = lxml.html.fromstring(render_html(report))
    return {
        table.get("id").removeprefix("table-"): [
            row.findall("td") for row in table.iter("tr") if row.findall("td")
        ]
        for table in document.iter("table")
        if table.get("id", "").startswith("table-")
    }


def _hand_counts(demo: DemoLayout, method: str, category: str, video: str) -> tuple[int, ...]:
    """TP, FP, FN, TN of one video counted straight from the PNG files (docs/measures.md §1)."""
    folder = demo.dataset / category / video
    first, last = (int(v) for v in (folder / "temporalROI.txt").read_text().split())
    roi = cv2.imread(str(folder / "ROI.bmp"), cv2.IMREAD_GRAYSCALE) > 0
    totals = np.zeros(4, dtype=np.int64)
    for i in range(first, last + 1):
        gt = cv2.imread(str(folder / "groundtruth" / f"gt{i:06d}.png"), cv2.IMREAD_GRAYSCALE)
        mask = (
            cv2.imread(
                str(demo.results[method] / category / video / f"bin{i:06d}.png"),
                cv2.IMREAD_GRAYSCALE,
            )
            == 255
        )
        evaluated = roi & np.isin(gt, (0, 50, 255))
        positive = gt == 255
        totals += [
            np.sum(evaluated & positive & mask),
            np.sum(evaluated & ~positive & mask),
            np.sum(evaluated & positive & ~mask),
            np.sum(evaluated & ~positive & ~mask),
        ]
    return tuple(int(v) for v in totals)


def _row(rows: list, *leading: str) -> list:
    for row in rows:
        if [td.text_content() for td in row[: len(leading)]] == list(leading):
            return row
    raise AssertionError(f"no row starting with {leading}")


def test_per_video_counts_equal_counts_made_from_the_images(
    demo: DemoLayout, html_tables: dict
) -> None:
    row = _row(html_tables["per-video-counts"], "knn", "shadow/corridor")
    shown = tuple(int(td.get("data-value").removesuffix(".0")) for td in row[3:7])
    assert shown == _hand_counts(demo, "knn", "shadow", "corridor")


def test_summarized_f1_is_the_f1_of_the_category_weighted_blend(
    demo: DemoLayout, html_tables: dict
) -> None:
    # Two categories: baseline (plaza, street) weighs 1/2 split over its two videos,
    # shadow (corridor) weighs 1/2 (docs/measures.md §2, auto = category weights).
    weights = {
        ("baseline", "plaza"): 0.25,
        ("baseline", "street"): 0.25,
        ("shadow", "corridor"): 0.5,
    }
    blend = np.zeros(4)
    for (category, video), weight in weights.items():
        counts = np.array(_hand_counts(demo, "mog2", category, video), dtype=float)
        blend += weight * counts / counts.sum()
    tp, fp, fn, _ = blend
    expected = 2 * tp / (2 * tp + fp + fn)
    f1_column = 1 + ("TPR", "TNR", "FPR", "FNR", "PWC", "PPV", "F1").index("F1")
    cell = _row(html_tables["summary-blended"], "mog2")[f1_column]
    assert float(cell.get("data-value")) == pytest.approx(expected, rel=1e-12)
    assert cell.text_content() == f"{expected:.4f}"


def test_cdnet_f_measure_is_the_mean_of_category_means(demo: DemoLayout, html_tables: dict) -> None:
    def f_measure(category: str, video: str) -> float:
        tp, fp, fn, _ = _hand_counts(demo, "cnt", category, video)
        precision, recall = tp / (tp + fp), tp / (tp + fn)
        return 2 * precision * recall / (precision + recall)

    baseline = (f_measure("baseline", "plaza") + f_measure("baseline", "street")) / 2
    expected = (baseline + f_measure("shadow", "corridor")) / 2
    cell = _row(html_tables["summary-cdnet"], "cnt")[7]
    assert float(cell.get("data-value")) == pytest.approx(expected, rel=1e-12)


def test_rank_changes_follow_the_two_columns_of_values(html_tables: dict) -> None:
    rows = html_tables["rank-changes"]
    summarized = sorted(rows, key=lambda r: -float(r[1].get("data-value")))
    cdnet = sorted(rows, key=lambda r: -float(r[3].get("data-value")))
    for row in rows:
        name = row[0].text_content()
        rank_s = 1 + [r[0].text_content() for r in summarized].index(name)
        rank_c = 1 + [r[0].text_content() for r in cdnet].index(name)
        assert (int(row[2].text_content()), int(row[4].text_content())) == (rank_s, rank_c)
        change = row[5].text_content()
        assert change == ("unchanged" if rank_s == rank_c else f"{rank_c - rank_s:+d}")


def test_curve_areas_equal_scikit_learn_on_the_weighted_pixels(
    demo: DemoLayout, report: Report, html_tables: dict
) -> None:
    # The demo's one soft detector, summarized with category weights (auto): baseline's two
    # videos 1/4 each, shadow's one 1/2; each pixel weighs its video's weight over its pixels.
    weights = {"plaza": 0.25, "street": 0.25, "corridor": 0.5}
    name = "running-average"
    auc, ap = weighted_scikit_areas(discover_videos(demo.dataset), demo.soft_results[name], weights)
    table = report.table("curve-areas")
    assert table.columns == ("detector", "weights", "AUC", "AP")
    ((detector, scheme, shown_auc, shown_ap),) = table.rows
    assert (detector, scheme) == (name, "category")
    assert shown_auc.value == pytest.approx(auc, rel=1e-9)
    assert shown_ap.value == pytest.approx(ap, rel=1e-9)
    assert "AUC: area under the ROC curve" in table.notes[0]
    cells = _row(html_tables["curve-areas"], name)
    assert [td.text_content() for td in cells[2:]] == [f"{auc:.4f}", f"{ap:.4f}"]


def test_html_is_self_contained_and_has_every_part(report: Report) -> None:
    document = lxml.html.fromstring(render_html(report))
    links = [e.get(a) for e in document.iter() for a in ("src", "href") if e.get(a)]
    assert links and all(link.startswith(("data:image/png;base64,", "#")) for link in links)
    section_ids = {e.get("id") for e in document.iter() if e.get("id")}
    for key in (
        "evaluated",
        "per-video",
        "summary",
        "roc-pr",
        "actions",
        "counts",
        "pseudo",
        "annotate",
        "significance",
        "definitions",
    ):
        assert key in section_ids
    text = document.text_content()
    assert "Referee version" in text and "2026-11-23T12:00:00+00:00" in text
    assert "F1 score (F1)" in text and "2·tp / (2·tp + fp + fn)" in text  # from the registry
    assert len(list(document.iter("img"))) >= 8  # ROC/PR, LIRIS ×2, counts ×3, heatmaps


def test_pdf_has_the_same_numbers_as_the_html(
    report: Report, html_tables: dict, tmp_path: Path
) -> None:
    pages = write_pdf(report, tmp_path / "report.pdf")
    reader = PdfReader(tmp_path / "report.pdf")
    assert len(reader.pages) == pages >= 6
    text = "\n".join(page.extract_text() for page in reader.pages)
    assert "Referee report — Referee demo" in text
    assert f"page {pages} of {pages}" in text
    f1 = _row(html_tables["summary-blended"], "knn")[7].text_content()
    verdict = next(b for s in report.sections if s.key == "significance" for b in s.blocks).text
    assert f1 in text
    assert " ".join(verdict.split()[:4]) in " ".join(text.split())


def test_json_keeps_every_digit_of_the_html_values(report: Report, html_tables: dict) -> None:
    data = json.loads(json.dumps(report_to_dict(report), allow_nan=False))
    tables = {b["table"]: b for s in data["sections"] for b in s["blocks"] if "table" in b}
    rows = tables["per-video-indicators"]["rows"]
    for json_row, html_row in zip(rows, html_tables["per-video-indicators"]):
        for value, td in zip(json_row[2:], html_row[2:]):
            number = value if not isinstance(value, dict) else math.nan
            assert number == pytest.approx(float(td.get("data-value")), nan_ok=True, rel=0)


def test_parts_the_project_lacks_are_listed_with_the_reason(demo: DemoLayout) -> None:
    project = Project(
        name="masks only", dataset=demo.dataset, detectors=demo_project(demo).detectors[:1]
    )
    report = build_report(project, ReportOptions(heatmap_frames=0), created=CREATED)
    reasons = {row[0]: row[1] for row in report.table("not-evaluated").rows}
    assert reasons["actions"] == "the project has no ground-truth actions"
    assert reasons["pseudo ground truth"].startswith("pseudo ground truth needs at least two")
    assert not any(s.key in ("actions", "pseudo", "significance") for s in report.sections)


def test_progress_rises_to_the_end_and_cancel_stops(demo: DemoLayout) -> None:
    project = Project(name="two", dataset=demo.dataset, detectors=demo_project(demo).detectors[:2])
    seen: list[int] = []
    compute_results(
        project,
        ReportOptions(heatmap_frames=0),
        progress=lambda done, total: seen.append(done * 1000 // total),
    )
    assert seen == sorted(seen) and seen[-1] == 1000
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        compute_results(project, cancel=token)


def test_cli_writes_every_format_and_never_overwrites_without_force(
    demo: DemoLayout, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    html, pdf, tables = tmp_path / "r.html", tmp_path / "r.pdf", tmp_path / "tables"
    arguments = [
        "report",
        str(demo.dataset),
        "--html",
        str(html),
        "--pdf",
        str(pdf),
        "--csv",
        str(tables),
        "--quiet",
        "--top",
        "5",
    ]
    assert main(arguments) == 0
    assert html.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert pdf.read_bytes().startswith(b"%PDF")
    header = (tables / "per-video-counts.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header == "detector,video,frames,TP,FP,FN,TN,SE"
    before = html.stat().st_mtime_ns
    assert main(arguments) == 2
    assert "already exists" in capsys.readouterr().err and html.stat().st_mtime_ns == before


def test_cli_names_a_bad_project_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    missing = tmp_path / "nowhere"
    assert main(["report", str(missing), "--html", str(tmp_path / "r.html")]) == 2
    error = capsys.readouterr().err
    assert str(missing) in error and "Traceback" not in error
