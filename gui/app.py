"""Start the application: open a path or the demo project, optionally save a screenshot and quit."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn

from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QEvent,
    QIODevice,
    QMessageLogContext,
    QObject,
    QTimer,
    QtMsgType,
    qInstallMessageHandler,
)
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox

from referee.core import __version__
from referee.core.errors import RefereeError
from referee.core.formats.text_files import write_bytes
from referee.gui.garbage import collect_on_gui_thread
from referee.gui.main_window import MainWindow
from referee.gui.widgets.unattended import mark_unattended
from referee.resources import icon_path

#: How long ``--screenshot`` waits for the jobs and the frame before giving up (ms).
SCREENSHOT_TIMEOUT_MS = 300_000
#: How often ``--screenshot`` looks whether the window is ready (ms).
SCREENSHOT_POLL_MS = 100
#: Event-loop passes between ready and the picture: layouts settle within them.
SETTLE_PASSES = 4

#: Application id: the name of the .desktop entry and of the AppStream component.
DESKTOP_ID = "org.referee.Referee"

#: How long a worker thread may hold the GIL before the GUI thread gets it (seconds).
#: Python's default, 5 ms, lets busy workers delay every slot the GUI runs.
GIL_SWITCH_INTERVAL = 0.001

#: Qt warnings that say nothing to a user (the offscreen platform of --screenshot
#: cannot resize floating docks), kept off standard error.
QUIET_QT_WARNINGS = ("This plugin does not support propagateSizeHints()",)


def application() -> QApplication:
    """The QApplication, created once with Referee's name (QSettings keys use it); cyclic
    garbage is collected on its thread only."""
    sys.setswitchinterval(GIL_SWITCH_INTERVAL)
    existing = QApplication.instance()
    if existing is None:
        qInstallMessageHandler(_qt_message)
        app = QApplication(sys.argv[:1])
    elif isinstance(existing, QApplication):
        app = existing
    else:
        raise RuntimeError("a QCoreApplication without widgets already runs in this process")
    app.setOrganizationName("Referee")
    app.setApplicationName("Referee")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(DESKTOP_ID)
    app.setWindowIcon(QIcon(str(icon_path())))
    collect_on_gui_thread()
    return app


def _qt_message(_kind: QtMsgType, _context: QMessageLogContext, message: str) -> None:
    if message not in QUIET_QT_WARNINGS:
        print(message, file=sys.stderr)


def open_window(path: Path | None, demo_root: Path, remember_layout: bool = True) -> MainWindow:
    """A shown main window on ``path``, or on the demo project (prepared by a job)."""
    window = MainWindow(remember_layout=remember_layout)
    window.show()
    if path is None:
        window.open_demo(demo_root)
    else:
        window.open(path)
    return window


def run(
    path: Path | None,
    demo_root: Path,
    screenshot: Path | None = None,
    size: tuple[int, int] = (1366, 768),
    dark: bool = False,
) -> int:
    """Run the GUI; with ``screenshot``, save the loaded, evaluated window of ``size``
    (in the dark theme with ``dark``) and exit.

    Returns the exit status of the event loop.

    Raises
    ------
    RefereeError
        With ``screenshot``: the first problem met while loading and evaluating
        (the path cannot be opened, a job failed, a frame cannot be read), or a
        picture that cannot be written.
    """
    app = application()
    if screenshot is not None:
        return take_screenshot(app, path, demo_root, screenshot, size, dark)
    window = open_window(path, demo_root)
    return leave(window, app.exec())


def take_screenshot(
    app: QApplication,
    path: Path | None,
    demo_root: Path,
    target: Path,
    size: tuple[int, int] = (1366, 768),
    dark: bool = False,
) -> int:
    """Load ``path`` (or the demo) in a window of ``size``, wait for every job and the first
    frame, save the window as a PNG to ``target``; the first problem ends the wait (see
    :func:`run`). No one answers questions: the window asks none (what it would ask is
    said on standard error), and a modal dialog that opens anyway ends the run at once."""
    # A screenshot shows the default layout, and leaves the user's settings alone.
    window = MainWindow(remember_layout=False)
    mark_unattended(window)
    app.installEventFilter(_NoModalDialogs(window))
    window.resize(*size)
    if dark:
        window.dark_action.trigger()
    window.show()
    attempt = _Screenshot(app, window, target)
    if path is None:
        window.open_demo(demo_root)
    else:
        window.open(path)  # a path that cannot be opened is reported: it ends the wait
    attempt.start()
    code = app.exec()
    problem = attempt.problem
    return leave(window, code, None if problem is None else " ".join(problem.split()))


class _Screenshot:
    """Saves the window once it is ready; the first problem reported stops the wait."""

    def __init__(self, app: QApplication, window: MainWindow, target: Path) -> None:
        self.app, self.window, self.target = app, window, target
        self.problem: str | None = None
        self.stopped = False
        self.waited_ms = 0
        self.timer = QTimer(window)
        self.timer.timeout.connect(self.check)
        window.errors.reported.connect(self.stop)

    def start(self) -> None:
        if not self.stopped:
            self.timer.start(SCREENSHOT_POLL_MS)

    def stop(self, problem: str | None = None) -> None:
        """End the event loop (once it runs: a problem may come before it starts)."""
        if self.stopped:
            return
        self.stopped, self.problem = True, problem
        self.timer.stop()
        QTimer.singleShot(0, self.app.quit)

    def check(self) -> None:
        self.waited_ms += SCREENSHOT_POLL_MS
        if screenshot_ready(self.window):
            # Draw the last results (a problem may arrive too); each pass lays out what the
            # previous one resized, such as wrapped text that grew a dock's minimum height.
            for _ in range(SETTLE_PASSES):
                QApplication.processEvents()
            if self.stopped or not screenshot_ready(self.window):
                return  # a problem ended the wait, or what arrived started more work
            try:
                save_screenshot(self.window, self.target)
            except RefereeError as error:
                self.stop(str(error))
                return
            self.stop()
        elif self.waited_ms >= SCREENSHOT_TIMEOUT_MS:
            waiting = [job.title for job in self.window.runner.jobs] or ["the first frame"]
            self.stop(
                f"{self.target}: nothing saved after {SCREENSHOT_TIMEOUT_MS // 1000} s "
                f"of waiting for {', '.join(waiting)}"
            )


class _NoModalDialogs(QObject):
    """Ends a screenshot run at once when a modal dialog opens: no one would answer it, and
    an answer given for the user could recover or discard their work, so none is given."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show and isinstance(watched, QDialog) and watched.isModal():
            question = watched.windowTitle()
            if isinstance(watched, QMessageBox):
                question += f": {watched.text()}"
            _exit_now(
                2,
                f"the window asked a question, which no one answers in a screenshot run "
                f"({question}); it ended at once, answering nothing and saving no picture",
            )
        return False


