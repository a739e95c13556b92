"""Background threads run below the thread that answers the user.

Linux schedules each thread with its own niceness, so a thread that reads or
computes in the background (a job's, the viewer's frame prefetcher) can give way
to the GUI thread on a busy machine. Elsewhere nothing is changed here; the
GUI's worker then uses Qt's thread priorities.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

#: How much nicer than the process (Linux niceness, 19 at most) a background thread runs.
BACKGROUND_NICENESS = 10


def lower_thread_priority() -> bool:
    """Run the calling thread :data:`BACKGROUND_NICENESS` nicer than the process; whether
    this platform lets a thread be lowered on its own (Linux). Idempotent; a thread
    already nicer is left alone."""
    if not sys.platform.startswith("linux"):
        return False
    target = min(os.getpriority(os.PRIO_PROCESS, os.getpid()) + BACKGROUND_NICENESS, 19)
    with contextlib.suppress(OSError):  # nicer already: lowering it needs privileges
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), target)
    return True
