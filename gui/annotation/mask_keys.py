"""The keys of the mask tools: one per ground-truth level, and ``[`` / ``]`` for the brush.

``[`` and ``]`` are also the Go menu's previous and next flagged frame. Two actions with
one key are both ambiguous and neither fires, so exactly one pair holds the keys at a
time: the brush-size actions while the brush or the eraser is the tool, the Go menu's
otherwise (:meth:`MaskKeys.show_tool`); the menus show the keys where they work now.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QMenu, QWidget

from referee.core.measures.pixel import GT_LEVEL_NAMES
from referee.gui.annotation.keys import BRUSH_LARGER_KEY, BRUSH_SMALLER_KEY, LEVEL_KEYS
from referee.gui.annotation.mask_painter import BRUSH_TOOLS, MaskPainter, Tool, next_radius
from referee.gui.widgets.menus import add_key_action


class MaskKeys(QObject):
    """The Edit menu's level and brush-size entries, and who holds ``[`` and ``]``.

    ``choose_level(level)`` and ``choose_radius(radius)`` make the choice (and show it
    wherever it is shown)."""

    def __init__(
        self,
        window: QWidget,
        painter: MaskPainter,
        choose_level: Callable[[int], None],
        choose_radius: Callable[[float], None],
    ) -> None:
        super().__init__(window)
        self.window, self.painter = window, painter
        self._choose_level, self._choose_radius = choose_level, choose_radius
        self._brush: tuple[QAction, ...] = ()
        self._flagged: tuple[QAction, ...] = ()

    def add_to_menu(self, menu: QMenu) -> None:
        """One entry per level, then smaller and larger brush."""
        for level, key in LEVEL_KEYS:
            text = f"Paint {GT_LEVEL_NAMES[level]}"
            add_key_action(self.window, menu, text, key, partial(self._choose_level, level))
        self._brush = tuple(
            add_key_action(self.window, menu, text, key, partial(self.step_radius, larger))
            for text, key, larger in (
                ("Smaller brush (brush or eraser)", BRUSH_SMALLER_KEY, False),
                ("Larger brush (brush or eraser)", BRUSH_LARGER_KEY, True),
            )
        )
        self.show_tool(self.painter.tool)

    def share_keys(self, previous: QAction, following: QAction) -> None:
        """The Go menu's previous and next flagged frame, which hold ``[`` and ``]`` while
        neither the brush nor the eraser is the tool."""
        self._flagged = (previous, following)
        self.show_tool(self.painter.tool)

    def show_tool(self, tool: Tool) -> None:
        """Give ``[`` and ``]`` to the brush size with the brush or eraser, else to the Go menu."""
        brushing = tool in BRUSH_TOOLS
        for owner, holds in ((self._brush, brushing), (self._flagged, not brushing)):
            for action, key in zip(owner, (BRUSH_SMALLER_KEY, BRUSH_LARGER_KEY)):
                action.setShortcut(QKeySequence(key) if holds else QKeySequence())

    def step_radius(self, larger: bool) -> None:
        """The next brush radius up or down (:data:`~.mask_painter.RADIUS_STEPS`)."""
        self._choose_radius(next_radius(self.painter.radius, larger))

    @staticmethod
    def describe(level_box: QComboBox, radius_box: QAbstractSpinBox) -> None:
        """Name the keys in the tool tips of the level list, its entries and the radius box."""
        keys = dict(LEVEL_KEYS)
        for index in range(level_box.count()):
            level = int(level_box.itemData(index))
            tip = f"{GT_LEVEL_NAMES[level]}: {keys[level]}"
            level_box.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
        named = ", ".join(f"{key} {GT_LEVEL_NAMES[level]}" for level, key in LEVEL_KEYS)
        level_box.setToolTip(f"{level_box.toolTip()}. Keys: {named}")
        radius_box.setToolTip(
            f"Brush and eraser radius in image pixels: {BRUSH_SMALLER_KEY} and "
            f"{BRUSH_LARGER_KEY} make it smaller or larger while the brush or eraser is the tool"
        )
