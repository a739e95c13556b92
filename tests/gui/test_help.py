"""Help › Shortcuts lists the zoom and level keys, and no key does two things unless it says when."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence

from referee.gui.annotation.keys import BRUSH_LARGER_KEY, BRUSH_SMALLER_KEY
from referee.gui.help import shortcut_rows
from referee.gui.viewer.zoom import ZOOM_KEYS


def test_the_zoom_keys_are_listed() -> None:
    rows = {key: text for text, key in shortcut_rows()}
    assert rows["Ctrl+0"] == "Fit to window"
    assert rows["Ctrl+Alt+0"] == "Actual size (100 %)"
    assert rows["Ctrl++"] == "Zoom in" and rows["Ctrl+-"] == "Zoom out"
    assert len(ZOOM_KEYS) == 4


def test_no_key_is_listed_twice_but_the_brush_size_keys_which_say_when() -> None:
    """[ and ] are the flagged frames, and the brush size while the brush or eraser is the
    tool (tests/gui/test_mask_tools.py presses them): their row says so."""
    keys: list[str] = []
    for _, key in shortcut_rows():
        for single in key.split(" / "):
            sequence = QKeySequence(single).toString()  # "" for "Mouse wheel", "1 … 9, 0"
            if sequence and "," not in sequence:
                keys.append(sequence)
    twice = sorted({k for k in keys if keys.count(k) > 1})
    assert twice == sorted([BRUSH_SMALLER_KEY, BRUSH_LARGER_KEY]) and keys.count("[") == 2
    (brush,) = [text for text, key in shortcut_rows() if key == "[ / ]"]
    assert "with the brush or eraser" in brush and "flagged frames" in brush


def test_each_level_has_its_key() -> None:
    rows = {key: text for text, key in shortcut_rows()}
    assert [rows[key] for key in ("Shift+S", "Shift+H", "Shift+O", "Shift+U", "Shift+M")] == [
        "Paint static",
        "Paint hard shadow",
        "Paint outside the ROI",
        "Paint unknown motion",
        "Paint motion",
    ]
