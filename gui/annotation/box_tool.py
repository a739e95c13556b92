"""Drawing, moving and resizing boxes on the frame shown, and drawing them as they are.

While the box tool is chosen, :class:`BoxTool` draws the ground-truth boxes
of one frame over a :class:`FrameView` — keyframes solid, interpolated boxes
dashed, a tracker's drafts dotted, with a legend saying so — and turns the mouse into
gestures: drag on empty ground to draw a box, drag inside a box to move
it, drag an edge or a corner of the selected box to resize it. It edits
nothing itself; it says what was drawn or changed and the controller makes the
edit.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QGraphicsRectItem, QGraphicsSceneMouseEvent

from referee.core.annotation.keyframes import Box
from referee.gui.viewer.box_overlay import PEN_STYLES as LINE_PEN_STYLES
from referee.gui.viewer.box_overlay import BoxOverlay, box_pen
from referee.gui.viewer.frame_view import FrameView
from referee.gui.widgets.palette import BoxDrawing, BoxLine, LegendEntry

#: How near an edge the mouse must be to grab it, in screen pixels.
GRAB_PIXELS = 6
#: The smallest box a drag draws, in image pixels (a click draws nothing).
MIN_DRAWN_SIDE = 2.0
_Z = 60
#: Colour of a tracker's drafts, white as the box being drawn: proposals, not yet
#: ground truth (whose boxes are in the ground-truth yellow).
DRAFT_RGB = (255, 255, 255)

_PRESS = QEvent.Type.GraphicsSceneMousePress
_MOVE = QEvent.Type.GraphicsSceneMouseMove
_RELEASE = QEvent.Type.GraphicsSceneMouseRelease


class Style(enum.Enum):
    """How a box is drawn: what the legend over the frame (and in the Boxes dock) explains."""

    KEYFRAME = "keyframe"
    INTERPOLATED = "interpolated"
    DRAFT = "tracker draft"


#: Line of each :class:`Style`, and what the legend says it is.
STYLE_LINES: dict[Style, BoxLine] = {
    Style.KEYFRAME: BoxLine.SOLID,
    Style.INTERPOLATED: BoxLine.DASHED,
    Style.DRAFT: BoxLine.DOTTED,
}
STYLE_MEANINGS: dict[Style, str] = {
    Style.KEYFRAME: "ground truth, keyframe",
    Style.INTERPOLATED: "ground truth, interpolated",
    Style.DRAFT: "tracker draft",
}
#: Pen style of each :class:`Style`.
PEN_STYLES: dict[Style, Qt.PenStyle] = {
    style: LINE_PEN_STYLES[line] for style, line in STYLE_LINES.items()
}


#: The key of a tracker's draft: it can be moved and resized like any box.
DRAFT_KEY = -1


@dataclass(frozen=True)
class ShownBox:
    """A box to draw: ``key`` is what the tool reports when it is grabbed (:data:`DRAFT_KEY`
    for a tracker's draft, ``None`` for a box that cannot be grabbed)."""

    key: int | None
    box: Box
    style: Style
    label: str
    colour: tuple[int, int, int]


class _Grab(enum.Enum):
    DRAW = "draw"
    MOVE = "move"
    RESIZE = "resize"


class BoxTool(QObject):
    """The boxes of one frame over ``view``, and the mouse gestures that edit them.

    Signals
    -------
    pressed(object)
        The key of the box pressed, or ``None`` for empty ground.
    drawn(object)
        A new box ``(x, y, w, h)`` was drawn.
    changed(int, object)
        The box of key ``int`` was moved or resized to ``(x, y, w, h)``.
    """

    pressed = Signal(object)
    drawn = Signal(object)
    changed = Signal(int, object)

    def __init__(self, view: FrameView) -> None:
        super().__init__(view)
        self.view = view
        self.active = False
        self.boxes: list[ShownBox] = []
        self.selected: int | None = None
        self._overlay = BoxOverlay(view.view_box, _Z)
        self._handles: list[QGraphicsRectItem] = []
        self._preview = QGraphicsRectItem()
        self._preview.setPen(box_pen(DRAFT_RGB, BoxLine.DASHED, 2))
        self._preview.setZValue(_Z + 5)
        self._preview.setVisible(False)
        view.view_box.addItem(self._preview)
        self._grab: _Grab | None = None
        self._edges: tuple[bool, bool, bool, bool] = (False, False, False, False)
        self._start: tuple[float, float] = (0.0, 0.0)
        self._original: Box = (0.0, 0.0, 0.0, 0.0)
        self._current: Box | None = None
        view.view_box.scene().installEventFilter(self)

    # --- what is drawn ----------------------------------------------------------------------

    def set_active(self, active: bool) -> None:
        """Whether the mouse draws and edits boxes (otherwise it pans and zooms); the
        editable boxes are drawn only meanwhile, so that they do not cover a mask at work."""
        self.active = active
        self._grab = None
        self._preview.setVisible(False)
        self._redraw()

    def show(self, boxes: Sequence[ShownBox], selected: int | None) -> None:
        """Draw ``boxes`` (while active); the box whose key is ``selected`` gets handles."""
        self.boxes, self.selected = list(boxes), selected
        self._redraw()

    def _redraw(self) -> None:
        for handle in self._handles:
            self.view.view_box.removeItem(handle)
        self._handles = []
        if not self.active:
            self._overlay.show([], [])
            return
        drawings = [self._drawing(shown) for shown in self.boxes]
        legend = [
            LegendEntry(STYLE_MEANINGS[style], first.colour, STYLE_LINES[style])
            for style in Style
            if (first := next((b for b in self.boxes if b.style is style), None)) is not None
        ]
        self._overlay.show(drawings, legend, self.view.image_size)
        chosen = self._box_of(self.selected)
        if chosen is not None:
            self._handles = self._make_handles(chosen.box, chosen.colour)
        for handle in self._handles:
            self.view.view_box.addItem(handle)

    def _drawing(self, shown: ShownBox) -> BoxDrawing:
        x, y, w, h = shown.box
        chosen = shown.key is not None and shown.key == self.selected
        line = STYLE_LINES[shown.style]
        return BoxDrawing(x, y, w, h, shown.label, shown.colour, line, highlighted=chosen)

    def rect_items(self) -> list[QGraphicsRectItem]:
        """The rectangles drawn (boxes, then handles), for tests and screenshots."""
        return [*self._overlay.rect_items(), *self._handles]

    @property
    def overlay(self) -> BoxOverlay:
        """The boxes, labels and legend drawn (for tests and screenshots)."""
        return self._overlay

    def _make_handles(self, box: Box, colour: tuple[int, int, int]) -> list[QGraphicsRectItem]:
        """Small squares on the corners and edge middles of the selected box."""
        x, y, w, h = box
        side = GRAB_PIXELS * self._pixel_size()
        handles = []
        for hx in (x, x + w / 2, x + w):
            for hy in (y, y + h / 2, y + h):
                if (hx, hy) == (x + w / 2, y + h / 2):
                    continue
                handle = QGraphicsRectItem(hx - side / 2, hy - side / 2, side, side)
                handle.setPen(box_pen((0, 0, 0), BoxLine.SOLID, 1))
                handle.setBrush(QBrush(QColor(*colour)))
                handle.setZValue(_Z + 3)
                handles.append(handle)
        return handles

    def _pixel_size(self) -> float:
        """Image pixels per screen pixel (1 before the view is laid out)."""
        size = self.view.view_box.viewPixelSize()
        return float(size[0]) if size[0] > 0 else 1.0

    # --- gestures (also called by tests) ------------------------------------------------------

    def press(self, x: float, y: float) -> None:
        """The button went down at image point ``(x, y)``."""
        self._start, self._current = (x, y), None
        selected = self._box_of(self.selected)
        edges = self._edges_near(selected.box, x, y) if selected is not None else None
        if selected is not None and edges is not None:
            self._grab, self._edges, self._original = _Grab.RESIZE, edges, selected.box
            return
        hit = self._hit(x, y)
        if hit is not None:
            self.pressed.emit(hit.key)
            self._grab, self._original = _Grab.MOVE, hit.box
            self.selected = hit.key
            return
        self.pressed.emit(None)
        self._grab = _Grab.DRAW

    def drag(self, x: float, y: float) -> None:
        """The mouse moved to ``(x, y)`` with the button down."""
        if self._grab is None:
            return
        x0, y0 = self._start
        if self._grab is _Grab.DRAW:
            box = (min(x0, x), min(y0, y), abs(x - x0), abs(y - y0))
        elif self._grab is _Grab.MOVE:
            ox, oy, w, h = self._original
            box = (ox + x - x0, oy + y - y0, w, h)
        else:
            box = _resized(self._original, self._edges, x - x0, y - y0)
        self._current = self._clipped(box)
        self._preview.setRect(QRectF(*self._current))
        self._preview.setVisible(True)

    def release(self) -> None:
        """The button went up: report the box drawn, moved or resized."""
        grab, box = self._grab, self._current
        self._grab, self._current = None, None
        self._preview.setVisible(False)
        if grab is None or box is None:
            return
        if grab is _Grab.DRAW:
            if box[2] >= MIN_DRAWN_SIDE and box[3] >= MIN_DRAWN_SIDE:
                self.drawn.emit(box)
        elif self.selected is not None and box != self._original:
            self.changed.emit(self.selected, box)

    def _box_of(self, key: int | None) -> ShownBox | None:
        return next((b for b in self.boxes if key is not None and b.key == key), None)

    def _hit(self, x: float, y: float) -> ShownBox | None:
        """The editable box under ``(x, y)``: the selected one first, then the smallest."""
        inside = [
            b
            for b in self.boxes
            if b.key is not None
            and b.box[0] <= x <= b.box[0] + b.box[2]
            and b.box[1] <= y <= b.box[1] + b.box[3]
        ]
        inside.sort(key=lambda b: (b.key != self.selected, b.box[2] * b.box[3]))
        return inside[0] if inside else None

    def _edges_near(self, box: Box, x: float, y: float) -> tuple[bool, bool, bool, bool] | None:
        """Which edges (left, top, right, bottom) of ``box`` are within grabbing distance."""
        bx, by, w, h = box
        reach = GRAB_PIXELS * self._pixel_size()
        if not (bx - reach <= x <= bx + w + reach and by - reach <= y <= by + h + reach):
            return None
        edges = (
            abs(x - bx) <= reach,
            abs(y - by) <= reach,
            abs(x - bx - w) <= reach,
            abs(y - by - h) <= reach,
        )
        return edges if any(edges) else None

    def _clipped(self, box: Box) -> Box:
        """``box`` kept inside the image (a moved box keeps its size)."""
        size = self.view.image_size
        if size is None:
            return box
        width, height = size
        x, y, w, h = box
        w, h = min(w, width), min(h, height)
        if self._grab is _Grab.MOVE:
            return (min(max(x, 0.0), width - w), min(max(y, 0.0), height - h), w, h)
        x0, y0 = max(x, 0.0), max(y, 0.0)
        x1, y1 = min(x + w, float(width)), min(y + h, float(height))
        return (x0, y0, max(x1 - x0, 0.0), max(y1 - y0, 0.0))

    # --- mouse ------------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if not self.active or kind not in (_PRESS, _MOVE, _RELEASE):
            return False
        mouse: QGraphicsSceneMouseEvent = event  # type: ignore[assignment]
        outside = not self.view.view_box.sceneBoundingRect().contains(mouse.scenePos())
        if self._grab is None and outside:  # a gesture starts on the frame, may end off it
            return False
        if kind == _PRESS and self.view.focusing_click:
            return True  # the click that focused the view draws nothing
        point = self.view.view_box.mapSceneToView(mouse.scenePos())
        if kind == _PRESS and mouse.button() == Qt.MouseButton.LeftButton:
            self.press(point.x(), point.y())
            return True
        if kind == _MOVE and mouse.buttons() & Qt.MouseButton.LeftButton:
            self.drag(point.x(), point.y())
            return True
        if kind == _RELEASE and mouse.button() == Qt.MouseButton.LeftButton:
            self.release()
            return True
        return False


def _resized(box: Box, edges: tuple[bool, bool, bool, bool], dx: float, dy: float) -> Box:
    """``box`` with its grabbed edges moved by ``(dx, dy)``; flipping over is allowed."""
    x0, y0, x1, y1 = box[0], box[1], box[0] + box[2], box[1] + box[3]
    left, top, right, bottom = edges
    x0, y0 = x0 + dx * left, y0 + dy * top
    x1, y1 = x1 + dx * right, y1 + dy * bottom
    return (min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0))
