"""The ground truth under edit in the window: its document, undo stack and autosave.

:class:`AnnotationEditor` holds no widget. It owns the
:class:`~referee.core.annotation.document.GroundTruthDocument` of the open
project and the ``QUndoStack`` every edit goes through; the stack's clean state
moves the document back and forth, and whether the document is *modified* is
the document's own comparison with the files (:attr:`GroundTruthDocument.modified`),
the one answer for the title, the close prompt, autosave and save. A timer
writes unsaved changes to the autosave sidecar
(:mod:`referee.core.annotation.autosave`); a failed autosave or save keeps the
changes and says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, QTimer, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from referee.core.annotation.autosave import (
    AutosaveContents,
    discard_autosave,
    newer_autosave,
    read_autosave,
    restore_autosave,
    write_autosave,
)
from referee.core.annotation.document import GroundTruthDocument
from referee.core.annotation.label_maps import Rect
from referee.core.annotation.saving import SaveOutcome, save
from referee.core.errors import RefereeError, UnavailableError
from referee.core.model.frame_set import FrameSet
from referee.core.model.project import Project
from referee.core.model.videos import VideoSpec

#: Seconds between autosaves unless the preferences say otherwise.
DEFAULT_AUTOSAVE_SECONDS = 60
AUTOSAVE_SETTING = "annotation/autosave_seconds"


def save_autosave_seconds(seconds: int) -> None:
    """Keep the autosave interval in the preferences."""
    QSettings().setValue(AUTOSAVE_SETTING, int(seconds))


def autosave_seconds() -> int:
    """The autosave interval from the preferences (0: autosave off)."""
    value = QSettings().value(AUTOSAVE_SETTING, DEFAULT_AUTOSAVE_SECONDS)
    try:
        return max(0, int(str(value)))
    except (TypeError, ValueError):
        return DEFAULT_AUTOSAVE_SECONDS


class AnnotationEditor(QObject):
    """The open project's ground truth under edit.

    Signals
    -------
    mask_changed(str, int, object)
        Video label, frame and the rect ``(x0, y0, x1, y1)`` that changed, or
        ``None`` for the whole label map.
    counts_edited(str)
        The counts folder of the video whose counts changed.
    boxes_edited()
        Actions or tracks changed.
    annotated_changed()
        A frame's status changed (marked, unmarked, accepted, saved).
    modified_changed(bool)
        Whether the document differs from the files, each time that may have changed.
    saved(object)
        The :class:`~referee.core.annotation.saving.SaveOutcome` of a save.
    autosave_failed(str)
        Why the last autosave failed (the changes are kept).
    """

    mask_changed = Signal(str, int, object)
    counts_edited = Signal(str)
    boxes_edited = Signal()
    annotated_changed = Signal()
    modified_changed = Signal(bool)
    saved = Signal(object)
    autosave_failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.stack = QUndoStack(self)
        self.document: GroundTruthDocument | None = None
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.autosave)
        self.set_autosave_interval(autosave_seconds())
        self.stack.indexChanged.connect(self._announce_modified)

    # --- the document ---------------------------------------------------------------------

    def open(
        self,
        project: Project,
        videos: tuple[VideoSpec, ...],
        annotated: Mapping[str, FrameSet] | None = None,
    ) -> Path | None:
        """Start editing ``project``'s ground truth; the undo history starts empty.
        ``annotated``: the frames of each video that have ground truth, if already listed.

        Returns the project's autosave sidecar when it is newer than the project
        file (the caller offers to recover it), else ``None``.
        """
        self.document = GroundTruthDocument(project, videos, annotated)
        self.stack.clear()
        self._announce_modified()
        return None if project.file is None else newer_autosave(project.file)

    def document_or_raise(self) -> GroundTruthDocument:
        if self.document is None:
            raise UnavailableError("no project is open")
        return self.document

    @property
    def modified(self) -> bool:
        """Whether the document differs from the files (drafts not accepted included)."""
        return self.document is not None and self.document.modified

    def _announce_modified(self, _index: int = 0) -> None:
        self.modified_changed.emit(self.modified)

    def push(self, command: QUndoCommand) -> None:
        """Do an edit, undoably."""
        self.stack.push(command)

    def mask_edited(self, label: str, frame: int, rect: Rect | None) -> None:
        """Record that a label map changed (called by the commands) and announce it."""
        self.document_or_raise().mask_changed(label, frame)
        self.mask_changed.emit(label, frame, rect)

    # --- saving -------------------------------------------------------------------------------

    def save(self, replace_changed: bool = False) -> SaveOutcome:
        """Write what differs from the files and the project file (drafts stay unsaved).

        Raises
        ------
        ChangedOnDiskError
            A file to write changed on disk since it was read (nothing is written).
        RefereeError
            A file could not be written: the document stays modified.
        """
        document = self.document_or_raise()
        outcome = save(document, replace_changed)
        if outcome.project.file is not None:
            if document.modified:  # drafts live on in the autosave
                self.autosave()
            else:
                discard_autosave(outcome.project.file)
        self.annotated_changed.emit()
        self._announce_modified()
        self.saved.emit(outcome)
        return outcome

    def read_recovery(self, sidecar: Path) -> AutosaveContents:
        """The changes an autosave sidecar holds, checked against the open project.

        Raises
        ------
        InputFileError
            If the sidecar cannot be read or does not fit the project (one sentence).
        """
        return read_autosave(sidecar, self.document_or_raise())

    def recover(self, contents: AutosaveContents) -> None:
        """Put the changes of an autosave sidecar into the document, as unsaved changes."""
        restore_autosave(self.document_or_raise(), contents)
        self.stack.clear()
        self._announce_modified()
        self.annotated_changed.emit()
        self.boxes_edited.emit()
        self.mask_changed.emit("", 0, None)

    def discard_recovery(self) -> None:
        """Forget the open project's autosave sidecar."""
        document = self.document_or_raise()
        if document.project.file is not None:
            discard_autosave(document.project.file)

    def set_autosave_interval(self, seconds: int) -> None:
        """Autosave every ``seconds`` (0: off)."""
        self._timer.stop()
        if seconds > 0:
            self._timer.start(seconds * 1000)

    @property
    def autosave_interval(self) -> int:
        """Seconds between autosaves (0: off)."""
        return self._timer.interval() // 1000 if self._timer.isActive() else 0

    def autosave(self) -> Path | None:
        """Write unsaved changes to the sidecar; a document as saved has none (an older
        sidecar is removed, so that it is not offered for recovery)."""
        if self.document is None:
            return None
        if not self.modified:
            if self.document.project.file is not None:
                discard_autosave(self.document.project.file)
            return None
        try:
            return write_autosave(self.document)
        except RefereeError as error:
            self.autosave_failed.emit(f"Autosave failed: {error}")
            return None
