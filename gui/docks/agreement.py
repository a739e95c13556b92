"""The Agreement dock: how well the project's annotators agree (docs/measures.md §13).

It draws the agreement stage's :class:`~referee.core.pseudo.agreement.AgreementResult`,
pooled over every video or for the video chosen: each pair of annotators' counts, κ and
Dice; each annotator's sensitivity and specificity against the STAPLE consensus; the
frames, most disagreement first; and the videos left out, with the reason. Columns, rows
and sentences are core's (:mod:`referee.core.exports.agreement`), as the command line and
the report word them. Choosing a frame's row asks the window to show that frame
(``frame_requested``); Write consensus… asks for a folder, and before replacing files
there, then asks the window to write the consensus (``write_requested``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from referee.core.exports.agreement import (
    FRAME_COLUMNS,
    FRAME_DISAGREEMENT,
    PAIR_COLUMNS,
    QUALITY_COLUMNS,
    TWO_ANNOTATORS,
    FrameRow,
    compared_sentence,
    consensus_written,
    counted_frames,
    frame_rows,
    pair_cells,
)
from referee.core.formats.annotators import LAYOUT
from referee.core.measures.indicators import IndicatorValue
from referee.core.pseudo.agreement import AgreementResult, AnnotatorQuality, PairAgreement
from referee.gui.widgets.deferred_draw import DeferredDraw
from referee.gui.widgets.empty_state import EmptyState, no_project
from referee.gui.widgets.tables import filling, number_item, read_only_table, text_item
from referee.gui.widgets.unattended import unanswerable
from referee.gui.widgets.warning_line import WarningLine, WrappedText

NO_PROJECT = no_project("see how well its annotators agree")
COMPUTING = "Comparing the annotators' ground truth…"
#: The video box's first entry: every video, counts pooled.
ALL_VIDEOS = "All videos (pooled)"
#: Videos left out named in the dock (all of them in its tooltip).
SHOWN_LEFT_OUT = 3
#: Frames listed, most disagreement first: a table of items for every frame of a long
#: video would take the GUI thread long to fill.
LISTED_FRAMES = 500
#: The pairs' columns as shown: names, κ and Dice (in sight in a narrow dock), counts.
_PAIR_ORDER = (0, 1, 6, 7, 2, 3, 4, 5)


def needs_annotators(count: int) -> str:
    """What the dock says when the project names ``count`` annotators (fewer than two)."""
    have = "none" if count == 0 else "only one"
    return (
        "Agreement between annotators needs the ground truth of two or more annotators, "
        f"and this project names {have}. Name them in the project file (*.referee.json, "
        'version 3): "annotators": [{"name": "ann", "root": "labels/ann"}, {"name": '
        '"bob", "root": "labels/bob"}], each root a folder holding '
        f"{LAYOUT} (a copy of the dataset annotated in Referee is one); then open the "
        "project again. 'referee agreement DATASET ANN BOB' compares folders without a "
        "project file."
    )


def _value_item(value: IndicatorValue) -> QTableWidgetItem:
    """A value's cell: "—" with the reason as tooltip when undefined."""
    return number_item(value.value, value.reason)


