"""Frame navigation: slider, frame box, transport buttons, playback, a per-frame strip, the
frames with ground truth (saved, accepted, drafts) and the cached-frames bar.

Keyboard shortcuts are installed by the main window; the buttons' tooltips name them.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from pyqtgraph.GraphicsScene.mouseEvents import MouseClickEvent
from PySide6.QtCore import QPointF, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QSlider,
    QSpinBox,
    QStyle,
    QStyleOptionGraphicsItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from referee.core.annotation.review import FrameStatus
from referee.core.colours import OKABE_ITO
from referee.core.model.frame_set import FrameSet

STRIP_HEIGHT = 114
#: The smallest font size of the strip's captions, in points.
CAPTION_POINT_SIZE = 9.0
_CACHED_BAR_HEIGHT = 12
_MARKS_ROW_HEIGHT = 14
_AXIS_WIDTH = 44
_CAPTION_PADDING = 4
_CACHED_TOOLTIP = (
    "Cached frames: decoded and kept in memory, so showing them is instant. "
    "Frames outside the green runs are decoded when you go to them."
)
_MARK_TOOLTIP = (
    "frames flagged as problems (e.g. many false positives, identity switches, high disagreement)"
)


@dataclass(frozen=True)
class MarkSeries:
    """Marked frames of one kind, drawn as ``symbol`` (a pyqtgraph symbol) in ``rgb``."""

    name: str
    frames: Sequence[int]
    rgb: tuple[int, int, int] = OKABE_ITO["vermillion"]
    symbol: str = "t"


#: The colour of each status on the truth row, in the order the legend lists them.
TRUTH_COLOURS: dict[FrameStatus, tuple[int, int, int]] = {
    FrameStatus.GROUND_TRUTH: OKABE_ITO["blue"],
    FrameStatus.ACCEPTED: OKABE_ITO["bluish green"],
    FrameStatus.DRAFT: OKABE_ITO["orange"],
    FrameStatus.UNMARKED: OKABE_ITO["vermillion"],
}
#: What the truth row's colours mean.
TRUTH_NAMES: dict[FrameStatus, str] = {
    FrameStatus.GROUND_TRUTH: "ground truth",
    FrameStatus.ACCEPTED: "accepted, not saved yet",
    FrameStatus.DRAFT: "draft to accept",
    FrameStatus.UNMARKED: "taken out, not saved yet",
}
_TRUTH_TOOLTIP = (
    "Frames with ground truth: blue saved; bluish green accepted, not saved yet; orange "
    "drafts to accept (Enter); vermillion taken out, not saved yet"
)


def caption_font() -> QFont:
    """The application's font, at least :data:`CAPTION_POINT_SIZE` points: small, legible."""
    font = QFont(QApplication.font())
    font.setPointSizeF(max(font.pointSizeF(), CAPTION_POINT_SIZE))
    return font


class RowLabel(pg.GraphicsWidget):
    """The name of a row of the strip, right-aligned in the caption font and the palette's
    text colour (legible in both themes)."""

    def __init__(self, text: str, tooltip: str, height: int) -> None:
        super().__init__()
        self.text = text
        self.text_font = caption_font()
        self.setToolTip(tooltip)
        self.setFixedHeight(height)
        self.setPreferredWidth(
            QFontMetrics(self.text_font).horizontalAdvance(text) + 2 * _CAPTION_PADDING
        )

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem | None = None,
        widget: QWidget | None = None,
    ) -> None:
        """Draw the text right-aligned, its letters centred on the row's height."""
        metrics = QFontMetrics(self.text_font)
        ink = metrics.tightBoundingRect(self.text)
        rect = self.rect()
        baseline = (rect.height() + ink.height()) / 2 - (ink.bottom() + 1)
        left = rect.width() - _CAPTION_PADDING - metrics.horizontalAdvance(self.text)
        painter.setFont(self.text_font)
        painter.setPen(QApplication.palette().color(QPalette.ColorRole.Text))
        painter.drawText(QPointF(left, baseline), self.text)


