"""Ties the Agreement dock and the annotators' disagreement layer to the session and the
viewer (docs/measures.md §13): the agreement stage's result goes to the dock; a frame
chosen there is shown; Write consensus… runs the core's ``run_agreement`` with a
consensus folder as a job; the layer can be switched on only while the project names two
annotators or more."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from referee.core.workflow.agreement import run_agreement
from referee.gui.docks.agreement import AgreementDock
from referee.gui.session import ProjectSession
from referee.gui.viewer.frame_view import ANNOTATORS
from referee.gui.viewer.panel import ViewerPanel
from referee.gui.worker import Job

if TYPE_CHECKING:
    from referee.gui.main_window import MainWindow

#: The job kind of writing the consensus (a newer one cancels the older).
CONSENSUS_KIND = "consensus"


def layer_unavailable(annotators: int | None) -> str | None:
    """Why the annotators' disagreement layer cannot be shown for a project naming
    ``annotators`` annotators (``None``: no project), or ``None`` when it can."""
    if annotators is None:
        return "Open a project that names two or more annotators to see where they disagree"
    if annotators < 2:
        return (
            f"The project names {annotators} annotator(s): name two or more in its project "
            'file ("annotators") to see where they disagree; the Agreement dock says how'
        )
    return None


class AgreementController(QObject):
    """Owns the Agreement dock; see the module's docstring."""

    def __init__(self, window: MainWindow, session: ProjectSession, viewer: ViewerPanel) -> None:
        super().__init__(window)
        self.window, self.session, self.viewer = window, session, viewer
        self.dock = AgreementDock()
        window.layers_panel.set_available(ANNOTATORS, layer_unavailable(None))
        session.project_changed.connect(self._on_project_changed)
        session.agreement_changed.connect(self._show_result)
        # A failed stage is said in a dialog and emits no result: the dock says why too.
        session.error.connect(lambda _message: self._show_result())
        self.dock.frame_requested.connect(viewer.go_to)
        self.dock.write_requested.connect(self.write_consensus)

    def _on_project_changed(self) -> None:
        project = self.session.project
        count = None if project is None else len(project.annotators)
        self.dock.set_project(count)
        self.window.layers_panel.set_available(ANNOTATORS, layer_unavailable(count))

    def _show_result(self) -> None:
        results = self.session.results
        if results.agreement is not None or "agreement" in results.skipped:
            self.dock.show_result(results.agreement, results.skipped.get("agreement"))

    def write_consensus(self, folder: Path, force: bool) -> Job | None:
        """Write the annotators' STAPLE consensus to ``folder`` as a job, replacing files
        there only with ``force``; a problem is shown in a dialog."""
        project = self.session.project
        if project is None:
            return None
        options = replace(self.session.options.agreement, consensus_folder=folder, force=force)
        self.dock.show_writing(folder)

        def failed(message: str) -> None:
            self.dock.show_written(None)
            self.window.show_error(message)

        job = self.session.runner.run(
            CONSENSUS_KIND,
            "Writing the annotators' consensus",
            lambda progress, cancel: run_agreement(project, options, progress, cancel),
            self.dock.show_written,
            failed,
        )
        job.cancelled.connect(lambda: self.dock.show_written(None))
        return job
