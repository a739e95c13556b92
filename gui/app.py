"""Start the application: open a path or the demo project, optionally save a screenshot and quit."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QEvent, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from referee.core import __version__
from referee.core.demo.project import ensure_demo_project
from referee.core.errors import RefereeError
from referee.gui.main_window import MainWindow
from referee.resources import icon_path

#: How long ``--screenshot`` waits for the jobs and the frame before giving up (ms).
SCREENSHOT_TIMEOUT_MS = 300_000


#: Application id: the name of the .desktop entry and of the AppStream component.
DESKTOP_ID = "org.referee.Referee"

#: How long a worker thread may hold the GIL before the GUI thread gets it (seconds).
#: Python's default, 5 ms, lets busy workers delay every slot the GUI runs.
GIL_SWITCH_INTERVAL = 0.001


def application() -> QApplication:
    """The QApplication, created once with Referee's name (QSettings keys use it)."""
    sys.setswitchinterval(GIL_SWITCH_INTERVAL)
    existing = QApplication.instance()
    if existing is None:
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
    return app


def open_window(path: Path | None, demo_root: Path, remember_layout: bool = True) -> MainWindow:
    """A shown main window on ``path``, or on the demo project (written on first use)."""
    window = MainWindow(remember_layout=remember_layout)
    window.show()
    if path is None:
        window.statusBar().showMessage(f"Preparing the demo project in {demo_root}…")
        QApplication.processEvents()
        window.open_project(ensure_demo_project(demo_root))
        window.statusBar().clearMessage()
    else:
        window.open(path)
    return window


def save_when_ready(window: MainWindow, target: Path, done) -> None:
    """Once every job has ended and a frame is shown, save the window to ``target`` and call ``done(ok)``."""
    waited = {"ms": 0}
    timer = QTimer(window)

    def check() -> None:
        waited["ms"] += timer.interval()
        ready = not window.runner.jobs and window.viewer.layers is not None
        if ready or waited["ms"] > SCREENSHOT_TIMEOUT_MS:
            timer.stop()
            QApplication.processEvents()
            ok = ready and window.grab().save(str(target))
            done(ok)

    timer.timeout.connect(check)
    timer.start(200)


def run(path: Path | None, demo_root: Path, screenshot: Path | None = None) -> int:
    """Run the GUI; with ``screenshot``, save the loaded, evaluated window and exit.

    Returns the exit status: 0, or 2 when the screenshot could not be made.
    """
    app = application()
    try:
        # A screenshot shows the default layout, and leaves the user's saved one alone.
        window = open_window(path, demo_root, remember_layout=screenshot is None)
    except RefereeError as error:
        print(f"referee: {error}", file=sys.stderr)
        return 2
    if screenshot is None:
        code = app.exec()
        dispose(window)
        return code
    status = {"code": 2}

    def finish(ok: bool) -> None:
        status["code"] = 0 if ok else 2
        if not ok:
            print(f"referee: could not render the window to {screenshot}", file=sys.stderr)
        window.close()
        app.quit()

    save_when_ready(window, screenshot, finish)
    app.exec()
    dispose(window)
    return status["code"]


def dispose(window: MainWindow) -> None:
    """Delete the window before Python shuts down: left to the garbage collector at exit,
    its pyqtgraph items can be destroyed in an order that aborts the interpreter."""
    window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
