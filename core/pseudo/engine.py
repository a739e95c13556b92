"""Streaming sums of one video's masks, frame by frame (docs/measures.md §7)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import (
    TYPE_CHECKING,
    NamedTuple,
)

import cv2
import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.progress import CancelToken, ProgressCallback, check, report
from referee.core.pseudo.committee import _MAX_CODE_BITS, _Rules
from referee.core.pseudo.consensus import binary_entropy

if TYPE_CHECKING:
    pass


# ---------------------------------------------------------------------------
# Streaming sums of one video


class _FrameEngine:
    """Per-frame overlap counts of one video and the running sum of ``H(P)`` per pixel.

    Each detector's mask becomes a binary image (value ``2**j`` for detector
    ``j`` in committees of up to 8, else 255), cleared outside the ROI. The
    pixel counts of every image and of every pairwise minimum (non-zero iff
    both detect) are the overlaps from which :meth:`_Rules.sums` derives
    every sum, after streaming; the images OR-ed together are the vote code
    that a look-up table turns into ``H(P)``.
    """

    _FLUSH = 64  # frames summed in float32 before adding to the float64 total

    def __init__(
        self, rules: _Rules, roi: np.ndarray | None, shape: tuple[int, int], entropy: bool
    ) -> None:
        self.rules = rules
        self.shape = shape
        roi = None if roi is None or roi.all() else roi
        self.n = float(shape[0] * shape[1] if roi is None else np.count_nonzero(roi))
        self._inside = None if roi is None else np.where(roi, 255, 0).astype(np.uint8)
        self.coded = rules.k <= _MAX_CODE_BITS
        self._values = [(1 << j) if self.coded else 255 for j in range(rules.k)]
        self._bits = [np.empty(shape, dtype=np.uint8) for _ in range(rules.k)]
        self._scratch = np.empty(shape, dtype=np.uint8)
        self._pairs = [(j, m) for j in range(rules.k) for m in range(j + 1, rules.k)]
        self._entropy_sum = np.zeros(shape, dtype=np.float64) if entropy else None
        self._recent = np.zeros(shape, dtype=np.float32) if entropy else None
        self._pending = 0
        self._lut = rules.entropy_lut() if entropy and self.coded else None

    @property
    def width(self) -> int:
        """Length of an overlap row: ``n``, ``k`` singles, ``k(k−1)/2`` pairs."""
        return 1 + self.rules.k + len(self._pairs)

    def overlaps(self, masks: Sequence[np.ndarray], row: np.ndarray) -> None:
        """Fill ``row`` with one frame's overlap counts (see :meth:`_Rules.sums`)."""
        cut, bits, scratch, k = self.rules.cut, self._bits, self._scratch, self.rules.k
        nonzero = cv2.countNonZero
        row[0] = self.n
        for j, (mask, bit) in enumerate(zip(masks, bits)):
            cv2.threshold(mask, cut, self._values[j], cv2.THRESH_BINARY, dst=bit)
            if self._inside is not None:
                cv2.bitwise_and(bit, self._inside, dst=bit)
            row[1 + j] = nonzero(bit)
        for c, (j, m) in enumerate(self._pairs, start=1 + k):
            if row[1 + j] and row[1 + m]:
                row[c] = nonzero(cv2.min(bits[j], bits[m], dst=scratch))
            else:
                row[c] = 0.0
        if self._recent is not None:
            self._accumulate_entropy(self._recent)

    def _accumulate_entropy(self, recent: np.ndarray) -> None:
        bits = self._bits
        if self._lut is not None:
            code: np.ndarray = bits[0]
            if len(bits) > 1:
                code = cv2.bitwise_or(bits[0], bits[1], dst=self._scratch)
                for bit in bits[2:]:
                    cv2.bitwise_or(code, bit, dst=code)
            cv2.accumulate(cv2.LUT(code, self._lut), recent)
        else:
            r = self.rules
            votes = np.zeros(self.shape, dtype=np.float64)
            for bit, w in zip(bits, r.w):
                np.add(votes, w, out=votes, where=bit.view(bool))
            recent += binary_entropy((votes + r.t) / r.den).astype(np.float32)
        self._pending += 1
        if self._pending == self._FLUSH:
            self._flush()

    def _flush(self) -> None:
        if self._entropy_sum is not None and self._recent is not None and self._pending:
            self._entropy_sum += self._recent
            self._recent[...] = 0.0
        self._pending = 0

    @property
    def entropy_sum(self) -> np.ndarray | None:
        """Sum over the frames so far of ``H(P)`` per pixel, ``float64``."""
        self._flush()
        return self._entropy_sum


class _Partial(NamedTuple):
    """Some frames of one video: rows ``frame, n, G_jj…, G_jl…`` and Σ ``H(P)`` per pixel."""

    rows: np.ndarray
    entropy_sum: np.ndarray | None


#: Rows of per-frame sums allocated at first.
_FIRST_ROWS = 1024


def _stream(
    frames: Iterable[tuple[int, Sequence[np.ndarray]]],
    rules: _Rules,
    roi: np.ndarray | None,
    shape: tuple[int, int] | None,
    entropy: bool,
    expected: int,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
) -> _Partial:
    """Consume ``(frame, masks)`` pairs one at a time; nothing is kept but counts and sums."""
    k = rules.k
    # Rows double as frames come: a temporal ROI may name far more frames than exist.
    rows = np.zeros((min(max(expected, 1), _FIRST_ROWS), 2 + k + k * (k - 1) // 2))
    engine: _FrameEngine | None = None
    count = 0
    for i, masks in frames:
        check(cancel)
        if engine is None:
            engine = _FrameEngine(rules, roi, shape or masks[0].shape, entropy)
        if count == rows.shape[0]:
            rows = np.concatenate([rows, np.zeros_like(rows)])
        row = rows[count]
        row[0] = i
        engine.overlaps(masks, row[1:])
        count += 1
        report(progress, count, expected)
    return _Partial(rows[:count], None if engine is None else engine.entropy_sum)


def _array_frames(
    frames: Iterable[tuple[int, Sequence[np.ndarray]]], k: int, shape: tuple[int, ...] | None
) -> Iterator[tuple[int, list[np.ndarray]]]:
    """In-memory masks, checked: ``k`` per frame, 2-D, one size; bool becomes 0/255."""
    previous = 0
    for i, masks in frames:
        if int(i) <= previous:
            raise InvalidOptionError(
                f"frame numbers must be increasing from 1; got {i} after {previous}"
            )
        previous = int(i)
        if len(masks) != k:
            raise InvalidOptionError(f"frame {i} has {len(masks)} masks for {k} detectors")
        checked = []
        for mask in masks:
            mask = np.asarray(mask)
            if mask.dtype == bool:
                mask = mask.view(np.uint8) * np.uint8(255)
            if mask.dtype != np.uint8 or mask.ndim != 2:
                raise InvalidOptionError(
                    f"masks must be 2-D uint8 or bool arrays; frame {i} "
                    f"has a {mask.dtype} array of shape {mask.shape}"
                )
            shape = shape or mask.shape
            if mask.shape != shape:
                raise InvalidOptionError(f"frame {i}: mask shape {mask.shape} differs from {shape}")
            checked.append(np.ascontiguousarray(mask))
        yield int(i), checked
