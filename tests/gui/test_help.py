"""Help › Shortcuts lists the zoom keys, and no key does two things."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence

from referee.gui.help import shortcut_rows
from referee.gui.viewer.zoom import ZOOM_KEYS


def test_the_zoom_keys_are_listed() -> None:
    rows = {key: text for text, key in shortcut_rows()}
    assert rows["Ctrl+0"] == "Fit to window"
    assert rows["Ctrl+Alt+0"] == "Actual size (100 %)"
    assert rows["Ctrl++"] == "Zoom in" and rows["Ctrl+-"] == "Zoom out"
    assert len(ZOOM_KEYS) == 4


def test_no_key_is_listed_twice() -> None:
    keys: list[str] = []
    for _, key in shortcut_rows():
        for single in key.split(" / "):
            sequence = QKeySequence(single).toString()  # "" for "Mouse wheel", "1 … 9, 0"
            if sequence and "," not in sequence:
                keys.append(sequence)
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
