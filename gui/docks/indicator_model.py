"""The Indicators table as a Qt model: rows of :mod:`indicator_rows`, formatted when drawn
and sorted by the clicked header, and a proxy that keeps only the checked detectors' rows.

The model sorts its own rows (a Python sort of the cells' values) and the proxy
passes header clicks on to it: the proxy's own sort would call back into Python
for every comparison, about 150 ms for a thousand rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap

from referee.core.colours import OKABE_ITO, detector_colours
from referee.core.measures.indicators import IndicatorValue
from referee.gui.docks.indicator_rows import (
    COLUMNS,
    TableRow,
    display_text,
    export_text,
    sorted_rows,
)

#: Role of the text a cell gives in CSV.
EXPORT_ROLE = Qt.ItemDataRole.UserRole
#: Background of summary cells whose value ranks the detector differently under the
#: two procedures: Okabe–Ito yellow lightened toward white, opaque, so that its black
#: text reads the same on the light and the dark theme.
_R, _G, _B = (round(0.6 * c + 0.4 * 255) for c in OKABE_ITO["yellow"])
RANK_CHANGE_RGBA: tuple[int, int, int, int] = (_R, _G, _B, 255)
SWATCH_SIZE = 12

_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_CENTRE = Qt.AlignmentFlag.AlignCenter
_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
_Index = QModelIndex | QPersistentModelIndex


def _undefined(value: object) -> bool:
    return isinstance(value, IndicatorValue) and not value.defined


def colour_swatch(rgb: tuple[int, int, int]) -> QIcon:
    """A small filled square with a grey outline, legible on light and dark backgrounds."""
    pixmap = QPixmap(SWATCH_SIZE, SWATCH_SIZE)
    pixmap.fill(QColor(*rgb))
    painter = QPainter(pixmap)
    painter.setPen(QColor(*OKABE_ITO["grey"]))
    painter.drawRect(0, 0, SWATCH_SIZE - 1, SWATCH_SIZE - 1)
    painter.end()
    return QIcon(pixmap)


class IndicatorTableModel(QAbstractTableModel):
    """Read-only rows of :class:`TableRow`, one column per entry of :data:`COLUMNS`.

    Texts are formatted when a cell is drawn, so replacing the rows is cheap. The rows
    stay sorted by the last :meth:`sort` (undefined and empty values last either way).
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._result_rows: list[TableRow] = []
        self._rows: list[TableRow] = []
        self._sort_column = -1
        self._descending = False
        self._bold = QFont()
        self._bold.setBold(True)
        self._order: tuple[str, ...] = ()
        self._swatches: dict[str, QIcon] = {}
        self._highlight = QColor(*RANK_CHANGE_RGBA)
        self._highlight_text = QColor("black")

    def set_rows(self, rows: Sequence[TableRow]) -> None:
        """Replace every row (one model reset), sorted as before."""
        self.beginResetModel()
        self._result_rows = list(rows)
        self._rows = sorted_rows(self._result_rows, self._sort_column, self._descending)
        self._make_swatches()
        self.endResetModel()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the rows by ``column`` (``-1``: the result's order), undefined and empty last."""
        self._sort_column, self._descending = column, order == Qt.SortOrder.DescendingOrder
        self.layoutAboutToBeChanged.emit()
        before = {id(row): position for position, row in enumerate(self._rows)}
        self._rows = sorted_rows(self._result_rows, self._sort_column, self._descending)
        after = {before[id(row)]: position for position, row in enumerate(self._rows)}
        kept = self.persistentIndexList()
        moved = [self.index(after[index.row()], index.column()) for index in kept]
        self.changePersistentIndexList(kept, moved)
        self.layoutChanged.emit()

    def row(self, row: int) -> TableRow:
        """The row at ``row`` of this (source) model."""
        return self._rows[row]

    def find(self, identity: tuple[str, str, str, str]) -> int:
        """The (source) row with this :attr:`TableRow.identity`, or -1."""
        return next((i for i, row in enumerate(self._rows) if row.identity == identity), -1)

    def set_detector_order(self, names: Sequence[str]) -> None:
        """The project's detector list: each detector's colour is that of its place there."""
        self._order = tuple(names)
        self._make_swatches()
        if self._rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, 0))

    def _make_swatches(self) -> None:
        names = dict.fromkeys(row.detector for row in self._result_rows)
        colours = detector_colours(names, self._order)
        self._swatches = {name: colour_swatch(rgb) for name, rgb in colours.items()}

    def swatch(self, detector: str) -> QIcon:
        """The colour square of ``detector``, as in every plot and view."""
        return self._swatches[detector]

    # --- QAbstractTableModel -------------------------------------------------------------

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        column = COLUMNS[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.header
        if role == Qt.ItemDataRole.ToolTipRole:
            return column.tooltip
        if role == Qt.ItemDataRole.InitialSortOrderRole:
            best_first_ascending = column.kind == "text" or column.higher_is_better is False
            return (
                Qt.SortOrder.AscendingOrder
                if best_first_ascending
                else Qt.SortOrder.DescendingOrder
            )
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, column = self._rows[index.row()], index.column()
        value = row.cells[column]
        if role == Qt.ItemDataRole.DisplayRole:
            return display_text(value)
        if role == EXPORT_ROLE:
            return export_text(value)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if isinstance(value, str):
                return _LEFT
            return _CENTRE if value is None or _undefined(value) else _RIGHT
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row, column)
        if role == Qt.ItemDataRole.FontRole:
            return self._bold if row.kind != "video" else None
        if role == Qt.ItemDataRole.BackgroundRole:
            return self._highlight if column in row.rank_changes else None
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._highlight_text if column in row.rank_changes else None
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return self.swatch(row.detector)
        return None

    def _tooltip(self, row: TableRow, column: int) -> str | None:
        if column == 0:
            return row.detector
        if column == 1:
            return row.note
        value = row.cells[column]
        reason = None
        if isinstance(value, IndicatorValue) and not value.defined:
            reason = value.reason or "undefined"
        text = "; ".join(p for p in (row.rank_changes.get(column), reason) if p)
        return text or None


class IndicatorFilterModel(QSortFilterProxyModel):
    """The rows of the checked detectors; a header click sorts the source model's rows."""

    def __init__(self, source: IndicatorTableModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._source = source
        self._shown: frozenset[str] | None = None
        self.setSourceModel(source)

    def set_shown_detectors(self, names: Iterable[str]) -> None:
        """Keep only the rows of these detectors."""
        shown = frozenset(names)
        if shown != self._shown:
            self.beginFilterChange()
            self._shown = shown
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def table_row(self, row: int) -> TableRow:
        """The :class:`TableRow` shown at view row ``row``."""
        return self._source.row(self.mapToSource(self.index(row, 0)).row())

    def view_row(self, identity: tuple[str, str, str, str]) -> int:
        """The view row showing the row with this :attr:`TableRow.identity`, or -1."""
        source_row = self._source.find(identity)
        if source_row < 0:
            return -1
        return self.mapFromSource(self._source.index(source_row, 0)).row()

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:
        return self._shown is None or self._source.row(source_row).detector in self._shown

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort by ``column`` (``-1``: the result's order): the source model sorts its rows."""
        self._source.sort(column, order)
