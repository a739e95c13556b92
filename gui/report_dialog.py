"""File › Export report: build the report off the GUI thread, preview it, write the chosen files.

:class:`ReportDialog` starts :func:`~referee.core.report.build.build_report`
as a job as soon as it opens, shows the finished report in a
``QTextBrowser`` (the HTML of :func:`~referee.core.report.html.render_html`;
Qt draws its ``data:`` images itself) and writes HTML, PDF, CSV tables and
JSON as a second job, after asking before it replaces any file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from referee.core.errors import InvalidOptionError, RefereeError
from referee.core.model.project import Project
from referee.core.report.build import build_report
from referee.core.report.document import Report
from referee.core.report.html import render_html
from referee.core.report.options import ReportOptions
from referee.core.report.outputs import (
    REPORT_OUTPUTS,
    check_targets,
    replaced_files,
    write_outputs,
)
from referee.gui.session import ProjectSession
from referee.gui.widgets.progress_bar import ProgressBar
from referee.gui.widgets.screen_fit import fit_to_screen
from referee.gui.worker import Job, JobRunner, progress_text

#: Size of the dialog on a screen with room for it (on a smaller one, less: see
#: :func:`~referee.gui.widgets.screen_fit.fitted_size`).
DIALOG_SIZE = QSize(1000, 900)
#: Smallest size of the preview, in pixels: it shrinks to this before the options scroll.
PREVIEW_MIN_SIZE = (320, 160)
#: Colours of the preview's page and text, whatever the theme: those of the written report.
PAPER, INK = "#ffffff", "#000000"
#: Room left beside a figure in the preview, in pixels.
PREVIEW_MARGIN = 40
#: The natural size of an image of the report's HTML.
_IMAGE_SIZE = re.compile(r'(<img [^>]*?)width="(\d+)" height="(\d+)"')
#: Job kinds: building the report, writing its files.
BUILD_KIND, WRITE_KIND = "report", "report-write"


@dataclass(frozen=True)
class OutputChoice:
    """How the dialog offers one format: its save-dialog filter ("" for a folder), checked or not."""

    file_filter: str
    checked: bool


#: The dialog's choice of each format of :data:`REPORT_OUTPUTS`.
OUTPUT_CHOICES: dict[str, OutputChoice] = {
    "html": OutputChoice("HTML (*.html)", True),
    "pdf": OutputChoice("PDF (*.pdf)", True),
    "csv": OutputChoice("", False),
    "json": OutputChoice("JSON (*.json)", False),
}


def session_report_options(session: ProjectSession) -> ReportOptions:
    """A report with the options the session's stages last used (those chosen in the docks)."""
    return ReportOptions(analysis=session.options)


def fitted_html(html: str, width: int) -> str:
    """``html`` with every image scaled down to at most ``width`` pixels, keeping its shape.

    Qt's rich text honours ``max-width`` but not ``height: auto``, so the
    preview gives each image its scaled size itself.
    """

    def fit(match: re.Match) -> str:
        natural_width, natural_height = int(match[2]), int(match[3])
        scale = min(1.0, max(width, 1) / natural_width)
        return (
            f'{match[1]}width="{round(natural_width * scale)}" '
            f'height="{round(natural_height * scale)}"'
        )

    return _IMAGE_SIZE.sub(fit, html)


def default_paths(project: Project) -> dict[str, Path]:
    """``<project folder>/<project name>-report.html`` etc. (the home folder without a file)."""
    folder = project.file.parent if project.file is not None else Path.home()
    stem = re.sub(r'[\\/:*?"<>|]+', "_", project.name).strip() or "referee"
    return {name: folder / f"{stem}{output.suffix}" for name, output in REPORT_OUTPUTS.items()}


def written_text(written: dict[str, list[Path]], targets: dict[str, Path]) -> str:
    """What an export wrote, one line per format (a folder's files are counted)."""
    lines = [
        f"{len(paths)} CSV tables in {targets[name]}"
        if REPORT_OUTPUTS[name].is_folder
        else ", ".join(str(path) for path in paths)
        for name, paths in written.items()
    ]
    return "Wrote:\n" + "\n".join(lines)


def _show_as_paper(preview: QTextBrowser) -> None:
    """Draw ``preview`` as the written report looks, dark text on white, in either theme
    (the report's own colours, light table headers say, assume a white page)."""
    palette = preview.palette()
    palette.setColor(QPalette.ColorRole.Base, QColor(PAPER))
    palette.setColor(QPalette.ColorRole.Text, QColor(INK))
    preview.setPalette(palette)


