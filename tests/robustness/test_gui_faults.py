"""Bad input and faults in the desktop application, driven in this process (pytest-qt).

Every failure to open shows one dialog naming the file and keeps the window
usable; the same problem found by several jobs opens one dialog; the demo is
prepared by a job while the window runs; quitting never waits for good on a
job or a frame read stuck in a blocking call.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from referee.core.demo.dataset import DemoLayout
from referee.core.demo.project import DEMO_PROJECT_NAME, default_demo_dir
from referee.core.model.project import DetectorSource, Project
from referee.gui import main_window
from referee.gui.app import dispose, open_window, screenshot_ready
from referee.gui.docks.jobs import JobsStatusWidget
from referee.gui.main_window import MainWindow
from referee.gui.viewer.frame_loader import FrameLoader
from tests.gui.conftest import opened
from tests.robustness.gui_cases import (
    BAD_INPUTS,
    masks_folder_missing,
    one_video,
    project_file,
    with_corrupt_mask,
)

#: A hang is caught after this long (seconds): the test then fails instead of waiting forever.
WATCHDOG_SECONDS = 60
#: Long enough for any job or frame read of these small inputs (ms).
WAIT_MS = 120_000


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep QSettings and the demo folder inside the test's temporary folder."""
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings")
    )
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


@pytest.fixture
def watchdog() -> Iterator[threading.Event]:
    """An event that a blocked call waits on: set at teardown, or after WATCHDOG_SECONDS."""
    release = threading.Event()
    timer = threading.Timer(WATCHDOG_SECONDS, release.set)
    timer.start()
    yield release
    release.set()
    timer.cancel()


def _dialogs(window: MainWindow) -> list[QMessageBox]:
    """The message boxes the window shows (the application shows its errors in these)."""
    return [box for box in window.findChildren(QMessageBox) if box.isVisible()]


def _settle(qtbot, window: MainWindow) -> None:
    """Wait until every job has ended and the viewer waits for nothing, then deliver what
    they sent."""
    qtbot.waitUntil(lambda: not window.runner.jobs and window.viewer.settled(), timeout=WAIT_MS)
    QApplication.processEvents()


def _close_dialogs(window: MainWindow) -> None:
    for box in _dialogs(window):
        box.close()
    QApplication.processEvents()


@pytest.fixture
def window(qtbot, demo: DemoLayout, tmp_path: Path) -> Iterator[MainWindow]:
    """A window showing a one-video dataset."""
    window = MainWindow(remember_layout=False)
    window.show()
    assert opened(qtbot, window.open(one_video(demo, tmp_path / "first")))
    _settle(qtbot, window)
    assert window.viewer.layers is not None
    yield window
    window.close()
    dispose(window)


# --- every failure to open: one dialog naming the file; the window stays usable ---------------


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_a_failure_to_open_shows_one_dialog_and_the_window_stays_usable(
    qtbot, window: MainWindow, demo: DemoLayout, tmp_path: Path, case: str
) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    path, names = BAD_INPUTS[case](demo, folder)
    window.open(path)  # what File › Open, Open recent and a drop call
    _settle(qtbot, window)
    dialogs = _dialogs(window)
    assert len(dialogs) == 1, [box.text() for box in dialogs]
    for name in names:  # the file at fault and the problem
        assert name in dialogs[0].text()
    _close_dialogs(window)
    # Still usable: another path opens and shows its frames.
    assert opened(qtbot, window.open(one_video(demo, tmp_path / "next")))
    _settle(qtbot, window)
    assert window.viewer.layers is not None
    assert window.viewer.message_shown() is None
    assert not _dialogs(window)


