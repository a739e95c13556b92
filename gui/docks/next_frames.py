"""The Annotate next dock: which frames to label next (docs/measures.md §8, §12).

Not to be confused with the Annotation dock (``docks/annotation.py``), which
edits the ground truth of the frame shown: this one only proposes frames.

Its first tab shows the sampler's proposal for each partly annotated video:
the next frame of the video's sequence of draws, labelling which keeps the
estimates over every frame unbiased, and a plot of how that video's F1
intervals shrank with each labelled draw. Its second tab ranks frames by
detector disagreement.

The dock asks for a ranking (its :class:`~referee.core.workflow.options.RankingOptions`
through ``run_requested``) and lists the ranked frames the window gives back;
activating a row (double-click or Enter) asks the window to show that frame.
Frames that already have ground truth are left out unless the user includes
them; then they are ticked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDockWidget,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from referee.core.estimation.result import EstimateResult, VideoEstimate
from referee.core.model.frame_set import FrameSet
from referee.core.ranking.choices import MASK_CRITERIA, PAIR_CRITERIA
from referee.core.ranking.criteria import describe
from referee.core.ranking.order import RankedFrame
from referee.core.workflow.options import RankingOptions
from referee.core.workflow.results import RankingResult
from referee.gui.docks.estimates import IntervalPlot, estimate_text, labelled_text
from referee.gui.widgets.empty_state import EmptyState, needs_two_detectors, no_project
from referee.gui.widgets.tables import filled_item, filling, number_item, read_only_table, text_item

#: What the count box shows for "every frame left by the gap" (its value 0).
EVERY_FRAME = "all"
#: Text and tooltip of the mark of a frame that already has ground truth.
ANNOTATED_MARK = "✓"
ANNOTATED_TOOLTIP = "already annotated"

#: What the sampler tab says before any estimate.
NO_ESTIMATE = (
    "No estimate yet: the frame to label next and the F1 intervals appear here once the "
    "masks are evaluated and the detectors' consensus is computed (docs/measures.md §12)."
)
#: What the sampler tab says when no video is partly annotated.
NOTHING_TO_ESTIMATE = (
    "Every video has ground truth on every frame: its values are exact, and there is "
    "nothing to estimate and no frame left to label."
)
#: What the ranked tab says before a ranking, with two or more detectors.
NO_RANKING = (
    "No ranking yet: the frames are ranked by detector disagreement once the project is "
    "open. Press Update to rank them with the options above."
)
#: What the ranked tab says when a ranking lists no frame for another reason.
NO_RANKED_FRAME = "The ranking lists no frame."

_HEADERS = ("rank", "video", "frame", "score", "criterion", "annotated")
_VIDEO_COLUMN, _FRAME_COLUMN, _ANNOTATED_COLUMN = 1, 2, 5


class NextFramesDock(QDockWidget):
    """Frames ranked by disagreement, most informative to annotate first (docs/measures.md §8)."""

    run_requested = Signal(object)
    frame_requested = Signal(str, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Annotate next", parent)
        # The name saved window layouts know this dock by (QMainWindow.saveState): kept from
        # the class's former name so that a remembered layout still places it.
        self.setObjectName("AnnotateDock")
        self.setToolTip("Frames where the detectors disagree most: annotate these first")
        self._criterion = QComboBox()
        for criterion in MASK_CRITERIA:
            self._criterion.addItem(criterion)
            self._criterion.setItemData(
                self._criterion.count() - 1, describe(criterion), Qt.ItemDataRole.ToolTipRole
            )
        self._criterion.setToolTip(describe(MASK_CRITERIA[0]))
        self._criterion.currentIndexChanged.connect(self._on_criterion_changed)
        self._a, self._b = QComboBox(), QComboBox()
        self._a.setToolTip("First detector of the pair criteria")
        self._b.setToolTip("Second detector of the pair criteria")
        defaults = RankingOptions()
        self._count = QSpinBox()
        self._count.setRange(0, 10_000)
        self._count.setSpecialValueText(EVERY_FRAME)
        self._count.setValue(defaults.top or 0)
        self._count.setToolTip(
            f"How many frames to list ({EVERY_FRAME}: every frame left by the gap)"
        )
        self._gap = QSpinBox()
        self._gap.setRange(0, 100_000)
        self._gap.setValue(defaults.gap)
        self._gap.setSuffix(" frames")
        self._gap.setToolTip(
            "After a frame is chosen, frames within ± this many of it are skipped (diversity)"
        )
        self._include = QCheckBox("Include annotated frames")
        self._include.setChecked(defaults.include_annotated)
        self._include.setToolTip(
            "Also rank frames that already have ground truth (ticked in the list): where the "
            "detectors disagree most is where the ground truth is worth checking"
        )
        self._status = QLabel()
        self._status.setWordWrap(True)
        self._status.setVisible(False)
        self._run = QPushButton("Update")
        self._run.setToolTip("Rank the frames with these options")
        self._run.clicked.connect(self._on_run_clicked)
        self._table = read_only_table(_HEADERS)
        self._table.setToolTip("Double-click or press Enter on a row to go to that frame")
        self._table.cellDoubleClicked.connect(self._on_row_activated)
        self._table.installEventFilter(self)
        self._annotated: Mapping[str, FrameSet] = {}
        self._estimate: EstimateResult | None = None
        #: What the sampler tab says until an estimate arrives.
        self._waiting_estimate = NO_ESTIMATE
        self._video = QComboBox()
        self._video.setToolTip("Partly annotated video whose next frame and intervals are shown")
        self._video.currentIndexChanged.connect(self._show_video)
        self._proposal = QLabel()
        self._proposal.setWordWrap(True)
        self._proposal.setVisible(False)
        self._go = QPushButton("Go to proposed frame")
        self._go.setToolTip("Show the frame the sampler asks to label next")
        self._go.setEnabled(False)
        self._go.clicked.connect(self._on_go_clicked)
        self.plot = IntervalPlot()
        self._sampled_state = EmptyState(self.plot, no_project("be proposed frames to label"))
        self._ranked_state = EmptyState(
            self._table, no_project("rank its frames by how much the detectors disagree")
        )
        self.tabs = QTabWidget()
        self.tabs.addTab(self._sampler_layout(), "Sampled")
        self.tabs.setTabToolTip(0, "The sampler's next frame; estimates with intervals (§12)")
        self.tabs.addTab(self._layout(), "Ranked")
        self.tabs.setTabToolTip(1, "Frames ranked by detector disagreement (§8)")
        self.setWidget(self.tabs)
        self.setMinimumSize(300, 240)
        self._on_criterion_changed()

    def _sampler_layout(self) -> QWidget:
        row = QHBoxLayout()
        row.addWidget(QLabel("Video"))
        row.addWidget(self._video, 1)
        row.addWidget(self._go)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addLayout(row)
        layout.addWidget(self._proposal)
        layout.addWidget(self._sampled_state, 1)
        return body

    def _layout(self) -> QWidget:
        pair = QHBoxLayout()
        pair.addWidget(self._a, 1)
        pair.addWidget(QLabel("vs"))
        pair.addWidget(self._b, 1)
        form = QFormLayout()
        form.addRow("Criterion", self._criterion)
        form.addRow("Pair", pair)
        numbers = QHBoxLayout()
        numbers.addWidget(QLabel("Count"))
        numbers.addWidget(self._count)
        numbers.addWidget(QLabel("Gap"))
        numbers.addWidget(self._gap)
        numbers.addStretch(1)
        numbers.addWidget(self._run)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addLayout(form)
        layout.addLayout(numbers)
        layout.addWidget(self._include)
        layout.addWidget(self._status)
        layout.addWidget(self._ranked_state, 1)
        return body

    # --- inputs -------------------------------------------------------------------------

    def set_detectors(self, names: Sequence[str]) -> None:
        """Detectors offered for the pair criteria (A = first, B = second by default).

        A project was opened: the ranking and the estimates shown so far are dropped, and
        each tab says what comes next.
        """
        for combo, default in ((self._a, 0), (self._b, 1)):
            combo.clear()
            combo.addItems(list(names))
            combo.setCurrentIndex(min(default, len(names) - 1))
        self._table.setRowCount(0)
        self._status.setVisible(False)
        enough = len(names) >= 2
        self._ranked_state.show_message(
            NO_RANKING if enough else needs_two_detectors("Ranking frames", len(names))
        )
        self._estimate = None
        self._waiting_estimate = (
            NO_ESTIMATE if enough else needs_two_detectors("Proposing frames to label", len(names))
        )
        self.show_estimate(None)

    def request(self) -> RankingOptions:
        """The ranking options the Update button sends."""
        criterion = self._criterion.currentText()
        pair = (
            (self._a.currentText(), self._b.currentText()) if criterion in PAIR_CRITERIA else None
        )
        return RankingOptions(
            criterion=criterion,
            pair=pair,
            top=self._count.value() or None,
            gap=self._gap.value(),
            include_annotated=self._include.isChecked(),
        )

    def _on_criterion_changed(self) -> None:
        criterion = self._criterion.currentText()
        self._criterion.setToolTip(describe(criterion))
        for combo in (self._a, self._b):
            combo.setEnabled(criterion in PAIR_CRITERIA)

    def _on_run_clicked(self) -> None:
        self.run_requested.emit(self.request())

    # --- the sampler ----------------------------------------------------------------------

    def show_estimate(self, result: EstimateResult | None, skipped: str | None = None) -> None:
        """Offer each partly annotated video's next frame and plot its intervals; without a
        result, say why when the estimate could not run (``skipped``)."""
        shown = self._video.currentText()
        self._estimate = result
        if result is None and skipped:
            self._waiting_estimate = f"No estimate (docs/measures.md §12): {skipped}."
        videos = [] if result is None else [v.video for v in result.videos]
        self._video.blockSignals(True)
        self._video.clear()
        self._video.addItems(videos)
        if shown in videos:
            self._video.setCurrentText(shown)
        self._video.blockSignals(False)
        self._show_video()

    def proposal(self) -> tuple[str, int] | None:
        """The shown video and the frame its sampler asks to label next, if any."""
        video = self._current_video()
        if video is None or video.next_frame is None:
            return None
        return video.video, video.next_frame

    def _current_video(self) -> VideoEstimate | None:
        if self._estimate is None:
            return None
        name = self._video.currentText()
        return next((v for v in self._estimate.videos if v.video == name), None)

    def _show_video(self) -> None:
        video = self._current_video()
        methods = () if self._estimate is None else self._estimate.methods
        self._go.setEnabled(self.proposal() is not None)
        self._proposal.setVisible(video is not None)
        if self._estimate is None:
            self._sampled_state.show_message(self._waiting_estimate)
        elif video is None:
            self._sampled_state.show_message(NOTHING_TO_ESTIMATE)
        else:
            self._proposal.setText(_proposal_text(video, self._estimate.methods))
            self._sampled_state.show_content()
        self.plot.show_trace(methods, video)  # last: a plot about to be hidden waits

    def _on_go_clicked(self) -> None:
        proposal = self.proposal()
        if proposal is not None:
            self.frame_requested.emit(*proposal)

    # --- results ------------------------------------------------------------------------

    def show_result(self, result: RankingResult) -> None:
        """List a ranking and say what it left out; with no frame listed, say why in the
        table's place."""
        if result.all_annotated:
            summary = (
                f"All {result.considered:,} frames already have ground truth: nothing is left "
                "to annotate. Tick “Include annotated frames” to rank them anyway."
            )
        elif result.annotated and not result.options.include_annotated:
            summary = (
                f"{result.annotated:,} of {result.considered:,} frames already have ground "
                "truth and are left out."
            )
        else:
            summary = f"{len(result.frames):,} frames ranked by {result.criterion}."
        self.show_ranking(result.frames)
        if result.frames:
            self._status.setText(summary)
            self._status.setVisible(True)
        else:
            self._status.setVisible(False)
            self._ranked_state.show_message(summary)

    def show_ranking(self, frames: Sequence[RankedFrame]) -> None:
        """List the ranked frames, in the order given."""
        if frames:
            self._ranked_state.show_content()
        else:
            self._ranked_state.show_message(NO_RANKED_FRAME)
        self._table.setRowCount(len(frames))
        with filling(self._table):
            for row, entry in enumerate(frames):
                self._table.setItem(row, 0, text_item(str(entry.rank)))
                self._table.setItem(row, _VIDEO_COLUMN, text_item(entry.video))
                self._table.setItem(row, _FRAME_COLUMN, text_item(str(entry.frame)))
                self._table.setItem(row, 3, number_item(entry.score))
                self._table.setItem(
                    row, 4, text_item(entry.criterion, describe(entry.criterion.split(":")[0]))
                )
        self._mark_annotated()

    def set_annotated(self, frames: Mapping[str, FrameSet]) -> None:
        """Mark the rows whose frame already has ground truth (frames by video label)."""
        self._annotated = frames
        self._mark_annotated()

    def _mark_annotated(self) -> None:
        for row in range(self._table.rowCount()):
            video, frame = self._row_frame(row)
            done = frame in self._annotated.get(video, ())
            self._table.setItem(
                row,
                _ANNOTATED_COLUMN,
                text_item(ANNOTATED_MARK if done else "", ANNOTATED_TOOLTIP if done else ""),
            )

    def _row_frame(self, row: int) -> tuple[str, int]:
        return (
            filled_item(self._table, row, _VIDEO_COLUMN).text(),
            int(filled_item(self._table, row, _FRAME_COLUMN).text()),
        )

    def _on_row_activated(self, row: int, _column: int = 0) -> None:
        if 0 <= row < self._table.rowCount():
            self.frame_requested.emit(*self._row_frame(row))

    @property
    def table(self) -> QTableWidget:
        """The table of rows shown."""
        return self._table

    @property
    def ranked_message(self) -> str | None:
        """What the ranked tab says in place of its table, or ``None`` once it lists frames."""
        return self._ranked_state.message()

    @property
    def sampled_message(self) -> str | None:
        """What the sampled tab says in place of its plot, or ``None`` once it plots a video."""
        return self._sampled_state.message()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Enter or Return on the table activates the current row (before the window's
        Return shortcut, which accepts the frame shown)."""
        if (
            watched is self._table
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        ):
            if event.type() == QEvent.Type.ShortcutOverride:
                event.accept()  # the table takes the key itself
                return True
            if event.type() == QEvent.Type.KeyPress:
                self._on_row_activated(self._table.currentRow())
                return True
        return super().eventFilter(watched, event)


def _proposal_text(video: VideoEstimate, methods: Sequence[str]) -> str:
    """The frame to label next and what the estimates rest on."""
    if video.next_frame is None:
        head = "Every drawn frame has ground truth: nothing to propose."
    else:
        head = (
            f"Label frame {video.next_frame} next: the sampler drew it, so labelling it keeps "
            "the estimates unbiased."
        )
    best = max(methods, key=lambda m: video.estimates[m]["f1"].estimate, default=None)
    rest = f" F1 rests on {labelled_text(video)}"
    if best is not None:
        rest += f"; highest {best} {estimate_text(video.estimates[best]['f1'])}"
    return head + rest + "."
