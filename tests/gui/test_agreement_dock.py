"""The Agreement dock and the annotators' disagreement layer (docs/measures.md §13), through
the real window on a tiny dataset whose numbers are worked out by hand below: κ and Dice
of each pair, the frames' order, the layer's shares at a few pixels, going to a frame,
writing the consensus (never over files unasked) and the sentence with one annotator."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import cv2
import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QCheckBox, QFileDialog, QMessageBox

from referee.core.model.project import AnnotatorSource, Project
from referee.gui.app import dispose
from referee.gui.docks import agreement as agreement_dock
from referee.gui.docks.agreement import AgreementDock, needs_annotators
from referee.gui.main_window import MainWindow
from referee.gui.viewer.frame_view import ANNOTATORS
from referee.gui.viewer.layers_panel import MNEMONIC_TITLES
from tests.core.agreement_data import SHAPE, read_label, write_label, write_video

LABEL = "baseline/tiny"
#: The grey of every input frame.
GREY = 128


def _labels() -> dict[str, dict[int, np.ndarray]]:
    """Each annotator's label maps by frame, on 24×32 frames whose first 4 columns are
    outside the ROI (tests/core/agreement_data.py). cyd did not label frame 1."""
    maps: dict[str, dict[int, np.ndarray]] = {name: {} for name in ("ann", "bob", "cyd")}
    for name in maps:
        for frame in (2, 3):
            maps[name][frame] = np.zeros(SHAPE, np.uint8)
    maps["ann"][1] = np.zeros(SHAPE, np.uint8)
    maps["bob"][1] = np.zeros(SHAPE, np.uint8)
    maps["bob"][1][5:7, 10:12] = 255
    # Frame 2: ann rows 0-3 × columns 4-7 (16 pixels) and, outside the ROI, rows 10-11 ×
    # columns 0-3; bob rows 0-3 × columns 4-9 (24) and unknown (170) at (20, 20); cyd
    # rows 0-1 × columns 4-7 (8).
    maps["ann"][2][0:4, 4:8] = 255
    maps["ann"][2][10:12, 0:4] = 255
    maps["bob"][2][0:4, 4:10] = 255
    maps["bob"][2][20, 20] = 170
    maps["cyd"][2][0:2, 4:8] = 255
    return maps


def _project(root: Path, names: tuple[str, ...]) -> Project:
    """One video, frames 1-3 (its temporal ROI), a uniform grey input, and the labels of
    ``names``."""
    data = root / "data"
    write_video(data, "baseline", "tiny", 1, 3)
    inputs = data / "baseline" / "tiny" / "input"
    inputs.mkdir()
    for frame in (1, 2, 3):
        cv2.imwrite(str(inputs / f"in{frame:06d}.jpg"), np.full((*SHAPE, 3), GREY, np.uint8))
    for name in names:
        for frame, label in _labels()[name].items():
            write_label(root / "labels" / name, "baseline", "tiny", frame, label)
    annotators = tuple(AnnotatorSource(n, root / "labels" / n) for n in names)
    return Project("tiny", dataset=data, annotators=annotators)


@pytest.fixture
def opened(qtbot, tmp_path: Path, request) -> MainWindow:
    QApplication.instance().setOrganizationName("Referee-tests")
    window = MainWindow(remember_layout=False)
    window.resize(1366, 768)
    window.show()
    window.open_project(_project(tmp_path, request.param))
    window.agreement.dock.raise_()
    qtbot.waitUntil(
        lambda: not window.runner.jobs and window.viewer.layers is not None, timeout=30_000
    )
    yield window
    window.close()
    dispose(window)


def _kappa(both: int, first: int, second: int, neither: int) -> float:
    """Cohen's κ = (p_o − p_e) / (1 − p_e), from the textbook's agreement and chance."""
    n = both + first + second + neither
    observed = Fraction(both + neither, n)
    motion_a, motion_b = both + first, both + second
    chance = Fraction(motion_a * motion_b + (n - motion_a) * (n - motion_b), n * n)
    return float((observed - chance) / (1 - chance))


def _headers(table) -> list[str]:
    return [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]


def _cells(table, row: int) -> list[str]:
    return [table.item(row, c).text() for c in range(table.columnCount())]


def _show_frame(qtbot, window: MainWindow, frame: int) -> None:
    window.viewer.go_to(LABEL, frame)
    qtbot.waitUntil(lambda: window.viewer.layers.frame == frame, timeout=10_000)


@pytest.mark.parametrize("opened", [("ann", "bob", "cyd")], indirect=True)
def test_the_dock_shows_kappa_dice_and_the_frames_and_a_row_goes_to_its_frame(
    qtbot, opened: MainWindow
) -> None:
    dock: AgreementDock = opened.agreement.dock
    qtbot.waitUntil(lambda: dock.empty_message is None, timeout=10_000)
    # Frames 2 and 3 are labelled by all three. Counted: inside the ROI (28 of 32 columns)
    # and 0, 50 or 255 for all: 24·28 − 1 (bob's 170) on frame 2, 24·28 on frame 3: 1343.
    # Motion: ann 16, bob 24 (ann's 16 among them), cyd 8 (inside ann's); frame 3 none.
    n = 24 * 28 * 2 - 1
    expected = {
        # pair: both, first only, second only, neither; Dice = 2·both / (2·both + only's)
        ("ann", "bob"): ((16, 0, 8, n - 24), 32 / 40),
        ("ann", "cyd"): ((8, 8, 0, n - 16), 16 / 24),
        ("bob", "cyd"): ((8, 16, 0, n - 24), 16 / 32),
    }
    pairs = dock.pairs
    assert pairs.rowCount() == 3
    for row, ((first, second), (counts, dice)) in enumerate(expected.items()):
        cells = dict(zip(_headers(pairs), _cells(pairs, row)))
        assert (cells["first"], cells["second"]) == (first, second)
        names = ("both", "first only", "second only", "neither")
        assert tuple(int(cells[name]) for name in names) == counts
        assert float(cells["κ"]) == pytest.approx(_kappa(*counts), abs=5e-5)
        assert float(cells["Dice"]) == pytest.approx(dice, abs=5e-5)
    assert [_cells(dock.qualities, r)[0] for r in range(3)] == ["ann", "bob", "cyd"]
    # Frame 2: the pairs label 8, 8 and 16 of its 671 counted pixels differently; frame 3
    # none. Its lowest κ (by the formula above, 0.79, 0.66, 0.49): bob–cyd.
    frames = dock.frames
    assert [_cells(frames, r)[1] for r in range(frames.rowCount())] == ["2", "3"]
    assert float(_cells(frames, 0)[2]) == pytest.approx(32 / 3 / 671, abs=5e-5)
    assert _cells(frames, 0)[4] == "bob–cyd" and float(_cells(frames, 1)[2]) == 0
    assert dock.empty_message is None

    assert opened.viewer.layers.frame == 1
    rect = frames.visualItemRect(frames.item(1, 1))
    qtbot.mouseClick(frames.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: opened.viewer.layers.frame == 3, timeout=10_000)
    assert opened.viewer.timeline.frame() == 3


@pytest.mark.parametrize("opened", [("ann", "bob", "cyd")], indirect=True)
def test_a_long_frame_list_is_cut_to_the_frames_of_most_disagreement(
    qtbot, opened: MainWindow, monkeypatch
) -> None:
    dock: AgreementDock = opened.agreement.dock
    qtbot.waitUntil(lambda: dock.empty_message is None, timeout=10_000)
    monkeypatch.setattr(agreement_dock, "LISTED_FRAMES", 1)
    dock.show_result(opened.session.results.agreement)
    qtbot.waitUntil(lambda: dock.frames.rowCount() == 1, timeout=10_000)
    assert _cells(dock.frames, 0)[1] == "2"  # of frames 2 and 3, the one with disagreement
    assert "Frames lists the 1 of most disagreement of 2." in dock._summary.text()


@pytest.mark.parametrize("opened", [("ann", "bob", "cyd")], indirect=True)
def test_the_layer_is_the_share_of_pairs_that_disagree(qtbot, opened: MainWindow) -> None:
    viewer, panel = opened.viewer, opened.layers_panel
    assert panel.is_available(ANNOTATORS) and opened.layer_actions[ANNOTATORS].isEnabled()
    _show_frame(qtbot, opened, 2)
    shares = viewer.layers.annotator_disagreement
    # (row, column): who marked motion → of the 3 pairs, those that disagree.
    assert shares[0, 5] == 0  # all three
    assert shares[2, 5] == pytest.approx(2 / 3)  # ann and bob: both pairs with cyd
    assert shares[1, 8] == pytest.approx(2 / 3)  # bob alone: both pairs with him
    assert shares[15, 15] == 0  # none
    assert np.isnan(shares[20, 20]) and np.isnan(shares[10, 1])  # 170; outside the ROI
    view = viewer.grid.views[0]
    view.pixel_hovered.emit(5, 2)
    assert "annotators' disagreement: 0.667" in opened.inspector.text()
    view.pixel_hovered.emit(20, 20)
    assert "annotators' disagreement: not counted" in opened.inspector.text()
    # Drawn opaque: agreement (0) and uncounted pixels (NaN) leave the frame as it is.
    panel.set_checked(ANNOTATORS, True)
    panel.set_opacity(ANNOTATORS, 1.0)
    assert view.colour_bar_visible(ANNOTATORS)
    rendered = view.rendered_rgb().astype(int)
    plain = rendered[15, 15]
    assert np.abs(rendered[20, 20] - plain).max() <= 2 and np.abs(rendered[0, 5] - plain).max() <= 2
    assert np.abs(rendered[2, 5] - plain).max() > 40
    # Frame 1: cyd did not label it; ann and bob, one pair, differ on bob's 4 pixels.
    _show_frame(qtbot, opened, 1)
    assert viewer.layers.annotator_disagreement[5, 10] == 1.0
    assert viewer.layers.annotator_disagreement[0, 5] == 0


@pytest.mark.parametrize("opened", [("ann", "bob", "cyd")], indirect=True)
def test_the_consensus_is_written_and_files_are_replaced_only_when_the_user_says(
    qtbot, opened: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dock: AgreementDock = opened.agreement.dock
    qtbot.waitUntil(dock.write_button.isEnabled, timeout=10_000)
    folder = tmp_path / "consensus"
    folder.mkdir()
    chosen = [folder]
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(chosen[0]))
    answers: list[QMessageBox.StandardButton] = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: answers.pop(0))

    def write() -> None:
        qtbot.mouseClick(dock.write_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not opened.runner.jobs, timeout=10_000)

    write()  # an empty folder: nothing asked
    target = folder / "baseline" / "tiny" / "groundtruth"
    assert sorted(p.name for p in target.iterdir()) == ["gt000002.png", "gt000003.png"]
    assert dock.status.startswith(f"Consensus written as ground truth to {folder}")
    written = read_label(target / "gt000002.png")
    # All three marked (0, 5); none (15, 15); outside the ROI 85; bob left (20, 20) unknown.
    assert (written[0, 5], written[15, 15], written[10, 1], written[20, 20]) == (255, 0, 85, 170)

    cv2.imwrite(str(target / "gt000002.png"), np.zeros(SHAPE, np.uint8))
    answers.append(QMessageBox.StandardButton.No)
    write()
    assert not answers and dock.status.startswith("Nothing written")
    assert read_label(target / "gt000002.png")[0, 5] == 0
    answers.append(QMessageBox.StandardButton.Yes)
    write()
    assert read_label(target / "gt000002.png")[0, 5] == 255

    # An annotator's own folder is refused: one dialog, and the window goes on.
    chosen[0] = tmp_path / "labels" / "ann"
    answers.append(QMessageBox.StandardButton.Yes)
    write()
    assert any("ground truth of annotator 'ann'" in box.text() for box in opened.errors.boxes())
    assert dock.write_button.isEnabled() and dock.status == ""


@pytest.mark.parametrize("opened", [("ann",)], indirect=True)
def test_with_one_annotator_the_dock_says_how_to_add_one_and_the_layer_is_off(
    opened: MainWindow,
) -> None:
    dock: AgreementDock = opened.agreement.dock
    assert dock.empty_message == needs_annotators(1)
    assert '"annotators": [{"name": "ann", "root": "labels/ann"}' in dock.empty_message
    panel = opened.layers_panel
    assert not panel.is_available(ANNOTATORS)
    (switch,) = [
        b for b in panel.findChildren(QCheckBox) if b.text() == MNEMONIC_TITLES[ANNOTATORS]
    ]
    assert not switch.isEnabled() and "names 1 annotator(s)" in switch.toolTip()
    assert not opened.layer_actions[ANNOTATORS].isEnabled()
    assert opened.viewer.layers.annotator_disagreement is None
