"""Frames for the viewer, read off the GUI thread: the newest request wins, the rest is read ahead."""

from __future__ import annotations

import threading
from functools import partial

from PySide6.QtCore import QObject, Signal

from referee.core.frames.sources import FrameReader
from referee.core.frames.video_files import FrameCache, FramePrefetcher
from referee.core.workflow.frame_layers import FrameLayers

#: Memory kept for decoded frames and their layers.
CACHE_BYTES = 512 * 1024 * 1024

#: How long closing waits for a read in progress (seconds). A read that blocks longer
#: (a file that never delivers its bytes) is abandoned: its thread ends when the read does,
#: and what it reads is dropped.
CLOSE_TIMEOUT = 2.0


class FrameLoader(QObject):
    """Asks a core prefetcher for frames; ``frame_ready`` arrives on the GUI thread.

    ``frame_ready(i, layers)`` carries what the source's ``read(i)`` returns, a
    :class:`~referee.core.workflow.frame_layers.FrameLayers`; ``frame_failed(i, message)``
    a read error. Results of requests that were superseded before they were read,
    and results of an earlier source, never arrive.
    """

    frame_ready = Signal(int, object)
    frame_failed = Signal(int, str)

    def __init__(
        self, parent: QObject | None = None, cache_bytes: int = CACHE_BYTES, ahead: int = 12
    ) -> None:
        super().__init__(parent)
        self._cache_bytes = cache_bytes
        self.cache: FrameCache[FrameLayers] = FrameCache(cache_bytes)
        self._ahead = ahead
        self._prefetcher: FramePrefetcher[FrameLayers] | None = None
        self._wanted: int | None = None
        self._generation = 0

    @property
    def has_source(self) -> bool:
        """Whether a source is set (frames can be requested)."""
        return self._prefetcher is not None

    def set_source(
        self, source: FrameReader[FrameLayers] | None, last_frame: int | None = None
    ) -> None:
        """Read from ``source`` from now on (``None``: nothing to show)."""
        self.close()
        # A new cache: a read of the old source that outlived close() must not land in it.
        self.cache = FrameCache(self._cache_bytes)
        if source is not None:
            generation = self._generation
            self._prefetcher = FramePrefetcher(
                source,
                self.cache,
                partial(self._on_ready, generation),
                self._ahead,
                partial(self._on_error, generation),
                last_frame,
            )

    def request(self, i: int) -> None:
        """Ask for frame ``i``; only the newest request is answered."""
        self._wanted = i
        if self._prefetcher is not None:
            self._prefetcher.request(i)

    def cached_frames(self) -> list[int]:
        return self.cache.cached_frames()

    def close(self, timeout: float = CLOSE_TIMEOUT) -> bool:
        """Stop the reading thread, waiting at most ``timeout`` seconds; whether it stopped."""
        prefetcher, self._prefetcher = self._prefetcher, None
        self._generation += 1
        if prefetcher is None:
            return True
        # FramePrefetcher.close() waits for its thread without a limit: wait for it here instead.
        closing = threading.Thread(target=prefetcher.close, name="referee-frame-close", daemon=True)
        closing.start()
        closing.join(timeout)
        return not closing.is_alive()

    # Both run on the prefetch thread; emitting queues the call to the GUI thread.
    def _on_ready(self, generation: int, i: int, layers: FrameLayers) -> None:
        if generation == self._generation and i == self._wanted:
            self.frame_ready.emit(i, layers)

    def _on_error(self, generation: int, i: int, error: Exception) -> None:
        if generation == self._generation and i == self._wanted:
            self.frame_failed.emit(i, str(error))
