"""Frame-exact access to video files, with a byte-bounded cache and prefetch (DESIGN "Frames").

A video is indexed once by one demux pass (no decoding): the presentation
timestamps of its frames and which of them are keyframes. Frame ``i``
(1-based, as every frame number in Referee) is the ``i``-th timestamp in
presentation order. Reading frame ``i`` decodes forward from the keyframe at
or before it and checks that the decoded frame has exactly that timestamp;
frame counters and ``time × fps`` are never trusted, since both go wrong with
B-frames.

:class:`FrameCache` keeps decoded frames under a byte budget and says which
frames it holds (the timeline draws them). :class:`FramePrefetcher` serves the
newest request on a worker thread and then fills the cache with the frames
that follow. Nothing here uses Qt: callbacks come from the worker thread and
the GUI marshals them.
"""

from __future__ import annotations

import bisect
import logging
import os
import statistics
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import av
import numpy as np

from referee.core.errors import InputFileError, MissingFrameError
from referee.core.formats.text_files import check_regular_file
from referee.core.frames.sources import FrameReader, _check_increasing
from referee.core.thread_priority import lower_thread_priority

DEFAULT_CACHE_BYTES = 256 * 2**20
_LOG = logging.getLogger(__name__)


class CacheItem(Protocol):
    """What a :class:`FrameCache` holds: anything that tells its size in bytes."""

    @property
    def nbytes(self) -> int: ...


Item = TypeVar("Item", bound=CacheItem)
"""What is cached: a frame (``np.ndarray``) or a frame with its overlays."""


@dataclass(frozen=True)
class VideoFrameIndex:
    """Where every frame of a video stream is, from one demux pass.

    Attributes
    ----------
    path
        The video file.
    pts
        Presentation timestamps of frames 1..n, increasing, in ``time_base`` units.
    keyframe_pts
        Timestamps of the keyframes, increasing.
    time_base
        Seconds per timestamp unit.
    fps
        Frames per second (the stream's average rate, or guessed from the timestamps).
    width, height
        Frame size in pixels.
    """

    path: Path
    pts: tuple[int, ...]
    keyframe_pts: tuple[int, ...]
    time_base: Fraction
    fps: float
    width: int
    height: int

    @property
    def frame_count(self) -> int:
        """Number of frames."""
        return len(self.pts)

    def pts_of(self, i: int) -> int:
        """Timestamp of frame ``i`` (1-based).

        Raises
        ------
        MissingFrameError
            If ``i`` is not in ``1..frame_count``.
        """
        if not 1 <= i <= self.frame_count:
            raise MissingFrameError(
                self.path,
                f"frame {i} is out of range: the video has frames 1 to {self.frame_count}",
            )
        return self.pts[i - 1]

    def frame_at(self, pts: int) -> int | None:
        """Number of the frame with timestamp ``pts``, or ``None`` if no frame has it."""
        k = bisect.bisect_left(self.pts, pts)
        return k + 1 if k < len(self.pts) and self.pts[k] == pts else None

    def time_of(self, i: int) -> float:
        """Seconds from the first frame to frame ``i``."""
        return float((self.pts_of(i) - self.pts[0]) * self.time_base)

    def keyframe_at_or_before(self, pts: int) -> int | None:
        """Timestamp of the last keyframe at or before ``pts``, ``None`` if there is none."""
        k = bisect.bisect_right(self.keyframe_pts, pts)
        return self.keyframe_pts[k - 1] if k else None

    def keyframe_after(self, pts: int) -> int | None:
        """Timestamp of the first keyframe strictly after ``pts``, ``None`` if there is none."""
        k = bisect.bisect_right(self.keyframe_pts, pts)
        return self.keyframe_pts[k] if k < len(self.keyframe_pts) else None


def build_frame_index(path: str | Path) -> VideoFrameIndex:
    """Index the first video stream of ``path`` by one pass over its packets.

    A packet without a presentation timestamp counts at its decoding
    timestamp; one with neither (e.g. the end-of-stream flush) is skipped.

    Raises
    ------
    InputFileError
        If the file is missing, is not a video, or its video stream holds no frame.
    """
    path = Path(path)
    with _open_video(path) as container:
        return _index_stream(path, container.streams.video[0], container)


