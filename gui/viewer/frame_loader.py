"""Frames for the viewer, read off the GUI thread: the newest request wins, the rest is read ahead."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from referee.core.frames.sources import FrameReader
from referee.core.frames.video_files import FrameCache, FramePrefetcher
from referee.core.workflow.frame_layers import FrameLayers

#: Memory kept for decoded frames and their layers.
CACHE_BYTES = 512 * 1024 * 1024


class FrameLoader(QObject):
    """Asks a core prefetcher for frames; ``frame_ready`` arrives on the GUI thread.

    ``frame_ready(i, layers)`` carries what the source's ``read(i)`` returns, a
    :class:`~referee.core.workflow.frame_layers.FrameLayers`; ``frame_failed(i, message)``
    a read error. Results of requests that were superseded before they were read
    never arrive.
    """

    frame_ready = Signal(int, object)
    frame_failed = Signal(int, str)

    def __init__(
        self, parent: QObject | None = None, cache_bytes: int = CACHE_BYTES, ahead: int = 12
    ) -> None:
        super().__init__(parent)
        self.cache: FrameCache[FrameLayers] = FrameCache(cache_bytes)
        self._ahead = ahead
        self._prefetcher: FramePrefetcher[FrameLayers] | None = None
        self._wanted: int | None = None

    def set_source(
        self, source: FrameReader[FrameLayers] | None, last_frame: int | None = None
    ) -> None:
        """Read from ``source`` from now on (``None``: nothing to show)."""
        self.close()
        self.cache.clear()
        if source is not None:
            self._prefetcher = FramePrefetcher(
                source, self.cache, self._on_ready, self._ahead, self._on_error, last_frame
            )

    def request(self, i: int) -> None:
        """Ask for frame ``i``; only the newest request is answered."""
        self._wanted = i
        if self._prefetcher is not None:
            self._prefetcher.request(i)

    def cached_frames(self) -> list[int]:
        return self.cache.cached_frames()

    def close(self) -> None:
        """Stop the reading thread."""
        if self._prefetcher is not None:
            self._prefetcher.close()
            self._prefetcher = None

    # Both run on the prefetch thread; emitting queues the call to the GUI thread.
    def _on_ready(self, i: int, layers: FrameLayers) -> None:
        if i == self._wanted:
            self.frame_ready.emit(i, layers)

    def _on_error(self, i: int, error: Exception) -> None:
        if i == self._wanted:
            self.frame_failed.emit(i, str(error))
