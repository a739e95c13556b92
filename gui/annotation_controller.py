"""Annotating in the window: the editor, its docks and menu, and the annotate-next loop.

:class:`AnnotationController` assembles the
:class:`~referee.gui.annotation.editor.AnnotationEditor`, the mask tools on the
first frame view, the Annotation and History docks and the Edit menu, and runs
the loop of docs/measures.md §8: go to the top-ranked frame without ground truth,
start it from the consensus, paint, save (which marks the frame annotated and
evaluates and ranks again in the background), and show what changed.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import partial
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QInputDialog,
    QMainWindow,
    QMessageBox,
    QUndoView,
)

from referee.core.annotation.count_changes import with_count_change
from referee.core.annotation.document import GroundTruthDocument
from referee.core.annotation.label_maps import draft_from_mask, draft_from_share
from referee.core.errors import ChangedOnDiskError, RefereeError
from referee.core.model.videos import VideoSpec
from referee.core.significance.wording import sentence, verdict_text
from referee.core.workflow.changes import score_changes
from referee.gui.annotation.commands import AnnotatedCommand, CountsCommand, LabelMapCommand
from referee.gui.annotation.editor import AnnotationEditor, save_autosave_seconds
from referee.gui.annotation.keys import (
    COUNT_DOWN_KEY,
    COUNT_UP_KEY,
    MARK_KEY,
    NEXT_KEY,
    TOOL_KEYS,
)
from referee.gui.annotation.mask_painter import MaskPainter, Tool
from referee.gui.box_controller import BoxController
from referee.gui.docks.annotation import AnnotationDock
from referee.gui.session import ProjectSession
from referee.gui.viewer.panel import ViewerPanel
from referee.gui.widgets.error_dialogs import ErrorDialogs
from referee.gui.widgets.menus import add_key_action

#: Share of detectors that makes a pixel motion in a consensus draft: a strict majority
#: of votes, as the committee's mean vote reads it (docs/measures.md §7).
CONSENSUS_DRAFT_SHARE = 0.5


class AnnotationController(QObject):
    """Connects the editor with the viewer, the session and the Annotation dock."""

    def __init__(
        self,
        window: QMainWindow,
        session: ProjectSession,
        viewer: ViewerPanel,
        errors: ErrorDialogs,
    ) -> None:
        super().__init__(window)
        self.window, self.session, self.viewer, self.errors = window, session, viewer, errors
        self.editor = AnnotationEditor(self)
        self.painter = MaskPainter(self.editor, viewer.grid.views[0])
        self.boxes = BoxController(window, session, viewer, errors, self.editor)
        self.dock = AnnotationDock(window)
        self.history = QDockWidget("History", window)
        self.history.setObjectName("HistoryDock")
        self.history_view = QUndoView(self.editor.stack)
        self.history_view.setEmptyLabel("Opened")
        self.history.setWidget(self.history_view)
        self._frame: tuple[str, int] | None = None
        self._draft_pending: tuple[str, int] | None = None
        self._connect()

    def _connect(self) -> None:
        dock, editor, session = self.dock, self.editor, self.session
        dock.tool_chosen.connect(self.set_tool)
        dock.level_chosen.connect(self.painter.set_level)
        dock.radius_chosen.connect(self.painter.set_radius)
        dock.draft_requested.connect(self.draft)
        dock.mark_requested.connect(self.mark_annotated)
        dock.count_requested.connect(self.change_count)
        dock.next_requested.connect(self.next_suggested)
        editor.stack.cleanChanged.connect(self._on_clean_changed)
        editor.stack.indexChanged.connect(self._on_edited)
        editor.annotated_changed.connect(self._show_state)
        editor.counts_edited.connect(self._on_edited)
        editor.autosave_failed.connect(self.errors.report)
        self.viewer.frame_shown.connect(self._on_frame_shown)
        session.evaluations_changed.connect(self._show_changes)
        session.significance_changed.connect(self._show_changes)
        session.project_changed.connect(self.open)

    # --- menus ------------------------------------------------------------------------------

    def add_edit_menu(self) -> None:
        """The Edit menu: undo, redo, the tools and the annotation keys."""
        menu = self.window.menuBar().addMenu("&Edit")
        undo = self.editor.stack.createUndoAction(self, "&Undo")
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = self.editor.stack.createRedoAction(self, "&Redo")
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        menu.addActions([undo, redo])
        menu.addSeparator()
        for tool, text, key in TOOL_KEYS:
            add_key_action(self.window, menu, f"{text} tool", key, partial(self.set_tool, tool))
        menu.addSeparator()
        self.boxes.add_menu_actions(menu)
        menu.addSeparator()
        add_key_action(self.window, menu, "Next suggested frame", NEXT_KEY, self.next_suggested)
        add_key_action(self.window, menu, "Mark frame annotated", MARK_KEY, self.toggle_annotated)
        add_key_action(
            self.window, menu, "Count +1 at this frame", COUNT_UP_KEY, lambda: self.change_count(1)
        )
        add_key_action(
            self.window,
            menu,
            "Count −1 at this frame",
            COUNT_DOWN_KEY,
            lambda: self.change_count(-1),
        )
        menu.addSeparator()
        interval = menu.addAction("Autosave interval…")
        interval.triggered.connect(self.choose_autosave_interval)

    def choose_autosave_interval(self) -> None:
        """Ask how often unsaved annotation is autosaved, and keep it in the preferences."""
        seconds, ok = QInputDialog.getInt(
            self.window,
            "Autosave",
            "Autosave unsaved annotation every (seconds; 0 turns autosave off):",
            self.editor.autosave_interval,
            0,
            3600,
        )
        if ok:
            save_autosave_seconds(seconds)
            self.editor.set_autosave_interval(seconds)

    # --- the project ------------------------------------------------------------------------

    def open(self) -> None:
        """Start editing the session's project; offer to recover a newer autosave."""
        project = self.session.project
        if project is None:
            return
        sidecar = self.editor.open(project, self.session.videos)
        self._frame = None
        self.painter.set_target(None)
        self.boxes.open()
        if sidecar is not None:
            self._offer_recovery(sidecar)
        self._show_state()

    def _offer_recovery(self, sidecar: Path) -> None:
        answer = QMessageBox.question(
            self.window,
            "Recover unsaved annotation",
            f"{sidecar.name} holds annotation that was not saved (Referee may have stopped "
            "unexpectedly). Recover it?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Discard,
        )
        if answer == QMessageBox.StandardButton.Discard:
            self.editor.discard_recovery()
            return
        try:
            self.editor.recover(sidecar)
        except RefereeError as error:
            self.errors.show(str(error))

    def confirm_leaving(self) -> bool:
        """Before closing or switching project: ask about unsaved annotation; ``False`` to stay."""
        if not self.editor.modified:
            return True
        answer = QMessageBox.question(
            self.window,
            "Unsaved annotation",
            "The annotation has unsaved changes. Save them?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Cancel:
            return False
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        self.editor.discard_recovery()
        self.editor.stack.clear()
        return True

    def save(self) -> bool:
        """Save the annotation and the project; evaluate and rank again in the background.

        A file changed on disk since it was read is replaced only if the user says so;
        a failed save keeps the changes and says why. Returns whether it was saved.
        """
        document = self.editor.document_or_raise()
        known = self.session.project
        if document.project.file is None and known is not None and known.file is not None:
            document.project = replace(document.project, file=known.file)  # saved as, meanwhile
        try:
            try:
                project = self.editor.save()
            except ChangedOnDiskError as error:
                answer = QMessageBox.warning(
                    self.window,
                    "File changed on disk",
                    f"{error}.\n\nReplace it with your annotation?",
                    QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                )
                if answer != QMessageBox.StandardButton.Yes:
                    return False
                project = self.editor.save(replace_changed=True)
        except RefereeError as error:
            self.errors.show(f"The annotation was not saved: {error}")
            return False
        self.session.annotations_saved(project)
        self.window.setWindowModified(False)
        return True

    # --- editing ----------------------------------------------------------------------------

    def set_tool(self, tool: Tool) -> None:
        self.painter.set_tool(tool)
        self.boxes.set_tool_active(tool is Tool.BOX)
        self.viewer.show_evaluation_boxes(tool is not Tool.BOX)
        self.dock.show_tool(tool)

    def current_video(self) -> VideoSpec | None:
        """The CDnet video shown (``None`` for a plain video file)."""
        if self._frame is None:
            return None
        document = self.editor.document
        return None if document is None else document.videos.get(self._frame[0])

    def draft(self, source: str) -> None:
        """Start the frame shown from a detector's mask or the consensus (undoable)."""
        layers, video = self.viewer.layers, self.current_video()
        if layers is None or video is None or self._frame is None:
            self._say("Drafts need a frame of a CDnet video on screen.")
            return
        roi = self.editor.document_or_raise().roi(video.label)
        if source == "consensus":
            if layers.consensus is None:
                self._say("A consensus needs at least two detectors with masks.")
                return
            after = draft_from_share(layers.consensus, CONSENSUS_DRAFT_SHARE, roi)
            text = "Draft from the consensus"
        else:
            shown = self.viewer.detectors_shown()
            mask = layers.masks.get(shown[0]) if shown else None
            if mask is None:
                self._say("No detector mask on this frame to start from.")
                return
            after = draft_from_mask(mask, roi)
            text = f"Draft from {shown[0]}"
        self.editor.push(LabelMapCommand(self.editor, *self._frame, after, text))

    def mark_annotated(self, annotated: bool) -> None:
        if self._frame is None or self.current_video() is None:
            return
        document = self.editor.document_or_raise()
        if (self._frame[1] in document.annotated.get(self._frame[0], set())) != annotated:
            self.editor.push(AnnotatedCommand(self.editor, *self._frame, annotated))

    def toggle_annotated(self) -> None:
        if self._frame is not None:
            document = self.editor.document_or_raise()
            self.mark_annotated(self._frame[1] not in document.annotated.get(self._frame[0], set()))

    def change_count(self, delta: int) -> None:
        """Mark a count change of ``delta`` at the frame shown (docs/measures.md §6)."""
        video = self.current_video()
        if video is None or self._frame is None:
            self._say("Counts are marked on a frame of a CDnet video.")
            return
        document = self.editor.document_or_raise()
        try:
            before = document.counts(video)
            after = with_count_change(before, self._frame[1], delta)
        except RefereeError as error:
            self._say(str(error))
            return
        text = f"Count {delta:+d} at frame {self._frame[1]}"
        self.editor.push(CountsCommand(self.editor, video.file_stem, before, after, text))

    # --- the annotate-next loop -----------------------------------------------------------

    def next_suggested(self) -> None:
        """Go to the sampler's next frame (this video's first), else the top-ranked frame
        without ground truth; offer the consensus as a draft."""
        document = self.editor.document
        if document is None:
            return
        estimate, current = self.session.estimate, self.viewer.current_video_label()
        sampled = (
            [] if estimate is None else sorted(estimate.videos, key=lambda v: v.video != current)
        )
        for video in sampled:
            if video.next_frame is None or video.next_frame in document.annotated.get(
                video.video, set()
            ):
                continue
            self._suggest(document, video.video, video.next_frame)
            self._say(
                f"Sampler's next frame: {video.next_frame} of {video.video} ({video.labels} "
                "labelled draws so far); label it to tighten the estimates"
            )
            return
        for ranked in self.session.ranking:
            if ranked.frame in document.annotated.get(ranked.video, set()):
                continue
            self._suggest(document, ranked.video, ranked.frame)
            self._say(
                f"Suggested frame {ranked.frame} of {ranked.video} (rank {ranked.rank}, "
                f"{ranked.criterion} {ranked.score:.3f})"
            )
            return
        self._say(
            "No suggested frame: rank the frames first (Annotate next dock), or every ranked "
            "frame is annotated."
        )

    def _suggest(self, document: GroundTruthDocument, video: str, frame: int) -> None:
        """Show ``frame`` of ``video``, with the consensus as a draft on a new label map."""
        if video in document.videos and document.label_map_is_new(video, frame):
            self._draft_pending = (video, frame)
        self.viewer.go_to(video, frame)

    def _on_frame_shown(self, frame: int) -> None:
        label = self.viewer.current_video_label()
        document = self.editor.document
        if label is None or document is None or label not in document.videos:
            self._frame = None
            self.painter.set_target(None)
        else:
            self._frame = (label, frame)
            self.painter.set_target(label, frame)
            if self._draft_pending == self._frame:
                self._draft_pending = None
                if self.viewer.layers is not None and self.viewer.layers.consensus is not None:
                    self.draft("consensus")
        self._show_state()

    # --- what the dock shows ----------------------------------------------------------------

    def _show_state(self) -> None:
        document = self.editor.document
        if document is None:
            return
        done, total = document.annotated_count()
        self.dock.show_progress(done, total, self.editor.modified)
        video = self.current_video()
        if video is None or self._frame is None:
            self.dock.show_frame_state(None, None)
            return
        frame = self._frame[1]
        try:
            counts = document.counts(video)
        except RefereeError as error:  # a counts file that cannot be read: said once
            self.errors.report(str(error))
            self.dock.show_frame_state(frame in document.annotated.get(video.label, set()), None)
            return
        count = (
            int(counts.counts[frame - counts.first_frame])
            if counts.first_frame <= frame <= counts.last_frame
            else None
        )
        self.dock.show_frame_state(frame in document.annotated.get(video.label, set()), count)

    def _show_changes(self) -> None:
        pixels = self.session.pixels
        previous = self.session.previous_results
        if pixels is None or previous is None:
            return
        rows = []
        for change in score_changes(previous.pixels, pixels):
            moved = f" ({change.rank_change:+d})" if change.rank_change else ""
            delta = "—" if math.isnan(change.change) else f"{change.change:+.4f}"
            rows.append((change.detector, f"{change.value:.4f}", delta, f"{change.rank}{moved}"))
        indicator = score_changes(None, pixels)[0].indicator if rows else ""
        note = f"Summarized {indicator} of each detector after the last save, and its change."
        before, now = previous.significance, self.session.significance
        if before is not None and now is not None:
            was, is_now = sentence(verdict_text(before)), sentence(verdict_text(now))
            note += (
                f" Significance: {is_now}"
                if was == is_now
                else f" Significance changed: {was} → now {is_now}"
            )
        self.dock.show_changes(rows, note)

    def _on_edited(self, _what: object) -> None:
        self._show_state()

    def _on_clean_changed(self, clean: bool) -> None:
        self.window.setWindowModified(not clean)
        self._show_state()

    def _say(self, text: str) -> None:
        self.window.statusBar().showMessage(text, 8000)
