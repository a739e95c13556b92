"""GUI tests run offscreen, with settings kept out of the user's own."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path, monkeypatch) -> None:
    """Keep QSettings, the demo folder and the cache inside the test's temporary folder."""
    from PySide6.QtCore import QSettings

    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings")
    )
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture(autouse=True)
def collect_on_the_gui_thread():
    """Collect Qt garbage on the GUI thread only, as the application does (gui/app.py):
    a collection that a job's thread happens to start would delete widgets off it."""
    import gc

    gc.disable()
    yield
    gc.unfreeze()  # what a window set aside (gui/garbage.py), then collected here
    gc.collect()


@pytest.fixture
def demo_copy(demo, tmp_path: Path) -> Path:
    """A private copy of the demo, partly annotated as a newcomer's is (the files change)."""
    from referee.core.demo.project import ensure_demo_project

    root = tmp_path / "demo"
    shutil.copytree(demo.root, root)
    ensure_demo_project(root)
    return root


def opened(qtbot, job: Any) -> bool:
    """Wait for a window's opening job (``MainWindow.open`` or ``open_project``, which list
    the project's folders first); whether the project was listed and shown (else the
    problem is in a dialog)."""
    qtbot.waitUntil(lambda: not job.running, timeout=60_000)
    return job.state == job.DONE


def demo_window(qtbot, demo, ready: Callable[[Any], bool]) -> Iterator[Any]:
    """A shown main window on the demo project, once its jobs are done, its first frame is
    shown and ``ready(window)`` holds; closed and disposed after the test."""
    from PySide6.QtWidgets import QApplication

    from referee.core.demo.project import demo_project
    from referee.gui.app import dispose
    from referee.gui.main_window import MainWindow

    QApplication.instance().setOrganizationName("Referee-tests")
    window = MainWindow(remember_layout=False)
    window.show()
    window.open_project(demo_project(demo))
    qtbot.waitUntil(
        lambda: not window.runner.jobs and window.viewer.layers is not None and ready(window),
        timeout=120000,
    )
    yield window
    window.close()
    dispose(window)
