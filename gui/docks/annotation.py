"""The Annotation dock: tools, levels, drafts, counts and the annotate-next loop.

It only shows and asks: the :class:`~referee.gui.annotation_controller.AnnotationController`
connects its buttons to the editor and the viewer and fills in what it shows.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDockWidget,
    QDoubleSpinBox,
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

from referee.core.annotation.label_maps import MIN_RADIUS
from referee.core.annotation.review import FrameStatus
from referee.core.measures.pixel import GT_LEVEL_NAMES
from referee.gui.annotation.keys import (
    COUNT_DOWN_KEY,
    COUNT_UP_KEY,
    MARK_KEY,
    NEXT_KEY,
    TOOL_KEYS,
)
from referee.gui.annotation.label_map_item import LEVEL_RGBA
from referee.gui.annotation.mask_painter import DEFAULT_RADIUS, MAX_RADIUS, Tool
from referee.gui.viewer.timeline import TRUTH_COLOURS, TRUTH_NAMES
from referee.gui.widgets.tables import filling, read_only_table

#: How the dock words the status of the frame shown.
FRAME_STATUS_TEXT: dict[FrameStatus, str] = {
    FrameStatus.NONE: "no ground truth",
    FrameStatus.GROUND_TRUTH: "ground truth",
    FrameStatus.DRAFT: "<b>draft</b>, not saved until accepted (Enter)",
    FrameStatus.ACCEPTED: "accepted; the next save writes it",
    FrameStatus.UNMARKED: "taken out of the annotated frames; the next save records it",
}


def _swatch(rgba: tuple[int, int, int, int]) -> QIcon:
    pixmap = QPixmap(14, 14)
    pixmap.fill(QColor(*rgba[:3]) if rgba[3] else QColor(0, 0, 0, 0))
    return QIcon(pixmap)


def _legend() -> QGridLayout:
    """Swatches of the five levels as the frame shows them (static is left transparent)."""
    grid = QGridLayout()
    for k, (level, name) in enumerate(GT_LEVEL_NAMES.items()):
        swatch = QLabel()
        swatch.setPixmap(_swatch(LEVEL_RGBA[level]).pixmap(14, 14))
        text = f"{name} (clear)" if not LEVEL_RGBA[level][3] else name
        grid.addWidget(swatch, k // 3, 2 * (k % 3))
        grid.addWidget(QLabel(text), k // 3, 2 * (k % 3) + 1)
    grid.setColumnStretch(5, 1)
    return grid


#: Frames a mask propagation drafts by default, and at most.
DEFAULT_PROPAGATED_FRAMES, MAX_PROPAGATED_FRAMES = 10, 200


class AnnotationDock(QDockWidget):
    """Choose a tool and a level, start a frame from a draft, count, go to the next frame.

    Signals
    -------
    tool_chosen(object)
        A :class:`Tool`.
    level_chosen(int), radius_chosen(float)
    draft_requested(str)
        ``"detector"`` or ``"consensus"``.
    mark_requested(bool), count_requested(int), next_requested()
    accept_requested()
        Accept the frame shown as ground truth.
    """

    tool_chosen = Signal(object)
    level_chosen = Signal(int)
    radius_chosen = Signal(float)
    draft_requested = Signal(str)
    #: Propagate the frame's mask: direction (``forward``/``backward``), frames.
    propagate_requested = Signal(str, int)
    mark_requested = Signal(bool)
    count_requested = Signal(int)
    next_requested = Signal()
    accept_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Annotation", parent)
        self.setObjectName("AnnotationDock")
        self.progress = QLabel("No project open.")
        self.progress.setWordWrap(True)
        self.next_button = QPushButton(f"Next suggested frame ({NEXT_KEY})")
        self.next_button.setToolTip(
            "Go to the top-ranked frame without ground truth; for masks, start it from the "
            "consensus of the detectors"
        )
        self.next_button.clicked.connect(self.next_requested)
        self.mark_button = QPushButton(f"Mark annotated ({MARK_KEY})")
        self.mark_button.setCheckable(True)
        self.mark_button.setToolTip(
            "Mark this frame annotated as it is (a draft to accept), or take it out of the "
            "annotated frames"
        )
        self.mark_button.clicked.connect(self.mark_requested)
        self.accept_button = QPushButton("Accept frame (Enter)")
        self.accept_button.setToolTip(
            "Accept this frame's draft, or the frame as painted, as ground truth: the next "
            "save writes it. Drafts not accepted are never saved as ground truth."
        )
        self.accept_button.clicked.connect(self.accept_requested)
        self.frame_state = QLabel("")
        self.frame_state.setWordWrap(True)
        self.truth_legend = QLabel(
            "Timeline, truth row: "
            + " ".join(
                f'<span style="color: rgb{TRUTH_COLOURS[status]}">■</span> {name}'
                for status, name in TRUTH_NAMES.items()
            )
        )
        self.truth_legend.setWordWrap(True)
        self.tool_buttons: dict[Tool, QPushButton] = {}
        self._tools = QButtonGroup(self)
        self.level_box = QComboBox()
        for level, name in GT_LEVEL_NAMES.items():
            self.level_box.addItem(_swatch(LEVEL_RGBA[level]), f"{name} ({level})", level)
        self.level_box.setToolTip("The ground-truth level the brush, polygon and fill paint")
        self.radius_box = QDoubleSpinBox()
        self.radius_box.setRange(MIN_RADIUS, MAX_RADIUS)
        self.radius_box.setSingleStep(1.0)
        self.radius_box.setSuffix(" px")
        self.propagate_frames = QSpinBox()
        self.propagate_frames.setRange(1, MAX_PROPAGATED_FRAMES)
        self.propagate_frames.setValue(DEFAULT_PROPAGATED_FRAMES)
        self.propagate_frames.setSuffix(" frames")
        self.propagate_frames.setToolTip("How many frames a propagation drafts")
        self.count_label = QLabel("—")
        self.changes = read_only_table(["detector", "F1", "change", "rank"])
        self.changes_note = QLabel("Save an annotated frame to see what it changes.")
        self.changes_note.setWordWrap(True)
        self.setWidget(self._layout())
        self.level_box.setCurrentIndex(self.level_box.findData(255))
        self.radius_box.setValue(DEFAULT_RADIUS)
        self.level_box.currentIndexChanged.connect(
            lambda i: self.level_chosen.emit(int(self.level_box.itemData(i)))
        )
        self.radius_box.valueChanged.connect(self.radius_chosen)

    def _layout(self) -> QWidget:
        tools = QGridLayout()
        for k, (tool, text, key) in enumerate(TOOL_KEYS):
            button = QPushButton(f"{text} ({key})")
            button.setCheckable(True)
            button.clicked.connect(lambda _=False, t=tool: self.tool_chosen.emit(t))
            self._tools.addButton(button)
            self.tool_buttons[tool] = button
            tools.addWidget(button, k // 3, k % 3)
        self.tool_buttons[Tool.NONE].setChecked(True)
        form = QFormLayout()
        form.addRow("Level", self.level_box)
        form.addRow("Brush radius", self.radius_box)
        drafts = QHBoxLayout()
        for text, source, tip in (
            ("From detector", "detector", "Start this frame from the shown detector's mask"),
            ("From consensus", "consensus", "Start this frame from the detectors' majority vote"),
        ):
            button = QPushButton(text)
            button.setToolTip(tip + " (undoable)")
            button.clicked.connect(lambda _=False, s=source: self.draft_requested.emit(s))
            drafts.addWidget(button)
        form.addRow("Draft", drafts)
        propagate = QHBoxLayout()
        propagate.addWidget(self.propagate_frames)
        for text, direction in (("◂ Back", "backward"), ("Forward ▸", "forward")):
            button = QPushButton(text)
            button.setToolTip(
                f"Carry this frame's mask {direction} by optical flow as drafts of the next "
                "frames without ground truth (undoable)"
            )
            button.clicked.connect(
                lambda _=False, d=direction: self.propagate_requested.emit(
                    d, self.propagate_frames.value()
                )
            )
            propagate.addWidget(button)
        form.addRow("Propagate", propagate)
        masks = QGroupBox("Masks (CDnet levels)")
        masks_layout = QVBoxLayout(masks)
        masks_layout.addLayout(form)
        masks_layout.addLayout(_legend())
        counts = QGroupBox("Counts")
        counts_layout = QHBoxLayout(counts)
        for text, delta, key in (("−1", -1, COUNT_DOWN_KEY), ("+1", 1, COUNT_UP_KEY)):
            button = QPushButton(f"{text} ({key})")
            button.setToolTip(f"Mark a count change of {text} at this frame")
            button.clicked.connect(lambda _=False, d=delta: self.count_requested.emit(d))
            counts_layout.addWidget(button)
        counts_layout.addWidget(self.count_label, 1)
        changes = QGroupBox("What the last saved frame changed")
        changes_layout = QVBoxLayout(changes)
        changes_layout.addWidget(self.changes_note)
        changes_layout.addWidget(self.changes)
        widget = QWidget()
        layout = QVBoxLayout(widget)
        layout.addWidget(self.progress)
        layout.addWidget(self.next_button)
        layout.addWidget(self.frame_state)
        layout.addWidget(self.truth_legend)
        review = QHBoxLayout()
        review.addWidget(self.accept_button)
        review.addWidget(self.mark_button)
        layout.addLayout(review)
        layout.addLayout(tools)
        layout.addWidget(masks)
        layout.addWidget(counts)
        layout.addWidget(changes, 1)
        return widget

    def show_tool(self, tool: Tool) -> None:
        """Check the button of ``tool`` (chosen by key or by click)."""
        self.tool_buttons[tool].setChecked(True)

    def show_progress(self, annotated: int, total: int, drafts: int, unsaved: bool) -> None:
        """How many frames have ground truth, how many drafts wait, whether edits are unsaved."""
        share = f" ({annotated / total:.0%})" if total else ""
        waiting = f" · {drafts:,} draft{'s' if drafts != 1 else ''} to accept" if drafts else ""
        note = " · unsaved changes" if unsaved else ""
        self.progress.setText(
            f"<b>{annotated:,} of {total:,}</b> frames annotated{share}{waiting}{note}"
        )

    def show_frame_state(self, status: FrameStatus | None, count: int | None) -> None:
        """The status of the frame shown (``None``: not a CDnet frame) and its count."""
        self.mark_button.setEnabled(status is not None)
        self.mark_button.setChecked(status is not None and status is not FrameStatus.NONE)
        self.accept_button.setEnabled(
            status in (FrameStatus.NONE, FrameStatus.DRAFT, FrameStatus.UNMARKED)
        )
        self.frame_state.setText(
            "" if status is None else f"This frame: {FRAME_STATUS_TEXT[status]}"
        )
        self.count_label.setText("count —" if count is None else f"count at this frame: {count}")

    def show_changes(self, rows: Sequence[tuple[str, str, str, str]], note: str) -> None:
        """Per detector: name, F1 now, change since the last save, rank (and its change)."""
        self.changes_note.setText(note)
        self.changes.setRowCount(len(rows))
        with filling(self.changes):
            for r, row in enumerate(rows):
                for c, text in enumerate(row):
                    item = QTableWidgetItem(text)
                    if c:
                        item.setTextAlignment(
                            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                        )
                    self.changes.setItem(r, c, item)

    @property
    def changes_table(self) -> QTableWidget:
        return self.changes
