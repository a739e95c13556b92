"""File › Export report: the preview shows a report's text and figures; export writes, asks, fails well."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import cv2
import lxml.html
import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from referee.core.demo.project import demo_project
from referee.core.model.project import Project
from referee.core.pseudo.committee_options import CommitteeOptions
from referee.core.report.document import Figure, Paragraph, Report, Section, Table
from referee.core.report.options import ReportOptions
from referee.core.workflow.options import (
    AnalysisOptions,
    PixelOptions,
    PseudoOptions,
    RankingOptions,
)
from referee.gui.app import dispose
from referee.gui.main_window import MainWindow
from referee.gui.report_dialog import (
    ReportDialog,
    default_paths,
    fitted_html,
    session_report_options,
)
from referee.gui.widgets.theme import apply_theme
from referee.gui.worker import JobRunner
from tests.gui.conftest import opened

#: The figure's colour (RGB), found nowhere else in the preview.
MAGENTA = (255, 0, 255)
FIGURE_SIZE = (120, 80)  # width, height in pixels


def hand_built_report() -> Report:
    """A one-section report with a table and a magenta figure of :data:`FIGURE_SIZE`."""
    width, height = FIGURE_SIZE
    image = np.zeros((height, width, 3), np.uint8)
    image[:] = MAGENTA[::-1]  # OpenCV writes BGR
    ok, png = cv2.imencode(".png", image)
    assert ok
    table = Table(
        "per-video",
        "Per-video indicators",
        ("video", "F1", "frames"),
        (("baseline/plaza", 0.8125, 1234), ("baseline/street", 0.5, 77)),
    )
    section = Section(
        "results",
        "Results",
        (
            Paragraph("Every detector was evaluated on every frame."),
            table,
            Figure("swatch", "Colour swatch", png.tobytes(), "A magenta block."),
        ),
    )
    return Report(
        "Hand-built report",
        "2024-05-01 10:00",
        "0.0-test",
        (("Project", "Test project"),),
        (section,),
    )


def build_returning(report: Report):
    """A stand-in for ``build_report`` that returns ``report`` at once."""
    return lambda project, options, progress=None, cancel=None: report


@pytest.fixture
def project(tmp_path) -> Project:
    out = tmp_path / "out"
    out.mkdir()
    return Project(name="Test project", file=out / "test.referee.json")


@pytest.fixture
def dialog(qtbot, project) -> ReportDialog:
    report = hand_built_report()
    dialog = ReportDialog(JobRunner(), project, build=build_returning(report))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(
        lambda: dialog.report is report and dialog.export_button.isEnabled(), timeout=10000
    )
    return dialog


def _choose(dialog: ReportDialog, paths: dict[str, Path]) -> None:
    for name, box in dialog.format_boxes.items():
        box.setChecked(name in paths)
        if name in paths:
            dialog.path_fields[name].setText(str(paths[name]))


def _stamp(path: Path) -> tuple[int, int]:
    status = path.stat()
    return status.st_ino, status.st_mtime_ns


def _export(qtbot, dialog: ReportDialog, confirm=None) -> list[Path]:
    with qtbot.waitSignal(dialog.exported, timeout=60000) as blocker:
        dialog.export(confirm)
    return blocker.args[0]


def _preview_rgb(dialog: ReportDialog) -> np.ndarray:
    """Every other pixel of the preview as drawn, rows × columns × RGB."""
    image = dialog.preview.viewport().grab().toImage()
    return np.array(
        [
            [image.pixelColor(x, y).getRgb()[:3] for x in range(0, image.width(), 2)]
            for y in range(0, image.height(), 2)
        ]
    )


def _magenta_pixels(dialog: ReportDialog) -> int:
    return int(np.all(_preview_rgb(dialog) == MAGENTA, axis=2).sum()) * 4


def test_default_paths_sit_next_to_the_project_file(tmp_path) -> None:
    paths = default_paths(Project(name="My project", file=tmp_path / "p.referee.json"))
    assert paths == {
        "html": tmp_path / "My project-report.html",
        "pdf": tmp_path / "My project-report.pdf",
        "csv": tmp_path / "My project-report-tables",
        "json": tmp_path / "My project-report.json",
    }
    assert default_paths(Project(name="x"))["json"] == Path.home() / "x-report.json"


def test_options_follow_the_session_last_requests() -> None:
    committee = CommitteeOptions(include_trivial=False, leave_one_out=True)
    session = SimpleNamespace(
        options=AnalysisOptions(
            pixels=PixelOptions(weights="video"),
            pseudo=PseudoOptions(committee=committee, methods=("a", "b")),
            ranking=RankingOptions("pairwise-dice", ("a", "b"), 7, 3),
        )
    )
    options = session_report_options(session).analysis
    assert (options.ranking.criterion, options.ranking.top, options.ranking.gap) == (
        "pairwise-dice",
        7,
        3,
    )
    assert options.pseudo.committee == committee and options.pixels.weights == "video"
    session = SimpleNamespace(options=AnalysisOptions())
    assert session_report_options(session) == ReportOptions()


def test_the_built_report_is_previewed_with_its_figure(qtbot, dialog) -> None:
    text = dialog.preview.toPlainText()
    assert "Hand-built report" in text
    assert "0.8125" in text and "1234" in text and "Per-video indicators" in text
    # The preview takes the room the options and buttons leave.
    assert dialog.preview.height() >= dialog.height() / 2
    assert dialog.preview.width() >= 0.9 * dialog.width()
    bar = dialog.preview.verticalScrollBar()
    bar.setValue(bar.maximum())  # the figure is the last block
    QApplication.processEvents()
    width, height = FIGURE_SIZE
    assert _magenta_pixels(dialog) >= 0.9 * width * height


def test_the_preview_is_a_white_page_with_dark_text_in_the_dark_theme(qtbot, project) -> None:
    report = hand_built_report()
    apply_theme(QWidget(), True)
    try:
        dialog = ReportDialog(JobRunner(), project, build=build_returning(report))
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitUntil(lambda: dialog.report is report, timeout=10000)
        rgb = _preview_rgb(dialog).reshape(-1, 3)
    finally:
        apply_theme(QWidget(), False)
    white = np.all(rgb == 255, axis=1).mean()
    dark = (rgb.max(axis=1) < 80).mean()  # the title and the text, as on paper
    assert white > 0.5 and dark > 0.001, (white, dark)


def test_set_report_replaces_the_preview(qtbot, dialog) -> None:
    other = Report("Second report", "2024-05-02", "0.0-test", (), ())
    with qtbot.waitSignal(dialog.report_ready):
        dialog.set_report(other)
    assert dialog.report is other
    assert "Second report" in dialog.preview.toPlainText()
    assert "Hand-built report" not in dialog.preview.toPlainText()


def test_export_writes_every_format_and_asks_before_replacing(qtbot, dialog, tmp_path) -> None:
    paths = {
        "html": tmp_path / "r.html",
        "pdf": tmp_path / "r.pdf",
        "csv": tmp_path / "tables",
        "json": tmp_path / "r.json",
    }
    _choose(dialog, paths)
    written = _export(qtbot, dialog)
    csv_file = paths["csv"] / "per-video.csv"
    assert set(written) == {paths["html"], paths["pdf"], paths["json"], csv_file}
    page = lxml.html.fromstring(paths["html"].read_text(encoding="utf-8"))
    assert page.findtext(".//h1") == "Hand-built report"
    assert paths["pdf"].read_bytes().startswith(b"%PDF")
    assert json.loads(paths["json"].read_text(encoding="utf-8"))["title"] == "Hand-built report"
    assert csv_file.read_text(encoding="utf-8").splitlines()[0] == "video,F1,frames"
    assert str(paths["pdf"]) in dialog.status_label.text()

    before = {path: _stamp(path) for path in written}
    asked: list[list[Path]] = []
    dialog.export(lambda replaced: asked.append(replaced) or False)
    qtbot.wait(200)
    assert set(asked[0]) == set(written)
    assert not dialog.runner.jobs
    assert {path: _stamp(path) for path in written} == before

    _export(qtbot, dialog, lambda replaced: True)
    assert all(_stamp(path) != before[path] for path in written)


def test_an_unwritable_path_shows_an_error_and_loses_nothing(
    qtbot, dialog, tmp_path, monkeypatch
) -> None:
    messages: list[str] = []
    monkeypatch.setattr(
        QMessageBox, "critical", lambda parent, title, text, *args: messages.append(text)
    )
    blocker = tmp_path / "a-file.txt"
    blocker.write_text("keep me", encoding="utf-8")
    bad = blocker / "r.html"
    _choose(dialog, {"html": bad, "json": tmp_path / "r.json"})
    report = dialog.report
    dialog.export(lambda replaced: True)
    assert len(messages) == 1 and str(bad) in messages[0]
    assert not (tmp_path / "r.json").exists()
    assert blocker.read_text(encoding="utf-8") == "keep me"
    assert dialog.report is report and dialog.path_fields["html"].text() == str(bad)


def test_a_failing_writer_shows_its_error(qtbot, dialog, tmp_path, monkeypatch) -> None:
    messages: list[str] = []
    monkeypatch.setattr(
        QMessageBox, "critical", lambda parent, title, text, *args: messages.append(text)
    )
    folder_in_the_way = tmp_path / "r.pdf"
    folder_in_the_way.mkdir()
    _choose(dialog, {"pdf": folder_in_the_way})
    dialog.export(lambda replaced: True)
    qtbot.waitUntil(lambda: bool(messages), timeout=60000)
    assert str(folder_in_the_way) in messages[0]
    assert folder_in_the_way.is_dir() and dialog.export_button.isEnabled()


def test_cancel_stops_the_build(qtbot, project) -> None:
    started = threading.Event()

    def slow_build(project, options, progress=None, cancel=None) -> Report:
        started.set()
        while True:
            cancel.raise_if_cancelled()
            time.sleep(0.01)

    dialog = ReportDialog(JobRunner(), project, build=slow_build)
    qtbot.addWidget(dialog)
    dialog.show()
    assert started.wait(10)
    assert dialog.cancel_button.isVisible() and not dialog.export_button.isEnabled()
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.status_label.text() == "Cancelled.", timeout=10000)
    assert dialog.report is None and not dialog.cancel_button.isVisible()


def test_escape_closes_and_ctrl_s_exports(qtbot, dialog, tmp_path) -> None:
    _choose(dialog, {"json": tmp_path / "k.json"})
    dialog.activateWindow()
    with qtbot.waitSignal(dialog.exported, timeout=10000):
        qtbot.keyClick(dialog, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert (tmp_path / "k.json").exists()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible()


def test_export_action_builds_the_demo_report(qtbot, demo) -> None:
    QApplication.instance().setOrganizationName("Referee-tests")
    window = MainWindow(remember_layout=False)
    try:
        assert not window.export_report_action.isEnabled()
        window.show()
        assert opened(qtbot, window.open_project(demo_project(demo)))
        assert window.export_report_action.isEnabled()
        window.export_report_action.trigger()
        dialog = window.report_dialog
        qtbot.waitUntil(lambda: dialog.report is not None, timeout=120_000)
        text = dialog.preview.toPlainText()
        assert any(name in text for name in demo.results)
    finally:
        window.close()
        dispose(window)


def test_preview_scales_wide_images_down_keeping_their_shape() -> None:
    html = (
        '<img src="data:a" alt="wide" width="1100" height="506">'
        '<img src="data:b" alt="small" width="300" height="200">'
    )
    assert fitted_html(html, 550) == (
        '<img src="data:a" alt="wide" width="550" height="253">'
        '<img src="data:b" alt="small" width="300" height="200">'
    )
