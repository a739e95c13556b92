"""The Boxes dock: LIRIS actions or MOTChallenge tracks under edit, and the tracker.

It only shows and asks: :class:`~referee.gui.box_controller.BoxController`
makes the edits. The list shows each item's number (or track id), class, frame
span and keyframe count; selecting one row asks to go to it, two can be merged.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from referee.core.annotation.propagation import TRACKERS
from referee.core.model.annotations import ACTION_CLASSES
from referee.gui.annotation.box_tool import PEN_STYLES, Style
from referee.gui.annotation.keys import BOX_KEYS, CLASS_KEYS
from referee.gui.widgets.tables import filling, read_only_table

#: What the dock edits: LIRIS actions or MOTChallenge tracks.
ACTIONS, TRACKS = "actions", "tracks"
KIND_TEXT = {ACTIONS: "LIRIS actions", TRACKS: "MOTChallenge tracks"}
#: Frames a propagation follows unless the annotator says otherwise.
DEFAULT_PROPAGATION_FRAMES = 25


def _style_sample(style: Style) -> QPixmap:
    """A short line drawn as boxes of ``style`` are."""
    pixmap = QPixmap(34, 12)
    pixmap.fill(QColor(0, 0, 0, 0))
    painter = QPainter(pixmap)
    painter.setPen(QPen(QColor(120, 120, 120), 2, PEN_STYLES[style]))
    painter.drawLine(QPointF(1, 6), QPointF(33, 6))
    painter.end()
    return pixmap


def _legend() -> QHBoxLayout:
    row = QHBoxLayout()
    for style in Style:
        sample = QLabel()
        sample.setPixmap(_style_sample(style))
        row.addWidget(sample)
        row.addWidget(QLabel(style.value))
        row.addSpacing(6)
    row.addStretch(1)
    return row


def _cell(text: str, right: bool) -> QTableWidgetItem:
    """A cell of the item list, right-aligned (numbers) or not."""
    item = QTableWidgetItem(text)
    if right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


#: Short button captions, so the dock fits a laptop's side panel (tool tips say it whole).
BUTTON_TEXT = {
    "keyframe": "Keyframe",
    "end": "End",
    "split": "Split",
    "merge": "Merge two",
    "delete_box": "Delete box",
    "delete_keyframe": "Delete keyframe",
    "delete_item": "Delete item",
    "propagate": "Propagate",
}


class BoxesDock(QDockWidget):
    """Choose what to edit and the class; list the items; edit, propagate, accept.

    Signals
    -------
    kind_chosen(str)
        :data:`ACTIONS` or :data:`TRACKS`.
    class_chosen(int)
        A LIRIS class, 1–10.
    rows_selected(object)
        The selected rows, a list of indices into the rows last shown.
    command(str)
        One of the commands of :data:`~referee.gui.annotation.keys.BOX_KEYS`, or ``"discard"``.
    """

    kind_chosen = Signal(str)
    class_chosen = Signal(int)
    rows_selected = Signal(object)
    command = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Boxes", parent)
        self.setObjectName("BoxesDock")
        self.kind_box = QComboBox()
        for kind, text in KIND_TEXT.items():
            self.kind_box.addItem(text, kind)
        self.kind_box.setToolTip("Edit the project's ground-truth actions or its tracks")
        self.class_box = QComboBox()
        for (number, (_, name)), key in zip(ACTION_CLASSES.items(), CLASS_KEYS):
            self.class_box.addItem(f"{name} ({key})", number)
        self.class_box.setToolTip(
            "Class of new actions; with an action selected, also changes its class (keys 1–0)"
        )
        self.items = read_only_table(["#", "class", "frames", "keyframes"])
        self.items.setSelectionMode(QTableWidget.SelectionMode.ExtendedSelection)
        self.items.setToolTip("Select one to go to its first frame; select two to merge them")
        self._rows: list[tuple[str, str, str, str]] = []  # as last shown
        self.empty_note = QLabel()
        self.empty_note.setWordWrap(True)
        self.buttons: dict[str, QPushButton] = {}
        self.tracker_box = QComboBox()
        self.tracker_box.addItems([name.upper() for name in TRACKERS])
        self.tracker_box.setToolTip("OpenCV tracker that follows the selected box")
        self.frames_box = QSpinBox()
        self.frames_box.setRange(1, 10_000)
        self.frames_box.setValue(DEFAULT_PROPAGATION_FRAMES)
        self.frames_box.setSuffix(" frames")
        self.drafts_note = QLabel("No drafts.")
        self.drafts_note.setWordWrap(True)
        self.setWidget(self._layout())
        self.kind_box.currentIndexChanged.connect(
            lambda i: self.kind_chosen.emit(str(self.kind_box.itemData(i)))
        )
        self.class_box.activated.connect(
            lambda i: self.class_chosen.emit(int(self.class_box.itemData(i)))
        )
        self.items.itemSelectionChanged.connect(self._on_selection)

    def _layout(self) -> QWidget:
        form = QFormLayout()
        form.addRow("Edit", self.kind_box)
        form.addRow("Class", self.class_box)
        edits = QGridLayout()
        for k, (name, text, key) in enumerate(BOX_KEYS[:7]):
            edits.addWidget(self._button(name, text, key), k // 2, k % 2)
        tracker = QGroupBox("Propagate the selected box")
        tracker_layout = QGridLayout(tracker)
        tracker_layout.addWidget(self.tracker_box, 0, 0)
        tracker_layout.addWidget(self.frames_box, 0, 1)
        tracker_layout.addWidget(self._button(*BOX_KEYS[7]), 1, 0, 1, 2)
        tracker_layout.addWidget(self._button(*BOX_KEYS[8]), 2, 0)
        discard = QPushButton("Discard drafts")
        discard.clicked.connect(lambda: self.command.emit("discard"))
        self.buttons["discard"] = discard
        tracker_layout.addWidget(discard, 2, 1)
        tracker_layout.addWidget(self.drafts_note, 3, 0, 1, 2)
        widget = QWidget()
        layout = QVBoxLayout(widget)
        layout.addLayout(form)
        layout.addLayout(_legend())
        layout.addWidget(self.empty_note)
        layout.addWidget(self.items, 1)
        layout.addLayout(edits)
        layout.addWidget(tracker)
        return widget

    def _button(self, name: str, text: str, key: str) -> QPushButton:
        button = QPushButton(f"{BUTTON_TEXT.get(name, text)} ({key})")
        button.setToolTip(f"{text} ({key})")
        button.clicked.connect(lambda: self.command.emit(name))
        self.buttons[name] = button
        return button

    # --- what it shows ----------------------------------------------------------------------

    @property
    def kind(self) -> str:
        return str(self.kind_box.currentData())

    def show_kind(self, kind: str) -> None:
        """Show ``kind`` as chosen (without asking for it)."""
        self.kind_box.blockSignals(True)
        self.kind_box.setCurrentIndex(self.kind_box.findData(kind))
        self.kind_box.blockSignals(False)
        self.class_box.setEnabled(kind == ACTIONS)
        self.buttons["delete_item"].setText(
            f"Delete the whole {'action' if kind == ACTIONS else 'track'} (Ctrl+Del)"
        )

    def show_class(self, action_class: int) -> None:
        self.class_box.setCurrentIndex(self.class_box.findData(action_class))

    @property
    def tracker(self) -> str:
        return self.tracker_box.currentText().lower()

    def show_items(self, rows: Sequence[tuple[str, str, str, str]], selected: int | None) -> None:
        """One row per item: number (or id), class, frame span, keyframes; ``selected`` row.

        It is asked on every frame: the list is filled again only when its rows change."""
        wanted = [] if selected is None else [selected]
        if list(rows) == self._rows and self.selected_rows() == wanted:
            return
        self.items.blockSignals(True)
        self.items.clearSelection()
        if list(rows) != self._rows:
            self._rows = list(rows)
            self.items.setRowCount(len(rows))
            with filling(self.items):
                for r, row in enumerate(rows):
                    for c, text in enumerate(row):
                        self.items.setItem(r, c, _cell(text, right=c != 1))
        if selected is not None:
            self.items.selectRow(selected)
        self.items.blockSignals(False)

    def show_empty(self, text: str) -> None:
        """Say why the list is empty and what to do (an empty ``text`` hides the note)."""
        self.empty_note.setText(text)
        self.empty_note.setVisible(bool(text))

    def show_drafts(self, text: str, available: bool) -> None:
        self.drafts_note.setText(text)
        self.buttons["accept"].setEnabled(available)
        self.buttons["discard"].setEnabled(available)

    def selected_rows(self) -> list[int]:
        return sorted({index.row() for index in self.items.selectionModel().selectedRows()})

    def _on_selection(self) -> None:
        self.rows_selected.emit(self.selected_rows())