class TimelineWidget(QWidget):
    """Chooses the current frame; plays at a set rate; shows a per-frame strip and the cache.

    User actions (buttons, slider, frame box, strip clicks, playback and the
    public slots) emit :attr:`frame_changed`; :meth:`set_frame` does not.

    Signals
    -------
    frame_changed(int)
        The user moved to another frame.
    """

    frame_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._first, self._last, self._frame = 0, 0, 0
        self._marks: list[int] = []
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._on_tick)
        self.set_fps(25.0)
        self._slider = QSlider(Qt.Orientation.Horizontal)
        self._slider.setToolTip("Current frame")
        self._slider.valueChanged.connect(self._go_to)
        self._spin_box = QSpinBox()
        self._spin_box.setKeyboardTracking(False)
        self._spin_box.setToolTip("Current frame number: type one and press Enter")
        self._spin_box.setAccessibleName("Frame number")
        self._spin_box.valueChanged.connect(self._go_to)
        self._play_button = self._make_button(
            "", "Play / pause (Space)", self.toggle_play, QStyle.StandardPixmap.SP_MediaPlay
        )
        self._mark_buttons = (
            self._make_button(
                "◂ Mark", f"Previous marked frame ([): {_MARK_TOOLTIP}", self.previous_marked
            ),
            self._make_button(
                "Mark ▸", f"Next marked frame (]): {_MARK_TOOLTIP}", self.next_marked
            ),
        )
        self._strip = self._make_strip()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(self._make_controls_row())
        layout.addWidget(self._strip)
        self._update_marks_enabled()
        self.set_range(0, 0)

    # -- construction -------------------------------------------------------------------------

    def _make_button(
        self,
        text: str,
        tooltip: str,
        slot: Callable[[], None],
        icon: QStyle.StandardPixmap | None = None,
    ) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        if icon is not None:
            button.setIcon(self.style().standardIcon(icon))
        button.setToolTip(tooltip)
        button.setAccessibleName(tooltip.split(" (")[0])
        button.clicked.connect(lambda: slot())
        return button

    def _make_controls_row(self) -> QHBoxLayout:
        pixmap = QStyle.StandardPixmap
        row = QHBoxLayout()
        row.setSpacing(2)
        for button in (
            self._make_button(
                "", "First frame (Home)", self.go_to_first, pixmap.SP_MediaSkipBackward
            ),
            self._make_button("−10", "Back 10 frames (Shift+Left)", lambda: self.step(-10)),
            self._make_button("−1", "Previous frame (Left)", lambda: self.step(-1)),
            self._play_button,
            self._make_button("+1", "Next frame (Right)", lambda: self.step(1)),
            self._make_button("+10", "Forward 10 frames (Shift+Right)", lambda: self.step(10)),
            self._make_button("", "Last frame (End)", self.go_to_last, pixmap.SP_MediaSkipForward),
            *self._mark_buttons,
        ):
            row.addWidget(button)
        row.addWidget(self._slider, 1)
        row.addWidget(self._spin_box)
        return row

    def _make_strip(self) -> pg.GraphicsLayoutWidget:
        """Per-frame values over the cached-frames bar, sharing one frame axis."""
        strip = pg.GraphicsLayoutWidget()
        strip.setFixedHeight(STRIP_HEIGHT)
        strip.ci.setContentsMargins(0, 2, 4, 0)
        strip.ci.setSpacing(0)
        self._strip_view = self._make_strip_view_box()
        self._marks_view = self._make_strip_view_box()
        self._cached_view = self._make_strip_view_box()
        self._truth_view = self._make_strip_view_box()
        self._marks_view.setToolTip(f"Marked frames: {_MARK_TOOLTIP}")
        self._cached_view.setToolTip(_CACHED_TOOLTIP)
        self._truth_view.setToolTip(_TRUTH_TOOLTIP)
        self.row_labels = (
            RowLabel("marks", self._marks_view.toolTip(), _MARKS_ROW_HEIGHT),
            RowLabel("truth", _TRUTH_TOOLTIP, _CACHED_BAR_HEIGHT),
            RowLabel("cached", _CACHED_TOOLTIP, _CACHED_BAR_HEIGHT),
        )
        self._value_axis = pg.AxisItem("left")
        # The row names and the value axis share the left column: as wide as the widest.
        self._value_axis.setWidth(
            max(_AXIS_WIDTH, *(label.preferredWidth() for label in self.row_labels))
        )
        self._value_axis.linkToView(self._strip_view)
        self._curve = pg.PlotDataItem()
        self._strip_view.addItem(self._curve)
        self._strip_label = pg.LabelItem("", size=f"{caption_font().pointSizeF():g}pt")
        self._strip_label.setParentItem(self._strip_view)
        self._strip_label.anchor(itemPos=(0, 0), parentPos=(0, 0), offset=(4, 0))
        self._cursor = pg.InfiniteLine(
            angle=90, movable=False, pen=pg.mkPen(OKABE_ITO["orange"], width=2)
        )
        self._strip_view.addItem(self._cursor, ignoreBounds=True)
        self._marks_view.setFixedHeight(_MARKS_ROW_HEIGHT)
        self._marks_view.setXLink(self._strip_view)
        self._marks_view.setYRange(0, 1, padding=0)
        self._mark_points = pg.ScatterPlotItem(
            symbol="t", size=8, pen=None, brush=OKABE_ITO["vermillion"]
        )
        self._marks_view.addItem(self._mark_points)
        self._cached_view.setFixedHeight(_CACHED_BAR_HEIGHT)
        self._cached_view.setXLink(self._strip_view)
        self._cached_view.setYRange(0, 1, padding=0)
        self._cached_view.setBackgroundColor((60, 60, 60))
        self._cached_bars = pg.BarGraphItem(
            x0=[], width=[], y0=0, height=1, brush=OKABE_ITO["grey"], pen=None
        )
        self._cached_view.addItem(self._cached_bars)
        self._truth_view.setFixedHeight(_CACHED_BAR_HEIGHT)
        self._truth_view.setXLink(self._strip_view)
        self._truth_view.setYRange(0, 1, padding=0)
        self.truth_bars = {
            status: pg.BarGraphItem(x0=[], width=[], y0=0.1, height=0.8, brush=colour, pen=None)
            for status, colour in TRUTH_COLOURS.items()
        }
        for bars in self.truth_bars.values():
            self._truth_view.addItem(bars)
        frame_axis = pg.AxisItem("bottom")
        frame_axis.linkToView(self._strip_view)
        strip.addItem(self._value_axis, row=0, col=0)
        strip.addItem(self._strip_view, row=0, col=1)
        strip.addItem(self.row_labels[0], row=1, col=0)
        strip.addItem(self._marks_view, row=1, col=1)
        strip.addItem(self.row_labels[1], row=2, col=0)
        strip.addItem(self._truth_view, row=2, col=1)
        strip.addItem(self.row_labels[2], row=3, col=0)
        strip.addItem(self._cached_view, row=3, col=1)
        strip.addItem(frame_axis, row=4, col=1)
        strip.scene().sigMouseClicked.connect(self._on_strip_clicked)
        return strip

    @staticmethod
    def _make_strip_view_box() -> pg.ViewBox:
        view = pg.ViewBox(enableMenu=False)
        view.setMouseEnabled(x=False, y=False)
        return view

    # -- frame ---------------------------------------------------------------------------------

    def set_range(self, first: int, last: int) -> None:
        """Frames the user can reach, inclusive; the current frame is clamped silently."""
        self._first, self._last = first, max(first, last)
        for widget in (self._slider, self._spin_box):
            widget.blockSignals(True)
            widget.setRange(self._first, self._last)
            widget.blockSignals(False)
        self._strip_view.setXRange(self._first - 0.5, self._last + 0.5, padding=0)
        self.set_frame(self._frame)

    def frame(self) -> int:
        """The current frame number."""
        return self._frame

    def set_frame(self, frame: int) -> None:
        """Show ``frame`` (clamped to the range) as current, without emitting :attr:`frame_changed`."""
        self._frame = min(max(frame, self._first), self._last)
        for widget in (self._slider, self._spin_box):
            widget.blockSignals(True)
            widget.setValue(self._frame)
            widget.blockSignals(False)
        self._cursor.setValue(self._frame)

    @Slot(int)
    def _go_to(self, frame: int) -> None:
        previous = self._frame
        self.set_frame(frame)
        if self._frame != previous:
            self.frame_changed.emit(self._frame)

    @Slot(int)
    def step(self, frames: int) -> None:
        """Move ``frames`` frames forward (negative: back), stopping at the ends."""
        self._go_to(self._frame + frames)

    @Slot()
    def go_to_first(self) -> None:
        """Move to the first frame."""
        self._go_to(self._first)

    @Slot()
    def go_to_last(self) -> None:
        """Move to the last frame."""
        self._go_to(self._last)

    # -- marks ---------------------------------------------------------------------------------

    def set_marks(self, frames: Sequence[int]) -> None:
        """Frames worth a look (e.g. many false positives), reached with the mark buttons."""
        self.set_mark_series([MarkSeries("flagged", frames)], f"Marked frames: {_MARK_TOOLTIP}")

    def set_mark_series(self, series: Sequence[MarkSeries], meaning: str) -> None:
        """Marks of several kinds (e.g. identity switches and fragmentations), each in its
        colour and symbol; the mark buttons reach every one. ``meaning`` is the row's tooltip."""
        points = sorted(
            {int(f): s for s in reversed(series) for f in s.frames}.items()
        )  # a frame marked twice shows its first series
        self._marks = [frame for frame, _ in points]
        self._mark_points.setData(
            x=self._marks,
            y=[0.5] * len(points),
            symbol=[s.symbol for _, s in points],
            brush=[pg.mkBrush(s.rgb) for _, s in points],
        )
        self._marks_view.setToolTip(meaning)
        self.row_labels[0].setToolTip(meaning)
        self._update_marks_enabled()

    def _update_marks_enabled(self) -> None:
        for button in self._mark_buttons:
            button.setEnabled(bool(self._marks))

    @Slot()
    def next_marked(self) -> None:
        """Move to the first marked frame after the current one, if any."""
        index = bisect.bisect_right(self._marks, self._frame)
        if index < len(self._marks):
            self._go_to(self._marks[index])

    @Slot()
    def previous_marked(self) -> None:
        """Move to the last marked frame before the current one, if any."""
        index = bisect.bisect_left(self._marks, self._frame)
        if index > 0:
            self._go_to(self._marks[index - 1])

    # -- playback ------------------------------------------------------------------------------

    def set_fps(self, fps: float) -> None:
        """Playback rate in frames per second."""
        if fps <= 0:
            raise ValueError(f"playback rate must be positive, not {fps} frames per second")
        self._timer.setInterval(max(1, round(1000 / fps)))

    @property
    def playing(self) -> bool:
        """Whether playback is running."""
        return self._timer.isActive()

    @Slot()
    def toggle_play(self) -> None:
        """Start playback (from the first frame if at the last) or pause it."""
        if self.playing:
            self._stop()
            return
        if self._frame >= self._last:
            self._go_to(self._first)
        self._timer.start()
        self._play_button.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPause))

    def _stop(self) -> None:
        self._timer.stop()
        self._play_button.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPlay))

    @Slot()
    def _on_tick(self) -> None:
        self.step(1)
        if self._frame >= self._last:
            self._stop()

    # -- strip ---------------------------------------------------------------------------------

    def set_strip(
        self,
        frames: Sequence[int] | np.ndarray,
        values: Sequence[float] | np.ndarray,
        label: str,
        colour: tuple[int, int, int] = OKABE_ITO["blue"],
    ) -> None:
        """Plot one value per frame under the controls (e.g. a detector's F1, in its
        ``colour``); ``label`` names it."""
        points = np.asarray(values, dtype=float)
        self._curve.setData(np.asarray(frames, dtype=float), points)
        self._curve.setPen(pg.mkPen(colour, width=1.5))
        self._strip_label.setText(label, color=colour)
        finite = points[np.isfinite(points)]
        low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        self._value_axis.setTicks([[(value, f"{value:.3g}") for value in {low, high}]])
        self._strip_view.setYRange(low, high, padding=0.25)

    def set_cached(self, frames: Sequence[int]) -> None:
        """Frames the frame source holds in memory, drawn as runs on the thin bar."""
        runs = np.array(FrameSet.of(frames).runs, dtype=float).reshape(-1, 2)
        self._cached_bars.setOpts(x0=runs[:, 0] - 0.5, width=runs[:, 1] - runs[:, 0] + 1)

    def set_truth(self, saved: FrameSet, changed: Mapping[int, FrameStatus]) -> None:
        """The frames with ground truth on disk (``saved``) and those whose status differs
        (accepted, drafts, taken out), each drawn as runs in its colour on the truth row."""
        frames = {status: FrameSet() for status in TRUTH_COLOURS}
        frames[FrameStatus.GROUND_TRUTH] = saved.difference(FrameSet.of(changed))
        for status in TRUTH_COLOURS:
            chosen = FrameSet.of(f for f, s in changed.items() if s is status)
            frames[status] = frames[status].union(chosen)
        for status, bars in self.truth_bars.items():
            runs = np.array(frames[status].runs, dtype=float).reshape(-1, 2)
            bars.setOpts(x0=runs[:, 0] - 0.5, width=runs[:, 1] - runs[:, 0] + 1)

    def _on_strip_clicked(self, event: MouseClickEvent) -> None:
        """Jump to the frame under a left click on the strip or the bars under it."""
        if event.button() == Qt.MouseButton.LeftButton:
            self._go_to(round(self._strip_view.mapSceneToView(event.scenePos()).x()))

    @property
    def strip_view_box(self) -> pg.ViewBox:
        """The view box of the strip, whose x coordinate is the frame number."""
        return self._strip_view
