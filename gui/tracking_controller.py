"""Ties the Tracking dock to the session and the viewer: the boxes stage's tracking
measures go to the dock; the tracker chosen there is shown in the viewer, with its
matches drawn and its identity switches marked once the user asks (the dock's "Draw on
the frames", a switch key, a sequence's row); the switch keys move between them."""

from __future__ import annotations

from PySide6.QtCore import QObject

from referee.core.measures.box_rules import benchmark_wording
from referee.gui.docks.tracking import TrackingDock
from referee.gui.session import ProjectSession
from referee.gui.viewer.panel import ViewerPanel


class TrackingController(QObject):
    """Owns the Tracking dock; see the module's docstring."""

    def __init__(self, session: ProjectSession, viewer: ViewerPanel) -> None:
        super().__init__(viewer)
        self.session, self.viewer = session, viewer
        self.dock = TrackingDock()
        session.project_changed.connect(self._on_project_changed)
        session.boxes_changed.connect(self._on_boxes_changed)
        self.dock.drawing_changed.connect(self._on_drawing_changed)
        self.dock.sequence_selected.connect(self._on_sequence_selected)
        self.dock.previous_switch_requested.connect(lambda: self.step_switch(False))
        self.dock.next_switch_requested.connect(lambda: self.step_switch(True))
        viewer.switches_changed.connect(self.dock.set_switches)

    def step_switch(self, forward: bool) -> None:
        """Go to the next (or previous) identity switch of the tracker shown, drawing its
        matches from now on."""
        self.dock.draw.setChecked(True)
        self.viewer.step_switch(forward)

    def _on_project_changed(self) -> None:
        project = self.session.project
        self.dock.set_project_boxes(project is not None and project.box_groundtruth is not None)

    def _on_boxes_changed(self) -> None:
        result = self.session.results.boxes
        if result is None:
            reason = self.session.results.skipped.get("boxes")
            self.dock.show_tracking({}, "", reason and f"No tracking measures: {reason}.")
            return
        rules = ""
        if result.rules is not None:
            rules = f"{benchmark_wording(result.rules, result.rules_source)}."
        untracked = "; ".join(f"{name}: {why}" for name, why in result.untracked.items())
        self.dock.show_tracking(
            result.tracking, rules, untracked and f"No tracking measures. {untracked}"
        )

    def _on_drawing_changed(self, tracker: str, shown: bool) -> None:
        if tracker and self.viewer.detectors_shown()[:1] != [tracker]:
            self.viewer.show_detector(tracker)
        self.viewer.show_tracking(shown)

    def _on_sequence_selected(self, sequence: str) -> None:
        result, tracker = self.session.results.boxes, self.dock.tracker
        if result is None or tracker is None:
            return
        frames = result.tracking[tracker].frames.get(sequence)
        self.dock.draw.setChecked(True)
        if frames is not None and frames.numbers:
            switches = frames.switch_frames()
            self.viewer.go_to(sequence, switches[0] if switches else frames.numbers[0])
