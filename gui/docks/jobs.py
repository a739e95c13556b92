"""Where running jobs show: a dock with one row per job, and a compact status-bar widget."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from referee.gui.widgets.empty_state import EmptyState
from referee.gui.widgets.progress_bar import ProgressBar
from referee.gui.worker import Job, JobRunner, progress_text

#: A job gets a row in the Jobs dock once it has run this long (ms); the status bar shows
#: every job at once.
ROW_DELAY_MS = 300
#: What the Jobs dock says while no job runs.
NO_JOB = (
    "No job running. Evaluations, rankings, reports and other long computations are "
    "listed here while they run, each with its progress and a Cancel button."
)


def _bind_progress(bar: ProgressBar, job: Job) -> None:
    """Keep ``bar`` showing ``job``'s progress (busy indicator until a total is known)."""
    bar.show_progress(job.done, job.total)
    job.progress.connect(bar.show_progress)


class _JobRow(QWidget):
    """Title, progress bar and Cancel button of one job."""

    def __init__(self, job: Job, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.job = job
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        title = QLabel(job.title)
        title.setMinimumWidth(140)
        self.bar = ProgressBar()
        _bind_progress(self.bar, job)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip(f"Stop {job.title.lower()} (Esc cancels every job)")
        self.cancel_button.clicked.connect(job.cancel)
        layout.addWidget(title)
        layout.addWidget(self.bar, 1)
        layout.addWidget(self.cancel_button)


class JobsDock(QDockWidget):
    """Every job running longer than :data:`ROW_DELAY_MS`, with its progress and a Cancel
    button."""

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__("Jobs", parent)
        self.setObjectName("JobsDock")
        body = QWidget()
        self._rows = QVBoxLayout(body)
        self._rows.setContentsMargins(2, 2, 2, 2)
        self._rows.addStretch(1)
        self._state = EmptyState(body, NO_JOB)
        self.setWidget(self._state)
        runner.job_started.connect(self._on_job_started)

    @property
    def empty_message(self) -> str | None:
        """What the dock says in place of the job list, or ``None`` while jobs are listed."""
        return self._state.message()

    def rows(self) -> list[_JobRow]:
        """The rows of the jobs still shown."""
        rows: list[_JobRow] = []
        for i in range(self._rows.count()):
            item = self._rows.itemAt(i)
            widget = item.widget() if item is not None else None
            if isinstance(widget, _JobRow):
                rows.append(widget)
        return rows

    def _on_job_started(self, job: Job) -> None:
        # Most jobs end within a blink (a project's listing, a stage on a saved frame): a
        # row for each would be built and torn down while the window is busiest.
        QTimer.singleShot(ROW_DELAY_MS, self, lambda: self._add_row(job))

    def _add_row(self, job: Job) -> None:
        if not job.running:
            return
        row = _JobRow(job)
        self._rows.insertWidget(self._rows.count() - 1, row)
        self._state.show_content()
        job.ended.connect(lambda: self._on_job_ended(row))

    def _on_job_ended(self, row: _JobRow) -> None:
        row.deleteLater()
        self._rows.removeWidget(row)
        if not self.rows():
            self._state.show_message(NO_JOB)


class JobsStatusWidget(QWidget):
    """Status-bar summary: the newest running job's progress, a count of others, Cancel."""

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runner = runner
        self._job: Job | None = None
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel()
        self.bar = ProgressBar()
        self.bar.setMaximumWidth(160)
        self.bar.setMaximumHeight(16)
        self.cancel_button = QToolButton()
        self.cancel_button.setText("✕")
        self.cancel_button.setToolTip("Cancel this job")
        self.cancel_button.clicked.connect(self._on_cancel)
        for widget in (self.label, self.bar, self.cancel_button):
            layout.addWidget(widget)
        self._refresh_pending = False
        runner.job_started.connect(self._on_job_started)
        self._refresh()

    def _on_job_started(self, job: Job) -> None:
        job.ended.connect(self._schedule_refresh)
        job.progress.connect(self._schedule_refresh)
        self._schedule_refresh()

    def _schedule_refresh(self) -> None:
        """Refresh once the events at hand are handled: the jobs a project starts
        together, and their progress, then cost one relayout of the status bar."""
        if not self._refresh_pending:
            self._refresh_pending = True
            QTimer.singleShot(0, self, self._refresh)

    def _on_cancel(self) -> None:
        if self._job is not None:
            self._job.cancel()

    def _refresh(self) -> None:
        self._refresh_pending = False
        jobs = self._runner.jobs
        self.setVisible(bool(jobs))
        if not jobs:
            self._job = None
            return
        job = jobs[-1]
        self._job = job
        self.bar.show_progress(job.done, job.total)
        others = f" (+{len(jobs) - 1} more)" if len(jobs) > 1 else ""
        self.label.setText(progress_text(job) + others)
