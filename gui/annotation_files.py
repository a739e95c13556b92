"""File › Import… and File › Export annotations…: the conversion dialog opened on the
window's project, and an imported file added to the project when the user says."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from referee.core.formats.registry import ACTIONS, BOXES, TRACKS
from referee.core.model.project import DetectorSource, Project, with_detector
from referee.core.workflow.convert import Conversion
from referee.gui.convert_dialog import EXPORT, IMPORT, ConvertDialog
from referee.gui.project_edits import change_project
from referee.gui.widgets.unattended import unanswerable

if TYPE_CHECKING:
    from referee.gui.main_window import MainWindow


def project_annotation_files(window: MainWindow) -> list[tuple[str, Path]]:
    """The project's annotation files and folders, each with what it is."""
    project = window.session.project
    if project is None:
        return []
    found: list[tuple[str, Path]] = []
    for label, path in (
        ("ground-truth actions", project.actions_groundtruth),
        ("ground-truth boxes", project.boxes_groundtruth),
    ):
        if path is not None:
            found.append((label, path))
    for detector in project.detectors:
        for what, path in (("actions", detector.actions), ("boxes", detector.boxes)):
            if path is not None:
                found.append((f"{detector.name}'s {what}", path))
    for video in window.session.videos:
        found.append((f"mask ground truth of {video.label}", video.truth_folder))
    return found


def import_annotations(window: MainWindow) -> ConvertDialog:
    """File › Import…: convert a file to Referee's formats, then offer to add it."""
    dialog = ConvertDialog(window.runner, IMPORT, parent=window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.converted.connect(lambda done: offer_to_add(window, done))
    dialog.open()
    return dialog


def export_annotations(window: MainWindow) -> ConvertDialog:
    """File › Export annotations…: convert one of the project's files to another format."""
    dialog = ConvertDialog(window.runner, EXPORT, project_annotation_files(window), window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


def offer_to_add(window: MainWindow, done: Conversion) -> None:
    """Add an imported box, track or action file to the open project, as a detector's
    output or as the ground truth, as the user says (label maps are not added: they
    are a video's ground-truth folder already)."""
    if window.session.project is None or done.kind not in (TRACKS, BOXES, ACTIONS):
        return
    if unanswerable(window, f"not asked whether to add {done.target} to the project"):
        return
    box = QMessageBox(window)
    box.setWindowTitle("Add to the project?")
    box.setText(f"Add {done.target.name} to the project?")
    as_detector = box.addButton("As a detector", QMessageBox.ButtonRole.AcceptRole)
    as_truth = box.addButton("As the ground truth", QMessageBox.ButtonRole.AcceptRole)
    box.addButton("No", QMessageBox.ButtonRole.RejectRole)
    box.exec()
    if box.clickedButton() is as_detector:
        change_project(window, lambda p: with_imported(p, done, truth=False))
    elif box.clickedButton() is as_truth:
        change_project(window, lambda p: with_imported(p, done, truth=True))


def with_imported(project: Project, done: Conversion, truth: bool) -> Project:
    """``project`` with the converted file as its ground truth of that kind, or as a
    detector named after the file."""
    path = done.target
    if truth:
        if done.kind == ACTIONS:
            return replace(project, actions_groundtruth=path)
        return replace(project, boxes_groundtruth=path)
    if done.kind == ACTIONS:
        return with_detector(project, DetectorSource(path.stem, actions=path))
    return with_detector(project, DetectorSource(path.stem, boxes=path))
