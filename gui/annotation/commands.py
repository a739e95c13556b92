"""Every ground-truth edit as a command on the editor's ``QUndoStack``.

A command holds what it needs to go both ways (a mask patch, the series or the
actions before and after) and tells the editor what changed, so the views redraw
only that. Commands built for an edit already made (a brush stroke is painted
while the mouse moves) skip their first ``redo``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtGui import QUndoCommand

from referee.core.annotation.label_maps import MaskPatch
from referee.core.annotation.tracks import Track
from referee.core.formats.counts_csv import CountSeries
from referee.core.model.annotations import VideoAnnotation

if TYPE_CHECKING:
    from referee.gui.annotation.editor import AnnotationEditor


class _Command(QUndoCommand):
    def __init__(self, editor: AnnotationEditor, text: str, done: bool = False) -> None:
        super().__init__(text)
        self.editor = editor
        self._skip_redo = done

    def redo(self) -> None:
        if self._skip_redo:
            self._skip_redo = False
            return
        self.apply(forward=True)

    def undo(self) -> None:
        self.apply(forward=False)

    def apply(self, forward: bool) -> None:  # pragma: no cover - every command overrides
        raise NotImplementedError


class MaskPatchCommand(_Command):
    """A brush stroke, an eraser stroke, a polygon or a flood fill on one frame's label map."""

    def __init__(
        self, editor: AnnotationEditor, label: str, frame: int, patch: MaskPatch, text: str
    ) -> None:
        super().__init__(editor, text, done=True)
        self.label, self.frame, self.patch = label, frame, patch
        editor.document_or_raise().mask_changed(label, frame)  # the painter made the edit

    def apply(self, forward: bool) -> None:
        label_map = self.editor.document_or_raise().label_map(self.label, self.frame)
        rect = self.patch.redo(label_map) if forward else self.patch.undo(label_map)
        self.editor.mask_edited(self.label, self.frame, rect)


class LabelMapCommand(_Command):
    """A frame's whole label map replaced (a draft from a detector or the consensus)."""

    def __init__(
        self, editor: AnnotationEditor, label: str, frame: int, after: np.ndarray, text: str
    ) -> None:
        super().__init__(editor, text)
        self.label, self.frame = label, frame
        self.before = editor.document_or_raise().label_map(label, frame).copy()
        self.after = after

    def apply(self, forward: bool) -> None:
        levels = self.after if forward else self.before
        self.editor.document_or_raise().replace_label_map(self.label, self.frame, levels.copy())
        self.editor.mask_edited(self.label, self.frame, None)


class AnnotatedCommand(_Command):
    """A frame marked as annotated, or no longer."""

    def __init__(self, editor: AnnotationEditor, label: str, frame: int, annotated: bool) -> None:
        verb = "Mark" if annotated else "Unmark"
        super().__init__(editor, f"{verb} frame {frame} annotated")
        self.label, self.frame, self.annotated = label, frame, annotated

    def apply(self, forward: bool) -> None:
        value = self.annotated if forward else not self.annotated
        self.editor.document_or_raise().set_annotated(self.label, self.frame, value)
        self.editor.annotated_changed.emit()


class CountsCommand(_Command):
    """A count change marked at a frame (docs/measures.md §6)."""

    def __init__(
        self,
        editor: AnnotationEditor,
        folder: str,
        before: CountSeries,
        after: CountSeries,
        text: str,
    ) -> None:
        super().__init__(editor, text)
        self.folder, self.before, self.after = folder, before, after

    def apply(self, forward: bool) -> None:
        self.editor.document_or_raise().set_counts(
            self.folder, self.after if forward else self.before
        )
        self.editor.counts_edited.emit(self.folder)


class VideoActionsCommand(_Command):
    """The actions of one video replaced by an edit (a box, a keyframe, a split…)."""

    def __init__(
        self,
        editor: AnnotationEditor,
        before: VideoAnnotation,
        after: VideoAnnotation,
        text: str,
    ) -> None:
        super().__init__(editor, text)
        self.before, self.after = before, after

    def apply(self, forward: bool) -> None:
        self.editor.document_or_raise().set_video_actions(self.after if forward else self.before)
        self.editor.boxes_edited.emit()


class TracksCommand(_Command):
    """The MOTChallenge tracks replaced by an edit."""

    def __init__(
        self,
        editor: AnnotationEditor,
        before: tuple[Track, ...],
        after: tuple[Track, ...],
        text: str,
    ) -> None:
        super().__init__(editor, text)
        self.before, self.after = before, after

    def apply(self, forward: bool) -> None:
        self.editor.document_or_raise().set_tracks(self.after if forward else self.before)
        self.editor.boxes_edited.emit()
