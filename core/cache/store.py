"""A folder of tables of per-frame results, each row valid while its files keep their stamps.

A :class:`FrameTable` holds one kind of per-frame result of one video and one
source (e.g. one detector's confusion counts at one threshold): per frame, the
stamps of the files the row was computed from (:mod:`referee.core.cache.stamps`)
and the values. A :class:`FrameCache` finds tables by a key that names
everything else the values depend on (the video, the detector's files, the
options, the code's version) and keeps them in memory for the session and, with
a folder, on disk as one ``.npz`` file each, named by a digest of the key.

Nothing read from disk is trusted: a file that cannot be loaded, whose key is
not the one asked for (a foreign or colliding entry), or whose arrays do not
have the shapes of a table is ignored, and its rows computed again. The folder
is versioned (:data:`CACHE_VERSION`), bounded (least recently used tables are
deleted beyond ``max_bytes``) and safe to delete at any time.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import threading
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from referee.core import __version__
from referee.core.errors import InputFileError
from referee.core.formats.text_files import keeping_existing, write_bytes

#: The on-disk layout's version: a folder of another version is never read.
CACHE_VERSION = 1
#: Default bound of a cache folder, in bytes.
DEFAULT_MAX_BYTES = 256 * 2**20
#: JSON-able description of what a table's values depend on besides its rows' files.
TableKey = Mapping[str, object]


def user_cache_folder() -> Path:
    """Where the desktop application keeps its cache: ``<user cache dir>/referee/frames``."""
    from platformdirs import user_cache_dir  # here: only the window needs it

    return Path(user_cache_dir("referee", appauthor=False)) / "frames"


@dataclass
class FrameTable:
    """Rows of per-frame values, each with the stamps of the files it was computed from.

    ``frames`` is increasing ``int64 (n,)``; ``stamps`` ``int64 (n, s)``;
    ``values`` ``int64 (n, v)``.
    """

    frames: np.ndarray
    stamps: np.ndarray
    values: np.ndarray
    dirty: bool = False

    @classmethod
    def empty(cls, stamp_width: int, value_width: int) -> FrameTable:
        return cls(
            np.zeros(0, np.int64),
            np.zeros((0, stamp_width), np.int64),
            np.zeros((0, value_width), np.int64),
        )

    def lookup(self, frames: np.ndarray, stamps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which of ``frames`` have a row with exactly ``stamps``, and those rows' values
        (zeros where not)."""
        frames = np.asarray(frames, dtype=np.int64)
        hit = np.zeros(frames.size, dtype=bool)
        values = np.zeros((frames.size, self.values.shape[1]), dtype=np.int64)
        if not self.frames.size or not frames.size:
            return hit, values
        where = np.clip(np.searchsorted(self.frames, frames), 0, self.frames.size - 1)
        hit = (self.frames[where] == frames) & (self.stamps[where] == stamps).all(axis=1)
        values[hit] = self.values[where[hit]]
        return hit, values

    def update(self, frames: np.ndarray, stamps: np.ndarray, values: np.ndarray) -> None:
        """Keep these rows, replacing the rows of the same frames."""
        frames = np.asarray(frames, dtype=np.int64)
        if not frames.size:
            return
        kept = ~np.isin(self.frames, frames)
        all_frames = np.concatenate([self.frames[kept], frames])
        order = np.argsort(all_frames, kind="stable")
        self.frames = all_frames[order]
        self.stamps = np.concatenate([self.stamps[kept], stamps]).astype(np.int64)[order]
        self.values = np.concatenate([self.values[kept], values]).astype(np.int64)[order]
        self.dirty = True


