"""The Tracking dock and the tracking view of the frames (docs/measures.md §5): the
measures per tracker and sequence, switches and fragmentations marked on the timeline,
the switch keys, the boxes drawn with a legend, and the dock's empty states."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from referee.core.formats.liris_xml import read_liris
from referee.core.measures.boxes import boxes_from_annotations
from referee.core.measures.clear_matching import clear_matching
from referee.core.measures.tracked import tracked_sequence
from referee.core.model.project import Project
from referee.gui.docks.tracking import ALL_SEQUENCES, NO_BOX_TRUTH, TrackingDock
from referee.gui.main_window import MainWindow
from referee.gui.viewer.tracking_boxes import NEXT_SWITCH_KEY, PREVIOUS_SWITCH_KEY
from tests.gui.conftest import demo_window


@pytest.fixture
def window(qtbot, demo):
    yield from demo_window(qtbot, demo, lambda window: window.session.results.boxes is not None)


def _shown(window: MainWindow) -> int | None:
    layers = window.viewer.layers
    return None if layers is None else layers.frame


def _street_switches(demo, tracker: str) -> list[int]:
    """Frames of the street on which the tracker switches an identity, found here by
    walking the matching of its actions' boxes (not through the window's code)."""
    truth = {v.name: v for v in boxes_from_annotations(read_liris(demo.actions_gt))}
    found = {v.name: v for v in boxes_from_annotations(read_liris(demo.actions[tracker]))}
    street = "baseline_street"
    last = max([*truth[street].frames, *found[street].frames])
    numbers = list(range(1, last + 1))
    matching = clear_matching(tracked_sequence(truth[street], found[street], numbers))
    return [n for n, m in zip(numbers, matching.frames) if len(m.switched)]


def test_the_dock_lists_every_sequence_and_their_combination(window) -> None:
    dock = window.tracking.dock
    assert dock.empty_message is None
    dock.select_tracker("mog2")
    table = dock.table
    names = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert names == [ALL_SEQUENCES, "baseline_street", "baseline_plaza", "shadow_corridor"]
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    for title in ("HOTA", "DetA", "AssA", "MOTA", "MOTP", "IDF1", "IDSW", "Frag"):
        assert title in headers
    assert table.horizontalHeaderItem(headers.index("HOTA")).toolTip()


def test_switches_are_marked_and_reached_with_the_keys(window, qtbot, demo) -> None:
    window.tracking.dock.select_tracker("mog2")
    window.viewer.go_to("baseline/street", 1)
    qtbot.waitUntil(lambda: _shown(window) == 1)
    expected = _street_switches(demo, "mog2")
    assert expected, "the demo's mog2 tracker switches identities on the street"
    assert not window.tracking.dock.draw.isChecked()  # the pixel view stays the default
    assert window.viewer.timeline._strip_label.text.startswith("F1 of")
    window.tracking.step_switch(True)  # as Ctrl+] does: drawing starts
    assert window.tracking.dock.draw.isChecked()
    assert set(expected) <= set(window.viewer.timeline._marks)
    qtbot.waitUntil(lambda: _shown(window) == expected[0])
    overlay = window.viewer.grid.views[0].box_overlay
    drawn = zip(overlay.rect_items(), overlay.label_items())
    switched = [rect.pen() for rect, label in drawn if "· switch" in label.toPlainText()]
    assert switched, "the switched object is labelled"
    assert all(pen.style() == Qt.PenStyle.DashLine and pen.width() == 4 for pen in switched)
    assert overlay.legend_texts()[:2] == ["ground truth", "tracker"]
    window.tracking.step_switch(False)  # none before the first: the frame stays
    assert window.viewer.timeline.frame() == expected[0]


def test_drawing_off_gives_back_the_action_boxes(window, qtbot, demo) -> None:
    window.tracking.dock.select_tracker("mog2")
    frame = _street_switches(demo, "mog2")[0]
    window.tracking.dock.draw.setChecked(True)
    window.viewer.go_to("baseline/street", frame)
    qtbot.waitUntil(lambda: _shown(window) == frame)
    overlay = window.viewer.grid.views[0].box_overlay

    def labels() -> list[str]:
        return [label.toPlainText() for label in overlay.label_items()]

    assert any(text.startswith("T ") for text in labels())
    assert "tracker" in overlay.legend_texts()
    window.tracking.dock.draw.setChecked(False)
    assert labels() and not any(text.startswith("T ") for text in labels())
    assert "detection" in overlay.legend_texts()


def test_the_go_menu_has_the_switch_keys(window) -> None:
    keys = {a.text().replace("&", ""): a.shortcut() for a in window.findChildren(QAction)}
    assert keys["Previous identity switch"] == QKeySequence(PREVIOUS_SWITCH_KEY)
    assert keys["Next identity switch"] == QKeySequence(NEXT_SWITCH_KEY)


def test_without_box_ground_truth_the_dock_says_so(qtbot) -> None:
    dock = TrackingDock()
    qtbot.addWidget(dock)
    dock.set_project_boxes(False)
    assert dock.empty_message == NO_BOX_TRUTH
    dock.show_tracking({}, "", "No tracking measures. knn: boxes need identities")
    assert dock.empty_message == "No tracking measures. knn: boxes need identities"


def test_a_project_without_boxes_has_no_tracking(qtbot, tmp_path) -> None:
    window = MainWindow(remember_layout=False)
    qtbot.addWidget(window)
    window.session.project = Project(name="empty")
    window.tracking._on_project_changed()
    assert window.tracking.dock.empty_message == NO_BOX_TRUTH
