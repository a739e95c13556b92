"""What a file looked like when it was read, to tell whether it changed on disk since.

A stamp is the file's size, modification time and SHA-256 of its bytes; a file
that was absent has the stamp ``None``. Writing ground truth first compares each
target with its stamp, so that a file another program (or another Referee)
changed is never overwritten without asking.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from referee.core.errors import ChangedOnDiskError


@dataclass(frozen=True)
class FileStamp:
    """Size in bytes, modification time in nanoseconds and SHA-256 of a file's bytes."""

    size: int
    mtime_ns: int
    sha256: str


def stamp_of(path: Path) -> FileStamp | None:
    """The stamp of ``path`` now, or ``None`` if it does not exist (or cannot be read)."""
    try:
        status = os.stat(path)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
    return FileStamp(status.st_size, status.st_mtime_ns, digest)


class FileStamps:
    """The stamps of the files a document read, by absolute path."""

    def __init__(self) -> None:
        self._stamps: dict[Path, FileStamp | None] = {}

    def record(self, path: Path, data: bytes | None = None) -> None:
        """Remember ``path`` as it is now (``data``: its bytes, if already read)."""
        if data is None:
            self._stamps[path] = stamp_of(path)
            return
        try:
            status = os.stat(path)
        except OSError:
            self._stamps[path] = None
            return
        self._stamps[path] = FileStamp(
            status.st_size, status.st_mtime_ns, hashlib.sha256(data).hexdigest()
        )

    def changed(self, path: Path) -> bool:
        """Whether ``path`` differs from when it was recorded (never recorded: it must not exist).

        A new modification time with the same bytes is not a change.
        """
        then = self._stamps.get(path)
        now = stamp_of(path) if then is None or _moved(path, then) else then
        if then is None or now is None:
            return then != now
        return now.size != then.size or now.sha256 != then.sha256

    def check_unchanged(self, paths: list[Path]) -> None:
        """Raise if any of ``paths`` changed on disk since it was recorded.

        Raises
        ------
        ChangedOnDiskError
            Naming the first changed file.
        """
        for path in paths:
            if self.changed(path):
                raise ChangedOnDiskError(
                    path,
                    "the file changed on disk since Referee read it; saving would replace "
                    "those changes",
                )


def _moved(path: Path, then: FileStamp) -> bool:
    """Whether the file's size or modification time differ from ``then`` (cheap check)."""
    try:
        status = os.stat(path)
    except OSError:
        return True
    return status.st_size != then.size or status.st_mtime_ns != then.mtime_ns