def screenshot_ready(window: MainWindow) -> bool:
    """Whether a project is open, every job has ended (its results handed to the docks, and
    the jobs they start begun) and the viewer shows its frame."""
    return window.session.project is not None and not window.runner.jobs and window.viewer.settled()


def save_screenshot(window: MainWindow, target: Path) -> None:
    """Write a PNG of ``window`` to ``target`` atomically: the old file or the new one, never
    a truncated one (a full disk is an error naming ``target``)."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not window.grab().save(buffer, "PNG"):
        raise RefereeError(f"{target}: the window could not be encoded as PNG")
    buffer.close()
    write_bytes(target, bytes(data.data()))


def leave(window: MainWindow, code: int, problem: str | None = None) -> int:
    """Close and delete ``window`` and return ``code``, or raise ``problem`` as a RefereeError.

    A job stuck in a blocking call (a file that never delivers its bytes) would make
    Qt wait for it when the process exits; then the process ends at once instead.
    """
    if window.isVisible():
        window.close()
    stuck = not window.runner.wait(0)
    dispose(window)
    if stuck:
        _exit_now(2 if problem is not None else code, problem)
    if problem is not None:
        raise RefereeError(problem)
    return code


def _exit_now(code: int, problem: str | None = None) -> NoReturn:
    """End the process at once with ``code``, saying ``problem`` as the command line says a
    RefereeError; nothing more runs (no job, no event, no exit handler)."""
    if problem is not None:
        print(f"referee: error: {' '.join(problem.split())}", file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


#: How long closing waits for cancelled jobs to end (ms).
DISPOSE_WAIT_MS = 10_000


def dispose(window: MainWindow) -> None:
    """Delete the window before Python shuts down: left to the garbage collector at exit,
    its pyqtgraph items can be destroyed in an order that aborts the interpreter. Its jobs
    are cancelled and given a few seconds to end first."""
    window.runner.cancel_all()
    window.runner.wait(DISPOSE_WAIT_MS)
    window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
