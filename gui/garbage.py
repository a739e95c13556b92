"""Cyclic garbage: collected on the GUI thread only, and without walking the objects that
live as long as the application.

Python's automatic collection runs in whichever thread allocates, so a job's thread
would delete Qt objects (closed dialogs, replaced widgets) off the GUI thread and
crash: :func:`collect_on_gui_thread` collects on a one-second timer instead. A full
collection walks every object tracked; once the window is built that is some 152,000
(the libraries' modules, classes and functions, the window's widgets), and one pass
held the GUI thread 59–91 ms (``benchmarks/gui_responsiveness.py``, thirty runs).
:func:`set_aside_long_lived` leaves the objects that exist then out of every later
collection, so a pass walks only what the session made since.
"""

from __future__ import annotations

import gc

from pyqtgraph.util.garbage_collector import GarbageCollector

#: Collects cyclic garbage on the GUI thread, every second (see the module's docstring).
_collector: GarbageCollector | None = None


def collect_on_gui_thread() -> None:
    """Turn Python's automatic collection off and collect on the GUI thread's timer (once)."""
    global _collector
    if _collector is None:
        _collector = GarbageCollector(interval=1.0)


def set_aside_long_lived() -> None:
    """Leave the objects that exist now out of every later collection (``gc.freeze``).

    Call it once the window is built. An object set aside is still freed when its last
    reference goes; only garbage that is already a cycle then stays, which at that
    point is little (what importing left).
    """
    gc.freeze()
