"""Every ground-truth edit as a command on the editor's ``QUndoStack``.

A command holds what it needs to go both ways (a mask patch, the series or the
actions before and after) and tells the editor what changed, so the views redraw
only that. Commands built for an edit already made (a brush stroke is painted
while the mouse moves) skip their first ``redo``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtGui import QUndoCommand

from referee.core.annotation.label_maps import MaskPatch
from referee.core.annotation.review import Review
from referee.core.formats.counts_csv import CountSeries
from referee.core.model.annotations import VideoAnnotation
from referee.core.model.origins import Origin
from referee.core.model.tracks import Track

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
    """A brush stroke, an eraser stroke, a polygon or a flood fill on one frame's label map.

    Painting a frame taken out of the annotated record puts it back."""

    def __init__(
        self, editor: AnnotationEditor, label: str, frame: int, patch: MaskPatch, text: str
    ) -> None:
        super().__init__(editor, text, done=True)
        self.label, self.frame, self.patch = label, frame, patch
        document = editor.document_or_raise()
        document.mask_changed(label, frame)  # the painter made the edit
        self.before = document.review(label, frame)
        self.after = replace(self.before, unmarked=False)
        document.set_review(label, frame, self.after)

    def apply(self, forward: bool) -> None:
        document = self.editor.document_or_raise()
        label_map = document.label_map(self.label, self.frame)
        rect = self.patch.redo(label_map) if forward else self.patch.undo(label_map)
        document.set_review(self.label, self.frame, self.after if forward else self.before)
        self.editor.mask_edited(self.label, self.frame, rect)
        self.editor.annotated_changed.emit()


class LabelMapCommand(_Command):
    """A frame's whole label map replaced by a draft (a detector's mask, the consensus),
    which waits to be accepted."""

    def __init__(
        self,
        editor: AnnotationEditor,
        label: str,
        frame: int,
        after: np.ndarray,
        origin: Origin,
        text: str,
    ) -> None:
        super().__init__(editor, text)
        self.label, self.frame = label, frame
        document = editor.document_or_raise()
        self.before = document.label_map(label, frame).copy(), document.review(label, frame)
        self.after = after, Review(origin)

    def apply(self, forward: bool) -> None:
        levels, review = self.after if forward else self.before
        document = self.editor.document_or_raise()
        document.replace_label_map(self.label, self.frame, levels.copy())
        document.set_review(self.label, self.frame, review)
        self.editor.mask_edited(self.label, self.frame, None)
        self.editor.annotated_changed.emit()


class ReviewCommand(_Command):
    """A frame accepted, marked annotated (a blank draft) or taken out of the record."""

    def __init__(
        self, editor: AnnotationEditor, label: str, frame: int, after: Review, text: str
    ) -> None:
        super().__init__(editor, text)
        self.label, self.frame = label, frame
        self.before, self.after = editor.document_or_raise().review(label, frame), after

    def apply(self, forward: bool) -> None:
        review = self.after if forward else self.before
        self.editor.document_or_raise().set_review(self.label, self.frame, review)
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
