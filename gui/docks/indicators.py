"""The Indicators dock: per-video indicators and counts, and both summaries
(docs/measures.md §2).

One row per (detector, video), then per detector the blended summary under the
chosen weight scheme and, beneath it, the CDnet procedure. Detector and Video stay
in view when the table scrolls sideways; F1, precision and recall come first, the
other indicators next and the raw counts last; a header click sorts, the Columns
menu hides columns. A summary cell is highlighted where ranking the detectors by
that indicator gives this detector another rank under the two procedures: there
the choice of procedure changes a decision. Beneath, for partly annotated videos,
the estimates over every frame with their intervals (docs/measures.md §12).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QGuiApplication, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from referee.core.estimation.result import EstimateResult
from referee.core.formats.text_files import format_csv
from referee.core.workflow.options import SCHEMES
from referee.core.workflow.results import PixelResult
from referee.gui.docks.estimates import EstimatesPanel
from referee.gui.docks.indicator_model import (
    EXPORT_ROLE,
    RANK_CHANGE_RGBA,
    SWATCH_SIZE,
    IndicatorFilterModel,
    IndicatorTableModel,
)
from referee.gui.docks.indicator_rows import (
    COLUMNS,
    FROZEN_COLUMNS,
    TableRow,
    build_rows,
    widest_texts,
)
from referee.gui.widgets.check_list import CheckList
from referee.gui.widgets.column_chooser import ColumnChooser
from referee.gui.widgets.empty_state import EmptyState
from referee.gui.widgets.frozen_table import FrozenColumnsTable
from referee.gui.widgets.popup_button import popup_button

#: Weight schemes offered; ``custom`` needs a table of weights the dock does not hold.
OFFERED_SCHEMES: tuple[str, ...] = SCHEMES
SCHEME_TIPS: dict[str, str] = {
    "auto": "category weights when videos have categories, else video weights",
    "video": "every video weighs the same (1/|V|)",
    "category": "every category weighs the same, split evenly over its videos (CDnet-like)",
    "pixels": "weights proportional to evaluated pixels (pooling raw counts)",
}
RANK_CHANGE_LEGEND = "the two procedures rank this detector differently by this indicator"
RANK_CHANGE_TIP = (
    "A summary cell is highlighted when ranking all the detectors by that indicator puts "
    "this detector at another rank in the summarized row than in the CDnet-procedure row "
    "(mean per category, then mean of categories): there the choice of procedure changes "
    "the order of the detectors. Values that differ without changing a rank (or by less "
    "than 1e-9) are not highlighted; a highlighted cell's tooltip gives both ranks."
)
NO_RESULT_TEXT = (
    "Open a project with ground truth (File › Open, Ctrl+O) to see each detector's F1, "
    "precision and recall, per video and summarized over the videos."
)
NO_DETECTOR_TEXT = "No detector is checked: choose some under Detectors to see their rows."
DETECTORS_TEXT = "Detectors"
#: Tallest the drop-down list of detectors gets before it scrolls, in pixels.
DETECTOR_LIST_HEIGHT = 400
#: Room around a cell's text (margins, the sort arrow of a header), in pixels.
CELL_PADDING = 14
HEADER_PADDING = 28


class IndicatorsDock(QDockWidget):
    """Indicators and counts per (detector, video), with both summaries per detector.

    Signals
    -------
    row_selected(detector, category, video)
        A row was selected (click or keyboard); ``category`` and ``video`` are ``""``
        for a summary row.
    scheme_changed(scheme)
        The weight scheme of the blended summary changed.
    """

    row_selected = Signal(str, str, str)
    scheme_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Indicators", parent)
        self.setObjectName("IndicatorsDock")
        self._pixels: PixelResult | None = None
        self._unavailable = ""  # why the evaluation could not run, when it could not
        self.table_model = IndicatorTableModel(self)
        self.shown_rows = IndicatorFilterModel(self.table_model, self)
        self.detector_list = self._make_detector_list()
        self.detector_button = popup_button(
            DETECTORS_TEXT, self.detector_list, "Choose the detectors shown in the table"
        )
        self.scheme_combo = self._make_scheme_combo()
        self.copy_button = QPushButton("Copy as CSV")
        self.copy_button.setToolTip(
            "Copy the table as shown (shown columns, rows in their order) to the clipboard "
            "as CSV (Ctrl+C); full-precision values, undefined values empty"
        )
        self.copy_button.clicked.connect(self._on_copy)
        self.table = self._make_table()
        self.columns = ColumnChooser(self.table, FROZEN_COLUMNS)
        self.columns.attach(self.table.horizontalHeader())
        self.columns.attach(self.table.frozen.horizontalHeader())
        self.table_area = EmptyState(self.table, NO_RESULT_TEXT)
        self.estimates = EstimatesPanel()
        self.setWidget(self._assemble())
        self.setMinimumSize(360, 200)
        self._show_table_or_message()

    # --- construction ------------------------------------------------------------------

    def _make_detector_list(self) -> CheckList:
        detectors = CheckList("Detectors shown in the table (check to show)")
        detectors.setMaximumHeight(DETECTOR_LIST_HEIGHT)
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

    def _make_table(self) -> FrozenColumnsTable:
        table = FrozenColumnsTable(FROZEN_COLUMNS)
        table.setModel(self.shown_rows)
        table.setMinimumSize(240, 120)
        table.row_chosen.connect(self._on_row_chosen)
        table.installEventFilter(self)
        return table

    def _assemble(self) -> QWidget:
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Weights:"))
        bar.addWidget(self.scheme_combo)
        bar.addStretch(1)
        bar.addWidget(self.detector_button)
        bar.addWidget(self.columns.button())
        bar.addWidget(self.copy_button)
        column = QSplitter(Qt.Orientation.Vertical)
        column.addWidget(self.table_area)
        column.addWidget(self.estimates)
        column.setStretchFactor(0, 2)
        column.setStretchFactor(1, 1)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        self.legend = self._legend()
        layout.addWidget(self.legend)
        layout.addWidget(column, 1)
        return body

    def _legend(self) -> QLabel:
        r, g, b, a = RANK_CHANGE_RGBA
        legend = QLabel(
            f'<span style="background-color: rgba({r},{g},{b},{a}); color: black;">'
            f"&nbsp;&nbsp;0.1234&nbsp;&nbsp;</span>&nbsp;{RANK_CHANGE_LEGEND}"
        )
        legend.setWordWrap(True)
        legend.setToolTip(RANK_CHANGE_TIP)
        return legend

    # --- public API --------------------------------------------------------------------

    def show_pixels(self, result: PixelResult) -> None:
        """Show every detector's per-video evaluations and its summaries (computed by the
        session); detectors shown before stay as they were, new ones start checked."""
        hidden = set(self._names()) - set(self.selected_detectors())
        selected = self._selected_row()
        self._pixels, self._unavailable = result, ""
        self.scheme_combo.blockSignals(True)
        self.scheme_combo.setCurrentText(result.options.weights)
        self.scheme_combo.blockSignals(False)
        rows = build_rows(result)
        self.table_model.set_rows(rows)
        self._list_detectors(list(result.methods), hidden)
        self.shown_rows.set_shown_detectors(self.selected_detectors())
        self._fit_columns(rows)
        if selected is not None:
            self._reselect(selected)
        self._show_table_or_message()

    def set_detector_order(self, names: Sequence[str]) -> None:
        """The project's detector list, which gives each detector its colour."""
        self.table_model.set_detector_order(names)
        for index, name in enumerate(self._names()):
            self.detector_list.item(index).setIcon(self.table_model.swatch(name))

    def show_estimate(self, result: EstimateResult | None) -> None:
        """Show the partly annotated videos' estimates over every frame, with intervals."""
        self.estimates.show_estimate(result)

    def scheme(self) -> str:
        """The weight scheme selected for the blended summary."""
        return self.scheme_combo.currentText()

    def set_scheme(self, scheme: str) -> None:
        """Ask for another weight scheme (one of :data:`OFFERED_SCHEMES`): ``scheme_changed``
        is emitted and the summaries change when the session's new result is shown."""
        self.scheme_combo.setCurrentText(scheme)

    def selected_detectors(self) -> list[str]:
        """Checked detectors, in the order they were given."""
        return list(self.detector_list.checked_names())

    def set_detector_checked(self, name: str, checked: bool) -> None:
        """Show or hide one detector's rows."""
        for item in self.detector_list.findItems(name, Qt.MatchFlag.MatchExactly):
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    def table_csv(self) -> str:
        """The table as shown, as CSV: the header of the shown columns, then the rows in
        their order; counts as integers, ratios at full precision, undefined values empty."""
        columns = [c for c in range(len(COLUMNS)) if not self.table.isColumnHidden(c)]
        rows = [
            [self.shown_rows.index(row, c).data(EXPORT_ROLE) for c in columns]
            for row in range(self.shown_rows.rowCount())
        ]
        return format_csv([[COLUMNS[c].header for c in columns], *rows])  # formulas neutralized

    def is_highlighted(self, row: int, column: int) -> bool:
        """Whether the cell at view ``row`` and ``column`` (of :data:`COLUMNS`) is marked: the
        two procedures rank its detector differently by that column's indicator."""
        return column in self.shown_rows.table_row(row).rank_changes

    # --- table contents ----------------------------------------------------------------

    def _names(self) -> list[str]:
        return [self.detector_list.item(i).text() for i in range(self.detector_list.count())]

    def _list_detectors(self, names: list[str], hidden: set[str]) -> None:
        """List ``names`` with their colours, checked unless ``hidden``; fit the list."""
        listed = self.detector_list
        listed.blockSignals(True)
        listed.set_names(names)
        for index, name in enumerate(names):
            item = listed.item(index)
            item.setIcon(self.table_model.swatch(name))
            if name in hidden:
                item.setCheckState(Qt.CheckState.Unchecked)
        listed.blockSignals(False)
        frame = 2 * listed.frameWidth()
        rows = frame + sum(listed.sizeHintForRow(i) for i in range(listed.count()))
        scroll = listed.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        listed.setFixedSize(
            listed.sizeHintForColumn(0) + frame + scroll + 8, min(rows, DETECTOR_LIST_HEIGHT)
        )
        self._label_detector_button()

    def _label_detector_button(self) -> None:
        shown, listed = len(self.selected_detectors()), self.detector_list.count()
        suffix = f" {shown}/{listed}" if shown < listed else ""
        self.detector_button.setText(DETECTORS_TEXT + suffix)

    def _fit_columns(self, rows: list[TableRow]) -> None:
        """Size each column to its widest text, measured on a few candidates only."""
        bold = QFont(self.table.font())
        bold.setBold(True)
        cells, headers = QFontMetrics(bold), self.table.horizontalHeader().fontMetrics()
        widths = []
        for column, spec in enumerate(COLUMNS):
            texts = widest_texts(rows, column)
            width = max((cells.horizontalAdvance(t) for t in texts), default=0) + CELL_PADDING
            if column == 0:
                width += SWATCH_SIZE + 6
            widths.append(max(width, headers.horizontalAdvance(spec.header) + HEADER_PADDING))
        self.table.set_frozen_widths(widths[:FROZEN_COLUMNS])
        for column, width in enumerate(widths[FROZEN_COLUMNS:], start=FROZEN_COLUMNS):
            self.table.setColumnWidth(column, width)

    def show_unavailable(self, reason: str) -> None:
        """Say why the project has no indicators (the evaluation could not run), in place of
        the table: ``reason`` as the session gives it, e.g. no detector has masks."""
        self._pixels, self._unavailable = None, reason
        self._show_table_or_message()

    def _show_table_or_message(self) -> None:
        self.detector_button.setEnabled(self._pixels is not None)
        self.legend.setVisible(self._pixels is not None)  # a key to the table's cells
        if self._pixels is None and self._unavailable:
            self.table_area.show_message(
                f"No indicators (docs/measures.md §1): {self._unavailable}."
            )
        elif self._pixels is None:
            self.table_area.show_message(NO_RESULT_TEXT)
        elif not self.selected_detectors():
            self.table_area.show_message(NO_DETECTOR_TEXT)
        else:
            self.table_area.show_content()

    def _selected_row(self) -> tuple[str, str, str, str] | None:
        current = self.table.currentIndex()
        return self.shown_rows.table_row(current.row()).identity if current.isValid() else None

    def _reselect(self, identity: tuple[str, str, str, str]) -> None:
        row = self.shown_rows.view_row(identity)
        if row >= 0:
            self.table.select_row(row)

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
        self.shown_rows.set_shown_detectors(self.selected_detectors())
        self._label_detector_button()
        self._show_table_or_message()

    def _on_scheme_changed(self, scheme: str) -> None:
        self.scheme_changed.emit(scheme)

    def _on_row_chosen(self, row: int) -> None:
        chosen = self.shown_rows.table_row(row)
        self.row_selected.emit(chosen.detector, chosen.category, chosen.video)

    def _on_copy(self) -> None:
        QGuiApplication.clipboard().setText(self.table_csv())
