"""Viewer panel: fitted on every new video and layout, detector colours, progress, welcome."""

from __future__ import annotations

import numpy as np
import pytest

from referee.core.colours import detector_colour
from referee.core.demo.project import demo_project
from referee.core.workflow.projects import list_project
from referee.gui.session import ProjectSession
from referee.gui.viewer.frame_view import CONSENSUS, DETECTOR, LAYERS, MASK_ALPHA
from referee.gui.viewer.panel import WELCOME, ViewerPanel
from referee.gui.worker import JobRunner


def _panel(qtbot, runner: JobRunner) -> ViewerPanel:
    panel = ViewerPanel(ProjectSession(runner))
    qtbot.addWidget(panel)
    panel.resize(800, 600)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


@pytest.fixture
def viewer(qtbot, demo) -> ViewerPanel:
    runner = JobRunner()
    panel = _panel(qtbot, runner)
    panel.session.open(list_project(demo_project(demo)))
    qtbot.waitUntil(lambda: panel.layers is not None, timeout=30000)
    yield panel
    runner.cancel_all()
    runner.wait()
    panel.loader.close()


def test_the_viewer_opens_fitted_and_refits_on_a_new_video_and_layout(viewer, qtbot) -> None:
    assert viewer.grid.fitted()
    assert viewer.zoom_bar.readout.text().startswith("Fit (")
    viewer.zoom_in()
    viewer.zoom_in()
    assert not viewer.grid.fitted()
    assert viewer.zoom_bar.readout.text() == f"{viewer.zoom_percent():.0f} %"
    viewer.step_video(1)
    qtbot.waitUntil(lambda: viewer.layers is not None, timeout=30000)
    assert viewer.grid.fitted()
    viewer.zoom_actual_size()
    assert viewer.zoom_percent() == pytest.approx(100)
    viewer.set_view_count(2)
    assert viewer.grid.fitted()
    viewer.zoom_out()
    viewer.fit_to_window()
    assert viewer.grid.fitted()


def test_detector_masks_take_the_detector_colour(viewer, qtbot) -> None:
    detectors = [d.name for d in viewer.session.project.detectors]
    received: list[list] = []
    viewer.detector_colours_changed.connect(received.append)
    viewer.show_evaluation_boxes(False)  # boxes would cover the pixels looked at
    viewer.detector_box.setCurrentIndex(2)
    viewer.set_view_count(2)
    shown = viewer.detectors_shown()
    expected = [(name, detector_colour(detectors.index(name))) for name in shown]
    assert received[-1] == expected
    for name in LAYERS:
        viewer.set_layer_visible(name, name == DETECTOR)
    viewer.set_layer_opacity(DETECTOR, 1.0)
    layers = viewer.layers
    share = MASK_ALPHA / 255
    for view, (name, colour) in zip(viewer.grid.views, expected):
        ys, xs = np.nonzero(layers.masks[name] == 255)
        assert ys.size, f"{name} sees no motion on this frame"
        y, x = ys[len(ys) // 2], xs[len(xs) // 2]
        blended = share * np.array(colour) + (1 - share) * layers.image[y, x]
        rendered = view.rendered_rgb()[y, x].astype(int)
        assert np.abs(rendered - blended).max() <= 3


def test_progress_and_messages_replace_the_frames(qtbot) -> None:
    runner = JobRunner()
    viewer = _panel(qtbot, runner)
    bar = viewer.message.progress_bar
    assert viewer.message_shown() == WELCOME
    assert "File › Open" in WELCOME and not bar.isVisible()
    zoom = viewer.zoom_bar  # nothing to zoom yet
    assert zoom.readout.text() == "" and not zoom.fit_button.isEnabled()
    viewer.zoom_in()
    assert zoom.readout.text() == ""
    viewer.show_progress("Preparing the demo project…", 0, 0)
    assert viewer.message_shown() == "Preparing the demo project…"
    assert bar.isVisible() and bar.maximum() == 0  # busy until a total is known
    viewer.show_progress("Preparing the demo project…", 3, 12)
    assert (bar.value(), bar.maximum()) == (3, 12)
    viewer.show_message(WELCOME)
    assert viewer.message_shown() == WELCOME and not bar.isVisible()


def test_the_consensus_tints_only_pixels_some_detector_sees(viewer) -> None:
    viewer.show_evaluation_boxes(False)
    for name in LAYERS:
        viewer.set_layer_visible(name, name == CONSENSUS)
    viewer.set_layer_opacity(CONSENSUS, 1.0)
    layers = viewer.layers
    masks = np.array([mask > 0 for mask in layers.masks.values()])
    rendered = viewer.grid.views[0].rendered_rgb().astype(int)
    image = layers.image.astype(int)
    if image.ndim == 2:
        image = np.repeat(image[..., None], 3, axis=2)
    ys, xs = np.nonzero(~masks.any(axis=0))
    assert np.abs(rendered[ys, xs] - image[ys, xs]).max() <= 3  # no detector: untouched
    ys, xs = np.nonzero(masks.all(axis=0))
    assert ys.size, "no pixel that every detector sees on this frame"
    assert (np.abs(rendered[ys, xs] - image[ys, xs]).max(axis=1) > 40).all()


def test_a_video_s_reader_is_built_off_the_gui_thread_and_shows_the_frame_asked_for(
    viewer, qtbot, monkeypatch
) -> None:
    import threading

    from referee.gui.viewer import video_reader

    built_on_gui_thread: list[bool] = []
    source = video_reader.CdnetInputSource

    def input_source(video):  # lists the video's input frames
        built_on_gui_thread.append(threading.current_thread() is threading.main_thread())
        return source(video)

    monkeypatch.setattr(video_reader, "CdnetInputSource", input_source)
    first, second = viewer.video_labels[:2]
    frame = viewer.session.videos[1].first + 7
    viewer.go_to(second, frame)  # its reader is being built: the frame is shown after
    assert not viewer.settled()
    qtbot.waitUntil(lambda: viewer.layers is not None and viewer.settled(), timeout=30000)
    assert built_on_gui_thread == [False]
    assert viewer.current_video_label() == second
    assert viewer.layers.frame == frame == viewer.timeline.frame()
    # A choice made while a reader is built drops that reader: the last choice is shown.
    viewer.go_to(first, viewer.session.videos[0].first + 3)
    viewer.go_to(second, frame + 1)
    qtbot.waitUntil(lambda: viewer.layers is not None and viewer.settled(), timeout=30000)
    assert viewer.current_video_label() == second and viewer.layers.frame == frame + 1