def test_a_path_that_cannot_be_read_keeps_the_project_open(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    before = window.session.project
    assert not opened(qtbot, window.open(project_file(tmp_path, "lost", dataset=tmp_path / "gone")))
    assert window.session.project is before
    assert window.viewer.layers is not None  # its frame is still shown
    _close_dialogs(window)


@pytest.mark.parametrize("case", ["text as a video", "corrupt video"])
def test_a_video_that_does_not_decode_is_refused_and_the_project_stays(
    qtbot, window: MainWindow, demo: DemoLayout, tmp_path: Path, case: str
) -> None:
    before = window.session.project
    path, _ = BAD_INPUTS[case](demo, tmp_path)
    assert not opened(qtbot, window.open(path))
    line = (
        f"{path}: not a video OpenCV can decode (no frame could be read): the file is "
        "corrupt, truncated or not a video, or its codec is not supported"
    )
    assert [box.text() for box in _dialogs(window)] == [line]
    assert window.statusBar().currentMessage() == line  # never "Opened …"
    assert window.session.project is before
    _settle(qtbot, window)
    assert window.viewer.layers is not None  # the project open before still shows its frame
    assert [box.text() for box in _dialogs(window)] == [line]
    _close_dialogs(window)


# --- the same problem from several jobs and frames: one dialog --------------------------------


def test_one_bad_mask_found_by_several_jobs_opens_one_dialog(
    qtbot, window: MainWindow, demo: DemoLayout, tmp_path: Path
) -> None:
    dataset, mask = with_corrupt_mask(demo, tmp_path)
    masks = tmp_path / "results" / "mog2"
    reported: list[str] = []
    window.errors.reported.connect(reported.append)
    assert opened(qtbot, window.open(dataset))
    _settle(qtbot, window)
    window.session.run_pseudo()  # a second job that reads the same mask
    _settle(qtbot, window)
    # The jobs' problem, each time, and the list of the sources that could not be read.
    assert len(reported) >= 3 and len(set(reported)) == 2, reported
    assert all(str(masks) in message for message in reported)
    dialogs = _dialogs(window)
    assert len(dialogs) == 1, [box.text() for box in dialogs]
    relative = mask.relative_to(masks)
    assert (
        dialogs[0]
        .text()
        .startswith(
            f"1 source could not be read:\n• mog2 masks ({masks}): {relative}: cannot decode"
        )
    )
    _close_dialogs(window)


def test_a_missing_masks_folder_seen_by_the_viewer_and_a_job_opens_one_dialog(
    qtbot, window: MainWindow, demo: DemoLayout, tmp_path: Path
) -> None:
    path, _ = masks_folder_missing(demo, tmp_path)
    reported: list[str] = []
    window.errors.reported.connect(reported.append)
    window.open(path)
    _settle(qtbot, window)
    assert len(reported) >= 2 and all("ghost-masks" in message for message in reported)
    assert [box.text() for box in _dialogs(window)] == [
        f"1 source could not be read:\n• ghost masks ({tmp_path / 'ghost-masks'}): "
        "masks folder does not exist"
    ]
    assert window.viewer.layers is not None  # the video shows, without the broken detector
    _close_dialogs(window)


def test_the_sources_that_could_not_be_read_are_listed_in_one_dialog(
    qtbot, window: MainWindow, demo: DemoLayout, tmp_path: Path
) -> None:
    dataset, mask = with_corrupt_mask(demo, tmp_path)
    broken = tmp_path / "broken.xml"
    broken.write_text("<tagset><video>", encoding="utf-8")
    project = project_file(
        tmp_path,
        "broken",
        dataset=dataset,
        detectors=(
            DetectorSource("mog2", masks=tmp_path / "results" / "mog2"),
            DetectorSource("knn", masks=tmp_path / "results" / "knn", actions=broken),
        ),
    )
    assert opened(qtbot, window.open(project))
    _settle(qtbot, window)
    [dialog] = _dialogs(window)
    lines = dialog.text().splitlines()
    assert lines[0] == "2 sources could not be read:"
    assert lines[1].startswith(f"• mog2 masks ({tmp_path / 'results' / 'mog2'}): ")
    assert mask.name in lines[1]
    assert lines[2].startswith(f"• knn actions ({broken}): line 1: not well-formed XML")
    _close_dialogs(window)


# --- the demo on first start: a job, while the window runs -----------------------------------


def test_first_start_prepares_the_demo_in_a_job_then_opens_it(
    qtbot, monkeypatch: pytest.MonkeyPatch, watchdog: threading.Event
) -> None:
    root = default_demo_dir()  # inside this test's empty XDG_DATA_HOME
    assert not root.exists()
    generate = main_window.ensure_demo_project

    def held_back(root: Path, progress=None, cancel=None) -> Project:
        watchdog.wait()  # released below, or by the watchdog if the GUI thread waits here
        return generate(root, progress, cancel)

    monkeypatch.setattr(main_window, "ensure_demo_project", held_back)
    window = open_window(None, root, remember_layout=False)
    try:
        assert not watchdog.is_set(), "the window waited for the demo to be written"
        ticks: list[int] = []
        QTimer.singleShot(0, lambda: ticks.append(1))
        qtbot.waitUntil(lambda: bool(ticks), timeout=5000)  # the event loop runs
        assert window.isVisible()
        assert window.viewer.message_shown() == "Preparing the demo project…"
        assert [job.title for job in window.runner.jobs] == ["Preparing the demo project"]
        status = window.statusBar().findChild(JobsStatusWidget)
        assert status is not None and status.label.text().startswith("Preparing the demo project")
        assert not (root / DEMO_PROJECT_NAME).exists()
        watchdog.set()
        qtbot.waitUntil(lambda: window.session.project is not None, timeout=WAIT_MS)
        assert window.session.project.file == root / DEMO_PROJECT_NAME
        qtbot.waitUntil(lambda: screenshot_ready(window), timeout=WAIT_MS)
        assert window.viewer.message_shown() is None
        assert not _dialogs(window)
    finally:
        window.close()
        dispose(window)


# --- quitting never blocks for good ----------------------------------------------------------


def test_quitting_does_not_wait_for_a_job_stuck_in_a_blocking_call(
    qtbot, monkeypatch: pytest.MonkeyPatch, watchdog: threading.Event
) -> None:
    monkeypatch.setattr(main_window, "QUIT_WAIT_MS", 200)
    window = MainWindow(remember_layout=False)
    window.show()
    started = threading.Event()

    def stuck(progress, cancel) -> None:
        started.set()
        watchdog.wait()  # ignores cancel, as a read from a file that never answers would

    job = window.runner.run("stuck", "Reading a file that never answers", stuck)
    assert started.wait(10)
    try:
        window.close()
        assert not watchdog.is_set(), "closing waited for the stuck job"
        assert not window.isVisible()
        assert job.token.cancelled
    finally:
        watchdog.set()
        window.runner.wait()
        dispose(window)


class _StuckSource:
    """Frames of 4×4 zeros; reading ``stuck_frame`` blocks until ``release`` is set."""

    frame_count = 20

    def __init__(self, release: threading.Event, stuck_frame: int | None) -> None:
        self.release, self.stuck_frame = release, stuck_frame
        self.entered = threading.Event()

    def read(self, i: int) -> np.ndarray:
        if i == self.stuck_frame:
            self.entered.set()
            self.release.wait()
        return np.full((4, 4), 0 if self.stuck_frame is not None else 7, dtype=np.uint8)


def test_a_frame_read_that_never_ends_neither_blocks_closing_nor_shows_later(
    qtbot, watchdog: threading.Event
) -> None:
    loader = FrameLoader(ahead=0)
    shown: list[int] = []
    loader.frame_ready.connect(lambda i, image: shown.append(int(image[0, 0])))
    stuck = _StuckSource(watchdog, stuck_frame=3)
    loader.set_source(stuck)
    loader.request(3)
    assert stuck.entered.wait(10)
    assert not loader.close(timeout=0.2)  # gave up waiting: the read still blocks
    assert not watchdog.is_set()
    loader.set_source(_StuckSource(watchdog, stuck_frame=None))
    loader.request(3)
    qtbot.waitUntil(lambda: shown == [7], timeout=10000)
    watchdog.set()  # the abandoned read ends now; what it read must not be shown
    assert loader.close()
    for thread in threading.enumerate():
        if thread.name == "referee-frame-prefetch":
            thread.join(10)
    QApplication.processEvents()
    assert shown == [7]


def test_the_application_exits_although_a_job_is_stuck(tmp_path: Path) -> None:
    """Qt waits for its thread pool when the process exits; a stuck job must not hold it."""
    script = """
import os, threading
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtCore import QTimer
from referee.gui import main_window
from referee.gui.app import application, leave
main_window.QUIT_WAIT_MS = 200
app = application()
window = main_window.MainWindow(remember_layout=False)
window.show()
window.runner.run("stuck", "Stuck", lambda progress, cancel: threading.Event().wait())
QTimer.singleShot(0, window.close)
raise SystemExit(leave(window, app.exec()))
"""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", script],
            env=env,
            capture_output=True,
            text=True,
            timeout=WATCHDOG_SECONDS,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the application did not exit: it waited for the stuck job")
    assert done.returncode == 0, done.stderr
