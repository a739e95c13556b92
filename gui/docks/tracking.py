"""The Tracking dock: each tracker's HOTA, CLEAR MOT and identity measures, per sequence
and combined, and how its matches are shown on the frames (docs/measures.md §5).

The measures come from the boxes stage's
:class:`~referee.core.measures.tracking.TrackingEvaluation`; the dock words them and
lets the user go to a sequence and from one identity switch to the next. The viewer
draws the chosen tracker's matches (:mod:`referee.gui.viewer.tracking_boxes`) and
marks its switches and fragmentations on the timeline, with the legend below.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDockWidget,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from referee.core.exports.tracking import COLUMNS, CONVENTIONS, tracking_values
from referee.core.measures.tracking import TrackingEvaluation, TrackingScores
from referee.gui.viewer.tracking_boxes import (
    FRAGMENT_MARKS,
    NEXT_SWITCH_KEY,
    PREVIOUS_SWITCH_KEY,
    SWITCH_MARKS,
)
from referee.gui.widgets.empty_state import EmptyState, no_project
from referee.gui.widgets.tables import filling, number_item, read_only_table, text_item

#: The combined row's name in the table.
ALL_SEQUENCES = "all sequences"
_COUNTS = frozenset({"idsw", "frag", "mt", "pt", "ml"})
_TIPS = {
    "hota": "HOTA: √(DetA·AssA), averaged over IoU thresholds 0.05…0.95",
    "det_a": "DetA: detection accuracy, TP / (TP + FN + FP), averaged over thresholds",
    "ass_a": "AssA: how well each matched object keeps one identity, averaged over thresholds",
    "loc_a": "LocA: mean IoU of the matches, averaged over thresholds",
    "mota": "MOTA: 1 − (misses + false positives + identity switches) / ground-truth boxes",
    "motp": "MOTP: mean IoU of CLEAR MOT's matches",
    "idf1": "IDF1: F1 of the identity-preserving assignment of whole tracks",
    "idsw": "Identity switches: an object matched to another tracker identity than before",
    "frag": "Fragmentations: an object matched again after unmatched frames",
    "mt": "Mostly tracked: objects matched on more than 80 % of their frames",
    "pt": "Partly tracked: objects matched on 20 to 80 % of their frames",
    "ml": "Mostly lost: objects matched on less than 20 % of their frames",
}

#: What the dock says for a project without ground-truth boxes.
NO_BOX_TRUTH = (
    "No ground-truth boxes in this project, so there is no tracking to measure. Name a "
    "ground-truth MOTChallenge file or LIRIS XML and each tracker's file in the project "
    "file (*.referee.json), or open a project that has them, such as the demo."
)
#: What the dock says while the boxes are evaluated.
MEASURING = "Matching each tracker's boxes with the ground truth… The measures appear here."


def _swatch(rgb: tuple[int, int, int], symbol: str, text: str) -> QLabel:
    glyph = {"t": "▼", "d": "◆"}.get(symbol, "●")
    label = QLabel(f'<span style="color: rgb{rgb}">{glyph}</span> {text}')
    return label


class TrackingDock(QDockWidget):
    """Tracking measures of the chosen tracker, and the switch navigation."""

    #: A sequence's row was chosen: its name.
    sequence_selected = Signal(str)
    #: The tracker to draw changed, or drawing was turned on or off: (name or "", on).
    drawing_changed = Signal(str, bool)
    previous_switch_requested = Signal()
    next_switch_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Tracking", parent)
        self.setObjectName("TrackingDock")
        self.setToolTip("HOTA, CLEAR MOT and identity measures of each tracker (§5)")
        self._evaluations: dict[str, TrackingEvaluation] = {}
        self._names: list[str] = []
        self._tracker = QComboBox()
        self._tracker.setToolTip("Tracker whose measures are listed and whose matches are drawn")
        self._tracker.currentTextChanged.connect(self._on_tracker_changed)
        self._table = read_only_table(["sequence", *(title for title, _ in COLUMNS)])
        for column, (_, key) in enumerate(COLUMNS, start=1):
            header = self._table.horizontalHeaderItem(column)
            if header is not None:
                header.setToolTip(_TIPS.get(key, ""))
        self._table.setSelectionMode(self._table.SelectionMode.SingleSelection)
        self._table.setToolTip("Select a sequence to show its video")
        self._table.itemSelectionChanged.connect(self._on_selection_changed)
        self.draw = QCheckBox("Draw on the frames")
        self.draw.setToolTip(
            "Draw the tracker's matches (solid), misses and false positives (dotted), "
            "identity switches and resumed objects (thick, dashed) on the frames"
        )
        self.draw.toggled.connect(lambda _: self._emit_drawing())
        self.previous_button = QPushButton("◂ Previous switch")
        self.previous_button.setToolTip(f"Previous identity switch ({PREVIOUS_SWITCH_KEY})")
        self.previous_button.clicked.connect(self.previous_switch_requested)
        self.next_button = QPushButton("Next switch ▸")
        self.next_button.setToolTip(f"Next identity switch ({NEXT_SWITCH_KEY})")
        self.next_button.clicked.connect(self.next_switch_requested)
        controls = QHBoxLayout()
        for widget in (self.draw, self.previous_button, self.next_button):
            controls.addWidget(widget)
        controls.addStretch(1)
        legend = QHBoxLayout()
        legend.addWidget(QLabel("Timeline:"))
        for text, rgb, symbol in (SWITCH_MARKS, FRAGMENT_MARKS):
            legend.addWidget(_swatch(rgb, symbol, text))
        legend.addStretch(1)
        #: The benchmark rules applied, when any (else hidden).
        self.rules = QLabel()
        self.rules.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Tracker", self._tracker)
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.addLayout(form)
        layout.addWidget(self._table, 1)
        layout.addWidget(self.rules)
        layout.addLayout(controls)
        layout.addLayout(legend)
        self._state = EmptyState(content, no_project("measure each tracker's HOTA, MOTA and IDF1"))
        self.setWidget(self._state)
        self.setMinimumSize(320, 220)

    # --- what the window tells it -------------------------------------------------------

    def set_project_boxes(self, has_groundtruth: bool) -> None:
        """A project was opened with (or without) ground-truth boxes: forget the measures."""
        self._evaluations = {}
        self._fill_trackers()
        self._state.show_message(MEASURING if has_groundtruth else NO_BOX_TRUTH)

    def show_tracking(
        self, evaluations: Mapping[str, TrackingEvaluation], rules: str, reason: str | None
    ) -> None:
        """Show these trackers' measures (the current tracker kept when still there);
        ``rules`` names a benchmark's rules when they apply; with no measures, ``reason``
        says why."""
        self._evaluations = dict(evaluations)
        self.rules.setText(rules)
        self.rules.setVisible(bool(rules))
        self._table.setToolTip(f"{CONVENTIONS} Select a sequence to show its video.")
        self._fill_trackers()
        if evaluations:
            self._state.show_content()
        else:
            self._state.show_message(reason or NO_BOX_TRUTH)

    @property
    def empty_message(self) -> str | None:
        """What the dock says in place of its table, or ``None`` once it shows measures."""
        return self._state.message()

    @property
    def table(self) -> QTableWidget:
        return self._table

    @property
    def tracker(self) -> str | None:
        """The tracker shown, or ``None``."""
        name = self._tracker.currentText()
        return name if name in self._evaluations else None

    def select_tracker(self, name: str) -> None:
        self._tracker.setCurrentText(name)

    def set_switches(self, count: int) -> None:
        """The shown video has ``count`` frames with identity switches: the switch buttons
        work only with some."""
        for button in (self.previous_button, self.next_button):
            button.setEnabled(count > 0)

    # --- internals ----------------------------------------------------------------------

    def _fill_trackers(self) -> None:
        current = self._tracker.currentText()
        self._tracker.blockSignals(True)
        self._tracker.clear()
        self._tracker.addItems(list(self._evaluations))
        if current in self._evaluations:
            self._tracker.setCurrentText(current)
        self._tracker.blockSignals(False)
        self._on_tracker_changed(self._tracker.currentText())

    def _on_tracker_changed(self, name: str) -> None:
        evaluation = self._evaluations.get(name)
        rows: list[tuple[str, TrackingScores]] = []
        if evaluation is not None:
            rows = [(ALL_SEQUENCES, evaluation.combined), *evaluation.sequences.items()]
        self._names = [name for name, _ in rows]
        self._table.clearSelection()
        self._table.setRowCount(len(rows))
        with filling(self._table):
            for r, (sequence, scores) in enumerate(rows):
                self._table.setItem(r, 0, text_item(sequence))
                values = tracking_values(scores)
                for column, (_, key) in enumerate(COLUMNS, start=1):
                    decimals = 0 if key in _COUNTS else 4
                    self._table.setItem(r, column, number_item(values[key], "", decimals))
        self._emit_drawing()

    def _emit_drawing(self) -> None:
        self.drawing_changed.emit(self.tracker or "", self.draw.isChecked())

    def _on_selection_changed(self) -> None:
        rows = {index.row() for index in self._table.selectionModel().selectedRows()}
        if len(rows) == 1:
            name = self._names[rows.pop()]
            if name != ALL_SEQUENCES:
                self.sequence_selected.emit(name)