class AgreementDock(QDockWidget):
    """Pairs of annotators, each against the consensus, the frames of most disagreement.

    Signals
    -------
    frame_requested(str, int)
        The video label and frame of the row chosen in the frames' list.
    write_requested(Path, bool)
        Write the consensus to the folder; replace files there (the user said so) or not.
    """

    frame_requested = Signal(str, int)
    write_requested = Signal(object, bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Agreement", parent)
        self.setObjectName("AgreementDock")
        self.setToolTip(
            "How well the annotators agree on the frames they all labelled: κ and Dice of "
            "each pair, each against their STAPLE consensus (docs/measures.md §13)"
        )
        self._drawing = DeferredDraw(self, self._draw)
        self._result: AgreementResult | None = None
        self._annotators: int | None = None  # named by the project; None: no project
        self._reason: str | None = None  # why the stage was skipped
        self._frame_rows: list[FrameRow] = []
        self._summary = WrappedText()
        self._summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._note = WarningLine()
        self._left_out = WarningLine()
        self._video = QComboBox()
        self._video.setToolTip("Counts pooled over every video, or one video's")
        self._video.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self._video.setMinimumContentsLength(12)
        self._video.currentIndexChanged.connect(lambda _: self._drawing.request())
        self.write_button = QPushButton("Write consensus…")
        self.write_button.setToolTip(
            "Write the STAPLE consensus of the frames compared as ground truth (motion where "
            f"W ≥ 0.5) to a folder: {LAYOUT}"
        )
        self.write_button.clicked.connect(self._on_write_clicked)
        self._status = WrappedText()
        self._status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.pairs = read_only_table([PAIR_COLUMNS[c] for c in _PAIR_ORDER])
        self.pairs.setToolTip(
            "Each pair's counts over the counted pixels — both marked motion, only the first, "
            "only the second, neither — with Cohen's κ and Dice"
        )
        self.qualities = read_only_table(QUALITY_COLUMNS)
        self.qualities.setToolTip(
            "Each annotator against the STAPLE consensus of all of them (expected counts)"
        )
        self.frames = read_only_table(FRAME_COLUMNS)
        self.frames.setToolTip(
            f"Disagreement: {FRAME_DISAGREEMENT}; the pair of lowest κ on the frame. "
            "Choose a row to show that frame."
        )
        self.frames.itemSelectionChanged.connect(self._on_frame_chosen)
        self.frames.cellActivated.connect(lambda *_: self._on_frame_chosen())  # again
        self.tabs = QTabWidget()
        for table, title, tip in (
            (self.pairs, "Pairs", "κ and Dice of each pair of annotators"),
            (self.qualities, "Consensus", "Each annotator against the STAPLE consensus"),
            (self.frames, "Frames", "The frames compared, most disagreement first"),
        ):
            self.tabs.addTab(table, title)
            self.tabs.setTabToolTip(self.tabs.count() - 1, tip)
        self._state = EmptyState(self._layout(), NO_PROJECT)
        self.setWidget(self._state)
        self.setMinimumSize(220, 300)

    def _layout(self) -> QWidget:
        video = QHBoxLayout()
        video.addWidget(QLabel("Video"))
        video.addWidget(self._video, 1)
        write = QHBoxLayout()
        write.addWidget(self.write_button)
        write.addStretch(1)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addWidget(self._summary)
        layout.addWidget(self._note)
        layout.addWidget(self._left_out)
        layout.addLayout(video)
        layout.addWidget(self.tabs, 1)
        layout.addLayout(write)
        layout.addWidget(self._status)
        return body

    # --- what the window tells ---------------------------------------------------------

    def set_project(self, annotators: int | None) -> None:
        """Another project, naming ``annotators`` annotators (``None``: no project)."""
        self._result, self._reason, self._annotators = None, None, annotators
        self._status.setText("")
        self._drawing.request()

    def show_result(self, result: AgreementResult | None, reason: str | None = None) -> None:
        """Show the agreement stage's ``result``; ``None`` with the ``reason`` it was
        skipped or failed (not said while the project names too few annotators: the dock
        then says how to name them)."""
        self._result, self._reason = result, reason
        self._drawing.request()

    def _waiting(self) -> str:
        """What the dock says without a result."""
        count = self._annotators
        if count is None:
            return NO_PROJECT
        if count < 2:
            return needs_annotators(count)
        if self._reason is not None:
            return f"No agreement between annotators: {self._reason}."
        return COMPUTING

    def show_writing(self, folder: Path) -> None:
        """The consensus is being written to ``folder``."""
        self.write_button.setEnabled(False)
        self._status.setText(f"Writing the consensus to {folder}…")

    def show_written(self, result: AgreementResult | None) -> None:
        """The consensus was written (``result`` says where), or not (``None``)."""
        self.write_button.setEnabled(self._result is not None)
        written = None if result is None else consensus_written(result)
        self._status.setText("" if written is None else f"{written}.")

    # --- what is shown -----------------------------------------------------------------

    @property
    def empty_message(self) -> str | None:
        """What the dock says in place of its tables, or ``None`` while it shows a result."""
        return self._state.message()

    @property
    def status(self) -> str:
        """The line under Write consensus…: the consensus being written, or where it was."""
        return self._status.text()

    def _draw(self) -> None:
        result = self._result
        if result is None:
            self.write_button.setEnabled(False)
            self._state.show_message(self._waiting())
            return
        labels = [v.label for v in result.videos]
        wanted = [ALL_VIDEOS, *labels] if len(labels) > 1 else labels
        if [self._video.itemText(i) for i in range(self._video.count())] != wanted:
            self._video.blockSignals(True)
            self._video.clear()
            self._video.addItems(wanted)
            self._video.blockSignals(False)
        chosen = self._video.currentText()
        videos = [v for v in result.videos if chosen in (ALL_VIDEOS, v.label)]
        # Only the frames listed get their pair of lowest κ: a long video's thousands of
        # frames would take the GUI thread long.
        rows = frame_rows(videos, LISTED_FRAMES)
        counted = counted_frames(videos)
        summary = compared_sentence(result)
        if counted > LISTED_FRAMES:
            summary += f" Frames lists the {LISTED_FRAMES} of most disagreement of {counted:,}."
        self._summary.setText(summary)
        self._show_left_out(result.left_out)
        self._note.set_text("" if result.identifiable else f"Note: {TWO_ANNOTATORS}.")
        one = videos[0] if len(videos) == 1 else None
        self._fill_pairs(result.pairs() if one is None else one.pairs())
        self._fill_qualities(result.qualities() if one is None else one.qualities())
        self._fill_frames(rows)
        self.write_button.setEnabled(True)
        self._state.show_content()

    def _fill_pairs(self, pairs: Sequence[PairAgreement]) -> None:
        self.pairs.setRowCount(len(pairs))
        with filling(self.pairs):
            for r, pair in enumerate(pairs):
                first, second, tp, fn, fp, tn, kappa, dice = pair_cells(pair)
                items = [text_item(first), text_item(second)]
                items += [number_item(count, None, 0) for count in (tp, fn, fp, tn)]
                items += [_value_item(kappa), _value_item(dice)]
                for c, k in enumerate(_PAIR_ORDER):
                    self.pairs.setItem(r, c, items[k])

    def _fill_qualities(self, qualities: Sequence[AnnotatorQuality]) -> None:
        self.qualities.setRowCount(len(qualities))
        with filling(self.qualities):
            for r, quality in enumerate(qualities):
                self.qualities.setItem(r, 0, text_item(quality.name))
                self.qualities.setItem(r, 1, _value_item(quality.sensitivity))
                self.qualities.setItem(r, 2, _value_item(quality.specificity))

    def _fill_frames(self, rows: list[FrameRow]) -> None:
        self._frame_rows = rows
        self.frames.blockSignals(True)  # filling chooses no frame
        self.frames.clearSelection()
        self.frames.setRowCount(len(rows))
        with filling(self.frames):
            for r, row in enumerate(rows):
                self.frames.setItem(r, 0, text_item(row.video.label))
                self.frames.setItem(r, 1, number_item(row.frame, None, 0))
                self.frames.setItem(r, 2, number_item(row.disagreement))
                self.frames.setItem(r, 3, _value_item(row.worst.kappa))
                self.frames.setItem(r, 4, text_item(f"{row.worst.first}–{row.worst.second}"))
        self.frames.blockSignals(False)

    def _show_left_out(self, left_out: Sequence[tuple[str, str]]) -> None:
        """Name the videos left out and why: the first few, and every one in the tooltip."""
        said = [f"{label} ({why})" for label, why in left_out]
        more = len(said) - SHOWN_LEFT_OUT
        text = "; ".join(said[:SHOWN_LEFT_OUT]) + (f"; and {more} more" if more > 0 else "")
        self._left_out.set_text(f"Left out: {text}." if said else "")
        self._left_out.setToolTip("\n".join(said))

    @property
    def listed_frames(self) -> list[FrameRow]:
        """The frames listed, in the order of the table's rows."""
        return list(self._frame_rows)

    # --- user actions ------------------------------------------------------------------

    def _on_frame_chosen(self) -> None:
        rows = self.frames.selectionModel().selectedRows()
        if rows and rows[0].row() < len(self._frame_rows):
            chosen = self._frame_rows[rows[0].row()]
            self.frame_requested.emit(chosen.video.label, chosen.frame)

    def _on_write_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Write the consensus to a folder")
        if not folder:
            return
        path = Path(folder)
        force = _holds_files(path)
        if force and not self._replace(path):
            self._status.setText(f"Nothing written: {path} holds files, not to be replaced.")
            return
        self.write_requested.emit(path, force)

    def _replace(self, folder: Path) -> bool:
        if unanswerable(self, f"not asked whether to replace files in {folder}; nothing written"):
            return False
        answer = QMessageBox.question(
            self,
            "Replace?",
            f"{folder} already holds files. Consensus files there ({LAYOUT}) of the frames "
            "compared will be replaced. Write the consensus there?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes


def _holds_files(folder: Path) -> bool:
    """Whether ``folder`` holds anything (one that cannot be listed is left to the core)."""
    try:
        return any(folder.iterdir())
    except OSError:
        return False


__all__ = ["AgreementDock", "needs_annotators"]
