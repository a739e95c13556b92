"""Frame sources: result masks by frame number, whatever the container (DESIGN "Frames").

Frame numbers are 1-based, as in CDnet. Every source returns frames as
``uint8`` grey images of shape ``(h, w)`` and can say where a frame comes from
(:meth:`FrameSource.path_of`) for error messages. Sources hold no open file
between pickling, so they can be sent to worker processes.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import (
    Any,
    NoReturn,
    Protocol,
    TypeVar,
    runtime_checkable,
)

import cv2
import numpy as np

from referee.core.errors import (
    InputFileError,
    InvalidOptionError,
    MissingFrameError,
    SizeMismatchError,
)
from referee.core.formats.cdnet import (
    RESULT_EXTENSIONS,
    find_result_file,
    find_result_folder,
    read_grey,
    result_extension,
    result_file_name,
)
from referee.core.formats.images import load_grey
from referee.core.formats.text_files import check_regular_file
from referee.core.model.videos import VideoSpec


@runtime_checkable
class FrameSource(Protocol):
    """Gives frame ``i`` (1-based) of a sequence of masks exactly."""

    def read(self, i: int) -> np.ndarray:
        """Frame ``i`` as ``uint8`` grey levels, shape ``(h, w)``."""
        ...

    def path_of(self, i: int) -> str | Path:
        """Where frame ``i`` comes from, for messages."""
        ...

    def iter_frames(self, numbers: Iterable[int]) -> Iterator[tuple[int, np.ndarray]]:
        """``(i, frame)`` for increasing frame numbers ``numbers``."""
        ...


_Frame = TypeVar("_Frame", covariant=True)


class FrameReader(Protocol[_Frame]):
    """Gives frame ``i`` (1-based) by ``read(i)``: an image, or a frame with its overlays.

    Every :class:`FrameSource` is a ``FrameReader[np.ndarray]``.
    """

    def read(self, i: int, /) -> _Frame:
        """Frame ``i``."""
        ...


def _check_increasing(numbers: Iterable[int]) -> Iterator[int]:
    previous = 0
    for i in numbers:
        if i <= previous:
            raise InvalidOptionError(
                f"frame numbers must be increasing and start at 1; got {i} after {previous}"
            )
        previous = i
        yield i


class _ImageFolderSource:
    """Shared reading for sources with one image file per frame."""

    random_access = True

    def path_of(self, i: int) -> Path:  # pragma: no cover - overridden
        raise NotImplementedError

    def read(self, i: int) -> np.ndarray:
        return read_grey(self.path_of(i), "result", i)

    def iter_frames(self, numbers: Iterable[int]) -> Iterator[tuple[int, np.ndarray]]:
        for i in _check_increasing(numbers):
            yield i, self.read(i)


class CdnetResultSource(_ImageFolderSource):
    """A method's CDnet result frames ``bin%06d.<ext>`` in one folder (docs/measures.md §1, §10).

    The extension is decided once, by probing frame ``first`` with ``.png
    .jpg .jpeg .bmp .ppm`` in that order; a frame missing under that extension
    is probed again with every extension.

    Parameters
    ----------
    folder
        The video's result folder.
    first
        The frame used to decide the extension (usually the temporal ROI's first).

    Raises
    ------
    InputFileError
        If ``folder`` does not exist or holds no result frame at all.
    """

    def __init__(self, folder: str | Path, first: int = 1) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise InputFileError(self.folder, "result folder does not exist")
        self.extension = result_extension(self.folder, first)
        self._prefix = os.path.join(os.fspath(self.folder), "bin")

    @classmethod
    def for_video(
        cls, results_root: str | Path, video: VideoSpec, single_video: bool = False
    ) -> CdnetResultSource:
        """The results of ``video`` under a method's results root.

        See :func:`~referee.core.formats.cdnet.find_result_folder` for the layouts accepted.
        """
        return cls(find_result_folder(results_root, video, single_video), video.first)

    def path_of(self, i: int) -> Path:
        """The expected file of frame ``i`` (with the video's extension)."""
        return self.folder / result_file_name(i, self.extension)

    def name_of(self, i: int) -> str:
        """:meth:`path_of` as a string, built without :class:`~pathlib.Path` (fast)."""
        return f"{self._prefix}{i:06d}{self.extension}"

    def read(self, i: int) -> np.ndarray:
        name = self.name_of(i)
        image = load_grey(name, "result", i)
        if image is not None:
            return image
        found = find_result_file(self.folder, i)
        if found is None:
            others = " ".join(e for e in RESULT_EXTENSIONS if e != self.extension)
            raise MissingFrameError(
                name,
                f"result of frame {i} is missing (also looked for "
                f"{others}); every evaluated frame needs a result",
            )
        return read_grey(found, "result", i)

    def __repr__(self) -> str:
        return f"CdnetResultSource({str(self.folder)!r}, extension={self.extension!r})"


_PRINTF_FIELD = re.compile(r"%[-+ #0]*\d*[diu]")
_BRACE_FIELD = re.compile(r"\{[^{}]*\}")


class PatternFolderSource(_ImageFolderSource):
    """Frames named by a pattern in one folder, e.g. ``mask_%04d.png`` or ``{:05d}.png``.

    Frame ``i`` is the file named by the pattern applied to ``i + offset``
    (``offset=-1`` for files numbered from 0).

    Raises
    ------
    InputFileError
        If ``folder`` does not exist.
    InvalidOptionError
        If ``pattern`` does not hold exactly one integer field.
    """

    def __init__(self, folder: str | Path, pattern: str, offset: int = 0) -> None:
        self.folder = Path(folder)
        self.pattern = pattern
        self.offset = int(offset)
        self._printf = _check_pattern(pattern)
        if not self.folder.is_dir():
            raise InputFileError(self.folder, "frame folder does not exist")

    def file_name(self, i: int) -> str:
        """File name of frame ``i``."""
        n = i + self.offset
        return self.pattern % n if self._printf else self.pattern.format(n)

    def path_of(self, i: int) -> Path:
        return self.folder / self.file_name(i)

    def read(self, i: int) -> np.ndarray:
        try:
            return read_grey(self.path_of(i), "frame", i)
        except MissingFrameError:
            if not self._any_frame():
                raise InputFileError(
                    self.folder, f"this folder holds no frame matching {self.pattern!r} at all"
                ) from None
            raise

    def _any_frame(self) -> bool:
        field = _PRINTF_FIELD if self._printf else _BRACE_FIELD
        parts = field.split(self.pattern.replace("%%", "%") if self._printf else self.pattern)
        wildcard = "*".join(glob.escape(part) for part in parts)
        return bool(glob.glob(os.path.join(glob.escape(os.fspath(self.folder)), wildcard)))

    def __repr__(self) -> str:
        return f"PatternFolderSource({str(self.folder)!r}, {self.pattern!r}, offset={self.offset})"


def _check_pattern(pattern: str) -> bool:
    """Validate a file-name pattern; return whether it is printf-style."""
    printf = bool(_PRINTF_FIELD.search(pattern))
    try:
        names = [pattern % n if printf else pattern.format(n) for n in (1, 2)]
    except (TypeError, ValueError, IndexError, KeyError) as error:
        raise InvalidOptionError(
            f"file-name pattern {pattern!r} must hold one integer field "
            f"such as %06d or {{:06d}} ({error})"
        ) from None
    if names[0] == names[1]:
        raise InvalidOptionError(
            f"file-name pattern {pattern!r} has no frame-number field; "
            f"use e.g. 'mask_%04d.png' or '{{:05d}}.png'"
        )
    return printf


def open_capture(path: str | Path) -> cv2.VideoCapture:
    """An OpenCV decoder of the video file ``path`` (check ``isOpened()``).

    The decoder's own messages are silenced (unless ``OPENCV_FFMPEG_LOGLEVEL``
    is set): a corrupt file would print lines of its own on standard error,
    where Referee prints one line saying what is wrong.
    """
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # read when the first decoder opens
    return cv2.VideoCapture(os.fspath(path))


#: Why a video file gives no frame, after its path (one line, the same in the GUI and the CLI).
UNDECODABLE_VIDEO = (
    "not a video OpenCV can decode (no frame could be read): the file is corrupt, "
    "truncated or not a video, or its codec is not supported"
)


def first_frame_size(path: str | Path) -> tuple[int, int]:
    """Width and height of the first frame of the video file ``path``: a cheap check,
    by decoding that one frame, that Referee can read the file.

    Raises
    ------
    InputFileError
        If ``path`` is missing or not a regular file, or no frame of it can be decoded.
    """
    check_regular_file(path)  # a named pipe would block the decoder
    capture = open_capture(path)
    try:
        ok, frame = capture.read() if capture.isOpened() else (False, None)
    finally:
        capture.release()
    if not ok or frame is None:
        raise InputFileError(path, UNDECODABLE_VIDEO)
    return int(frame.shape[1]), int(frame.shape[0])


class MaskVideoSource:
    """Masks stored as frames of a video file, decoded strictly in order.

    Frame ``i`` is the ``i``-th decoded frame: the file is read forward from
    its start, never positioned by frame index or time (both can land on the
    wrong frame), and frames before the one asked for are decoded and dropped.
    Asking for an earlier frame than the last one reopens the file. Frames are
    converted to grey levels. Lossy codecs blur mask values, so evaluate such
    masks with a threshold (docs/measures.md §1 option).

    Raises
    ------
    InputFileError
        If the file is missing or cannot be opened as a video.
    """

    random_access = False

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not os.path.lexists(self.path):
            raise InputFileError(self.path, "mask video file is missing")
        check_regular_file(self.path)  # a named pipe would block the decoder
        self._capture: cv2.VideoCapture | None = None
        self._next = 1  # number of the frame the next decode returns
        self._open()

    def _open(self) -> None:
        self.close()
        capture = open_capture(self.path)
        if not capture.isOpened():
            raise InputFileError(
                self.path,
                "cannot open this file as a video: it is corrupt, not a video, or in a format "
                "the decoder does not read; give the masks as an image sequence or a lossless "
                "video (FFV1)",
            )
        self._capture = capture
        self._next = 1

    def close(self) -> None:
        """Release the decoder (it is reopened when needed)."""
        if self._capture is not None:
            self._capture.release()
        self._capture = None
        self._next = 1

    def path_of(self, i: int) -> str:
        return f"{self.path} (frame {i})"

    def read(self, i: int) -> np.ndarray:
        if i < 1:
            raise InvalidOptionError(f"frame numbers start at 1, not {i}")
        if self._capture is None or i < self._next:
            self._open()
        capture = self._capture
        assert capture is not None
        while self._next < i:
            if not capture.grab():
                self._past_end(i)
            self._next += 1
        ok, frame = capture.read()
        if not ok or frame is None:
            self._past_end(i)
        self._next += 1
        if frame.ndim == 3:
            code = cv2.COLOR_BGRA2GRAY if frame.shape[2] == 4 else cv2.COLOR_BGR2GRAY
            frame = cv2.cvtColor(frame, code)
        if frame.dtype != np.uint8:
            raise InputFileError(self.path, f"frames are {frame.dtype}, expected 8-bit masks")
        return frame

    def _past_end(self, i: int) -> NoReturn:
        decoded = self._next - 1
        self.close()
        raise MissingFrameError(
            self.path, f"frame {i} is missing: the video has only {decoded} frames"
        )

    def iter_frames(self, numbers: Iterable[int]) -> Iterator[tuple[int, np.ndarray]]:
        for i in _check_increasing(numbers):
            yield i, self.read(i)

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.path = state["path"]
        self._capture = None
        self._next = 1

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # pragma: no cover - interpreter shutdown
            self.close()

    def __repr__(self) -> str:
        return f"MaskVideoSource({str(self.path)!r})"


def masks_by_frame(
    sources: Sequence[FrameSource],
    numbers: Sequence[int],
    shape: tuple[int, ...] | None,
    reference: str | Path,
) -> Iterator[tuple[int, list[np.ndarray]]]:
    """``(i, [each source's frame i])`` for increasing frame numbers, sizes checked.

    Every frame must have ``shape`` (when ``None``, the first frame's shape),
    which comes from ``reference`` (named in the size-mismatch error).
    """
    streams = [source.iter_frames(numbers) for source in sources]
    first_path: str | None = None
    for i in numbers:
        masks = []
        for source, stream in zip(sources, streams):
            j, mask = next(stream)
            if shape is None:
                shape, first_path = mask.shape, str(source.path_of(j))
            if mask.shape != shape:
                raise SizeMismatchError(
                    source.path_of(j), mask.shape, first_path or reference, shape
                )
            masks.append(mask)
        yield i, masks