def _open_video(path: Path) -> Any:
    """Open ``path`` with PyAV, checking it holds a video stream."""
    if not os.path.lexists(path):
        raise InputFileError(path, "video file is missing")
    check_regular_file(path)  # a named pipe would block the demuxer
    try:
        container = av.open(str(path))
    except (av.FFmpegError, OSError) as error:
        reason = getattr(error, "strerror", None) or str(error)  # FFmpeg's words, without the path
        raise InputFileError(
            path,
            f"cannot open this file as a video ({reason}): it is corrupt, not a video, "
            "or in a format FFmpeg does not read",
        ) from None
    if not container.streams.video:
        container.close()
        raise InputFileError(path, "this file holds no video stream")
    return container


def _index_stream(path: Path, stream: Any, container: Any) -> VideoFrameIndex:
    timestamps: list[int] = []
    keyframes: list[int] = []
    try:
        for packet in container.demux(stream):
            pts = packet.pts if packet.pts is not None else packet.dts
            if pts is None or packet.size == 0:
                continue
            timestamps.append(pts)
            if packet.is_keyframe:
                keyframes.append(pts)
    except av.FFmpegError as error:
        raise InputFileError(path, f"cannot read the video's packets ({error})") from None
    if not timestamps:
        raise InputFileError(path, "the video stream holds no frame")
    timestamps.sort()
    time_base = stream.time_base or Fraction(1, 1)
    return VideoFrameIndex(
        path=path,
        pts=tuple(timestamps),
        keyframe_pts=tuple(sorted(keyframes)) or (timestamps[0],),
        time_base=time_base,
        fps=_frame_rate(stream, timestamps, time_base),
        width=int(stream.codec_context.width),
        height=int(stream.codec_context.height),
    )


def _frame_rate(stream: Any, timestamps: list[int], time_base: Fraction) -> float:
    """The stream's declared rate, else one over the median timestamp step (25 if unknown)."""
    rate = stream.average_rate or stream.guessed_rate
    if rate:
        return float(rate)
    steps = [b - a for a, b in pairwise(timestamps) if b > a]
    return float(1 / (statistics.median(steps) * time_base)) if steps else 25.0


