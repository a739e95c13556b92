"""File › New project…: the dialog checks every source as the Data dock does, writes the
project file through the core and the window opens it; a bad source is said in one line
and the dialog stays open."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QDialog

from referee.core.demo.dataset import DemoLayout
from referee.core.formats.project_json import read_project
from referee.core.workflow.sources import source_status
from referee.gui.app import dispose
from referee.gui.main_window import MainWindow
from referee.gui.project_dialog import DIALOG_SIZE, NewProjectDialog
from referee.gui.project_edits import new_project
from referee.gui.widgets.screen_fit import fitted_size
from referee.gui.widgets.source_tree import DETAILS_COLUMN, STATUS_COLUMN
from tests.gui.test_small_screen import LAPTOP_AVAILABLE, _unreachable


@pytest.fixture
def window(qtbot) -> MainWindow:
    QApplication.instance().setOrganizationName("Referee-tests")
    window = MainWindow(remember_layout=False)
    window.show()
    yield window
    window.close()
    dispose(window)


def _fill(dialog: NewProjectDialog, demo: DemoLayout, file: Path, dataset: Path) -> None:
    dialog.file_field.set_path(file)
    dialog.dataset_field.set_path(dataset)
    for name in ("mog2", "knn"):
        dialog.result_folders.add(demo.results[name])
    dialog.actions_field.set_path(demo.actions_gt)
    dialog.action_files.add(demo.actions["mog2"])


def _sources(dialog: NewProjectDialog) -> list[tuple[str, str, str, str]]:
    """(group, source, status, details) of each source row of the dialog's tree."""
    tree, rows = dialog.tree, []
    for g in range(tree.topLevelItemCount()):
        group = tree.topLevelItem(g)
        for i in range(group.childCount()):
            item = group.child(i)
            rows.append(
                (group.text(0), item.text(0), item.text(STATUS_COLUMN), item.text(DETAILS_COLUMN))
            )
    return rows


def test_the_dialog_writes_the_project_and_the_window_opens_it(
    qtbot, window: MainWindow, demo: DemoLayout, tmp_path: Path
) -> None:
    dialog = new_project(window)
    ended: list[int] = []
    dialog.finished.connect(ended.append)
    shown: list[tuple[str, str, str, str]] = []  # the sources shown when it was written
    dialog.created.connect(lambda _: shown.extend(_sources(dialog)))
    file = tmp_path / "street"  # the dialog adds .referee.json
    _fill(dialog, demo, file, demo.dataset)
    dialog.name_edit.setText("Street study")
    dialog.create_project()
    written = tmp_path / "street.referee.json"
    qtbot.waitUntil(
        lambda: window.session.project is not None and window.session.project.file == written,
        timeout=60000,
    )
    assert ended == [QDialog.DialogCode.Accepted]
    project = read_project(written)
    assert project.name == "Street study" and project.dataset == demo.dataset
    assert project.actions_groundtruth == demo.actions_gt
    assert [(d.name, d.masks, d.actions) for d in project.detectors] == [
        ("mog2", demo.results["mog2"], demo.actions["mog2"]),
        ("knn", demo.results["knn"], None),
    ]
    assert window.session.project.name == "Street study"
    # The dialog showed what the Data dock shows: the core's check of each source.
    expected = source_status(project)
    assert [(r[0], r[1], r[3]) for r in shown] == [(r.group, r.name, r.message) for r in expected]
    assert all(r[2] == "✔ loaded" for r in shown)


def test_a_bad_dataset_is_one_line_in_the_dialog_which_stays_open(
    qtbot, window: MainWindow, demo: DemoLayout, tmp_path: Path
) -> None:
    dialog = new_project(window)
    ended: list[int] = []
    dialog.finished.connect(ended.append)
    missing = tmp_path / "no-dataset"
    file = tmp_path / "study.referee.json"
    _fill(dialog, demo, file, missing)
    dialog.create_project()
    qtbot.waitUntil(lambda: bool(dialog.error_line.text()), timeout=30000)
    message = dialog.error_line.text()
    assert "\n" not in message
    assert message.startswith(f"{missing}: dataset folder does not exist")
    assert dialog.isVisible() and dialog.error_line.isVisible() and not ended
    assert not file.exists() and window.session.project is None
    assert ("Dataset", "no-dataset", "? missing", "dataset folder does not exist") in _sources(
        dialog
    )
    # Fixed, the same dialog creates the project.
    dialog.dataset_field.set_path(demo.dataset)
    dialog.create_project()
    qtbot.waitUntil(lambda: window.session.project is not None, timeout=60000)
    assert window.session.project.file == file and file.exists()
    assert ended == [QDialog.DialogCode.Accepted]


def test_the_fields_refuse_what_the_core_refuses(
    qtbot, window: MainWindow, demo: DemoLayout, tmp_path: Path
) -> None:
    dialog = new_project(window)
    dialog.create_project()  # nothing filled in
    assert dialog.error_line.text().startswith("choose where to write the project file")
    dialog.file_field.set_path(tmp_path / "study.json")
    dialog.dataset_field.set_path(demo.dataset)
    dialog.create_project()
    assert "ends with .referee.json" in dialog.error_line.text()
    dialog.file_field.set_path(tmp_path / "study")
    dialog.result_folders.add(demo.results["mog2"])
    dialog.result_folders.add(tmp_path / "mog2")
    dialog.create_project()
    assert "two detectors are both named 'mog2'" in dialog.error_line.text()
    assert dialog.isVisible() and not list(tmp_path.iterdir())


def test_the_dialog_fits_a_laptop_with_every_button_in_view(
    qtbot, window: MainWindow, demo: DemoLayout, tmp_path: Path
) -> None:
    dialog = new_project(window)
    size = fitted_size(DIALOG_SIZE, LAPTOP_AVAILABLE)
    dialog.resize(size)
    _fill(dialog, demo, tmp_path / "study.referee.json", demo.dataset)
    vibe = tmp_path / "results" / "vibe"
    dialog.result_folders.add(vibe)
    dialog.check_sources()  # checks, writes nothing
    qtbot.waitUntil(lambda: bool(dialog.error_line.text()), timeout=30000)
    assert dialog.error_line.text().startswith(f"{vibe}: masks folder does not exist (vibe masks)")
    assert dialog.size() == size, dialog.size()
    assert not _unreachable(dialog), _unreachable(dialog)
    assert dialog.tree.height() >= size.height() / 5
    assert not list(tmp_path.glob("*.json"))
