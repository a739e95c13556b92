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
from functools import partial
from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QInputDialog,
    QMainWindow,
    QMessageBox,
    QUndoView,
)

from referee.core.annotation.count_changes import with_count_change
from referee.core.annotation.document import GroundTruthDocument
from referee.core.annotation.grabcut import grabcut_draft
from referee.core.annotation.label_maps import draft_from_mask, draft_from_share
from referee.core.annotation.review import FrameStatus
from referee.core.annotation.saving import SaveOutcome
from referee.core.errors import ChangedOnDiskError, RefereeError
from referee.core.measures.pixel import GT_LEVEL_NAMES
from referee.core.model.frame_set import FrameSet
from referee.core.model.origins import CONSENSUS, Origin, Source, now_utc
from referee.core.model.videos import VideoSpec
from referee.core.significance.wording import sentence, verdict_text
from referee.core.workflow.changes import score_changes
from referee.gui.annotation.commands import CountsCommand, LabelMapCommand, ReviewCommand
from referee.gui.annotation.editor import AnnotationEditor, save_autosave_seconds
from referee.gui.annotation.keys import (
    ACCEPT_KEYS,
    COUNT_DOWN_KEY,
    COUNT_UP_KEY,
    MARK_KEY,
    NEXT_KEY,
    TOOL_KEYS,
)
from referee.gui.annotation.mask_keys import MaskKeys
from referee.gui.annotation.mask_painter import MaskPainter, Tool
from referee.gui.box_controller import BoxController
from referee.gui.docks.annotation import AnnotationDock
from referee.gui.mask_drafts import MaskDrafts
from referee.gui.session import ProjectSession
from referee.gui.viewer.panel import ViewerPanel
from referee.gui.widgets.error_dialogs import ErrorDialogs
from referee.gui.widgets.menus import add_key_action
from referee.gui.widgets.unattended import unanswerable
from referee.gui.worker import Job

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
        self.mask_keys = MaskKeys(window, self.painter, self.choose_level, self.choose_radius)
        self.mask_keys.describe(self.dock.level_box, self.dock.radius_box)
        self.history = QDockWidget("History", window)
        self.history.setObjectName("HistoryDock")
        self.history_view = QUndoView(self.editor.stack)
        self.history_view.setEmptyLabel("Opened")
        self.history.setWidget(self.history_view)
        self._frame: tuple[str, int] | None = None
        self._draft_pending: tuple[str, int] | None = None
        self.mask_drafts = MaskDrafts(self.editor, viewer, session.runner, self._say)
        self._connect()

    def _connect(self) -> None:
        dock, editor, session = self.dock, self.editor, self.session
        dock.tool_chosen.connect(self.set_tool)
        dock.level_chosen.connect(self.painter.set_level)
        dock.radius_chosen.connect(self.painter.set_radius)
        dock.draft_requested.connect(self.draft)
        dock.propagate_requested.connect(self.propagate)
        self.painter.box_drawn.connect(self.grabcut)
        dock.mark_requested.connect(self.mark_annotated)
        dock.accept_requested.connect(self.accept_frame)
        dock.count_requested.connect(self.change_count)
        dock.next_requested.connect(self.next_suggested)
        editor.modified_changed.connect(self._on_modified_changed)
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
        self.mask_keys.add_to_menu(menu)
        menu.addSeparator()
        self.boxes.add_menu_actions(menu)
        menu.addSeparator()
        add_key_action(self.window, menu, "Next suggested frame", NEXT_KEY, self.next_suggested)
        add_key_action(self.window, menu, "Mark frame annotated", MARK_KEY, self.toggle_annotated)
        add_key_action(self.window, menu, "Accept frame", ACCEPT_KEYS, self.accept_frame)
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
        sidecar = self.editor.open(project, self.session.videos, self.session.annotated())
        self._frame = None
        self.painter.set_target(None)
        self.boxes.open()
        pending = f"{sidecar}: unsaved annotation pending recovery, not offered in a screenshot run"
        if sidecar is not None and not unanswerable(self.window, pending):
            self._offer_recovery(sidecar)
        self._show_state()

    def _offer_recovery(self, sidecar: Path) -> None:
        """Offer the autosave's changes, once they are read and checked against the project;
        a sidecar that cannot be recovered is said in one dialog and left on disk."""
        try:
            contents = self.editor.read_recovery(sidecar)
        except RefereeError as error:
            self.errors.show(f"Unsaved annotation was found but cannot be recovered: {error}")
            return
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
        self.editor.recover(contents)

    def confirm_leaving(self) -> bool:
        """Before closing or switching project: ask about unsaved annotation; ``False`` to stay.

        Drafts not accepted are not saved: they stay in the autosave, offered next time."""
        if not self.editor.modified:
            return True
        drafts = len(self.editor.document_or_raise().drafts())
        kept = (
            f" Saving writes what you accepted or painted; the {drafts:,} draft "
            f"frame{'s' if drafts != 1 else ''} not accepted stay in the autosave, offered "
            "next time (Discard drops them too)."
            if drafts
            else ""
        )
        answer = QMessageBox.question(
            self.window,
            "Unsaved annotation",
            f"The annotation has unsaved changes. Save them?{kept}",
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
        self.editor.document = None
        return True

    def save(self) -> bool:
        """Save the annotation and the project; evaluate and rank again in the background.

        A file changed on disk since it was read is replaced only if the user says so;
        a failed or cancelled save keeps the changes and says why. Drafts not accepted
        stay unsaved, and the status bar says how many. Returns whether it was saved.
        """
        document = self.editor.document_or_raise()
        known = self.session.project
        if document.project.file is None and known is not None and known.file is not None:
            document.with_file(known.file)  # saved as, meanwhile
        try:
            try:
                outcome = self.editor.save()
            except ChangedOnDiskError as error:
                answer = QMessageBox.warning(
                    self.window,
                    "File changed on disk",
                    f"{error}.\n\nReplace it with your annotation?",
                    QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                )
                if answer != QMessageBox.StandardButton.Yes:
                    return False
                outcome = self.editor.save(replace_changed=True)
        except RefereeError as error:
            self.errors.show(f"The annotation was not saved: {error}")
            return False
        if outcome.project.file in outcome.files:
            self.session.project_unsaved = False  # the project file holds the project now
        if outcome.files:
            self.session.annotations_saved(outcome.project, outcome.files)
        self.show_modified()
        self._say(save_sentence(outcome))
        return True

    # --- editing ----------------------------------------------------------------------------

    def set_tool(self, tool: Tool) -> None:
        self.painter.set_tool(tool)
        self.boxes.set_tool_active(tool is Tool.BOX)
        self.viewer.show_evaluation_boxes(tool is not Tool.BOX)
        self.dock.show_tool(tool)
        self.mask_keys.show_tool(tool)

    def choose_level(self, level: int) -> None:
        """Paint ``level`` from now on (a level key; the dock's list shows it)."""
        self.painter.set_level(level)
        self.dock.level_box.setCurrentIndex(self.dock.level_box.findData(level))
        self._say(f"Painting {GT_LEVEL_NAMES[level]}.")

    def choose_radius(self, radius: float) -> None:
        """Brush and eraser radius in image pixels (a brush-size key; the dock's box shows it)."""
        self.painter.set_radius(radius)
        self.dock.radius_box.setValue(self.painter.radius)

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
            origin, text = CONSENSUS, "Draft from the consensus"
        else:
            shown = self.viewer.detectors_shown()
            mask = layers.masks.get(shown[0]) if shown else None
            if mask is None:
                self._say("No detector mask on this frame to start from.")
                return
            after = draft_from_mask(mask, roi)
            origin, text = Origin(Source.DETECTOR, shown[0]), f"Draft from {shown[0]}"
        self.editor.push(LabelMapCommand(self.editor, *self._frame, after, origin, text))
        self._say(f"{text} on frame {self._frame[1]}: correct it, then accept it (Enter).")

    def propagate(self, direction: str, count: int) -> Job | None:
        """Carry the frame shown's mask ``count`` frames ``direction`` as drafts, in a job."""
        return self.mask_drafts.propagate(self._frame, self.current_video(), direction, count)

    def grabcut(self, box: tuple[float, float, float, float]) -> None:
        """Paint the object in ``box`` on the frame shown by GrabCut, started from the
        consensus where there is one (one undoable edit)."""
        layers, video = self.viewer.layers, self.current_video()
        if layers is None or video is None or self._frame is None or layers.frame != self._frame[1]:
            self._say("GrabCut needs a frame of a CDnet video on screen.")
            return
        document = self.editor.document_or_raise()
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            patch = grabcut_draft(
                document.label_map(*self._frame),
                layers.image,
                box,
                layers.consensus,
                document.roi(video.label),
            )
        except RefereeError as error:
            self._say(f"GrabCut: {error}")
            return
        finally:
            QApplication.restoreOverrideCursor()
        if patch is None:
            self._say("GrabCut left that box as it was.")
            return
        self.painter.apply_patch(patch, "GrabCut from a box")
        seeded = " from the consensus" if layers.consensus is not None else ""
        self._say(f"GrabCut painted the box{seeded}: correct it, or undo (Ctrl+Z).")

    def mark_annotated(self, annotated: bool) -> None:
        """Mark the frame shown annotated (a blank draft, to accept) or take it out of the
        annotated record (undoable)."""
        if self._frame is None or self.current_video() is None:
            return
        document = self.editor.document_or_raise()
        after = document.marked(*self._frame, annotated)
        if after != document.review(*self._frame):
            verb = "Mark" if annotated else "Unmark"
            text = f"{verb} frame {self._frame[1]} annotated"
            self.editor.push(ReviewCommand(self.editor, *self._frame, after, text))
        self._show_state()

    def toggle_annotated(self) -> None:
        if self._frame is not None and self.current_video() is not None:
            document = self.editor.document_or_raise()
            status = document.status(*self._frame)
            self.mark_annotated(status in (FrameStatus.NONE, FrameStatus.UNMARKED))

    def accept_frame(self) -> None:
        """Accept the frame shown as ground truth: its draft, or the frame as painted (blank
        when nothing was painted), is written by the next save (undoable)."""
        if self._frame is None or self.current_video() is None:
            self._say("Accepting needs a frame of a CDnet video on screen.")
            return
        document = self.editor.document_or_raise()
        after = document.accepted(*self._frame, now_utc())
        if after == document.review(*self._frame):
            self._say(f"Frame {self._frame[1]} is already {document.status(*self._frame).value}.")
            return
        text = f"Accept frame {self._frame[1]}"
        self.editor.push(ReviewCommand(self.editor, *self._frame, after, text))
        self._say(f"Frame {self._frame[1]} accepted; saving (Ctrl+S) writes it as ground truth.")

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
            if video.next_frame is None or _has_truth(document, video.video, video.next_frame):
                continue
            self._suggest(document, video.video, video.next_frame)
            self._say(
                f"Sampler's next frame: {video.next_frame} of {video.video} ({video.labels} "
                "labelled draws so far); label it to tighten the estimates"
            )
            return
        for ranked in self.session.ranking:
            if _has_truth(document, ranked.video, ranked.frame):
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
            try:
                self.painter.set_target(label, frame)
            except RefereeError as error:  # ground truth that cannot be edited: said once
                self._frame = None
                self.painter.set_target(None)
                self.errors.report(f"This frame cannot be annotated: {error}")
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
        self.dock.show_progress(done, total, len(document.drafts()), self.editor.modified)
        shown = self.viewer.current_video_label()
        if shown in document.videos:
            saved = document.saved_annotated[shown]
            self.viewer.timeline.set_truth(saved, document.frames_with_status(shown))
        else:
            self.viewer.timeline.set_truth(FrameSet(), {})
        video = self.current_video()
        if video is None or self._frame is None:
            self.dock.show_frame_state(None, None)
            return
        frame, status = self._frame[1], document.status(*self._frame)
        try:
            counts = document.counts(video)
        except RefereeError as error:  # a counts file that cannot be read: said once
            self.errors.report(str(error))
            self.dock.show_frame_state(status, None)
            return
        count = (
            int(counts.counts[frame - counts.first_frame])
            if counts.first_frame <= frame <= counts.last_frame
            else None
        )
        self.dock.show_frame_state(status, count)

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

    def _on_modified_changed(self, _modified: bool) -> None:
        self.show_modified()
        self._show_state()

    def show_modified(self) -> None:
        """The title's ``*``: the annotation or the project differs from the files."""
        self.window.setWindowModified(self.editor.modified or self.session.project_unsaved)

    def project_file_written(self, file: Path) -> None:
        """Referee wrote the project to ``file`` (Save project as): the annotation is saved
        beside it from now on, and that write is not a change on disk."""
        if self.editor.document is not None:
            self.editor.document.with_file(file)

    def _say(self, text: str) -> None:
        self.window.statusBar().showMessage(text, 8000)


def _has_truth(document: GroundTruthDocument, label: str, frame: int) -> bool:
    """Whether a frame is (or is about to be saved as) ground truth."""
    return label in document.videos and document.is_annotated(label, frame)


def save_sentence(outcome: SaveOutcome) -> str:
    """What a save did, in one sentence for the status bar."""
    frames = f"{outcome.frames:,} frame{'s' if outcome.frames != 1 else ''}"
    said = f"Saved {frames} of ground truth" if outcome.files else "Nothing to save"
    if outcome.drafts:
        said += (
            f"; {outcome.drafts:,} draft frame{'s' if outcome.drafts != 1 else ''} not "
            "accepted stay unsaved (Enter accepts the frame shown)"
        )
    return said + "."
