"""The Actions dock: every LIRIS pair, miss and false alarm, and why (docs/measures.md §4).

Shows the pair table of one detector's
:class:`~referee.core.measures.action_scores.ActionEvaluation`, outcomes colour-coded with a
legend. Selecting a row asks the window to show the frame where the pair
first overlaps in time (:func:`referee.gui.viewer.action_boxes.first_frame`).
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from referee.core.measures.action_scores import ActionEvaluation, PairRow
from referee.gui.viewer.action_boxes import OUTCOME_RGB, class_name, first_frame, pair_tooltip
from referee.gui.widgets.empty_state import EmptyState, no_project
from referee.gui.widgets.tables import filling, number_item, read_only_table, text_item

_HEADERS = (
    "video",
    "outcome",
    "GT nr",
    "GT class",
    "det nr",
    "det class",
    "Dice",
    "sp. recall",
    "sp. precision",
    "t. recall",
    "t. precision",
    "failing",
)
_OUTCOME_COLUMN = 1
_NOT_A_PAIR = "undefined: not an assigned pair"

#: What the dock says for a project without ground-truth actions.
NO_ACTION_TRUTH = (
    "No action ground truth in this project, so there are no action pairs to explain. "
    "Name a ground-truth actions file (LIRIS XML) and each detector's action XML file in "
    "the project file (*.referee.json), or open a project that has them, such as the demo."
)
#: What the dock says for ground-truth actions without a detector's actions.
NO_DETECTED_ACTIONS = (
    "The project has ground-truth actions but no detector with actions to compare. Name "
    "each detector's action XML file (LIRIS) in the project file (*.referee.json)."
)
#: What the dock says while the actions are matched.
MATCHING_ACTIONS = (
    "Matching each detector's actions with the ground truth… The pairs, misses and false "
    "alarms are listed here when it is done; if an action file cannot be read, the Data "
    "dock says which."
)


def _legend() -> QWidget:
    """Coloured swatches naming each outcome."""
    legend = QWidget()
    layout = QHBoxLayout(legend)
    layout.setContentsMargins(0, 0, 0, 0)
    for outcome, rgb in OUTCOME_RGB.items():
        swatch = QLabel()
        swatch.setFixedSize(12, 12)
        swatch.setStyleSheet(f"background-color: rgb{rgb}; border: 1px solid #555;")
        layout.addWidget(swatch)
        layout.addWidget(QLabel(outcome))
        layout.addSpacing(8)
    layout.addStretch(1)
    legend.setToolTip("Row colour = outcome at the fixed operating point ε")
    return legend


class ActionsDock(QDockWidget):
    """The per-pair explanation table of the LIRIS evaluation (docs/measures.md §4)."""

    action_selected = Signal(str, int, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Actions", parent)
        self.setObjectName("ActionsDock")
        self.setToolTip(
            "Ground-truth and detected actions, matched one-to-one; vetoed pairs "
            "say which test failed (docs/measures.md §4)"
        )
        self._evaluations: dict[str, ActionEvaluation] = {}
        self._rows: tuple[PairRow, ...] = ()
        self._detector = QComboBox()
        self._detector.setToolTip("Detector whose actions are shown")
        self._detector.currentTextChanged.connect(self._on_detector_changed)
        self._table = read_only_table(_HEADERS)
        self._table.setSelectionMode(self._table.SelectionMode.SingleSelection)
        self._table.setToolTip(
            "Select a row to go to the first frame where both actions have a box"
        )
        self._table.itemSelectionChanged.connect(self._on_selection_changed)
        form = QFormLayout()
        form.addRow("Detector", self._detector)
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.addLayout(form)
        layout.addWidget(_legend())
        layout.addWidget(self._table, 1)
        self._state = EmptyState(
            content, no_project("see each action pair, miss and false alarm, and why")
        )
        self.setWidget(self._state)
        self.setMinimumSize(320, 220)

    def set_project_actions(self, has_groundtruth: bool, detectors: int) -> None:
        """A project was opened with (or without) ground-truth actions and ``detectors``
        detectors with actions: drop the pairs shown and say what comes next."""
        self.show_evaluations({})
        if not has_groundtruth:
            self._state.show_message(NO_ACTION_TRUTH)
        elif detectors == 0:
            self._state.show_message(NO_DETECTED_ACTIONS)
        else:
            self._state.show_message(MATCHING_ACTIONS)

    @property
    def empty_message(self) -> str | None:
        """What the dock says in place of its table, or ``None`` once it shows pairs."""
        return self._state.message()

    def show_evaluations(self, evaluations: Mapping[str, ActionEvaluation]) -> None:
        """Offer these detectors' evaluations; keep the current detector when still there.

        With none, the dock says that there is no action ground truth.
        """
        if evaluations:
            self._state.show_content()
        else:
            self._state.show_message(NO_ACTION_TRUTH)
        current = self._detector.currentText()
        self._evaluations = dict(evaluations)
        self._detector.blockSignals(True)
        self._detector.clear()
        self._detector.addItems(list(self._evaluations))
        if current in self._evaluations:
            self._detector.setCurrentText(current)
        self._detector.blockSignals(False)
        self._on_detector_changed(self._detector.currentText())

    def evaluation(self) -> ActionEvaluation | None:
        """The evaluation shown, or ``None``."""
        return self._evaluations.get(self._detector.currentText())

    def select_detector(self, name: str) -> None:
        """Show the pair table of detector ``name``."""
        self._detector.setCurrentText(name)

    def _on_detector_changed(self, name: str) -> None:
        evaluation = self._evaluations.get(name)
        self._rows = () if evaluation is None else evaluation.pairs
        self._table.clearSelection()
        self._table.setRowCount(len(self._rows))
        with filling(self._table):
            for r, row in enumerate(self._rows):
                self._fill_row(r, row)

    def _fill_row(self, r: int, row: PairRow) -> None:
        def whole(value: int | None) -> str:
            return "—" if value is None else str(value)

        tooltip = pair_tooltip(row)
        cells = [
            text_item(row.video),
            text_item(row.outcome, tooltip),
            text_item(whole(row.gt_number)),
            text_item(class_name(row.gt_class)),
            text_item(whole(row.det_number)),
            text_item(class_name(row.det_class)),
        ]
        cells += [
            number_item(v, _NOT_A_PAIR, 3)
            for v in (
                row.dice,
                row.spatial_recall,
                row.spatial_precision,
                row.temporal_recall,
                row.temporal_precision,
            )
        ]
        cells.append(text_item(", ".join(row.failed), tooltip))
        colour = QColor(*OUTCOME_RGB[row.outcome])
        cells[_OUTCOME_COLUMN].setBackground(colour)
        cells[_OUTCOME_COLUMN].setForeground(QColor("black"))
        for column, item in enumerate(cells):
            self._table.setItem(r, column, item)

    def _on_selection_changed(self) -> None:
        evaluation = self.evaluation()
        rows = {index.row() for index in self._table.selectionModel().selectedRows()}
        if evaluation is None or len(rows) != 1:
            return
        row = self._rows[rows.pop()]
        self.action_selected.emit(row.video, first_frame(evaluation, row), row)

    @property
    def table(self) -> QTableWidget:
        """The table of rows shown."""
        return self._table

    def select_row(self, index: int) -> None:
        """Select row ``index`` of the table (as a click would)."""
        self._table.selectRow(index)
