"""The keys of the annotation tools, shared by the Edit menu, the dock and Help."""

from __future__ import annotations

from referee.gui.annotation.mask_painter import Tool

#: (tool, button text, key) in the order of the tool row.
TOOL_KEYS: tuple[tuple[Tool, str, str], ...] = (
    (Tool.NONE, "Navigate", "V"),
    (Tool.BRUSH, "Brush", "B"),
    (Tool.ERASER, "Eraser", "E"),
    (Tool.POLYGON, "Polygon", "P"),
    (Tool.FILL, "Fill", "F"),
)
#: Keys of the annotate-next loop and of counts.
NEXT_KEY, MARK_KEY, COUNT_UP_KEY, COUNT_DOWN_KEY = "N", "M", "+", "-"
