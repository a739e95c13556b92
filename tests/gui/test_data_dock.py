"""DataDock and ErrorDialogs: every source that could not be read says why in the tree, in
one dialog text, and that dialog takes the place of the problems found in those sources."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QMessageBox, QWidget

from referee.core.demo.dataset import DemoLayout, ensure_demo
from referee.core.demo.project import demo_project
from referee.core.workflow.sources import source_status
from referee.gui.docks.data import DataDock, failed_sources_message
from referee.gui.widgets.error_dialogs import ErrorDialogs, names_path
from referee.gui.widgets.source_tree import DETAILS_COLUMN, STATUS_COLUMN
from referee.gui.widgets.text_colours import LOADED_TEXT


@pytest.fixture
def damaged(demo: DemoLayout, tmp_path: Path) -> DemoLayout:
    """A copy of the demo with one mask of knn that does not decode (the first frame of
    baseline/plaza) and a cnt action file that is not XML."""
    root = shutil.copytree(demo.root, tmp_path / "demo")
    layout = ensure_demo(root)
    plaza = next(v for v in layout.videos if v.name == "plaza")
    mask = layout.results["knn"] / "baseline" / "plaza" / f"bin{plaza.temporal_roi[0]:06d}.png"
    mask.write_bytes(b"these bytes are not a PNG image")
    layout.actions["cnt"].write_text("<tagset><video>", encoding="utf-8")
    return layout


def _item(dock: DataDock, group: str, name: str):
    [group_item] = [
        dock.tree.topLevelItem(i)
        for i in range(dock.tree.topLevelItemCount())
        if dock.tree.topLevelItem(i).text(0) == group
    ]
    [item] = [
        group_item.child(i)
        for i in range(group_item.childCount())
        if group_item.child(i).text(0) == name
    ]
    return item


def test_the_failed_sources_are_named_with_their_file_and_why(qtbot, damaged: DemoLayout) -> None:
    rows = source_status(demo_project(damaged))
    dock = DataDock()
    qtbot.addWidget(dock)
    with qtbot.waitSignal(dock.sources_failed) as signal:
        dock.show_status(rows, list(damaged.results))
    plaza = next(v for v in damaged.videos if v.name == "plaza")
    first = plaza.temporal_roi[0]
    knn, cnt = damaged.results["knn"], damaged.actions["cnt"]
    expected = (
        "2 sources could not be read:\n"
        f"• knn masks ({knn}): baseline/plaza/bin{first:06d}.png: cannot decode this result "
    )
    message, paths = signal.args
    assert message.startswith(expected), message
    lines = message.splitlines()
    assert len(lines) == 3
    assert lines[2].startswith(f"• cnt actions ({cnt}): line 1: not well-formed XML")
    assert paths == [knn, cnt]
    assert failed_sources_message(rows) == message
    # In the tree: the state, and why in Details, inline.
    masks = _item(dock, "knn", "masks")
    assert masks.text(STATUS_COLUMN) == "✖ error"
    assert masks.text(DETAILS_COLUMN).startswith(f"baseline/plaza/bin{first:06d}.png: cannot")
    assert str(knn) in masks.toolTip(DETAILS_COLUMN)
    assert _item(dock, "mog2", "masks").text(STATUS_COLUMN) == "✔ loaded"
    assert _item(dock, "mog2", "masks").text(DETAILS_COLUMN) == "masks for 3 videos"


def test_sources_all_read_emit_nothing(qtbot, demo: DemoLayout) -> None:
    rows = source_status(demo_project(demo))
    assert failed_sources_message(rows) is None
    dock = DataDock()
    qtbot.addWidget(dock)
    emitted: list[str] = []
    dock.sources_failed.connect(lambda message, paths: emitted.append(message))
    dock.show_status(rows, [])
    assert emitted == []


# --- ErrorDialogs: one box for the sources that could not be read ---------------------------------


@pytest.fixture
def dialogs(qtbot) -> Iterator[ErrorDialogs]:
    parent = QWidget()  # held here: the dialogs live as long as their window
    qtbot.addWidget(parent)
    yield ErrorDialogs(parent)


def _texts(dialogs: ErrorDialogs) -> list[str]:
    return [box.text() for box in dialogs.boxes() if isinstance(box, QMessageBox)]


def test_the_list_of_sources_replaces_and_silences_their_problems(
    qtbot, dialogs: ErrorDialogs, tmp_path: Path
) -> None:
    masks = tmp_path / "results" / "mog"
    frame_problem = f"{masks}/baseline/plaza/bin000470.png: result of frame 470 is corrupt"
    elsewhere = f"{tmp_path}/results/mog2/baseline/plaza/bin000470.png: corrupt too"
    dialogs.report(frame_problem)  # a job found it before the sources were checked
    dialogs.report(elsewhere)
    summary = f"1 source could not be read:\n• mog masks ({masks}): …"
    dialogs.report_sources(summary, [masks])
    qtbot.waitUntil(lambda: _texts(dialogs) == [elsewhere, summary], timeout=5000)
    dialogs.report(f"{masks}: results folder does not exist")  # the viewer finds it later
    dialogs.report_sources(summary, [masks])  # the same list again: not shown twice
    assert _texts(dialogs) == [elsewhere, summary]
    dialogs.forget()  # another project opened: every problem may be shown again
    dialogs.report(frame_problem)
    assert frame_problem in _texts(dialogs)


@pytest.mark.parametrize(
    "message, named",
    [
        ("/data/mog: results folder does not exist", True),
        ("/data/mog/plaza/bin000001.png: corrupt", True),
        ("cannot open /data/mog", True),
        ("/data/mog2/plaza/bin000001.png: corrupt", False),
        ("/data/mog.xml: not XML", False),
    ],
)
def test_a_message_names_a_path_or_a_file_in_it(message: str, named: bool) -> None:
    assert names_path(message, Path("/data/mog")) is named


def test_states_take_the_themes_shade_of_their_colour(qtbot, demo: DemoLayout) -> None:
    dock = DataDock()
    qtbot.addWidget(dock)
    dock.show_status(source_status(demo_project(demo)), [])
    masks = _item(dock, "mog2", "masks")
    for base, shade in (((255, 255, 255), LOADED_TEXT.light), ((30, 30, 32), LOADED_TEXT.dark)):
        palette = QPalette()
        palette.setColor(QPalette.ColorRole.Base, QColor(*base))
        dock.setPalette(palette)
        assert masks.foreground(STATUS_COLUMN).color().getRgb()[:3] == shade
