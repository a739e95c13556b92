"""The keys of the annotation tools, shared by the Edit menu, the dock and Help."""

from __future__ import annotations

from referee.core.measures.pixel import GT_MOTION, GT_OUTSIDE, GT_SHADOW, GT_STATIC, GT_UNKNOWN
from referee.gui.annotation.mask_painter import Tool

#: (tool, button text, key) in the order of the tool row.
TOOL_KEYS: tuple[tuple[Tool, str, str], ...] = (
    (Tool.NONE, "Navigate", "V"),
    (Tool.BRUSH, "Brush", "B"),
    (Tool.ERASER, "Eraser", "E"),
    (Tool.POLYGON, "Polygon", "P"),
    (Tool.FILL, "Fill", "F"),
    (Tool.GRABCUT, "GrabCut", "C"),
    (Tool.BOX, "Box", "R"),
)
#: (level, key) choosing the level the brush, polygon and fill paint: Shift and the
#: level's initial (the digits are the action classes, Alt+digits the layers).
LEVEL_KEYS: tuple[tuple[int, str], ...] = (
    (GT_STATIC, "Shift+S"),
    (GT_SHADOW, "Shift+H"),
    (GT_OUTSIDE, "Shift+O"),
    (GT_UNKNOWN, "Shift+U"),
    (GT_MOTION, "Shift+M"),
)
#: Brush and eraser smaller / larger while one of them is the tool; with any other tool
#: these keys are the Go menu's previous / next flagged frame.
BRUSH_SMALLER_KEY, BRUSH_LARGER_KEY = "[", "]"
#: Keys of the annotate-next loop and of counts.
NEXT_KEY, MARK_KEY, COUNT_UP_KEY, COUNT_DOWN_KEY = "N", "M", "+", "-"
#: The keys that accept the frame shown as ground truth (a draft, a marked frame).
ACCEPT_KEYS = ("Return", "Enter")
#: Keys choosing the LIRIS class of new (and the selected) actions: 1–9, then 0 for class 10.
CLASS_KEYS: tuple[str, ...] = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "0")
#: (command, text, key) of the box edits, in the order of the Boxes dock and the Edit menu.
BOX_KEYS: tuple[tuple[str, str, str], ...] = (
    ("keyframe", "Keyframe here", "K"),
    ("end", "End here", "O"),
    ("split", "Split here", "X"),
    ("merge", "Merge the two selected", "G"),
    ("delete_box", "Delete box on this frame", "Del"),
    ("delete_keyframe", "Delete keyframe on this frame", "Shift+Del"),
    ("delete_item", "Delete the whole item", "Ctrl+Del"),
    ("propagate", "Propagate with the tracker", "T"),
    ("accept", "Accept drafts", "A"),
)
