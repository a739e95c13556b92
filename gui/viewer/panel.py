"""The central panel: which video and detectors are shown, the frame grid and the timeline."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from referee.core.colours import detector_colours
from referee.core.errors import InputFileError, RefereeError
from referee.core.frames.sources import FrameReader
from referee.core.frames.video_files import VideoFileSource
from referee.core.measures.action_scores import PairRow
from referee.core.measures.pixel import COMPARISON_LABELS, GT_LEVEL_NAMES
from referee.core.measures.tracking_frames import TrackedFrames
from referee.core.workflow.frame_layers import CdnetInputSource, FrameLayers
from referee.gui.session import ProjectSession
from referee.gui.viewer.action_boxes import box_legend, boxes_for_frame
from referee.gui.viewer.frame_grid import FrameGrid
from referee.gui.viewer.frame_loader import FrameLoader
from referee.gui.viewer.frame_view import (
    ANNOTATORS,
    COMPARISON,
    CONSENSUS,
    DETECTOR,
    DISAGREEMENT,
    GROUND_TRUTH,
    LAYERS,
    FrameView,
)
from referee.gui.viewer.message_page import MessagePage
from referee.gui.viewer.timeline import MarkSeries, TimelineWidget
from referee.gui.viewer.tracking_boxes import (
    FRAGMENT_MARKS,
    SWITCH_MARKS,
    tracking_drawings,
    tracking_legend,
)
from referee.gui.viewer.video_reader import (
    ReaderBuild,
    VideoReader,
    cdnet_reader_build,
    file_reader_build,
)
from referee.gui.viewer.zoom_bar import ZoomBar

VIEW_COUNTS = (1, 2, 4)
#: Layers shown when the application starts: the comparison alone reads best.
DEFAULT_VISIBLE = (COMPARISON,)
#: What the viewer says before anything is open.
WELCOME = (
    "No project is open.\n\nOpen a project, a CDnet dataset folder or a video "
    "with File › Open (Ctrl+O), or drop it here."
)
#: A video whose reader takes longer to build than this (ms) says so in place of the frames.
OPENING_MESSAGE_MS = 200
#: Characters a video or detector box shows at least (longer names are cut short).
_BOX_CHARACTERS = {"video": 12, "detector": 8}


class ViewerPanel(QWidget):
    """Shows one video of the session: frames with layers, side by side, and its timeline.

    ``status_message(str)`` reports what the user should know in passing (a
    detector's mask missing on one frame); ``problem(str)`` what keeps a video,
    a detector or a frame from being shown (the message names the file);
    ``pixel_info(str)`` describes the pixel under the mouse;
    ``detector_colours_changed(list)`` gives the ``(name, rgb)`` of the detectors shown,
    whose masks are drawn in these colours. Without a frame to show, the viewer shows a
    sentence instead (:meth:`show_message`), with a progress bar (:meth:`show_progress`).
    """

    status_message = Signal(str)
    problem = Signal(str)
    pixel_info = Signal(str)
    frame_shown = Signal(int)
    detector_colours_changed = Signal(list)
    #: The primary tracker has identity switches on this many frames of the shown video.
    switches_changed = Signal(int)

    def __init__(self, session: ProjectSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.loader = FrameLoader(self)
        self.grid = FrameGrid()
        self.timeline = TimelineWidget()
        self.video_box = QComboBox()
        self.video_box.setToolTip("Video shown (Page Up / Page Down)")
        self._shrink_to_fit(self.video_box, _BOX_CHARACTERS["video"])
        self.detector_box = QComboBox()
        self.detector_box.setToolTip(
            "Detector compared with the ground truth in the first view; "
            "further views show the next detectors"
        )
        self._shrink_to_fit(self.detector_box, _BOX_CHARACTERS["detector"])
        self.views_box = QComboBox()
        self.views_box.addItems([f"{n} view{'s' if n > 1 else ''}" for n in VIEW_COUNTS])
        self.views_box.setToolTip(
            "Side by side: 1, 2 or 4 detectors, same frame, zoom and pan (Ctrl+1, Ctrl+2, Ctrl+4)"
        )
        self.zoom_bar = ZoomBar(self.grid)
        self.views_box.setAccessibleName("Layout")  # its entries say what it is: "2 views"
        bar = QHBoxLayout()
        for text, box, stretch in (
            ("Video", self.video_box, 3),
            ("Detector", self.detector_box, 2),
        ):
            label = QLabel(text)
            label.setBuddy(box)
            bar.addWidget(label)
            bar.addWidget(box, stretch)
        bar.addWidget(self.views_box)
        bar.addStretch(1)
        bar.addWidget(self.zoom_bar)
        self.message = MessagePage()
        self._stack = QStackedWidget()
        self._stack.addWidget(self.message)
        self._stack.addWidget(self.grid)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self._stack, 1)
        layout.addWidget(self.timeline)
        self.show_message(WELCOME)
        self.layer_visible = {name: name in DEFAULT_VISIBLE for name in LAYERS}
        self._hover_connected: list[FrameView] = []
        self.layer_opacity: dict[str, float] = {}
        self.layers: FrameLayers | None = None
        self._waiting = False  # for the frame last asked for
        self.selected_pair: PairRow | None = None
        self._detector_colours: list[tuple[str, tuple[int, int, int]]] = []
        self.evaluation_boxes = True  # off while boxes are edited: they would cover them
        #: Draw each shown tracker's matches, switches and misses, and mark its events.
        self.tracking_shown = False
        #: Whether a new project's chosen video waits to be shown (on the next turn).
        self._video_pending = False
        #: The video whose reader a job builds, the frame asked for meanwhile, and which
        #: choice of video the job answers (a later choice drops its reader).
        self._building: str | None = None
        self._frame_wanted: int | None = None
        self._build_id = 0
        self._cache_timer = QTimer(self)
        self._cache_timer.timeout.connect(self._on_cache_tick)
        self._cache_timer.start(250)
        self.video_box.currentIndexChanged.connect(self._on_video_chosen)
        self.detector_box.currentIndexChanged.connect(self._on_detectors_chosen)
        self.views_box.currentIndexChanged.connect(
            lambda index: self.set_view_count(VIEW_COUNTS[index])
        )
        self.timeline.frame_changed.connect(self.request_frame)
        self.loader.frame_ready.connect(self._on_frame_ready)
        self.loader.frame_failed.connect(self._on_frame_failed)
        session.project_changed.connect(self._on_project_changed)
        session.evaluations_changed.connect(self._on_results_changed)
        session.actions_changed.connect(self._redraw)
        session.boxes_changed.connect(self._on_results_changed)
        self._connect_views()

    @staticmethod
    def _shrink_to_fit(box: QComboBox, characters: int) -> None:
        """Let ``box`` narrow to ``characters`` characters on a small screen and share the
        bar's spare width on a large one (its list always shows whole names)."""
        box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        box.setMinimumContentsLength(characters)
        box.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    # --- what is shown ----------------------------------------------------------------------

    @property
    def video_labels(self) -> list[str]:
        return [self.video_box.itemText(i) for i in range(self.video_box.count())]

    def detectors_shown(self) -> list[str]:
        """Detector of each view, in view order."""
        names = [self.detector_box.itemText(i) for i in range(self.detector_box.count())]
        if not names:
            return []
        start = max(self.detector_box.currentIndex(), 0)
        ordered = names[start:] + names[:start]
        return ordered[: len(self.grid.views)]

    def show_detector(self, name: str) -> None:
        """Show ``name`` in the first view (the others follow it in the project's order)."""
        index = self.detector_box.findText(name)
        if index >= 0:
            self.detector_box.setCurrentIndex(index)

    def set_view_count(self, count: int) -> None:
        """Show 1, 2 or 4 detectors side by side, fitted to their views."""
        self.grid.set_count(count)
        self.views_box.blockSignals(True)
        self.views_box.setCurrentIndex(VIEW_COUNTS.index(count))
        self.views_box.blockSignals(False)
        self._connect_views()
        self._redraw()

    def set_layer_visible(self, name: str, visible: bool) -> None:
        self.layer_visible[name] = visible
        for view in self.grid.views:
            view.set_layer_visible(name, visible)

    def set_layer_opacity(self, name: str, opacity: float) -> None:
        self.layer_opacity[name] = opacity
        for view in self.grid.views:
            view.set_layer_opacity(name, opacity)

    def show_evaluation_boxes(self, shown: bool) -> None:
        """Draw the action evaluation's pair boxes, or not (while boxes are edited)."""
        self.evaluation_boxes = shown
        self._redraw()

    def go_to(self, label: str, frame: int) -> None:
        """Show frame ``frame`` of the video labelled ``label`` (its label or its LIRIS name)."""
        labels = self.video_labels
        names = [v.file_stem for v in self.session.videos]
        if label in labels:
            index = labels.index(label)
        elif label in names:
            index = names.index(label)
        else:
            self.status_message.emit(f"No video {label} in this project")
            return
        if index != self.video_box.currentIndex():
            self.video_box.setCurrentIndex(index)
        else:
            self._show_pending_video()
        if self._building is not None:  # shown once the video's reader is built
            self._frame_wanted = frame
            return
        self.timeline.set_frame(frame)
        self.request_frame(self.timeline.frame())

    def step_video(self, delta: int) -> None:
        count = self.video_box.count()
        if count:
            self.video_box.setCurrentIndex((self.video_box.currentIndex() + delta) % count)

    def request_frame(self, frame: int) -> None:
        self._waiting = self.loader.has_source
        self.loader.request(frame)

    def current_video_label(self) -> str | None:
        return self.video_box.currentText() or None

    def current_video_name(self) -> str | None:
        """The video's name in LIRIS files: a CDnet video's file stem, a video file's name."""
        index = self.video_box.currentIndex()
        if index < 0:
            return None
        videos = self.session.videos
        return videos[index].file_stem if index < len(videos) else self.video_box.itemText(index)

    def image_source(self) -> Callable[[], tuple[FrameReader[np.ndarray], int]] | None:
        """How to open the shown video's images anew, with its last frame: for a job on
        another thread (opening a video file indexes it, which takes a while)."""
        index = self.video_box.currentIndex()
        videos = self.session.videos
        if 0 <= index < len(videos):
            video = videos[index]

            def cdnet() -> tuple[FrameReader[np.ndarray], int]:
                source = CdnetInputSource(video)
                return source, source.frame_count

            return cdnet
        if index >= len(videos):
            path = self._video_files()[index - len(videos)]

            def video_file() -> tuple[FrameReader[np.ndarray], int]:
                source = VideoFileSource(path)
                return source, source.frame_count

            return video_file
        return None

    def show_message(self, text: str) -> None:
        """Show ``text`` in place of the frames until the next frame arrives (the timeline
        stays while there are frames to move to)."""
        self.message.show_text(text)
        self._show_message_page()

    def show_progress(self, text: str, done: int, total: int) -> None:
        """:meth:`show_message` with a progress bar under ``text``: ``done`` of ``total``
        steps (a busy bar while ``total`` is 0), as a job's ``progress`` signal gives them."""
        self.message.show_progress(text, done, total)
        self._show_message_page()

    def _show_message_page(self) -> None:
        self._stack.setCurrentWidget(self.message)
        self.timeline.setVisible(self.loader.has_source)

    def message_shown(self) -> str | None:
        """The sentence shown in place of the frames, if any."""
        return self.message.text() if self._stack.currentWidget() is self.message else None

    # --- zoom -------------------------------------------------------------------------------

    def fit_to_window(self) -> None:
        """Show the whole frame in every view (View › Fit to window)."""
        self.grid.fit_to_window()

    def zoom_actual_size(self) -> None:
        """Show one pixel of the frame on one pixel of the screen (View › Actual size)."""
        self.grid.zoom_actual_size()

    def zoom_in(self) -> None:
        """Zoom in one step, up to 3200 % (View › Zoom in)."""
        self.grid.zoom_in()

    def zoom_out(self) -> None:
        """Zoom out one step, down to a quarter of the fit (View › Zoom out)."""
        self.grid.zoom_out()

    def zoom_percent(self) -> float:
        """The zoom shown, in percent (100: one frame pixel per screen pixel)."""
        return self.grid.zoom_percent()

    def settled(self) -> bool:
        """Whether the viewer waits for nothing: the frame asked for was shown or failed,
        or there is none to read."""
        return self._building is None and not (self._waiting and self.loader.has_source)

    def _video_files(self) -> tuple[Path, ...]:
        """The project's plain video files (listed after its CDnet videos)."""
        project = self.session.project
        return () if project is None else project.video_files

    # --- session events ---------------------------------------------------------------------

    def _on_project_changed(self) -> None:
        session = self.session
        self.video_box.blockSignals(True)
        self.video_box.clear()
        self.video_box.addItems([v.label for v in session.videos])
        self.video_box.addItems([path.name for path in self._video_files()])
        self.video_box.blockSignals(False)
        self.detector_box.blockSignals(True)
        self.detector_box.clear()
        self.detector_box.addItems(list(session.mask_detectors()))
        self.detector_box.blockSignals(False)
        self.layers = None
        # The first video's frames are counted and its reader built on a short timer, not in
        # the turn of the event loop where the rest of the window answers the new project:
        # a zero-delay call would run in that same turn, and the two would make one stall.
        self._video_pending = True
        QTimer.singleShot(10, self, self._show_pending_video)

    def _show_pending_video(self) -> None:
        """Show the chosen video if no other choice or move has shown one since."""
        if self._video_pending:
            self._on_video_chosen(self.video_box.currentIndex())

    def _on_video_chosen(self, index: int) -> None:
        """Build the chosen video's reader in a job; its first frame is asked for once built."""
        self._video_pending = False
        self.layers = None
        self.grid.fit_to_window()
        self.loader.set_source(None)
        self._build_id += 1
        if not 0 <= index < self.video_box.count():
            self._building = None
            self.show_message("This project has no video to show.")
            return
        label = self.video_box.itemText(index)
        build_id, self._building, self._frame_wanted = self._build_id, label, None
        self.session.runner.run(
            "reader",
            f"Opening {label}",
            self._reader_build(index),
            lambda built: self._on_reader_built(build_id, label, built),
            lambda message: self._on_reader_built(build_id, label, RefereeError(message)),
            urgent=True,
        )
        QTimer.singleShot(OPENING_MESSAGE_MS, self, lambda: self._say_opening(build_id, label))

    def _say_opening(self, build_id: int, label: str) -> None:
        if self._build_id == build_id and self._building is not None:
            self.show_progress(f"Opening {label}…", 0, 0)

    def _reader_build(self, index: int) -> ReaderBuild:
        """How to build the ``index``-th video's reader, from what the session holds now."""
        session = self.session
        if index >= len(session.videos):
            return file_reader_build(self._video_files()[index - len(session.videos)])
        single = len(session.videos) == 1
        return cdnet_reader_build(
            session.videos[index], session.mask_detectors(), session.project, single
        )

    def _on_reader_built(
        self, build_id: int, label: str, built: VideoReader | RefereeError
    ) -> None:
        """Show the built reader's first frame (or the one :meth:`go_to` asked for since),
        or say why the video cannot be shown; a reader of an earlier choice is dropped."""
        if build_id != self._build_id:
            return
        wanted, self._building, self._frame_wanted = self._frame_wanted, None, None
        if isinstance(built, RefereeError):
            own = isinstance(built, InputFileError) and built.path.name == label
            detail = built.problem if isinstance(built, InputFileError) and own else str(built)
            self.show_message(f"Cannot show {label}:\n{detail}")
            self.problem.emit(str(built))
            return
        for problem in built.problems:  # a detector whose results cannot be read is left out
            self.problem.emit(problem)
        self.loader.set_source(built.reader, built.last)
        self.timeline.set_range(1, built.last)
        self.timeline.set_fps(built.fps)
        self.timeline.set_frame(built.first_shown if wanted is None else wanted)
        self._on_results_changed()
        self.request_frame(self.timeline.frame())

    def _on_detectors_chosen(self, _index: int) -> None:
        self._on_results_changed()

    def _on_results_changed(self) -> None:
        """Refresh the timeline strip and marks from the primary detector's evaluation: its
        tracking events when it is a tracker shown as one, else its pixel F1."""
        shown = self.detectors_shown()
        tracked = self.tracked_frames(shown[0]) if shown else None
        if tracked is not None:
            frames, fp, fn = tracked.errors()
            colour = self._report_detector_colours()[shown[0]]
            self.timeline.set_strip(frames, fp + fn, f"misses + FP of {shown[0]}", colour)
            self.timeline.set_mark_series(
                [
                    MarkSeries(SWITCH_MARKS[0], tracked.switch_frames(), *SWITCH_MARKS[1:]),
                    MarkSeries(FRAGMENT_MARKS[0], tracked.fragment_frames(), *FRAGMENT_MARKS[1:]),
                ],
                f"Identity switches (▼) and fragmentations (◆) of {shown[0]}",
            )
            self.switches_changed.emit(len(tracked.switch_frames()))
            self._redraw()
            return
        self.switches_changed.emit(0)
        index = self.video_box.currentIndex()
        evaluation = None
        if shown and shown[0] in self.session.evaluations and 0 <= index < len(self.session.videos):
            key = self.session.videos[index].key
            evaluation = next((e for e in self.session.evaluations[shown[0]] if e.key == key), None)
        if evaluation is None:
            self.timeline.set_strip([], [], "")
            self.timeline.set_marks([])
        else:
            frames, f = evaluation.frame_f1()
            colour = self._report_detector_colours()[shown[0]]
            self.timeline.set_strip(frames, f, f"F1 of {shown[0]}", colour)
            self.timeline.set_marks(evaluation.heavy_frames("fp"))
        self._redraw()

    def show_tracking(self, shown: bool) -> None:
        """Draw the trackers' matches and mark their events, or not."""
        self.tracking_shown = shown
        self._on_results_changed()

    def tracked_frames(self, name: str) -> TrackedFrames | None:
        """Tracker ``name``'s matching on the shown video, when it is drawn."""
        boxes = self.session.results.boxes
        stem = self.current_video_name()
        if not self.tracking_shown or boxes is None or name not in boxes.tracking or stem is None:
            return None
        return boxes.tracking[name].frames.get(stem)

    def step_switch(self, forward: bool) -> None:
        """Go to the next (or previous) frame with an identity switch of the primary tracker."""
        shown = self.detectors_shown()
        tracked = self.tracked_frames(shown[0]) if shown else None
        frames = tracked.switch_frames() if tracked is not None else []
        now = self.timeline.frame()
        later = [f for f in frames if f > now] if forward else [f for f in frames if f < now]
        if later:
            self.go_to(self.current_video_label() or "", later[0] if forward else later[-1])
        else:
            self.status_message.emit(
                "No identity switch " + ("after" if forward else "before") + f" frame {now}"
            )

    # --- frames -----------------------------------------------------------------------------

    def _on_frame_ready(self, frame: int, layers: FrameLayers) -> None:
        self._waiting = False
        self.layers = layers
        self._stack.setCurrentWidget(self.grid)
        self.timeline.show()
        self.timeline.set_frame(frame)
        self._redraw()
        if layers.problems:
            self.status_message.emit("; ".join(layers.problems))
        self.frame_shown.emit(frame)

    def _on_frame_failed(self, frame: int, message: str) -> None:
        self._waiting = False
        if self.layers is None:  # nothing of this video shown yet: say why
            self.show_message(f"This frame cannot be shown:\n{message}")
        self.problem.emit(message)

    def _redraw(self) -> None:
        layers = self.layers
        if layers is None:
            return
        gt_motion = None if layers.groundtruth is None else layers.groundtruth == 255
        label = self.current_video_label() or ""
        stem = self.current_video_name() or label
        names: list[str | None] = [*self.detectors_shown()] or [None]
        colours = self._report_detector_colours()
        for view, name in zip(self.grid.views, names):
            view.show_frame(layers.image)
            view.set_title(name or label)
            if name in colours:
                view.set_detector_colour(colours[name])
            view.set_layer(COMPARISON, None if name is None else layers.comparisons.get(name))
            view.set_layer(GROUND_TRUTH, gt_motion)
            view.set_layer(DETECTOR, None if name is None else layers.masks.get(name))
            view.set_layer(CONSENSUS, layers.consensus)
            view.set_layer(DISAGREEMENT, layers.disagreement)
            view.set_layer(ANNOTATORS, layers.annotator_disagreement)
            evaluation = self.session.actions.get(name) if name else None
            rgb = colours.get(name) if name else None
            boxes = []
            tracked = self.tracked_frames(name) if name else None
            if tracked is not None and rgb is not None:
                boxes = tracking_drawings(tracked.outcomes(layers.frame), rgb)
                shown = boxes if self.evaluation_boxes else []
                view.set_boxes(shown, tracking_legend(shown, rgb))
                continue
            if evaluation is not None and rgb is not None:
                try:
                    boxes = boxes_for_frame(
                        evaluation, stem, layers.frame, self.selected_pair, detector_rgb=rgb
                    )
                except RefereeError:  # a video the actions file does not cover
                    boxes = []
            shown = boxes if self.evaluation_boxes else []
            view.set_boxes(shown, box_legend(shown, rgb) if rgb is not None else [])

    def _report_detector_colours(self) -> dict[str, tuple[int, int, int]]:
        """Colour of each detector shown (from its place in the project's list); emits
        :attr:`detector_colours_changed` when they change."""
        project = self.session.project
        order = [] if project is None else [d.name for d in project.detectors]
        shown = list(detector_colours(self.detectors_shown(), order).items())
        if shown != self._detector_colours:
            self._detector_colours = shown
            self.detector_colours_changed.emit(shown)
        return dict(shown)

    def _connect_views(self) -> None:
        for view in self.grid.views:
            for name in LAYERS:
                view.set_layer_visible(name, self.layer_visible[name])
                if name in self.layer_opacity:
                    view.set_layer_opacity(name, self.layer_opacity[name])
            if view not in self._hover_connected:
                view.pixel_hovered.connect(self._on_pixel_hovered)
                self._hover_connected.append(view)

    def _on_pixel_hovered(self, x: int, y: int) -> None:
        self.pixel_info.emit(describe_pixel(self.layers, x, y))

    def _on_cache_tick(self) -> None:
        self.timeline.set_cached(self.loader.cached_frames())


def describe_pixel(layers: FrameLayers | None, x: int, y: int) -> str:
    """Inspector text: coordinates, ground truth, each detector's value and code, consensus."""
    if layers is None or not (0 <= y < layers.image.shape[0] and 0 <= x < layers.image.shape[1]):
        return ""
    lines = [f"frame {layers.frame}   x {x}   y {y}"]
    if layers.groundtruth is not None:
        level = int(layers.groundtruth[y, x])
        lines.append(f"ground truth: {GT_LEVEL_NAMES.get(level, 'unexpected level')} ({level})")
    for name, mask in layers.masks.items():
        code = layers.comparisons.get(name)
        meaning = f" — {COMPARISON_LABELS[int(code[y, x])]}" if code is not None else ""
        lines.append(f"{name}: {int(mask[y, x])}{meaning}")
    if layers.consensus is not None:
        lines.append(f"consensus (share of detectors): {float(layers.consensus[y, x]):.3f}")
    if layers.disagreement is not None:
        lines.append(f"disagreement H(P): {float(layers.disagreement[y, x]):.3f} bit")
    if layers.annotator_disagreement is not None:
        share = float(layers.annotator_disagreement[y, x])
        said = "not counted" if math.isnan(share) else f"{share:.3f}"
        lines.append(f"annotators' disagreement: {said}")
    return "\n".join(lines)
