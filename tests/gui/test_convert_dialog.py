"""File › Import… and File › Export annotations… (docs/measures.md §10): the dialog
converts through the same workflow as ``referee convert``, says a refused loss in one
line and stays open, and an imported file joins the project as the user says."""

from __future__ import annotations

from pathlib import Path

from referee.core.formats import registry
from referee.core.model.project import Project
from referee.core.workflow.convert import Conversion
from referee.gui.annotation_files import with_imported
from referee.gui.convert_dialog import EXPORT, IMPORT, OWN_FORMATS, ConvertDialog
from referee.gui.worker import JobRunner
from tests.core import cvat_fixtures

MOT = "1,7,10,20,30,40,1,-1,-1,-1\n2,7,12,20,30,40,1,-1,-1,-1\n"


def _dialog(qtbot, mode: str, sources=()) -> ConvertDialog:
    runner = JobRunner()
    dialog = ConvertDialog(runner, mode, sources)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def test_import_offers_referees_formats_and_writes_one(qtbot, tmp_path: Path) -> None:
    source = cvat_fixtures.write(tmp_path, "walk.xml", cvat_fixtures.ROUND_TRIP)
    dialog = _dialog(qtbot, IMPORT)
    formats = [dialog.format_box.itemText(i) for i in range(dialog.format_box.count())]
    assert formats == list(OWN_FORMATS)
    dialog.source_box.setEditText(str(source))
    dialog.format_box.setCurrentText("mot-csv")
    dialog.target_edit.setText(str(tmp_path / "walk.txt"))
    with qtbot.waitSignal(dialog.converted, timeout=20000) as done:
        dialog.lossy.setChecked(True)
        dialog.start()
    conversion = done.args[0]
    assert conversion.kind == registry.TRACKS and conversion.items == 3
    assert "Wrote" in dialog.status.text() and "keyframes" in dialog.status.text()
    boxes, _ = registry.read(tmp_path / "walk.txt", registry.BOXES)
    assert boxes[0].at(1).boxes.tolist() == [[10.5, 20.0, 19.75, 40.0]]


def test_a_refused_loss_is_one_line_and_the_dialog_stays(qtbot, tmp_path: Path) -> None:
    source = cvat_fixtures.write(tmp_path, "walk.xml", cvat_fixtures.ROUND_TRIP)
    dialog = _dialog(qtbot, IMPORT)
    dialog.source_box.setEditText(str(source))
    dialog.format_box.setCurrentText("mot-csv")
    dialog.target_edit.setText(str(tmp_path / "walk.txt"))
    dialog.start()
    qtbot.waitUntil(lambda: bool(dialog.error_line.text()), timeout=20000)
    assert "keyframes" in dialog.error_line.text() and "\n" not in dialog.error_line.text()
    assert dialog.isVisible() and not (tmp_path / "walk.txt").exists()
    dialog.size_edit.setText("wide")
    dialog.start()
    assert "WIDTHxHEIGHT" in dialog.error_line.text()


def test_export_lists_the_projects_files(qtbot, tmp_path: Path) -> None:
    source = tmp_path / "gt.txt"
    source.write_text(MOT)
    dialog = _dialog(qtbot, EXPORT, [("ground-truth boxes", source)])
    assert dialog.source() == str(source)
    assert "cvat-video" in [dialog.format_box.itemText(i) for i in range(dialog.format_box.count())]
    dialog.format_box.setCurrentText("cvat-video")
    dialog.target_edit.setText(str(tmp_path / "gt.xml"))
    with qtbot.waitSignal(dialog.converted, timeout=20000):
        dialog.start()
    tracks, name = registry.read(tmp_path / "gt.xml", registry.TRACKS)
    assert name == "cvat-video" and [t.track_id for t in tracks] == [7]


def test_an_import_joins_the_project_as_the_user_says(tmp_path: Path) -> None:
    done = Conversion(
        tmp_path / "a.xml", tmp_path / "tracker.txt", "cvat-video", "mot-csv", "tracks", 3, ()
    )
    project = Project(name="p")
    as_detector = with_imported(project, done, truth=False)
    assert [(d.name, d.boxes) for d in as_detector.detectors] == [
        ("tracker", tmp_path / "tracker.txt")
    ]
    assert with_imported(project, done, truth=True).boxes_groundtruth == tmp_path / "tracker.txt"
    actions = Conversion(
        done.source, tmp_path / "a.xml", "cvat-video", "liris-xml", "actions", 1, ()
    )
    assert with_imported(project, actions, truth=True).actions_groundtruth == tmp_path / "a.xml"
