"""When ``--screenshot`` may grab the window: only once everything opening the project started
has been computed and drawn, whatever order the jobs end in (in this process, pytest-qt).

The screenshot polls :func:`~referee.gui.app.screenshot_ready` from the event loop. A state
the loop can be in between two events is a state a poll can see, on a loaded machine: this
test looks at every such state and fails if one of them is "ready" while a result is not
shown yet (a job ended before its result was handed over, or before the stage after it began).
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import shutil
import threading
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QObject, QSettings
from PySide6.QtWidgets import QApplication

from referee.core.demo.dataset import DemoLayout
from referee.core.workflow import graph
from referee.core.workflow.results import ProjectResults
from referee.gui import session
from referee.gui.app import dispose, screenshot_ready
from referee.gui.main_window import MainWindow
from tests.gui.conftest import opened

#: Long enough for every job of the demo (ms); a hang fails the test instead of waiting.
WAIT_MS = 120_000

#: What a window shows: the results the session holds, and whether the Indicators dock
#: shows its table (not the sentence it shows without an evaluation).
Shown = tuple[frozenset[str], bool]


def _shown(window: MainWindow) -> Shown:
    results = window.session.results
    stages = (f.name for f in fields(ProjectResults) if f.name not in ("skipped", "stale"))
    held = frozenset(name for name in stages if getattr(results, name) is not None)
    return held, window.indicators_dock.table_area.message() is None


class _ReadyStates(QObject):
    """Before each queued call the event loop delivers (a job's outcome, a frame read), notes
    what the window shows if a screenshot taken then would be taken."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self.window = window
        self.seen: list[Shown] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.MetaCall and screenshot_ready(self.window):
            self.seen.append(_shown(self.window))
        return False


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path) -> None:
    """Keep QSettings inside the test's temporary folder."""
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings")
    )


@pytest.fixture
def held_evaluation(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """The masks' evaluation waits until the event is set: it then ends last of the jobs
    opening a project starts, and the stages after it follow."""
    release = threading.Event()
    evaluate = graph.run_pixels

    def held_back(*args, **kwargs):
        release.wait()
        return evaluate(*args, **kwargs)

    monkeypatch.setattr(graph, "run_pixels", held_back)
    # The stages that compute in the window's process take turns: the held evaluation would
    # keep the others waiting for theirs, so here each gets one at once.
    monkeypatch.setattr(session, "_COMPUTING_HERE", threading.BoundedSemaphore(len(graph.STAGES)))
    yield release
    release.set()


def test_the_window_is_ready_for_a_screenshot_only_once_every_result_is_shown(
    qtbot, demo: DemoLayout, tmp_path: Path, held_evaluation: threading.Event
) -> None:
    dataset = Path(shutil.copytree(demo.dataset, tmp_path / "dataset"))
    for method in ("mog2", "knn"):  # found beside the dataset: two mask detectors
        shutil.copytree(demo.results[method], tmp_path / "results" / method)
    window = MainWindow(remember_layout=False)
    window.show()
    states = _ReadyStates(window)
    QApplication.instance().installEventFilter(states)
    try:
        assert opened(qtbot, window.open(dataset))
        # Every other job first: then the evaluation's end is the runner's last.
        qtbot.waitUntil(
            lambda: (
                [job.kind for job in window.runner.jobs] == ["pixels"] and window.viewer.settled()
            ),
            timeout=WAIT_MS,
        )
        held_evaluation.set()
        qtbot.waitUntil(lambda: screenshot_ready(window), timeout=WAIT_MS)
        final = _shown(window)
        # The evaluation, the ranking, and the consensus, estimates and significance test
        # its result starts.
        assert final == (
            frozenset({"pixels", "ranking", "pseudo", "estimate", "significance"}),
            True,
        )
        assert all(state == final for state in states.seen), states.seen
    finally:
        QApplication.instance().removeEventFilter(states)
        held_evaluation.set()
        window.close()
        dispose(window)