class FrameCache(Generic[Item]):
    """Decoded frames by number, least recently used dropped first, within a byte budget.

    Thread-safe. An array larger than the whole budget is not kept. Stored
    arrays are made read-only, since every reader shares them. Any object with
    an ``nbytes`` attribute can be cached (e.g. a frame and its overlays).
    """

    def __init__(self, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.max_bytes = int(max_bytes)
        self._frames: OrderedDict[int, Item] = OrderedDict()
        self._nbytes = 0
        self._lock = threading.Lock()

    @property
    def nbytes(self) -> int:
        """Bytes held by the cached arrays."""
        return self._nbytes

    def get(self, i: int) -> Item | None:
        """Frame ``i`` if cached (it becomes the most recently used), else ``None``."""
        with self._lock:
            image = self._frames.get(i)
            if image is not None:
                self._frames.move_to_end(i)
            return image

    def put(self, i: int, image: Item) -> None:
        """Keep ``image`` as frame ``i``, dropping least recently used frames to fit."""
        with self._lock:
            self._discard(i)
            if image.nbytes > self.max_bytes:
                return
            if isinstance(image, np.ndarray):
                image.flags.writeable = False
            self._frames[i] = image
            self._nbytes += image.nbytes
            while self._nbytes > self.max_bytes:
                _, dropped = self._frames.popitem(last=False)
                self._nbytes -= dropped.nbytes

    def _discard(self, i: int) -> None:
        old = self._frames.pop(i, None)
        if old is not None:
            self._nbytes -= old.nbytes

    def clear(self) -> None:
        """Drop every frame."""
        with self._lock:
            self._frames.clear()
            self._nbytes = 0

    def cached_frames(self) -> list[int]:
        """Numbers of the cached frames, increasing."""
        with self._lock:
            return sorted(self._frames)

    def __contains__(self, i: object) -> bool:
        with self._lock:
            return i in self._frames

    def __len__(self) -> int:
        with self._lock:
            return len(self._frames)

    def __repr__(self) -> str:
        return f"FrameCache({len(self)} frames, {self._nbytes}/{self.max_bytes} bytes)"


class VideoFileSource:
    """Frames of a video file by number, exactly, with a :class:`FrameCache`.

    Follows the :class:`~referee.core.frames.sources.FrameSource` protocol, except
    that frames are colour: :meth:`read` returns RGB ``uint8`` arrays of shape
    ``(h, w, 3)``, read-only (shared with the cache; copy before changing).

    Stepping forward decodes on from the current position; any other jump
    seeks to the keyframe at or before the frame and decodes forward to it.
    Safe to use from several threads (one lock guards the decoder). Pickling
    keeps the path and index only; the file is reopened when needed.

    Parameters
    ----------
    path
        The video file.
    cache_bytes
        Budget of the frame cache, when ``cache`` is not given.
    cache
        A cache to use (e.g. shared with a :class:`FramePrefetcher`).

    Raises
    ------
    InputFileError
        If the file is missing, not a video, or holds no frame.
    """

    random_access = True

    def __init__(
        self,
        path: str | Path,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
        cache: FrameCache[np.ndarray] | None = None,
    ) -> None:
        self.path = Path(path)
        self.cache: FrameCache[np.ndarray] = cache if cache is not None else FrameCache(cache_bytes)
        self._lock = threading.Lock()
        self._container: Any | None = _open_video(self.path)
        self._stream = self._container.streams.video[0]
        try:
            self.index = _index_stream(self.path, self._stream, self._container)
        except InputFileError:
            self.close()
            raise
        self._frames: Iterator[Any] | None = None  # decoded frames from the position on
        self._position: int | None = None  # timestamp of the last frame decoded

    @property
    def frame_count(self) -> int:
        """Number of frames."""
        return self.index.frame_count

    @property
    def fps(self) -> float:
        """Frames per second."""
        return self.index.fps

    @property
    def shape(self) -> tuple[int, int, int]:
        """Shape of every frame read: ``(height, width, 3)``."""
        return (self.index.height, self.index.width, 3)

    def path_of(self, i: int) -> str:
        return f"{self.path} (frame {i})"

    def read(self, i: int) -> np.ndarray:
        """Frame ``i`` (1-based) as read-only RGB ``uint8``, shape ``(h, w, 3)``.

        Raises
        ------
        MissingFrameError
            If ``i`` is out of range, or decoding does not yield the frame with
            ``i``'s timestamp (the stream ends first or skips it).
        InputFileError
            If the decoder fails on the file's data.
        """
        target = self.index.pts_of(i)
        image = self.cache.get(i)
        if image is not None:
            return image
        with self._lock:
            image = self._decode(i, target)
        image.flags.writeable = False
        self.cache.put(i, image)
        return image

    def iter_frames(self, numbers: Iterable[int]) -> Iterator[tuple[int, np.ndarray]]:
        for i in _check_increasing(numbers):
            yield i, self.read(i)

    def _decode(self, i: int, target: int) -> np.ndarray:
        if not self._can_step_to(target):
            self._seek(self.index.keyframe_at_or_before(target))
        frame = self._decode_until(target)
        if frame is None and self._position is not None and self._position > target:
            self._seek(None)  # a seek landed too late: decode from the very start
            frame = self._decode_until(target)
        if frame is None:
            self._frames = self._position = None
            raise MissingFrameError(
                self.path,
                f"cannot decode frame {i} (timestamp {target}): "
                f"the stream skips it or ends before it; "
                f"re-encode the video (e.g. ffmpeg -i in out.mp4)",
            )
        image: np.ndarray = frame.to_ndarray(format="rgb24")
        return image

    def _can_step_to(self, target: int) -> bool:
        """Whether decoding on from the current position reaches ``target`` before a keyframe."""
        if self._frames is None or self._position is None or self._position >= target:
            return False
        next_keyframe = self.index.keyframe_after(self._position)
        return next_keyframe is None or target < next_keyframe

    def _seek(self, keyframe: int | None) -> None:
        """Position the decoder at ``keyframe`` (``None``: the first frame)."""
        container = self._open()
        offset = self.index.pts[0] if keyframe is None else keyframe
        try:
            container.seek(offset, stream=self._stream, backward=True, any_frame=False)
        except av.FFmpegError as error:
            raise InputFileError(self.path, f"cannot seek in this video ({error})") from None
        self._frames = container.decode(self._stream)
        self._position = None

    def _decode_until(self, target: int) -> Any | None:
        """The decoded frame with timestamp ``target``; ``None`` on overshoot or end."""
        assert self._frames is not None
        try:
            for frame in self._frames:
                pts = frame.pts if frame.pts is not None else frame.dts
                if pts is None:
                    continue
                self._position = pts
                if pts == target:
                    return frame
                if pts > target:
                    return None
        except av.FFmpegError as error:
            self._frames = self._position = None
            raise InputFileError(self.path, f"cannot decode this video ({error})") from None
        self._frames = None
        return None

    def _open(self) -> Any:
        if self._container is None:
            self._container = _open_video(self.path)
            self._stream = self._container.streams.video[0]
        return self._container

    def close(self) -> None:
        """Close the file (it is reopened if a frame is read again)."""
        with self._lock:
            if self._container is not None:
                self._container.close()
            self._container = None
            self._frames = self._position = None

    def __enter__(self) -> VideoFileSource:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "index": self.index, "cache_bytes": self.cache.max_bytes}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.path, self.index = state["path"], state["index"]
        self.cache = FrameCache(state["cache_bytes"])
        self._lock = threading.Lock()
        self._container = self._stream = None
        self._frames = self._position = None

    def __repr__(self) -> str:
        return f"VideoFileSource({str(self.path)!r}, {self.frame_count} frames)"


