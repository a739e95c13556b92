"""Brush, eraser, polygon, flood fill and GrabCut boxes on the label map of the frame shown.

:class:`MaskPainter` watches the mouse over one :class:`FrameView` when a tool
is chosen (otherwise the view pans and zooms as usual). The edits themselves
are :mod:`referee.core.annotation.label_maps`'; this module turns mouse input
into them, shows each change at once (only the rectangle that changed is
recoloured and repainted), and hands a finished stroke or fill to the editor
as one undoable command. With the brush or the eraser, a circle of the brush's
radius follows the pointer (:class:`~referee.gui.annotation.brush_cursor.BrushCursor`);
with the GrabCut tool, a box dragged on the frame is handed on (:attr:`MaskPainter.box_drawn`).
"""

from __future__ import annotations

import bisect
import enum

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPointF, Qt, Signal
from PySide6.QtGui import QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsSceneMouseEvent

from referee.core.annotation.label_maps import (
    MIN_RADIUS,
    MaskPatch,
    Rect,
    fill_polygon,
    flood_fill,
    merge_patches,
    paint_segment,
)
from referee.core.measures.pixel import GT_LEVEL_NAMES, GT_MOTION, GT_STATIC
from referee.gui.annotation.brush_cursor import BrushCursor
from referee.gui.annotation.commands import MaskPatchCommand
from referee.gui.annotation.editor import AnnotationEditor
from referee.gui.annotation.label_map_item import LabelMapItem
from referee.gui.viewer.frame_view import FrameView

#: Brush radius the painter starts with, and the largest, in pixels.
DEFAULT_RADIUS, MAX_RADIUS = 6.0, 200.0
#: The radii that the brush-size keys step through, each about a quarter above the last.
RADIUS_STEPS: tuple[float, ...] = (
    MIN_RADIUS,
    1.0,
    1.5,
    2.0,
    3.0,
    4.0,
    5.0,
    6.0,
    8.0,
    10.0,
    12.0,
    16.0,
    20.0,
    25.0,
    32.0,
    40.0,
    50.0,
    64.0,
    80.0,
    100.0,
    128.0,
    160.0,
    MAX_RADIUS,
)
_OVERLAY_Z = 50


def next_radius(radius: float, larger: bool) -> float:
    """The step of :data:`RADIUS_STEPS` after ``radius`` (``larger``) or before it; the
    largest or smallest step past the ends."""
    if larger:
        index = bisect.bisect_right(RADIUS_STEPS, radius)
        return RADIUS_STEPS[min(index, len(RADIUS_STEPS) - 1)]
    index = bisect.bisect_left(RADIUS_STEPS, radius)
    return RADIUS_STEPS[max(index - 1, 0)]


class Tool(enum.Enum):
    """What a click on the frame does."""

    NONE = "navigate"
    BRUSH = "brush"
    ERASER = "eraser"
    POLYGON = "polygon"
    FILL = "flood fill"
    GRABCUT = "GrabCut box"
    BOX = "box"


#: The tools that paint the label map.
MASK_TOOLS = frozenset({Tool.BRUSH, Tool.ERASER, Tool.POLYGON, Tool.FILL, Tool.GRABCUT})
#: The tools whose reach the brush cursor shows.
BRUSH_TOOLS = frozenset({Tool.BRUSH, Tool.ERASER})


_PRESS = QEvent.Type.GraphicsSceneMousePress
_MOVE = QEvent.Type.GraphicsSceneMouseMove
_RELEASE = QEvent.Type.GraphicsSceneMouseRelease
_DOUBLE = QEvent.Type.GraphicsSceneMouseDoubleClick
_LEAVE = QEvent.Type.GraphicsSceneLeave


