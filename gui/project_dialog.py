"""File › New project…: name a dataset, detectors' results and optional ground truth, see
each source's status, write the project file.

The dialog builds the project with
:func:`~referee.core.workflow.new_project.new_project`, checks its sources off the GUI
thread with :func:`~referee.core.workflow.sources.source_status` (the Data dock's
check) and writes it with
:func:`~referee.core.workflow.new_project.write_new_project`, as ``referee project new``
does; a source that cannot be read is said in one line and nothing is written.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from referee.core.errors import InvalidOptionError, RefereeError
from referee.core.model.project import PROJECT_SUFFIX, Project
from referee.core.workflow.new_project import (
    ProjectSources,
    failed_source_error,
    new_project,
    write_new_project,
)
from referee.core.workflow.sources import SourceStatus, source_status
from referee.gui.widgets.screen_fit import fit_to_screen
from referee.gui.widgets.source_tree import SourceTree, legend_html
from referee.gui.widgets.unattended import unanswerable
from referee.gui.widgets.warning_line import WarningLine
from referee.gui.worker import Job, JobRunner

#: Size of the dialog on a screen with room for it.
DIALOG_SIZE = QSize(760, 680)
#: Lines a list of paths shows before it scrolls.
LIST_LINES = 5
#: The job that checks the sources (a newer check cancels an older one).
CHECK_KIND = "new-project-check"
#: What the error about a source that cannot be read advises.
ADVICE = "fix it, then create the project again"
RESULTS_HINT = (
    "One results folder per detector, holding <category>/<video>/bin%06d.png (0/255 masks); "
    "the folder's name is the detector's."
)
ACTIONS_HINT = "Optional. LIRIS XML; each detector's file is named after it (mog2.xml: mog2)."
BOXES_HINT = (
    "Optional. LIRIS XML, MOTChallenge CSV or a benchmark folder; each detector's file is "
    "named after it."
)
BOXES_FILTER = "Boxes (*.xml *.csv *.txt);;All files (*)"
ACTIONS_FILTER = "LIRIS XML (*.xml);;All files (*)"

#: Chooses paths for a field or list: returns the chosen paths (none: cancelled).
Chooser = Callable[[QWidget, str], list[str]]


def choose_folder(title: str) -> Chooser:
    """A chooser of one folder."""

    def choose(parent: QWidget, start: str) -> list[str]:
        folder = QFileDialog.getExistingDirectory(parent, title, start)
        return [folder] if folder else []

    return choose


def choose_files(title: str, file_filter: str) -> Chooser:
    """A chooser of one or more existing files."""

    def choose(parent: QWidget, start: str) -> list[str]:
        return QFileDialog.getOpenFileNames(parent, title, start, file_filter)[0]

    return choose


class PathField(QWidget):
    """A path typed or chosen with Browse…; ``path()`` is ``None`` when empty.
    ``entered()`` is emitted when the user has typed or chosen one."""

    entered = Signal()

    def __init__(self, chooser: Chooser, placeholder: str = "") -> None:
        super().__init__()
        self.edit = QLineEdit()
        self.edit.setPlaceholderText(placeholder)
        self._chooser = chooser
        self.edit.editingFinished.connect(self.entered)
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit, 1)
        layout.addWidget(browse)

    def path(self) -> Path | None:
        text = self.edit.text().strip()
        return Path(text).expanduser() if text else None

    def set_path(self, path: Path | str) -> None:
        self.edit.setText(str(path))

    def _browse(self) -> None:
        chosen = self._chooser(self, self.edit.text())
        if chosen:
            self.set_path(chosen[0])
            self.entered.emit()


class PathList(QWidget):
    """Paths listed one a line, added with Add… and removed with Remove."""

    def __init__(self, chooser: Chooser, tip: str) -> None:
        super().__init__()
        self.list = QListWidget()
        self.list.setToolTip(tip)
        self.list.setSelectionMode(QListWidget.SelectionMode.ExtendedSelection)
        # a few lines: the sources' tree below gets the room
        self.list.setMaximumHeight(LIST_LINES * self.list.fontMetrics().lineSpacing() + 8)
        self._chooser = chooser
        add = QPushButton("Add…")
        add.clicked.connect(self._add)
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Remove the selected paths from the list")
        self.remove_button.clicked.connect(self._remove)
        buttons = QVBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)

    def paths(self) -> tuple[Path, ...]:
        return tuple(Path(self.list.item(i).text()) for i in range(self.list.count()))

    def add(self, path: Path | str) -> None:
        """List ``path`` (once)."""
        if str(path) not in (self.list.item(i).text() for i in range(self.list.count())):
            self.list.addItem(str(path))

    def _add(self) -> None:
        start = self.list.item(self.list.count() - 1).text() if self.list.count() else ""
        for path in self._chooser(self, start):
            self.add(path)

    def _remove(self) -> None:
        for item in self.list.selectedItems():
            self.list.takeItem(self.list.row(item))


class NewProjectDialog(QDialog):
    """The fields of a new project, its sources' status, and Create.

    ``created(project)`` is emitted once the project file is written (the dialog then
    closes); a problem is said in the dialog's warning line and the dialog stays open.
    """

    created = Signal(object)

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New project")
        self.runner = runner
        self._job: Job | None = None
        #: What the running check is for: the project, whether to write it, and replace.
        self._pending: tuple[Project, bool, bool] | None = None
        self._make_widgets()
        self._lay_out()
        fit_to_screen(self, DIALOG_SIZE)

    # --- assembly ---------------------------------------------------------------------------

    def _make_widgets(self) -> None:
        self.file_field = PathField(self._choose_file, f"where to write it (*{PROJECT_SUFFIX})")
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("the file's name")
        self.dataset_field = PathField(
            choose_folder("CDnet dataset folder"), "<category>/<video>/ folders, or one video"
        )
        self.dataset_field.entered.connect(self._suggest_file)
        self.result_folders = PathList(
            choose_folder("A detector's results folder"),
            "One folder per detector, holding <category>/<video>/bin%06d.png (0/255 masks); "
            "the folder's name is the detector's",
        )
        self.actions_field = PathField(
            choose_files("Ground-truth actions", ACTIONS_FILTER), "LIRIS XML (optional)"
        )
        self.action_files = PathList(
            choose_files("Detectors' actions", ACTIONS_FILTER),
            "One LIRIS XML file per detector, named after it (mog2.xml is mog2's)",
        )
        self.boxes_field = PathField(
            choose_files("Ground-truth boxes", BOXES_FILTER),
            "LIRIS XML, MOTChallenge CSV or benchmark folder (optional)",
        )
        self.box_files = PathList(
            choose_files("Detectors' boxes", BOXES_FILTER),
            "One boxes file per detector, named after it",
        )
        self.tree = SourceTree()
        self.tree.setToolTip("Each source the project names, checked as the Data dock checks it")
        self.legend = QLabel(legend_html(self.palette()))
        self.status_label = QLabel("Check sources, or Create: each source is checked first.")
        self.error_line = WarningLine()
        self.check_button = QPushButton("Check sources")
        self.check_button.setToolTip("Check every source without writing anything")
        self.check_button.clicked.connect(lambda _=False: self.check_sources())
        self.create_button = QPushButton("Create")
        self.create_button.setToolTip("Check every source, write the project file and open it")
        self.create_button.setDefault(True)
        self.create_button.clicked.connect(lambda _=False: self.create_project())

    def _lay_out(self) -> None:
        form = QGridLayout()
        rows = (
            ("Project file:", self.file_field),
            ("Name:", self.name_edit),
            ("Dataset folder:", self.dataset_field),
        )
        for row, (label, field) in enumerate(rows):
            form.addWidget(QLabel(label), row, 0)
            form.addWidget(field, row, 1)
        form.setColumnStretch(1, 1)
        self.tabs = QTabWidget()
        tabs = (
            ("Results", RESULTS_HINT, None, self.result_folders),
            ("Actions", ACTIONS_HINT, self.actions_field, self.action_files),
            ("Boxes", BOXES_HINT, self.boxes_field, self.box_files),
        )
        for title, hint, truth, detectors in tabs:
            self.tabs.addTab(_tab(hint, truth, detectors), title)
        sources_row = QHBoxLayout()
        sources_row.addWidget(QLabel("<b>Sources</b>"))
        sources_row.addWidget(self.status_label, 1)
        sources_row.addWidget(self.check_button)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        buttons.addButton(self.create_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.tabs)
        layout.addLayout(sources_row)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.legend)
        layout.addWidget(self.error_line)
        layout.addWidget(buttons)

    # --- the project ------------------------------------------------------------------------

    def sources(self) -> ProjectSources:
        """What the fields name."""
        return ProjectSources(
            dataset=self.dataset_field.path(),
            masks=self.result_folders.paths(),
            actions_groundtruth=self.actions_field.path(),
            actions=self.action_files.paths(),
            boxes_groundtruth=self.boxes_field.path(),
            boxes=self.box_files.paths(),
        )

    def project(self) -> Project:
        """The project the fields describe (``.referee.json`` added to a file name without
        ``.json``).

        Raises
        ------
        RefereeError
            No file, or what :func:`new_project` refuses.
        """
        file = self.file_field.path()
        if file is None:
            raise InvalidOptionError("choose where to write the project file (Project file)")
        if file.suffix.lower() != ".json":  # new_project names what a .json file lacks
            file = file.with_name(file.name + PROJECT_SUFFIX)
        return new_project(file, self.sources(), self.name_edit.text().strip() or None)

    def check_sources(self) -> None:
        """Check every source off the GUI thread and show its status; write nothing."""
        self._start(write=False)

    def create_project(self) -> None:
        """Check every source, then, if each reads, write the project file and close."""
        self._start(write=True)

    def _start(self, write: bool) -> None:
        try:
            project = self.project()
        except RefereeError as error:
            self.error_line.set_text(str(error))
            return
        replace = False
        if write and project.file is not None and project.file.exists():
            replace = self._confirm_replace(project.file)
            if not replace:
                return
        self.error_line.set_text("")
        self._pending = (project, write, replace)
        self._job = self.runner.run(
            CHECK_KIND,
            "Checking the new project's sources",
            lambda progress, cancel: source_status(project),
            self._on_checked,
            self._on_failed,
        )
        self._job.ended.connect(self._on_ended)
        self.status_label.setText("Checking sources…")
        self._show_busy(True)

    def _confirm_replace(self, file: Path) -> bool:
        notice = f"not asked whether to replace {file}; nothing is written"
        if unanswerable(self, notice):
            self.error_line.set_text(f"{file}: already exists; choose another name")
            return False
        answer = QMessageBox.question(
            self,
            "Replace the project file?",
            f"{file} exists. Replace it with the new project?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def _on_checked(self, rows: tuple[SourceStatus, ...]) -> None:
        if self._pending is None:
            return
        project, write, replace = self._pending
        self.tree.show_rows(rows)
        failed = sum(row.failed for row in rows)
        self.status_label.setText(
            f"{len(rows) - failed} of {len(rows)} sources read"
            + (f"; {failed} could not be" if failed else "")
        )
        problem = failed_source_error(rows, ADVICE)
        if problem is not None or not write:
            self.error_line.set_text("" if problem is None else str(problem))
            return
        try:
            written = write_new_project(project, rows, ADVICE, force=replace)
        except RefereeError as error:
            self.error_line.set_text(str(error))
            return
        self.created.emit(written)
        self.accept()

    def _on_failed(self, message: str) -> None:
        self.status_label.setText("The sources could not be checked.")
        self.error_line.set_text(message.splitlines()[0])

    def _on_ended(self) -> None:
        self._show_busy(self._job is not None and self._job.running)

    def _show_busy(self, busy: bool) -> None:
        self.check_button.setEnabled(not busy)
        self.create_button.setEnabled(not busy)

    def _choose_file(self, parent: QWidget, start: str) -> list[str]:
        """The save dialog of the project file (Create asks before replacing one)."""
        path, _ = QFileDialog.getSaveFileName(
            parent,
            "New project file",
            start,
            f"Referee projects (*{PROJECT_SUFFIX})",
            options=QFileDialog.Option.DontConfirmOverwrite,
        )
        return [path] if path else []

    def _suggest_file(self) -> None:
        """With no project file yet, ``<dataset>.referee.json`` beside the dataset folder."""
        dataset = self.dataset_field.path()
        if self.file_field.path() is None and dataset is not None and dataset.name:
            self.file_field.set_path(dataset.parent / f"{dataset.name}{PROJECT_SUFFIX}")

    def done(self, result: int) -> None:  # Qt override
        """Close; a check still running is not needed any more."""
        if self._job is not None and self._job.running:
            self._job.cancel()
        self._pending = None
        super().done(result)


def _tab(hint: str, truth: PathField | None, detectors: PathList) -> QWidget:
    """A tab: what it takes, the ground truth (if it has one), then the detectors' paths."""
    tab = QWidget()
    grid = QGridLayout(tab)
    text = QLabel(hint)
    text.setWordWrap(True)
    grid.addWidget(text, 0, 0, 1, 2)
    if truth is not None:
        grid.addWidget(QLabel("Ground truth:"), 1, 0)
        grid.addWidget(truth, 1, 1)
    label = QLabel("Detectors:")
    label.setAlignment(Qt.AlignmentFlag.AlignTop)
    grid.addWidget(label, 2, 0)
    grid.addWidget(detectors, 2, 1)
    grid.setColumnStretch(1, 1)
    grid.setRowStretch(2, 1)
    return tab
