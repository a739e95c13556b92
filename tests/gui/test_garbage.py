"""Cyclic garbage is collected on the GUI thread, and a collection no longer walks the
window and the libraries once the window is built."""

from __future__ import annotations

import gc
import weakref

from referee.gui.app import application, dispose
from referee.gui.main_window import MainWindow


class _Node:
    """A cycle's member, whose end a weak reference sees."""

    def __init__(self) -> None:
        self.other: _Node | None = None


def test_a_built_window_is_set_aside_and_later_garbage_is_still_collected(qtbot) -> None:
    application()
    walked_before = len(gc.get_objects())
    window = MainWindow(remember_layout=False)
    try:
        walked = gc.get_objects()
        assert not any(o is window for o in walked)  # set aside with what existed
        assert not any(o is MainWindow for o in walked)
        assert len(walked) < walked_before / 10  # the libraries are set aside too
        first, second = _Node(), _Node()
        first.other, second.other = second, first
        gone = weakref.ref(first)
        assert any(o is first for o in gc.get_objects())  # made after: walked
        del first, second
        assert gone() is not None  # a cycle: only a collection frees it
        gc.collect()
        assert gone() is None
    finally:
        window.close()
        dispose(window)