class MaskPainter(QObject):
    """Turns mouse input over ``view`` into edits of the target frame's label map.

    Signals
    -------
    box_drawn(object)
        A box ``(x0, y0, x1, y1)`` dragged with the GrabCut tool, in image coordinates.
    """

    box_drawn = Signal(object)

    def __init__(self, editor: AnnotationEditor, view: FrameView) -> None:
        super().__init__(view)
        self.editor, self.view = editor, view
        self.tool = Tool.NONE
        self.level = GT_MOTION
        self.radius = DEFAULT_RADIUS
        self.target: tuple[str, int] | None = None
        self.item = LabelMapItem()
        self.item.setZValue(_OVERLAY_Z)
        view.view_box.addItem(self.item)
        self._outline = QGraphicsPathItem()
        pen = QPen(Qt.GlobalColor.white, 0, Qt.PenStyle.DashLine)
        self._outline.setPen(pen)
        self._outline.setZValue(_OVERLAY_Z + 1)
        view.view_box.addItem(self._outline)
        self.cursor = BrushCursor()
        self.cursor.setZValue(_OVERLAY_Z + 2)
        view.view_box.addItem(self.cursor)
        self._pointer: QPointF | None = None  # in scene coordinates, while over the view
        self._stroke: list[MaskPatch] = []
        self._last: tuple[float, float] | None = None
        self._polygon: list[tuple[float, float]] = []
        self._box: list[tuple[float, float]] = []  # the GrabCut box's corners, while dragged
        view.view_box.scene().installEventFilter(self)
        view.view_box.sigRangeChanged.connect(lambda *_: self._show_cursor())
        editor.mask_changed.connect(self._on_mask_changed)

    # --- what is edited ---------------------------------------------------------------------

    def set_target(self, label: str | None, frame: int = 0) -> None:
        """Edit (and show) the label map of ``(label, frame)``; ``None`` shows none."""
        self._cancel_polygon()
        document = self.editor.document
        if label is None or document is None or label not in document.videos:
            self.target = None
            self.item.set_label_map(None)
            self._show_cursor()
            return
        self.target = (label, frame)
        self.item.set_label_map(document.label_map(label, frame))
        self._show_when_editing()
        self._show_cursor()

    def set_tool(self, tool: Tool) -> None:
        """Choose what a click does; a tool not in :data:`MASK_TOOLS` leaves the mouse to
        others (``Tool.NONE``: pan and zoom)."""
        self._cancel_polygon()
        self.tool = tool
        cursor = Qt.CursorShape.ArrowCursor if tool is Tool.NONE else Qt.CursorShape.CrossCursor
        self.view.setCursor(cursor)
        self._show_when_editing()
        self._show_cursor()

    def _show_when_editing(self) -> None:
        """The label map is drawn while a tool is chosen or the frame has unsaved edits
        (otherwise the ground-truth and comparison layers show it)."""
        document = self.editor.document
        edited = (
            document is not None
            and self.target is not None
            and (document.map_edited(self.target) or self.target in document.reviews())
        )
        self.item.setVisible(self.tool in MASK_TOOLS or edited)

    def set_level(self, level: int) -> None:
        """The level the brush, polygon and fill paint (one of the five, docs/measures.md §1)."""
        if level not in GT_LEVEL_NAMES:
            raise ValueError(f"{level} is not a ground-truth level")
        self.level = level

    def set_radius(self, radius: float) -> None:
        """Brush and eraser radius in image pixels, kept within the limits."""
        self.radius = min(max(float(radius), MIN_RADIUS), MAX_RADIUS)
        self._show_cursor()

    # --- painting (also called by tests and the benchmark) -----------------------------------

    def press(self, x: float, y: float) -> None:
        """The mouse went down at image point ``(x, y)``."""
        if self.target is None:
            return
        if self.tool in (Tool.BRUSH, Tool.ERASER):
            self._stroke, self._last = [], (x, y)
            self._paint(self._last, self._last)
        elif self.tool is Tool.FILL:
            label_map, seed = self._map(), (int(np.floor(x)), int(np.floor(y)))
            height, width = label_map.shape
            if 0 <= seed[0] < width and 0 <= seed[1] < height:
                self.apply_patch(
                    flood_fill(label_map, seed, self.level),
                    f"Fill with {GT_LEVEL_NAMES[self.level]}",
                )
        elif self.tool is Tool.POLYGON:
            self._polygon.append((x, y))
            self._draw_outline()
        elif self.tool is Tool.GRABCUT:
            self._box = [(x, y), (x, y)]

    def drag(self, x: float, y: float) -> None:
        """The mouse moved to ``(x, y)`` with the button down: one stroke segment, or the
        GrabCut box's other corner."""
        if self._box:
            self._box[1] = (x, y)
            self._draw_outline()
            return
        if self._last is None:
            return
        start, self._last = self._last, (x, y)
        self._paint(start, self._last)

    def release(self) -> None:
        """The button went up: the stroke so far becomes one undoable command, or the
        GrabCut box is handed on (:attr:`box_drawn`)."""
        if self._box:
            (x0, y0), (x1, y1) = self._box
            self._box = []
            self._draw_outline()
            if x0 != x1 and y0 != y1:
                self.box_drawn.emit((x0, y0, x1, y1))
            return
        if self._last is None:
            return
        self._last = None
        if self._stroke and self.target is not None:
            what = "Erase" if self.tool is Tool.ERASER else f"Paint {GT_LEVEL_NAMES[self.level]}"
            patch = merge_patches(self._stroke)
            self.editor.push(MaskPatchCommand(self.editor, *self.target, patch, what))
        self._stroke = []

    def close_polygon(self) -> None:
        """Fill the polygon clicked so far (at least three points)."""
        points, self._polygon = self._polygon, []
        self._draw_outline()
        if len(points) >= 3:
            self.apply_patch(
                fill_polygon(self._map(), points, self.level),
                f"Polygon of {GT_LEVEL_NAMES[self.level]}",
            )

    @property
    def stroke_length(self) -> int:
        """Segments of the stroke under way that changed pixels."""
        return len(self._stroke)

    def _paint(self, start: tuple[float, float], end: tuple[float, float]) -> None:
        level = GT_STATIC if self.tool is Tool.ERASER else self.level
        label_map = self._map()
        patch = paint_segment(label_map, start, end, self.radius, level)
        if patch is not None:
            self._stroke.append(patch)
            self.item.refresh(label_map, patch.rect)

    def apply_patch(self, patch: MaskPatch | None, text: str) -> None:
        """Show an edit already made on the target's label map and push it as ``text``."""
        if patch is None or self.target is None:
            return
        self.item.refresh(self._map(), patch.rect)
        self.editor.push(MaskPatchCommand(self.editor, *self.target, patch, text))

    def _map(self) -> np.ndarray:
        assert self.target is not None
        return self.editor.document_or_raise().label_map(*self.target)

    def _cancel_polygon(self) -> None:
        self._polygon, self._box = [], []
        self._draw_outline()

    def _draw_outline(self) -> None:
        """The polygon clicked so far, or the GrabCut box being dragged."""
        path = QPainterPath()
        if self._box:
            (x0, y0), (x1, y1) = self._box
            path.addRect(min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0))
        elif self._polygon:
            path.moveTo(QPointF(*self._polygon[0]))
            for point in self._polygon[1:]:
                path.lineTo(QPointF(*point))
        self._outline.setPath(path)

    def _show_cursor(self) -> None:
        """The brush cursor around the pointer, with the brush or eraser over the frame."""
        box = self.view.view_box
        shown = (
            self.tool in BRUSH_TOOLS
            and self.target is not None
            and self._pointer is not None
            and box.sceneBoundingRect().contains(self._pointer)
        )
        if shown:
            assert self._pointer is not None
            self.cursor.place(box.mapSceneToView(self._pointer), self.radius, box.zoom_factor())
        self.cursor.setVisible(shown)

    def _on_mask_changed(self, label: str, frame: int, rect: Rect | None) -> None:
        if self.target is None:
            return
        if rect is None:  # a whole map replaced, or recovered
            self.set_target(*self.target)
        elif (label, frame) == self.target:
            self.item.refresh(self._map(), rect)
            self._show_when_editing()

    # --- mouse ------------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (_MOVE, _LEAVE):
            moved: QGraphicsSceneMouseEvent = event  # type: ignore[assignment]
            self._pointer = QPointF(moved.scenePos()) if kind == _MOVE else None
            self._show_cursor()
        if (
            self.tool not in MASK_TOOLS
            or self.target is None
            or kind not in (_PRESS, _MOVE, _RELEASE, _DOUBLE)
        ):
            return False
        if kind in (_PRESS, _DOUBLE) and self.view.focusing_click:
            return True  # the click that focused the view paints nothing
        mouse: QGraphicsSceneMouseEvent = event  # type: ignore[assignment]
        point = self.view.view_box.mapSceneToView(mouse.scenePos())
        x, y = point.x(), point.y()
        if kind == _PRESS and mouse.button() == Qt.MouseButton.LeftButton:
            self.press(x, y)
            return True
        if kind == _PRESS and mouse.button() == Qt.MouseButton.RightButton and self._polygon:
            self.close_polygon()
            return True
        if kind == _DOUBLE and self.tool is Tool.POLYGON:
            self.close_polygon()
            return True
        if kind == _MOVE and mouse.buttons() & Qt.MouseButton.LeftButton:
            self.drag(x, y)
            return True
        if kind == _RELEASE and mouse.button() == Qt.MouseButton.LeftButton:
            self.release()
            return True
        return False
