"""The Indicators dock: per-video counts and indicators, and both summaries
(docs/measures.md §2).

One row per (detector, video) with its confusion counts and every indicator
of the registry, then per detector the blended summary under the chosen
weight scheme and, beneath it, the CDnet procedure. Cells where the two
summaries differ are highlighted: the dock shows both kinds of numbers and
never mixes them. Beneath, for partly annotated videos, the estimates over
every frame with their intervals (docs/measures.md §12).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from referee.core.estimation.result import EstimateResult
from referee.core.evaluation.masks import VideoEvaluation
from referee.core.formats.text_files import format_csv
from referee.core.measures.indicators import INDICATORS, IndicatorValue, evaluate_all
from referee.core.measures.summarize import MethodResult
from referee.core.workflow.options import SCHEMES
from referee.core.workflow.results import PixelResult
from referee.gui.docks.estimates import EstimatesPanel
from referee.gui.widgets.palette import OKABE_ITO
from referee.gui.widgets.tables import UNDEFINED_TEXT, filled_item

#: Weight schemes offered; ``custom`` needs a table of weights the dock does not hold.
OFFERED_SCHEMES: tuple[str, ...] = SCHEMES
SCHEME_TIPS: dict[str, str] = {
    "auto": "category weights when videos have categories, else video weights",
    "video": "every video weighs the same (1/|V|)",
    "category": "every category weighs the same, split evenly over its videos (CDnet-like)",
    "pixels": "weights proportional to evaluated pixels (pooling raw counts)",
}
COUNT_COLUMNS: tuple[str, ...] = ("TP", "FP", "FN", "TN", "Shadow errors")
COUNT_TIPS: tuple[str, ...] = (
    "true positives: detected pixels on motion ground truth",
    "false positives: detected pixels on static or shadow ground truth",
    "false negatives: missed pixels on motion ground truth",
    "true negatives: undetected pixels on static or shadow ground truth",
    "detected pixels on hard-shadow ground truth (also counted in FP)",
)
CDNET_ROW = "CDnet procedure"
DIFFERENCE_TOLERANCE = 1e-9
DIFFERS_TIP = "differs from the CDnet procedure"
#: Background of summary cells where the blended summary and the CDnet procedure differ.
DIFFERS_RGBA: tuple[int, int, int, int] = (*OKABE_ITO["yellow"], 150)
_EXPORT_ROLE = Qt.ItemDataRole.UserRole
_VIDEO_KEY_ROLE = Qt.ItemDataRole.UserRole + 1


def format_count(count: int) -> str:
    """A pixel count with thousands separators."""
    return f"{count:,}"


def format_ratio(value: float) -> str:
    """A ratio (or PWC percentage) with 4 decimals."""
    return f"{value:.4f}"


def procedures_differ(a: IndicatorValue, b: IndicatorValue) -> bool:
    """Whether two summaries of one indicator differ (by more than 1e-9, or in definedness)."""
    if a.defined != b.defined:
        return True
    return a.defined and abs(a.value - b.value) > DIFFERENCE_TOLERANCE


def _text_item(text: str, export: str, tooltip: str = "") -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    item.setData(_EXPORT_ROLE, export)
    if tooltip:
        item.setToolTip(tooltip)
    return item


def _count_item(count: int | None) -> QTableWidgetItem:
    if count is None:
        return _text_item("", "")
    item = _text_item(format_count(count), str(count))
    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


def _value_item(value: IndicatorValue) -> QTableWidgetItem:
    if not value.defined:
        item = _text_item(UNDEFINED_TEXT, "", value.reason or "undefined")
        item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        return item
    item = _text_item(format_ratio(value.value), repr(value.value))
    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


class IndicatorsDock(QDockWidget):
    """Counts and indicators per (detector, video), with both summaries per detector.

    Signals
    -------
    video_selected(category, video)
        A video row was clicked.
    scheme_changed(scheme)
        The weight scheme of the blended summary changed.
    """

    video_selected = Signal(str, str)
    scheme_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Indicators", parent)
        self.setObjectName("IndicatorsDock")
        self._pixels: PixelResult | None = None
        self.detector_list = self._make_detector_list()
        self.scheme_combo = self._make_scheme_combo()
        self.copy_button = QPushButton("Copy as CSV")
        self.copy_button.setToolTip(
            "Copy the table (header and rows) to the clipboard as CSV "
            "(Ctrl+C); full-precision values, undefined values empty"
        )
        self.copy_button.clicked.connect(self._on_copy)
        self.table = self._make_table()
        self.table.installEventFilter(self)
        self.estimates = EstimatesPanel()
        self.setWidget(self._assemble())
        self.setMinimumSize(360, 200)

    # --- construction ------------------------------------------------------------------

    def _make_detector_list(self) -> QListWidget:
        detectors = QListWidget()
        detectors.setToolTip("Detectors shown in the table (check to show)")
        detectors.setMinimumWidth(90)
        detectors.setMaximumWidth(220)
        detectors.itemChanged.connect(self._on_detector_toggled)
        return detectors

    def _make_scheme_combo(self) -> QComboBox:
        combo = QComboBox()
        for scheme in OFFERED_SCHEMES:
            combo.addItem(scheme)
            combo.setItemData(combo.count() - 1, SCHEME_TIPS[scheme], Qt.ItemDataRole.ToolTipRole)
        combo.setToolTip(
            "Weights P(V=v) of the videos in the blended summary (docs/measures.md §2)"
        )
        combo.currentTextChanged.connect(self._on_scheme_changed)
        return combo

    def _make_table(self) -> QTableWidget:
        table = QTableWidget()
        headers = [
            "Detector",
            "Video",
            *COUNT_COLUMNS,
            *(indicator.symbol for indicator in INDICATORS.values()),
        ]
        tips = [
            "detector (method)",
            "category/video, or the summary procedure",
            *COUNT_TIPS,
            *(f"{i.name}: {i.formula}" for i in INDICATORS.values()),
        ]
        table.setColumnCount(len(headers))
        for column, (header, tip) in enumerate(zip(headers, tips)):
            item = QTableWidgetItem(header)
            item.setToolTip(tip)
            table.setHorizontalHeaderItem(column, item)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.verticalHeader().setVisible(False)
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 6)
        table.setAlternatingRowColors(True)
        table.setMinimumSize(240, 120)
        table.cellClicked.connect(self._on_cell_clicked)
        return table

    def _assemble(self) -> QWidget:
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Weights:"))
        bar.addWidget(self.scheme_combo)
        bar.addSpacing(12)
        bar.addWidget(self._legend())
        bar.addStretch(1)
        bar.addWidget(self.copy_button)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.detector_list)
        splitter.addWidget(self.table)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([120, 600])
        column = QSplitter(Qt.Orientation.Vertical)
        column.addWidget(splitter)
        column.addWidget(self.estimates)
        column.setStretchFactor(0, 2)
        column.setStretchFactor(1, 1)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(column, 1)
        return body

    def _legend(self) -> QLabel:
        r, g, b, a = DIFFERS_RGBA
        legend = QLabel(
            f'<span style="background-color: rgba({r},{g},{b},{a}); color: black;">'
            f"&nbsp;&nbsp;0.1234&nbsp;&nbsp;</span>&nbsp;{DIFFERS_TIP} "
            f"(by more than 1e-9)"
        )
        legend.setToolTip(
            "Summary cells are highlighted where the blended summary and the "
            "CDnet procedure (mean per category, then mean of categories) differ"
        )
        return legend

    # --- public API --------------------------------------------------------------------

    def show_pixels(self, result: PixelResult) -> None:
        """Show every detector's per-video evaluations and its summaries (computed by the
        session); detectors shown before stay as they were, new ones start checked."""
        hidden = {
            self.detector_list.item(i).text()
            for i in range(self.detector_list.count())
            if self.detector_list.item(i).checkState() != Qt.CheckState.Checked
        }
        self._pixels = result
        self.scheme_combo.blockSignals(True)
        self.scheme_combo.setCurrentText(result.options.weights)
        self.scheme_combo.blockSignals(False)
        self.detector_list.blockSignals(True)
        self.detector_list.clear()
        for name in result.methods:
            item = QListWidgetItem(name)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            shown = Qt.CheckState.Unchecked if name in hidden else Qt.CheckState.Checked
            item.setCheckState(shown)
            self.detector_list.addItem(item)
        self.detector_list.blockSignals(False)
        self._fit_detector_list()
        self._rebuild()

    def show_estimate(self, result: EstimateResult | None) -> None:
        """Show the partly annotated videos' estimates over every frame, with intervals."""
        self.estimates.show_estimate(result)

    def _fit_detector_list(self) -> None:
        width = self.detector_list.sizeHintForColumn(0) + 2 * self.detector_list.frameWidth() + 8
        self.detector_list.setMinimumWidth(min(max(90, width), 220))

    def scheme(self) -> str:
        """The weight scheme selected for the blended summary."""
        return self.scheme_combo.currentText()

    def set_scheme(self, scheme: str) -> None:
        """Ask for another weight scheme (one of :data:`OFFERED_SCHEMES`): ``scheme_changed``
        is emitted and the summaries change when the session's new result is shown."""
        self.scheme_combo.setCurrentText(scheme)

    def selected_detectors(self) -> list[str]:
        """Checked detectors, in the order they were given."""
        items = (self.detector_list.item(i) for i in range(self.detector_list.count()))
        return [item.text() for item in items if item.checkState() == Qt.CheckState.Checked]

    def set_detector_checked(self, name: str, checked: bool) -> None:
        """Show or hide one detector's rows."""
        for item in self.detector_list.findItems(name, Qt.MatchFlag.MatchExactly):
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    def table_csv(self) -> str:
        """The table as CSV: header, then rows; counts as integers, ratios at full precision."""
        columns = range(self.table.columnCount())
        rows = [
            [filled_item(self.table, row, c).data(_EXPORT_ROLE) for c in columns]
            for row in range(self.table.rowCount())
        ]
        return format_csv([[self._header(c) for c in columns], *rows])  # formulas neutralized

    def _header(self, column: int) -> str:
        item = self.table.horizontalHeaderItem(column)
        return item.text() if item is not None else ""

    # --- table contents ----------------------------------------------------------------

    def _rebuild(self) -> None:
        self.table.setRowCount(0)
        if self._pixels is None:
            return
        for name in self.selected_detectors():
            for evaluation in self._pixels.evaluations.get(name, ()):
                self._add_video_row(name, evaluation)
            self._add_summary_rows(name, self._pixels.methods[name])
        self.table.resizeColumnsToContents()

    def _append_row(self, items: Sequence[QTableWidgetItem]) -> int:
        row = self.table.rowCount()
        self.table.insertRow(row)
        for column, item in enumerate(items):
            self.table.setItem(row, column, item)
        return row

    def _add_video_row(self, detector: str, evaluation: VideoEvaluation) -> None:
        cm = evaluation.total
        label = evaluation.confusion.label
        values = evaluate_all(cm)
        items = [
            _text_item(detector, detector),
            _text_item(label, label),
            *(_count_item(int(n)) for n in (cm.tp, cm.fp, cm.fn, cm.tn)),
            _count_item(evaluation.shadow_errors),
            *(_value_item(values[key]) for key in INDICATORS),
        ]
        for item in items[:2]:
            item.setData(_VIDEO_KEY_ROLE, evaluation.key)
        self._append_row(items)

    def _add_summary_rows(self, detector: str, method: MethodResult) -> None:
        blended, title = method.summary.values, f"summarized ({method.summary.scheme})"
        cdnet = method.cdnet.indicators_overall
        rows = [
            self._summary_row(detector, title, blended),
            self._summary_row(detector, CDNET_ROW, cdnet),
        ]
        for column, key in enumerate(INDICATORS, start=2 + len(COUNT_COLUMNS)):
            if procedures_differ(blended[key], cdnet[key]):
                for row in rows:
                    self._mark_differs(filled_item(self.table, row, column))

    def _summary_row(self, detector: str, title: str, values: Mapping[str, IndicatorValue]) -> int:
        items = [
            _text_item(detector, detector),
            _text_item(title, title),
            *(_count_item(None) for _ in COUNT_COLUMNS),
            *(_value_item(values[key]) for key in INDICATORS),
        ]
        bold = QFont(self.table.font())
        bold.setBold(True)
        for item in items:
            item.setFont(bold)
        return self._append_row(items)

    @staticmethod
    def _mark_differs(item: QTableWidgetItem) -> None:
        item.setBackground(QBrush(QColor(*DIFFERS_RGBA)))
        item.setForeground(QBrush(QColor("black")))
        reason = item.toolTip()
        item.setToolTip(f"{DIFFERS_TIP}; {reason}" if reason else DIFFERS_TIP)

    def is_highlighted(self, row: int, column: int) -> bool:
        """Whether a cell is marked as differing from the CDnet procedure."""
        return filled_item(self.table, row, column).toolTip().startswith(DIFFERS_TIP)

    # --- slots -------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Ctrl+C (the platform's Copy) in the table copies the whole table as CSV."""
        if (
            watched is self.table
            and isinstance(event, QKeyEvent)
            and event.matches(QKeySequence.StandardKey.Copy)
        ):
            if event.type() == QEvent.Type.ShortcutOverride:
                event.accept()  # take Copy before any window-wide shortcut
                return True
            if event.type() == QEvent.Type.KeyPress:
                self._on_copy()
                return True
        return super().eventFilter(watched, event)

    def _on_detector_toggled(self, _item: QListWidgetItem) -> None:
        self._rebuild()

    def _on_scheme_changed(self, scheme: str) -> None:
        self.scheme_changed.emit(scheme)

    def _on_cell_clicked(self, row: int, _column: int) -> None:
        key = filled_item(self.table, row, 0).data(_VIDEO_KEY_ROLE)
        if key is not None:
            self.video_selected.emit(*key)

    def _on_copy(self) -> None:
        QGuiApplication.clipboard().setText(self.table_csv())
