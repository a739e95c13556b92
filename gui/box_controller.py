"""Annotating boxes: LIRIS actions or MOTChallenge tracks on the frame shown.

:class:`BoxController` connects the :class:`~referee.gui.annotation.box_tool.BoxTool`
(mouse and drawing), the Boxes dock and the editor. Every edit is computed by
:mod:`referee.core.annotation.keyframes` and :mod:`~referee.core.annotation.box_items`
and pushed as one undoable command; propagation runs the core tracker in a job
and shows its boxes as drafts until they are accepted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from PySide6.QtCore import QObject
from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import QMainWindow, QMenu, QMessageBox

from referee.core.annotation.box_items import (
    boxes_on,
    keyframe_count,
    nearest_box,
    new_action,
    new_track,
    next_number,
    number_of,
    without_box,
)
from referee.core.annotation.keyframes import (
    Box,
    ended_at,
    item_name,
    merged,
    split_at,
    with_keyframe,
    with_keyframes,
    without_keyframe,
)
from referee.core.annotation.propagation import PixelBox, Propagation, propagate_box
from referee.core.errors import RefereeError
from referee.core.model.annotations import ACTION_CLASSES, Action, VideoAnnotation
from referee.core.model.tracks import Track
from referee.core.progress import CancelToken, ProgressCallback
from referee.gui.annotation.box_tool import DRAFT_KEY, DRAFT_RGB, BoxTool, ShownBox, Style
from referee.gui.annotation.commands import TracksCommand, VideoActionsCommand
from referee.gui.annotation.editor import AnnotationEditor
from referee.gui.annotation.keys import BOX_KEYS, CLASS_KEYS
from referee.gui.docks.boxes import ACTIONS, TRACKS, BoxesDock
from referee.gui.session import ProjectSession
from referee.gui.viewer.panel import ViewerPanel
from referee.gui.widgets.deferred_draw import DeferredDraw
from referee.gui.widgets.error_dialogs import ErrorDialogs
from referee.gui.widgets.menus import add_key_action
from referee.gui.widgets.palette import GROUND_TRUTH_RGB

Item = Action | Track


@dataclass(frozen=True)
class Drafts:
    """A tracker's boxes for the item numbered ``number``, followed from frame ``start``;
    ``source`` says by what (the tracker, its speed, where it lost the object)."""

    number: int
    start: int
    boxes: dict[int, PixelBox]
    source: str

    @property
    def text(self) -> str:
        """The drafts line, as the drafts are now (after a partial accept too)."""
        frames = sorted(self.boxes)
        return (
            f"{len(frames)} drafts, frames {frames[0]}–{frames[-1]}, from {self.source}. "
            "Accept (A) takes them up to the frame shown; correct a drifting box by moving it."
        )


class BoxController(QObject):
    """Edits the boxes of the video shown, through the editor's undo stack."""

    def __init__(
        self,
        window: QMainWindow,
        session: ProjectSession,
        viewer: ViewerPanel,
        errors: ErrorDialogs,
        editor: AnnotationEditor,
    ) -> None:
        super().__init__(window)
        self.window, self.session, self.viewer = window, session, viewer
        self.errors, self.editor = errors, editor
        self.tool = BoxTool(viewer.grid.views[0])
        self.dock = BoxesDock(window)
        self.kind = ACTIONS
        self.action_class = min(ACTION_CLASSES)
        self.selected: Item | None = None
        self.drafts: Drafts | None = None
        self._draft_selected = False  # the draft on the frame shown is the one selected
        self._frame: tuple[str, int] | None = None
        self._unreadable: str | None = None
        self._drawing = DeferredDraw(self.dock, self._draw)
        self.tool.pressed.connect(self._on_pressed)
        self.tool.drawn.connect(self.draw)
        self.tool.changed.connect(self.move)
        self.dock.kind_chosen.connect(self.set_kind)
        self.dock.class_chosen.connect(self.set_class)
        self.dock.rows_selected.connect(self._on_rows_selected)
        self.dock.command.connect(self.run)
        editor.boxes_edited.connect(self.refresh)
        viewer.frame_shown.connect(self._on_frame_shown)
        self.dock.show_kind(self.kind)
        self.refresh()

    def add_menu_actions(self, menu: QMenu) -> None:
        """The box edits and the class keys, in the Edit menu."""
        for name, text, key in BOX_KEYS:
            add_key_action(self.window, menu, text, key, partial(self.run, name))
        classes = menu.addMenu("Action class")
        for (number, (_, name)), key in zip(ACTION_CLASSES.items(), CLASS_KEYS):
            add_key_action(self.window, classes, name, key, partial(self.set_class, number))

    # --- what is edited ---------------------------------------------------------------------

    def open(self) -> None:
        """A project was opened: edit its tracks if its box ground truth is MOTChallenge."""
        self.selected, self.drafts, self._unreadable = None, None, None
        document = self.editor.document
        try:
            tracks = document is not None and document.boxes_are_tracks()
        except RefereeError as error:
            self.errors.report(str(error))
            tracks = False
        self.set_kind(TRACKS if tracks else ACTIONS)

    def set_kind(self, kind: str) -> None:
        """Edit LIRIS actions or MOTChallenge tracks."""
        self.kind, self.selected, self.drafts = kind, None, None
        self.dock.show_kind(kind)
        self.refresh()

    def items(self) -> tuple[Item, ...]:
        """The items under edit: the shown video's actions, or every track."""
        document = self.editor.document
        if document is None or self._frame is None:
            return ()
        try:
            if self.kind == TRACKS:
                return document.tracks
            video = document.actions.videos.get(self._frame[0])
        except RefereeError as error:  # an unreadable ground-truth file: said once
            if self._unreadable != str(error):
                self._unreadable = str(error)
                self.errors.report(str(error))
            return ()
        return () if video is None else video.actions

    def _on_frame_shown(self, frame: int) -> None:
        name = self.viewer.current_video_name()
        if self._frame is not None and self._frame[0] != name:
            self.selected, self.drafts = None, None
        self._frame = None if name is None else (name, frame)
        self.refresh()

    # --- drawing what is edited -------------------------------------------------------------

    def set_tool_active(self, active: bool) -> None:
        """Whether the Box tool is the tool in use: its boxes are drawn, and edited by mouse."""
        self.tool.set_active(active)
        self.refresh()

    def refresh(self) -> None:
        """Redraw the frame's boxes and the list after an edit, a frame change or an undo.

        While none of it shows (the Box tool not in use, the Boxes dock hidden, nothing
        selected or drafted) it waits for the dock to be shown: the ground truth is then
        not even read, nor its boxes found on every frame."""
        if self.tool.active or self.selected is not None or self.drafts is not None:
            self._draw()
        else:
            self._drawing.request()

    def _draw(self) -> None:
        items = self.items()
        self.selected = self._still_there(items)
        index = self._index(items)
        shown: list[ShownBox] = []
        if self._frame is not None:
            frame = self._frame[1]
            for found in boxes_on(items, frame):
                style = Style.KEYFRAME if found.keyframe else Style.INTERPOLATED
                label = self._item_text(items[found.index])
                shown.append(ShownBox(found.index, found.box, style, label, GROUND_TRUTH_RGB))
            if self.drafts is not None and frame in self.drafts.boxes:
                x, y, w, h = (float(v) for v in self.drafts.boxes[frame])
                label = f"{self.drafts.number} draft"
                shown.append(ShownBox(DRAFT_KEY, (x, y, w, h), Style.DRAFT, label, DRAFT_RGB))
            else:
                self._draft_selected = False
        self.tool.show(shown, DRAFT_KEY if self._draft_selected else index)
        self.dock.show_items([self._row(item) for item in items], index)
        self.dock.show_empty(self._empty_text(items))
        self.dock.show_drafts(
            "No drafts." if self.drafts is None else self.drafts.text, self.drafts is not None
        )

    def _item_text(self, item: Item) -> str:
        if isinstance(item, Action):
            return f"{item.number} {ACTION_CLASSES[item.action_class][1]}"
        return f"id {item.track_id}"

    def _row(self, item: Item) -> tuple[str, str, str, str]:
        name = ACTION_CLASSES[item.action_class][1] if isinstance(item, Action) else "—"
        span = f"{item.first}–{item.last}"
        return (str(number_of(item)), name, span, str(keyframe_count(item)))

    def _empty_text(self, items: Sequence[Item]) -> str:
        if items:
            return ""
        if self._frame is None:
            return "Open a video to annotate its boxes."
        what = "actions in this video" if self.kind == ACTIONS else "tracks"
        return f"No {what} yet: choose the Box tool (R) and drag on the frame to draw one" + (
            ", of the class chosen above." if self.kind == ACTIONS else "."
        )

    def _still_there(self, items: Sequence[Item]) -> Item | None:
        """The selected item as it is now (the same object, or after an edit, by number)."""
        selected = self.selected
        if selected is None or any(item is selected for item in items):
            return selected
        same = [item for item in items if number_of(item) == number_of(selected)]
        frame = self._frame[1] if self._frame is not None else 0
        return next((i for i in same if i.first <= frame <= i.last), same[0] if same else None)

    def _index(self, items: Sequence[Item]) -> int | None:
        return next((k for k, item in enumerate(items) if item is self.selected), None)

    # --- selecting --------------------------------------------------------------------------

    def _on_pressed(self, key: int | None) -> None:
        items = self.items()
        self._draft_selected = key == DRAFT_KEY
        if not self._draft_selected:
            self.selected = items[key] if key is not None and 0 <= key < len(items) else None
        self.refresh()

    def _on_rows_selected(self, rows: list[int]) -> None:
        items = self.items()
        if len(rows) != 1 or rows[0] >= len(items):
            return
        self.selected = item = items[rows[0]]
        label = self.viewer.current_video_label()
        shown = self._frame[1] if self._frame is not None else None
        if label is not None and not (shown is not None and item.first <= shown <= item.last):
            self.viewer.go_to(label, item.first)  # the frame shown stays when the item spans it
        self.refresh()

    def set_class(self, action_class: int) -> None:
        """The class of new actions; a selected action takes it too (undoably)."""
        self.action_class = action_class
        self.dock.show_class(action_class)
        item = self.selected
        if self.kind == ACTIONS and isinstance(item, Action) and item.action_class != action_class:
            after = dataclasses.replace(item, action_class=action_class)
            names = ACTION_CLASSES[item.action_class][1], ACTION_CLASSES[action_class][1]
            text = f"Class of action {item.number}: {names[0]} → {names[1]}"
            self._commit(_replaced(self.items(), item, after), text, after)

    # --- edits ------------------------------------------------------------------------------

    def run(self, name: str) -> None:
        """Run the box command ``name`` of :data:`~referee.gui.annotation.keys.BOX_KEYS`."""
        commands: dict[str, Callable[[], None]] = {
            "keyframe": self.keyframe_here,
            "end": self.end_here,
            "split": self.split_here,
            "merge": self.merge_selected,
            "delete_box": self.delete_box,
            "delete_keyframe": self.delete_keyframe,
            "delete_item": self.delete_item,
            "propagate": self.propagate,
            "accept": self.accept_drafts,
            "discard": self.discard_drafts,
        }
        try:
            commands[name]()
        except RefereeError as error:
            self._say(str(error))

    def draw(self, box: Box) -> None:
        """A box drawn on empty ground: a new action (of the chosen class) or a new track."""
        if self._frame is None:
            return
        items, frame = self.items(), self._frame[1]
        number = next_number(items)
        item: Item
        if self.kind == ACTIONS:
            item = new_action(number, self.action_class, frame, box)
            what = f"action {number} ({ACTION_CLASSES[self.action_class][1]})"
        else:
            item = new_track(number, frame, box)
            what = f"track {number}"
        self._commit((*items, item), f"New {what} at frame {frame}", item)

    def move(self, key: int, box: Box) -> None:
        """The box of item ``key`` moved or resized on the frame shown: a keyframe there;
        a draft moved or resized stays a draft (undoably)."""
        if key == DRAFT_KEY:
            if self.drafts is not None and self._frame is not None:
                self.editor.push(_DraftMoved(self, self._frame[1], box))
            return
        items = self.items()
        if self._frame is None or key >= len(items):
            return
        item, frame = items[key], self._frame[1]
        after = with_keyframe(item, frame, box)  # rounded to whole pixels there
        self._commit(
            _replaced(items, item, after), f"Box of {item_name(item)} at frame {frame}", after
        )

    def keyframe_here(self) -> None:
        """Make the selected item's box on this frame a keyframe (extending it if outside)."""
        item, frame = self._target()
        after = with_keyframe(item, frame, nearest_box(item, frame))
        self._commit(
            _replaced(self.items(), item, after), f"Keyframe of {item_name(item)} at {frame}", after
        )

    def end_here(self) -> None:
        item, frame = self._target()
        after = ended_at(item, frame)
        self._commit(
            _replaced(self.items(), item, after), f"End {item_name(item)} at {frame}", after
        )

    def split_here(self) -> None:
        item, frame = self._target()
        items = self.items()
        first, second = split_at(item, frame, next_number(items))
        text = f"Split {item_name(item)} at {frame}"
        self._commit(_replaced(items, item, first, second), text, second)

    def merge_selected(self) -> None:
        """Merge the two items selected in the list."""
        items, rows = self.items(), self.dock.selected_rows()
        if len(rows) != 2:
            self._say("Select two items in the Boxes list to merge them (Ctrl+click).")
            return
        first, second = items[rows[0]], items[rows[1]]
        both = merged(first, second)
        remaining = tuple(item for item in items if item is not second)
        text = f"Merge {item_name(second)} into {item_name(first)}"
        self._commit(_replaced(remaining, first, both), text, both)

    def delete_box(self) -> None:
        item, frame = self._target()
        items = self.items()
        parts = without_box(item, frame, next_number(items))
        text = f"Delete the box of {item_name(item)} at {frame}"
        self._commit(_replaced(items, item, *parts), text, parts[0] if parts else None)

    def delete_keyframe(self) -> None:
        item, frame = self._target()
        after = without_keyframe(item, frame)
        parts = () if after is None else (after,)
        text = f"Delete the keyframe of {item_name(item)} at {frame}"
        self._commit(_replaced(self.items(), item, *parts), text, after)

    def delete_item(self) -> None:
        """Delete the selected item, all its frames, after asking."""
        item, _ = self._target()
        answer = QMessageBox.question(
            self.window,
            "Delete",
            f"Delete {item_name(item)} and its {len(item)} boxes (frames {item.first}–{item.last})? "
            "Undo brings it back.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Yes:
            self._commit(_replaced(self.items(), item), f"Delete {item_name(item)}", None)

    def _target(self) -> tuple[Item, int]:
        if self.selected is None or self._frame is None:
            raise RefereeError(
                "Select an item first: click its box with the Box tool (R), or its row in the "
                "Boxes list."
            )
        return self.selected, self._frame[1]

    def _commit(self, after: Sequence[Item], text: str, select: Item | None) -> None:
        document = self.editor.document_or_raise()
        assert self._frame is not None
        self.selected = select
        if self.kind == ACTIONS:
            name = self._frame[0]
            before = document.actions.videos.get(name) or VideoAnnotation(name, ())
            actions = tuple(item for item in after if isinstance(item, Action))
            self.editor.push(
                VideoActionsCommand(self.editor, before, VideoAnnotation(name, actions), text)
            )
        else:
            tracks = tuple(item for item in after if isinstance(item, Track))
            self.editor.push(TracksCommand(self.editor, document.tracks, tracks, text))

    # --- propagation ------------------------------------------------------------------------

    def propagate(self) -> None:
        """Follow the selected box over the next frames with the tracker, in a job."""
        item, frame = self._target()
        source = self.viewer.image_source()
        if not item.first <= frame <= item.last or source is None:
            self._say(f"Go to a frame of {item_name(item)} to propagate its box from there.")
            return
        box = nearest_box(item, frame)
        count, tracker = self.dock.frames_box.value(), self.dock.tracker
        number = number_of(item)

        def follow(progress: ProgressCallback, cancel: CancelToken) -> Propagation:
            reader, last = source()
            return propagate_box(reader.read, frame, box, count, last, tracker, progress, cancel)

        def done(result: Propagation) -> None:
            self._show_propagation(number, frame, result)

        title = f"Propagating {item_name(item)} with {tracker.upper()}"
        self.session.runner.run("propagate", title, follow, done, self._say)
        self.dock.show_drafts(f"{title}…", False)

    def _show_propagation(self, number: int, start: int, result: Propagation) -> None:
        lost = "" if result.lost_at is None else f"; lost the object at frame {result.lost_at}"
        if not result.boxes:
            self.drafts = None
            self._say(f"{result.tracker.upper()} proposed no box{lost}.")
            self.refresh()
            return
        speed = len(result.boxes) / result.seconds if result.seconds > 0 else float("inf")
        source = f"{result.tracker.upper()} ({speed:.0f} frames/s){lost}"
        self.drafts = Drafts(number, start, dict(result.boxes), source)
        self.refresh()

    def accept_drafts(self) -> None:
        """Make the drafts up to the frame shown (all, outside their span) keyframes."""
        drafts, frame = self.drafts, self._frame[1] if self._frame is not None else 0
        if drafts is None:
            self._say("No drafts: propagate a box first (T).")
            return
        items = self.items()
        owners = [i for i in items if number_of(i) == drafts.number]
        item = next((i for i in owners if i.first <= drafts.start <= i.last), None)
        if item is None:
            self.discard_drafts()
            self._say("The item the drafts were made for is gone; the drafts were discarded.")
            return
        frames = sorted(drafts.boxes)
        taken = [f for f in frames if f <= frame] if frames[0] <= frame <= frames[-1] else frames
        after = with_keyframes(item, {f: drafts.boxes[f] for f in taken})
        rest = {f: b for f, b in drafts.boxes.items() if f not in taken}
        self.drafts = dataclasses.replace(drafts, boxes=rest) if rest else None
        text = f"Accept {len(taken)} tracked boxes of {item_name(item)}"
        self._commit(_replaced(items, item, after), text, after)

    def discard_drafts(self) -> None:
        self.drafts = None
        self.refresh()

    def _say(self, text: str) -> None:
        self.window.statusBar().showMessage(text, 8000)


class _DraftMoved(QUndoCommand):
    """A tracker's draft moved or resized on one frame, before it is accepted."""

    def __init__(self, controller: BoxController, frame: int, box: Box) -> None:
        super().__init__(f"Draft box at frame {frame}")
        self.controller, self.frame = controller, frame
        drafts = controller.drafts
        assert drafts is not None  # checked by the caller
        self.before = drafts.boxes[frame]
        x, y, w, h = (round(v) for v in box)  # whole pixels, as the tracker's drafts
        self.after: PixelBox = (x, y, w, h)

    def _set(self, box: PixelBox) -> None:
        drafts = self.controller.drafts
        if drafts is not None and self.frame in drafts.boxes:
            drafts.boxes[self.frame] = box
            self.controller.refresh()

    def redo(self) -> None:  # Qt override
        self._set(self.after)

    def undo(self) -> None:  # Qt override
        self._set(self.before)


def _replaced(items: Sequence[Item], old: Item, *new: Item) -> tuple[Item, ...]:
    """``items`` with ``old`` replaced by ``new`` (none, one or several) in its place."""
    out: list[Item] = []
    for item in items:
        out.extend(new if item is old else (item,))
    return tuple(out)