FrameReadyCallback = Callable[[int, Item], None]
FrameErrorCallback = Callable[[int, Exception], None]


class FramePrefetcher(Generic[Item]):
    """Serves the newest frame request on a worker thread, then reads ahead into a cache.

    :meth:`request` replaces any request not yet started (stale requests are
    dropped, never read). The worker takes the frame from ``cache`` or reads
    it from ``source``, calls ``on_ready(i, image)``, then caches frames
    ``i+1 .. i+ahead`` (up to ``last_frame``) until a newer request arrives.
    Both callbacks run on the worker thread. A failed read calls
    ``on_error(i, error)`` (logged when ``on_error`` is ``None``) and ends
    that round's read-ahead.

    Parameters
    ----------
    source
        Anything with ``read(i)``: a frame source, or a reader of frames with their
        overlays; a :class:`VideoFileSource` should share ``cache``.
    cache
        Where read-ahead frames go.
    on_ready, on_error
        Called with each requested frame, or with each failure.
    ahead
        How many frames to read ahead after each request.
    last_frame
        The last frame that exists (default: ``source.frame_count`` if any).
    """

    def __init__(
        self,
        source: FrameReader[Item],
        cache: FrameCache[Item],
        on_ready: FrameReadyCallback[Item],
        ahead: int = 8,
        on_error: FrameErrorCallback | None = None,
        last_frame: int | None = None,
    ) -> None:
        self.source, self.cache, self.ahead = source, cache, int(ahead)
        self.last_frame = (
            last_frame if last_frame is not None else getattr(source, "frame_count", None)
        )
        self._on_ready = on_ready
        self._on_error = on_error
        self._wakeup = threading.Condition()
        self._pending: int | None = None
        self._closed = False
        self._thread = threading.Thread(
            target=self._run, name="referee-frame-prefetch", daemon=True
        )
        self._thread.start()

    def request(self, i: int) -> None:
        """Ask for frame ``i``; a request not yet started is dropped."""
        with self._wakeup:
            self._pending = i
            self._wakeup.notify()

    def close(self) -> None:
        """Drop pending work, stop the worker and wait for it."""
        with self._wakeup:
            self._closed = True
            self._pending = None
            self._wakeup.notify()
        if threading.current_thread() is not self._thread:
            self._thread.join()

    def _next_request(self) -> int | None:
        """Wait for a request; ``None`` once closed."""
        with self._wakeup:
            while self._pending is None and not self._closed:
                self._wakeup.wait()
            i, self._pending = self._pending, None
            return None if self._closed else i

    def _has_request(self) -> bool:
        with self._wakeup:
            return self._pending is not None or self._closed

    def _run(self) -> None:
        lower_thread_priority()  # reading ahead gives way to the thread that shows frames
        while (i := self._next_request()) is not None:
            image = self._load(i)
            if image is None:
                continue
            self._on_ready(i, image)
            self._read_ahead(i)

    def _load(self, i: int) -> Item | None:
        image = self.cache.get(i)
        if image is not None:
            return image
        try:
            image = self.source.read(i)
        except Exception as error:  # every failure goes to on_error
            self._report(i, error)
            return None
        self.cache.put(i, image)
        return image

    def _read_ahead(self, i: int) -> None:
        end = i + self.ahead
        if self.last_frame is not None:
            end = min(end, self.last_frame)
        for j in range(i + 1, end + 1):
            if self._has_request():
                return
            if j not in self.cache and self._load(j) is None:
                return

    def _report(self, i: int, error: Exception) -> None:
        if self._on_error is None:
            _LOG.error("cannot read frame %d of %s", i, self.source, exc_info=error)
        else:
            self._on_error(i, error)