def _options_area(options: QWidget) -> QScrollArea:
    """``options`` in a scroll area as tall as they are when there is room, shorter (and
    scrolling) on a small screen."""
    area = QScrollArea()
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setWidget(options)
    area.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
    return area


class ReportDialog(QDialog):
    """Builds the report of ``project`` with ``options``, previews it and exports it.

    Signals
    -------
    report_ready(report)
        The report was built (or given to :meth:`set_report`) and is shown.
    exported(paths)
        Files were written: the list of their paths.
    """

    report_ready = Signal(object)
    exported = Signal(list)

    def __init__(
        self,
        runner: JobRunner,
        project: Project,
        options: ReportOptions | None = None,
        parent: QWidget | None = None,
        build: Callable[..., Report] = build_report,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export report")
        self.runner = runner
        self.project = project
        self.options = options or ReportOptions()
        self.report: Report | None = None
        self._job: Job | None = None
        self._targets: dict[str, Path] = {}
        self._make_widgets()
        self._lay_out()
        QShortcut(QKeySequence(QKeySequence.StandardKey.Save), self, lambda: self.export())
        fit_to_screen(self, DIALOG_SIZE)
        self._start_build(build)

    # --- assembly ---------------------------------------------------------------------------

    def _make_widgets(self) -> None:
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress_bar = ProgressBar()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop building or writing the report")
        self.cancel_button.clicked.connect(self._on_cancel)
        self.preview = QTextBrowser()
        self.preview.setOpenExternalLinks(True)
        self.preview.setMinimumSize(*PREVIEW_MIN_SIZE)
        _show_as_paper(self.preview)
        self.format_boxes: dict[str, QCheckBox] = {}
        self.path_fields: dict[str, QLineEdit] = {}
        for name, path in default_paths(self.project).items():
            box = QCheckBox(REPORT_OUTPUTS[name].label)
            box.setChecked(OUTPUT_CHOICES[name].checked)
            field = QLineEdit(str(path))
            field.setEnabled(box.isChecked())
            box.toggled.connect(field.setEnabled)
            box.toggled.connect(self._update_export_button)
            self.format_boxes[name], self.path_fields[name] = box, field
        self.export_button = QPushButton("Export")
        self.export_button.setToolTip("Write the chosen files (Ctrl+S)")
        self.export_button.setDefault(True)
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(lambda _=False: self.export())

    def _lay_out(self) -> None:
        progress_row = QHBoxLayout()
        progress_row.addWidget(self.progress_bar, 1)
        progress_row.addWidget(self.cancel_button)
        outputs = QGroupBox("Save as")
        grid = QGridLayout(outputs)
        for row, name in enumerate(REPORT_OUTPUTS):
            browse = QPushButton("Browse…")
            browse.clicked.connect(lambda _=False, n=name: self._on_browse(n))
            grid.addWidget(self.format_boxes[name], row, 0)
            grid.addWidget(self.path_fields[name], row, 1)
            grid.addWidget(browse, row, 2)
        grid.setColumnStretch(1, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.export_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status_label)
        layout.addLayout(progress_row)
        layout.addWidget(self.preview, 1)
        layout.addWidget(_options_area(outputs))
        layout.addWidget(buttons)  # outside the scroll area: always in view

    # --- building ---------------------------------------------------------------------------

    def _start_build(self, build: Callable[..., Report]) -> None:
        project, options = self.project, self.options

        def run(progress, cancel) -> Report:
            return build(project, options, progress=progress, cancel=cancel)

        self._follow(
            self.runner.run(
                BUILD_KIND, "Building the report", run, self.set_report, self._on_build_failed
            )
        )

    def _follow(self, job: Job) -> None:
        """Show ``job``'s progress in the dialog until it ends (bound slots only: the
        dialog may be deleted before the job ends)."""
        self._job = job
        job.progress.connect(self._on_progress)
        job.cancelled.connect(self._on_cancelled)
        job.ended.connect(self._on_job_ended)
        self.progress_bar.show_progress(0, 0)
        self.status_label.setText(progress_text(job))
        self._show_busy(True)

    def _on_progress(self, done: int, total: int) -> None:
        self.progress_bar.show_progress(done, total)
        if self._job is not None:
            self.status_label.setText(progress_text(self._job))

    def _on_cancelled(self) -> None:
        self.status_label.setText("Cancelled.")

    def set_report(self, report: Report) -> None:
        """Show ``report`` in the preview and allow exporting it."""
        self.report = report
        self.preview.setHtml(
            fitted_html(render_html(report), self.preview.viewport().width() - PREVIEW_MARGIN)
        )
        self.status_label.setText(
            f"“{report.title}” is ready: choose the files to write, then Export."
        )
        self._update_export_button()
        self.report_ready.emit(report)

    def _on_build_failed(self, message: str) -> None:
        self.status_label.setText(f"The report could not be built: {message}")
        QMessageBox.critical(self, "Export report", message)

    # --- exporting --------------------------------------------------------------------------

    def export(self, confirm_overwrite: Callable[[list[Path]], bool] | None = None) -> None:
        """Write the chosen files, asking ``confirm_overwrite`` (default: a question box) first."""
        if self.report is None or self._busy():
            return
        try:
            targets = self._chosen_targets()
        except RefereeError as error:
            self._show_error(str(error))
            return
        replaced = replaced_files(self.report, targets)
        ask = confirm_overwrite or self._confirm_overwrite
        if replaced and not ask(replaced):
            self.status_label.setText("Nothing written.")
            return
        report = self.report
        self._targets = targets
        self._follow(
            self.runner.run(
                WRITE_KIND,
                "Writing the report",
                lambda progress, cancel: write_outputs(report, targets, progress, cancel),
                self._on_written,
                self._show_error,
            )
        )

    def _chosen_targets(self) -> dict[str, Path]:
        """Name → path of each checked format; raises if none or a path cannot be written."""
        targets = {}
        for name, box in self.format_boxes.items():
            if not box.isChecked():
                continue
            text = self.path_fields[name].text().strip()
            if not text:
                raise InvalidOptionError(f"choose where to write the {box.text()} file")
            targets[name] = Path(text).expanduser()
        if not targets:
            raise InvalidOptionError("choose at least one format to write")
        check_targets(targets)
        return targets

    def _confirm_overwrite(self, paths: list[Path]) -> bool:
        listing = "\n".join(str(path) for path in paths)
        answer = QMessageBox.question(
            self,
            "Replace files?",
            f"These files exist and will be replaced:\n\n{listing}",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def _on_written(self, written: dict[str, list[Path]]) -> None:
        self.status_label.setText(written_text(written, self._targets))
        self.exported.emit([path for paths in written.values() for path in paths])

    def _show_error(self, message: str) -> None:
        """A user-caused problem: say it in a dialog; the report and the choices stay."""
        self.status_label.setText(f"Export stopped: {message.splitlines()[0]}")
        QMessageBox.critical(self, "Export report", message)

    def _on_browse(self, name: str) -> None:
        output, field = REPORT_OUTPUTS[name], self.path_fields[name]
        if output.is_folder:
            path = QFileDialog.getExistingDirectory(
                self, f"Folder for the {output.label}", field.text()
            )
        else:  # export() asks before replacing, so the file dialog does not
            path, _ = QFileDialog.getSaveFileName(
                self,
                f"Save the {output.label} report",
                field.text(),
                OUTPUT_CHOICES[name].file_filter,
                options=QFileDialog.Option.DontConfirmOverwrite,
            )
        if path:
            field.setText(path)
            self.format_boxes[name].setChecked(True)

    # --- state ------------------------------------------------------------------------------

    def _running_job(self) -> Job | None:
        """The job the dialog follows, if it is still running."""
        return self._job if self._job is not None and self._job.running else None

    def _busy(self) -> bool:
        return self._running_job() is not None

    def _show_busy(self, busy: bool) -> None:
        self.progress_bar.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self._update_export_button()

    def _update_export_button(self) -> None:
        chosen = any(box.isChecked() for box in self.format_boxes.values())
        self.export_button.setEnabled(self.report is not None and chosen and not self._busy())

    def _on_job_ended(self) -> None:
        self._show_busy(self._busy())

    def _on_cancel(self) -> None:
        job = self._running_job()
        if job is not None:
            job.cancel()

    def done(self, result: int) -> None:  # Qt override
        """Close; a report still being built is not needed any more."""
        job = self._running_job()
        if job is not None and job.kind == BUILD_KIND:
            job.cancel()
        super().done(result)
