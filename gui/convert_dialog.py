"""File › Import… and File › Export annotations…: one dialog that converts annotations
between formats with :func:`~referee.core.workflow.convert.run_convert` (as ``referee
convert`` does), off the GUI thread.

Import reads a file in any format Referee reads (CVAT, COCO, YOLO, labelme…) and
writes it in Referee's own (MOTChallenge CSV, LIRIS XML, CDnet ground-truth PNGs);
the window can then add it to the project. Export writes one of the project's
annotation files (or any other) in any format Referee writes. A conversion that would
drop part of the input says what in one line, and runs only with "Convert even if…"
checked; an existing output is replaced only after a question.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QSize, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from referee.core.errors import RefereeError
from referee.core.formats import registry
from referee.core.workflow.convert import KINDS, Conversion, parse_image_size, parse_labels
from referee.core.workflow.convert import run_convert as convert
from referee.core.workflow.options import ConvertOptions
from referee.gui.widgets.unattended import unanswerable
from referee.gui.widgets.warning_line import WarningLine
from referee.gui.worker import Job, JobRunner

IMPORT, EXPORT = "import", "export"
#: The formats Import writes: Referee's own, by the content read.
OWN_FORMATS = ("mot-csv", "liris-xml", "cdnet-png")
#: Formats written as a folder rather than one file.
FOLDER_FORMATS = frozenset({"yolo", "labelme", "cdnet-png"})
DIALOG_SIZE = QSize(640, 360)
CONVERT_KIND = "convert"


def target_formats(mode: str) -> list[str]:
    """The formats offered as targets: Referee's own on import, every writer's on export."""
    if mode == IMPORT:
        return list(OWN_FORMATS)
    return sorted({w.name for kind in KINDS for w in registry.writers(kind)})


class ConvertDialog(QDialog):
    """Converts one file or folder; :attr:`converted` gives the :class:`Conversion` done."""

    converted = Signal(object)

    def __init__(
        self,
        runner: JobRunner,
        mode: str,
        sources: Sequence[tuple[str, Path]] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.runner, self.mode = runner, mode
        self.setWindowTitle("Import annotations" if mode == IMPORT else "Export annotations")
        self._job: Job | None = None
        self.source_box = QComboBox()
        self.source_box.setEditable(True)
        for label, path in sources:
            self.source_box.addItem(f"{label}: {path}", str(path))
        self.source_box.setToolTip("The file or folder to convert")
        self.format_box = QComboBox()
        self.format_box.addItems(target_formats(mode))
        self.target_edit = QLineEdit()
        self.target_edit.setPlaceholderText("where to write it")
        self.labels_edit = QLineEdit()
        self.labels_edit.setPlaceholderText("optional: person=255,car=255,shadow=50")
        self.labels_edit.setToolTip(
            "Label names to CDnet levels or LIRIS classes (docs/measures.md §10)"
        )
        self.size_edit = QLineEdit()
        self.size_edit.setPlaceholderText("optional: 1920x1080")
        self.lossy = QCheckBox("Convert even if the target format drops part of the input")
        self.error_line = WarningLine()
        self.status = QLabel()
        self.status.setWordWrap(True)
        form = QFormLayout()
        form.addRow("From", self._with_browse(self.source_box, self._browse_source))
        form.addRow("Format", self.format_box)
        form.addRow("To", self._with_browse(self.target_edit, self._browse_target))
        form.addRow("Labels", self.labels_edit)
        form.addRow("Frame size", self.size_edit)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.convert_button = buttons.addButton("Convert", QDialogButtonBox.ButtonRole.ApplyRole)
        self.convert_button.clicked.connect(self.start)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.lossy)
        layout.addWidget(self.error_line)
        layout.addWidget(self.status)
        layout.addStretch(1)
        layout.addWidget(buttons)
        self.resize(DIALOG_SIZE)

    # --- fields -----------------------------------------------------------------------

    @staticmethod
    def _with_browse(field: QWidget, browse: object) -> QWidget:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(field, 1)
        button = QPushButton("Browse…")
        button.clicked.connect(browse)
        layout.addWidget(button)
        return row

    def source(self) -> str:
        """The path chosen or typed."""
        data = self.source_box.currentData()
        typed = self.source_box.currentText().strip()
        chosen = self.source_box.itemText(self.source_box.currentIndex())
        return str(data) if data is not None and typed == chosen else typed

    def _browse_source(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Annotations to convert")
        if path:
            self.source_box.setEditText(path)

    def _browse_target(self) -> None:
        if self.format_box.currentText() in FOLDER_FORMATS:
            path = QFileDialog.getExistingDirectory(self, "Folder to write")
        else:
            path, _ = QFileDialog.getSaveFileName(self, "File to write")
        if path:
            self.target_edit.setText(path)

    def options(self, force: bool = False) -> ConvertOptions:
        """The conversion asked for; raises :class:`RefereeError` on a bad field."""
        labels, size = self.labels_edit.text().strip(), self.size_edit.text().strip()
        return ConvertOptions(
            to=self.format_box.currentText(),
            labels=parse_labels(labels) if labels else None,
            image_size=parse_image_size(size) if size else None,
            lossy=self.lossy.isChecked(),
            force=force,
        )

    # --- converting -------------------------------------------------------------------

    def start(self) -> None:
        """Convert off the GUI thread; an existing target is replaced only if the user says."""
        source, target = self.source(), self.target_edit.text().strip()
        if not source or not target:
            self.error_line.set_text("Choose what to convert (From) and where to write it (To).")
            return
        force = Path(target).exists() and self._replace(Path(target))
        try:
            options = self.options(force)
        except RefereeError as error:
            self.error_line.set_text(str(error))
            return
        self.error_line.set_text("")
        self.status.setText("Converting…")
        self.convert_button.setEnabled(False)
        self._job = self.runner.run(
            CONVERT_KIND,
            f"Converting {Path(source).name}",
            lambda progress, cancel: convert(source, target, options, progress, cancel),
            self._on_done,
            self._on_failed,
        )

    def _replace(self, target: Path) -> bool:
        if unanswerable(self, f"not asked whether to replace {target}"):
            return False
        answer = QMessageBox.question(
            self,
            "Replace?",
            f"{target} exists. Replace it?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def _on_done(self, done: Conversion) -> None:
        self.convert_button.setEnabled(True)
        dropped = f", without its {' and '.join(done.dropped)}" if done.dropped else ""
        self.status.setText(
            f"Wrote {done.target} ({done.target_format}): {done.items:,} {done.kind} read "
            f"from {done.source.name} ({done.source_format}){dropped}."
        )
        self.converted.emit(done)

    def _on_failed(self, message: str) -> None:
        self.convert_button.setEnabled(True)
        self.status.setText("")
        self.error_line.set_text(message)
