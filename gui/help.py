"""The Help menu's dialogs, and the key tables that the menus and Help › Shortcuts share."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMessageBox,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from referee.core import __version__
from referee.core.measures.pixel import GT_LEVEL_NAMES
from referee.gui.annotation.keys import (
    BOX_KEYS,
    BRUSH_LARGER_KEY,
    BRUSH_SMALLER_KEY,
    COUNT_DOWN_KEY,
    COUNT_UP_KEY,
    LEVEL_KEYS,
    MARK_KEY,
    NEXT_KEY,
    TOOL_KEYS,
)
from referee.gui.viewer.frame_view import LAYER_TITLES, LAYERS
from referee.gui.viewer.tracking_boxes import NEXT_SWITCH_KEY, PREVIOUS_SWITCH_KEY
from referee.gui.viewer.zoom import ZOOM_KEYS

__all__ = [
    "LAYER_KEYS",
    "NAVIGATION_KEYS",
    "VIEW_KEYS",
    "shortcut_rows",
    "show_about",
    "show_shortcuts",
]

#: (menu text, shortcut) of the navigation keys, in the order of the Go menu.
NAVIGATION_KEYS: tuple[tuple[str, str], ...] = (
    ("Play / pause", "Space"),
    ("Previous frame", "Left"),
    ("Next frame", "Right"),
    ("Back 10 frames", "Shift+Left"),
    ("Forward 10 frames", "Shift+Right"),
    ("First frame", "Home"),
    ("Last frame", "End"),
    ("Previous flagged frame", "["),
    ("Next flagged frame", "]"),
    ("Previous identity switch", PREVIOUS_SWITCH_KEY),
    ("Next identity switch", NEXT_SWITCH_KEY),
    ("Previous video", "PgUp"),
    ("Next video", "PgDown"),
)
LAYER_KEYS = ("Alt+1", "Alt+2", "Alt+3", "Alt+4", "Alt+5", "Alt+6")
VIEW_KEYS = (
    ("One view", "Ctrl+1", 1),
    ("Two views side by side", "Ctrl+2", 2),
    ("Four views side by side", "Ctrl+4", 4),
)


#: Computes every result again.
RECOMPUTE_KEY = "F5"


def shortcut_rows() -> list[tuple[str, str]]:
    """(what, key) of every keyboard shortcut, in the order Help › Shortcuts lists them."""
    return [
        *NAVIGATION_KEYS,
        ("Cancel all jobs", "Esc"),
        ("Compute everything again (files changed outside Referee)", RECOMPUTE_KEY),
        *((f"{LAYER_TITLES[n]} layer on/off", k) for n, k in zip(LAYERS, LAYER_KEYS)),
        *((text, key) for text, key, _ in VIEW_KEYS),
        *((text.replace("&", ""), key) for text, key in ZOOM_KEYS),
        ("Zoom / pan the frame", "Mouse wheel / drag"),
        ("Dark theme", "Ctrl+D"),
        ("New project", "Ctrl+N"),
        ("Open", "Ctrl+O"),
        ("Import annotations (CVAT, COCO, YOLO, labelme…)", "Ctrl+I"),
        ("Save the annotation and the project", "Ctrl+S"),
        ("Undo / redo", "Ctrl+Z / Ctrl+Shift+Z"),
        *((f"{text} tool", key) for _, text, key in TOOL_KEYS),
        *((f"Paint {GT_LEVEL_NAMES[level]}", key) for level, key in LEVEL_KEYS),
        (
            "Smaller / larger brush (with the brush or eraser; else flagged frames)",
            f"{BRUSH_SMALLER_KEY} / {BRUSH_LARGER_KEY}",
        ),
        ("Action class 1–10 (new and selected actions)", "1 … 9, 0"),
        *((f"Boxes: {text.lower()}", key) for _, text, key in BOX_KEYS),
        ("Next suggested frame", NEXT_KEY),
        ("Accept the frame (its draft, or as painted)", "Enter"),
        ("Mark the frame annotated (a draft) / take it out", MARK_KEY),
        ("Count +1 / −1 at this frame", f"{COUNT_UP_KEY} / {COUNT_DOWN_KEY}"),
        ("Export report", "Ctrl+E"),
        ("Shortcuts", "F1"),
        ("Quit", "Ctrl+Q"),
    ]


def show_shortcuts(parent: QWidget) -> None:
    """Help › Keyboard shortcuts: every key in one table."""
    rows = shortcut_rows()
    half = (len(rows) + 1) // 2  # two columns, so that the table fits a 768-pixel screen
    cells = [f"<td nowrap><b>{key}</b></td><td nowrap>{text}</td>" for text, key in rows]
    table = "".join(
        f"<tr>{left}<td width=24></td>{right}</tr>"
        for left, right in zip(cells[:half], [*cells[half:], ""])
    )
    dialog = QDialog(parent)
    dialog.setWindowTitle("Keyboard shortcuts")
    label = QLabel(f"<table cellspacing=3>{table}</table>")
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    scroll = QScrollArea()
    scroll.setWidget(label)
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QScrollArea.Shape.NoFrame)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok)
    buttons.accepted.connect(dialog.accept)
    layout = QVBoxLayout(dialog)
    layout.addWidget(scroll)
    layout.addWidget(buttons)
    size = label.sizeHint()
    dialog.resize(size.width() + 48, min(size.height() + 72, 680))
    dialog.exec()


def show_about(parent: QWidget) -> None:
    """Help › About Referee."""
    QMessageBox.about(
        parent,
        "About Referee",
        f"<h3>Referee {__version__}</h3><p>A workbench for evaluating "
        "video-analysis algorithms: see every true positive, false positive "
        "and miss; indicators that stay consistent across videos; quality "
        "without ground truth; which frames to annotate next.</p>",
    )
