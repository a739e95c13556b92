"""A view that is never silently empty: its content, or a sentence saying why there is none."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtWidgets import QLabel, QStackedWidget, QWidget


def no_project(purpose: str) -> str:
    """What a view says before any project is open: how to open one, to do ``purpose``."""
    return (
        "No project is open. Open a project, a CDnet dataset folder or a video with "
        f"File › Open (Ctrl+O) to {purpose}."
    )


def needs_two_detectors(purpose: str, count: int) -> str:
    """What a view says when ``purpose`` needs two detectors with masks and the project
    has ``count`` (fewer)."""
    have = "none" if count == 0 else "only one"
    return (
        f"{purpose} needs at least two detectors with masks, and this project has {have}. "
        "Add detectors in the Data dock (Add detector…), or open a dataset with a results "
        "folder beside it."
    )


class EmptyState(QStackedWidget):
    """Shows ``content`` once there is something to show; until then (or again, when told)
    a sentence in its place that says why it is empty and what to do.

    The sentence is word-wrapped, centred and in the theme's text colour, so it
    reads in both themes; it can be selected and copied.
    """

    def __init__(self, content: QWidget, message: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._label = QLabel(message)
        self._label.setObjectName("EmptyStateMessage")
        self._label.setWordWrap(True)
        self._label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._label.setMargin(12)
        self._label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._content = content
        self.addWidget(self._label)
        self.addWidget(content)
        self.setCurrentWidget(self._label)

    def show_message(self, message: str) -> None:
        """Hide the content and say ``message`` (why it is empty, what to do) in its place."""
        self._label.setText(message)
        self.setCurrentWidget(self._label)

    def show_content(self) -> None:
        """Show the content, marked for painting at once.

        A widget shown asks to be painted in a later pass of the event loop. A graphics
        view (the viewer, the timeline, a plot) whose scene changed meanwhile paints the
        whole window before that: the content was painted then, and again a moment later
        when its own requests came (the Indicators table, 5-15 ms each time, as the demo's first
        results arrived). The requests are delivered now (every widget's: listing the
        content's children took 4 ms), so it is painted once.
        """
        if self.currentWidget() is self._content:
            return
        self.setCurrentWidget(self._content)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.UpdateLater)

    def message(self) -> str | None:
        """The sentence shown in place of the content, or ``None`` when the content shows."""
        return self._label.text() if self.currentWidget() is self._label else None
