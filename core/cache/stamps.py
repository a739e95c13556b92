"""What a file on disk is now, cheaply: the stamp a cached per-frame result is keyed by.

A stamp is ``(size, inode, modification time, change time)`` in bytes and
nanoseconds, read with one ``stat``. Any write changes the change time, which
no program can set back, and saving a file under its name (write, then rename)
gives it a new inode. A file changed within :data:`RACY_SECONDS` of being
stamped could change again within the same tick of the file system's clock and
keep its stamp, so such a file's stamp is not usable: results read from it are
computed every time and never cached (git's "racy clean" rule).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

import numpy as np

#: Numbers in one stamp.
STAMP_WIDTH = 4
#: A file changed more recently than this is not stamped (its results are not cached).
RACY_SECONDS = 2.0


def file_stamps(paths: Sequence[str | os.PathLike[str]]) -> tuple[np.ndarray, np.ndarray]:
    """The stamps of ``paths`` as ``int64 (n, 4)``, and which are usable.

    A missing or unreadable file, or one changed less than :data:`RACY_SECONDS`
    ago, is not usable (its row is zeros). A path given several times is
    stat'ed once.
    """
    now = time.time_ns()
    racy = int(RACY_SECONDS * 1e9)
    stamps = np.zeros((len(paths), STAMP_WIDTH), dtype=np.int64)
    usable = np.zeros(len(paths), dtype=bool)
    seen: dict[str, tuple[int, int, int, int] | None] = {}
    for k, path in enumerate(paths):
        name = os.fspath(path)
        if name not in seen:
            seen[name] = _stamp(name, now, racy)
        found = seen[name]
        if found is not None:
            stamps[k] = found
            usable[k] = True
    return stamps, usable


def _stamp(name: str, now: int, racy: int) -> tuple[int, int, int, int] | None:
    try:
        status = os.stat(name)
    except (OSError, ValueError):
        return None
    changed = max(status.st_mtime_ns, status.st_ctime_ns)
    if now - changed < racy:
        return None
    return status.st_size, status.st_ino, status.st_mtime_ns, status.st_ctime_ns
