"""Changing the window's project: making a new one, saving it, adding and removing
detectors."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from referee.core.errors import RefereeError
from referee.core.formats.project_json import write_project
from referee.core.model.project import (
    PROJECT_SUFFIX,
    DetectorSource,
    Project,
    with_detector,
    without_detector,
)
from referee.gui.project_dialog import NewProjectDialog

if TYPE_CHECKING:
    from referee.gui.main_window import MainWindow


def new_project(window: MainWindow) -> NewProjectDialog:
    """File › New project…: the dialog; the project it writes is opened in ``window``."""
    dialog = NewProjectDialog(window.runner, window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.created.connect(lambda project: window.open(project.file))
    dialog.open()
    return dialog


def save_project(window: MainWindow) -> None:
    """File › Save: the annotation (which writes the project file too) or the project; a
    project without a project file of its own is saved where the user chooses."""
    project = window.session.project
    if project is None:
        return
    if window.annotation.editor.modified and project.file is not None:
        window.annotation.save()  # writes the project file too
        return
    if project.file is None or not project.file.name.endswith(PROJECT_SUFFIX):
        save_project_as(window)
        return
    _write(window, project, project.file)


def save_project_as(window: MainWindow) -> None:
    """File › Save project as: write the project to the file the user chooses."""
    project = window.session.project
    if project is None:
        return
    path, _ = QFileDialog.getSaveFileName(
        window,
        "Save project",
        f"{project.name}{PROJECT_SUFFIX}",
        f"Referee projects (*{PROJECT_SUFFIX})",
    )
    if path:  # the dialog itself asked before replacing an existing file
        if not path.endswith(PROJECT_SUFFIX):
            path += PROJECT_SUFFIX
        _write(window, project, Path(path))


def _write(window: MainWindow, project: Project, path: Path) -> None:
    try:
        write_project(project, path)
    except (RefereeError, OSError) as error:
        window.show_error(f"The project was not saved: {error}")
        return
    window.session.project = replace(project, file=path)
    window.session.project_unsaved = False
    window.annotation.project_file_written(path)
    saved = True
    if window.annotation.editor.modified:  # it needed a project file to be saved beside
        saved = window.annotation.save()  # a refusal or a Cancel keeps it unsaved
    window.annotation.show_modified()
    window.remember_recent(path)
    if saved:
        window.statusBar().showMessage(f"Saved {path}", 5000)


def add_detector(window: MainWindow, detector: DetectorSource) -> None:
    """Add ``detector`` to the open project (which is then evaluated again)."""
    change_project(window, lambda p: with_detector(p, detector))


def remove_detector(window: MainWindow, name: str) -> None:
    """Remove the detector ``name`` from the open project, if the user confirms."""
    answer = QMessageBox.question(
        window, "Remove detector", f"Remove {name} from the project? Its files stay on disk."
    )
    if answer == QMessageBox.StandardButton.Yes:
        change_project(window, lambda p: without_detector(p, name))


def change_project(window: MainWindow, change: Callable[[Project], Project]) -> None:
    """Open the project ``change`` makes of the window's, marked unsaved; a project that
    cannot be opened is said in a dialog and the window keeps its own."""
    project = window.session.project
    if project is None:
        return
    try:
        changed = change(project)
    except RefereeError as error:
        window.show_error(str(error))
        return
    window.open_project(changed, unsaved=True)
