"""Per-frame boxes and matches packed into a few flat arrays, for pickling.

A tracker's frame-by-frame matching holds several small arrays per frame. Pickled as
they are, thousands of them are rebuilt by one long call of the unpickler, which holds
the interpreter lock all along: the desktop window, receiving a stage's result from a
worker process, could not paint for tens of milliseconds. Packed, the bytes are a few
arrays; :class:`~referee.core.measures.tracking_frames.TrackedFrames` rebuilds its
per-frame objects from them when first read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from referee.core.measures.boxes import FrameBoxes, VideoBoxes
from referee.core.measures.clear_matching import FrameMatches

_BOX_FIELDS = ("boxes", "labels", "ids", "confidences")
_MATCH_FIELDS = ("gt", "tracker", "switched", "resumed")


@dataclass(frozen=True)
class PackedArrays:
    """Arrays, some absent: one flat array ``whole`` (``None`` when all are absent), each
    present one's length and which are present; or ``loose``, the arrays as they are, when
    they differ in dtype or trailing shape."""

    whole: np.ndarray | None
    lengths: np.ndarray
    present: np.ndarray
    loose: tuple[np.ndarray | None, ...] | None = None


def pack_arrays(arrays: Sequence[np.ndarray | None]) -> PackedArrays:
    """``arrays`` packed (see :class:`PackedArrays`)."""
    kept = [a for a in arrays if a is not None]
    present = np.fromiter((a is not None for a in arrays), dtype=bool, count=len(arrays))
    lengths = np.fromiter((len(a) for a in kept), dtype=np.int64, count=len(kept))
    if len({(a.dtype, a.shape[1:]) for a in kept}) > 1:
        return PackedArrays(None, lengths, present, tuple(arrays))
    return PackedArrays(np.concatenate(kept) if kept else None, lengths, present)


def unpack_arrays(packed: PackedArrays) -> list[np.ndarray | None]:
    """The arrays :func:`pack_arrays` packed (read-only views of one array)."""
    if packed.loose is not None:
        return list(packed.loose)
    whole = packed.whole
    if whole is None:
        return [None] * len(packed.present)
    whole.setflags(write=False)
    pieces = iter(np.split(whole, np.cumsum(packed.lengths)[:-1]))
    return [next(pieces) if here else None for here in packed.present]


#: A :class:`VideoBoxes` packed: its name, its frame numbers, one packing per field.
PackedBoxes = tuple[str, tuple[int, ...], list[PackedArrays]]


def pack_video_boxes(video: VideoBoxes) -> PackedBoxes:
    """``video`` as its name, its frame numbers and one packing per :class:`FrameBoxes`
    field."""
    frames = list(video.frames.values())
    columns = [pack_arrays([getattr(f, name) for f in frames]) for name in _BOX_FIELDS]
    return video.name, tuple(video.frames), columns


def unpack_video_boxes(packed: PackedBoxes) -> VideoBoxes:
    """The :class:`VideoBoxes` :func:`pack_video_boxes` packed."""
    name, numbers, columns = packed
    fields = [unpack_arrays(column) for column in columns]
    return VideoBoxes(name, {n: FrameBoxes(*row) for n, row in zip(numbers, zip(*fields))})


def pack_matches(matches: Sequence[FrameMatches]) -> list[PackedArrays]:
    """One packing per :class:`FrameMatches` field."""
    return [pack_arrays([getattr(m, name) for m in matches]) for name in _MATCH_FIELDS]


def unpack_matches(columns: Sequence[PackedArrays]) -> tuple[FrameMatches, ...]:
    """The matches :func:`pack_matches` packed."""
    fields = [unpack_arrays(column) for column in columns]
    return tuple(FrameMatches(*row) for row in zip(*fields))