@dataclass
class FrameCache:
    """Tables of per-frame results, in memory and, with ``folder``, on disk.

    ``computed[what][video]`` lists the frames whose ``what`` (``counts``,
    ``histograms``, ``scores``) were computed, not found, since the cache was made:
    what a change made Referee compute again. Safe to share between threads.
    """

    folder: Path | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    computed: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    _tables: dict[str, tuple[TableKey, FrameTable]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def location(self) -> Path | None:
        """The versioned folder of table files (``None``: memory only)."""
        return None if self.folder is None else self.folder / f"v{CACHE_VERSION}"

    def table(self, key: TableKey, stamp_width: int, value_width: int) -> FrameTable:
        """The table of ``key``: kept in memory, else loaded from disk, else empty."""
        full = {**key, "referee": __version__, "stamps": stamp_width, "values": value_width}
        name = _digest(full)
        with self._lock:
            if name in self._tables:
                return self._tables[name][1]
            found = self._load(name, full, stamp_width, value_width)
            table = found or FrameTable.empty(stamp_width, value_width)
            self._tables[name] = (full, table)
            return table

    def note_computed(self, what: str, label: str, frames: np.ndarray) -> None:
        """Record that the ``what`` of ``frames`` of video ``label`` were computed."""
        with self._lock:
            found = self.computed.setdefault(what, {}).setdefault(label, [])
            found.extend(int(i) for i in frames)

    def computed_of(self, what: str) -> dict[str, list[int]]:
        """The frames whose ``what`` were computed, by video (empty: none)."""
        return self.computed.get(what, {})

    def save(self) -> None:
        """Write the tables that changed, then delete the least recently used tables beyond
        :attr:`max_bytes`. A folder that cannot be written is left alone: the cache is
        only lost, never wrong."""
        location = self.location
        if location is None:
            return
        with self._lock:
            dirty = [(n, k, t) for n, (k, t) in self._tables.items() if t.dirty]
            if not dirty:
                return
            try:
                location.mkdir(parents=True, exist_ok=True)
            except OSError:
                return
            for name, key, table in dirty:
                if _write(location / f"{name}.npz", key, table):
                    table.dirty = False
            _prune(location, self.max_bytes)

    def _load(
        self, name: str, key: TableKey, stamp_width: int, value_width: int
    ) -> FrameTable | None:
        location = self.location
        if location is None:
            return None
        path = location / f"{name}.npz"
        try:
            with np.load(path, allow_pickle=False) as data:
                stored = json.loads(bytes(data["key"]).decode("utf-8"))
                frames, stamps, values = data["frames"], data["stamps"], data["values"]
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, UnicodeDecodeError):
            return None
        n = frames.shape[0] if frames.ndim == 1 else -1
        if (
            stored != json.loads(json.dumps(key))
            or frames.dtype != np.int64
            or stamps.dtype != np.int64
            or values.dtype != np.int64
            or stamps.shape != (n, stamp_width)
            or values.shape != (n, value_width)
            or (n > 1 and not np.all(np.diff(frames) > 0))
        ):
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: pruned last
        return FrameTable(frames, stamps, values)


def _digest(key: TableKey) -> str:
    text = json.dumps(key, sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode("utf-8"), digest_size=20).hexdigest()


def _write(path: Path, key: TableKey, table: FrameTable) -> bool:
    """Write ``table`` to ``path`` atomically, not synced: a torn file after a power cut
    fails to load and is ignored."""
    buffer = io.BytesIO()
    encoded = json.dumps(key, sort_keys=True).encode("utf-8")
    np.savez(
        buffer,
        key=np.frombuffer(encoded, dtype=np.uint8),
        frames=table.frames,
        stamps=table.stamps,
        values=table.values,
    )
    try:
        with keeping_existing(False):  # a table replaces its older self, whatever the command
            write_bytes(path, buffer.getvalue(), sync=False)
    except InputFileError:
        return False
    return True


def _prune(location: Path, max_bytes: int) -> None:
    """Delete the least recently used table files until the folder holds ``max_bytes``."""
    try:
        entries = [(e.stat().st_mtime_ns, e.stat().st_size, e.path) for e in os.scandir(location)]
    except OSError:
        return
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
        if total <= max_bytes:
            return
        try:
            os.unlink(path)
            total -= size
        except OSError:
            pass
