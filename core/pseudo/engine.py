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
    from referee.core.evaluation.masks import VideoPieces
    from referee.core.pseudo.true_counts import TrueCounter


# ---------------------------------------------------------------------------
# Streaming sums of one video


#: Per-pixel counts of vote patterns (model-based entropy map) are kept up to this many
#: counters (80 MiB: ``uint32`` totals and ``uint8`` recent counts); larger frames or
#: committees take a second pass instead.
PIXEL_PATTERN_BUDGET = 1 << 24


def keeps_pixel_patterns(k: int, shape: tuple[int, ...]) -> bool:
    """Whether frames of ``shape`` with ``k`` detectors keep per-pixel pattern counts."""
    return ((1 << k) - 1) * int(np.prod(shape)) <= PIXEL_PATTERN_BUDGET


def row_width(rules: _Rules, entropy_only: bool = False) -> int:
    """Length of a frame's row after its number: ``n``, then the committee's overlaps."""
    if entropy_only or rules.staple:
        return 1
    return 1 + rules.k + rules.k * (rules.k - 1) // 2


def needs_entropy_pass(rules: _Rules, shape: tuple[int, ...], entropy: bool) -> bool:
    """Whether the model-based entropy map of such frames takes a second pass over them."""
    return entropy and rules.staple and not keeps_pixel_patterns(rules.k, shape)


class _FrameEngine:
    """What one video's frames give, frame by frame: sums for the consensus and entropy.

    Each detector's mask becomes a binary image (value ``2**j`` for detector
    ``j`` in committees of up to 8, else 255), cleared outside the ROI. Then,
    depending on the consensus:

    * committee: the pixel counts of every image and of every pairwise
      minimum (non-zero iff both detect) are the overlaps from which
      :meth:`_Rules.sums` derives every sum, after streaming;
    * staple: the frame's histogram of vote codes (bit ``j`` set iff detector
      ``j`` detects), from which :func:`~referee.core.pseudo.staple.staple_sums`
      derives every sum once the model is fitted.

    ``H(P)`` per pixel is summed through a look-up table of the vote code:
    the committee's own, or a given one (``lut``: the model's, on a second
    pass that computes nothing else). On the first staple pass the model is
    not known yet, so each pixel's count of every non-zero code is kept
    instead (:func:`keeps_pixel_patterns`).
    """

    _FLUSH = 64  # frames summed in float32 before adding to the float64 total

    def __init__(
        self,
        rules: _Rules,
        roi: np.ndarray | None,
        shape: tuple[int, int],
        entropy: bool,
        lut: np.ndarray | None = None,
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
        self.entropy_only = lut is not None
        if lut is None and entropy and not rules.staple and self.coded:
            lut = rules.entropy_lut()
        self._lut = lut
        sums_entropy = entropy and (self.entropy_only or not rules.staple)
        self._entropy_sum = np.zeros(shape, dtype=np.float64) if sums_entropy else None
        self._recent = np.zeros(shape, dtype=np.float32) if sums_entropy else None
        self._pending = 0
        keep = (
            entropy
            and rules.staple
            and not self.entropy_only
            and keeps_pixel_patterns(rules.k, shape)
        )
        size = shape[0] * shape[1] * ((1 << rules.k) - 1)
        # Counted in uint8 (a quarter of the memory traffic), added to uint32 every 255 frames.
        self._patterns_recent = np.zeros(size, dtype=np.uint8) if keep else None
        self._patterns_total = np.zeros(size, dtype=np.uint32) if keep else None
        self._patterns_pending = 0

    def frame(self, masks: Sequence[np.ndarray], row: np.ndarray, index: int) -> np.ndarray | None:
        """Take the ``index``-th frame: fill ``row`` (see :func:`row_width`); staple: return
        its histogram's rows ``index, code, count``."""
        self._binarize(masks, row)
        histogram = None
        if self.rules.staple and not self.entropy_only:
            histogram = self._patterns(index)
        elif not self.entropy_only:
            self._overlaps(row)
        if self._recent is not None:
            self._accumulate_entropy(self._recent)
        return histogram

    def _binarize(self, masks: Sequence[np.ndarray], row: np.ndarray) -> None:
        cut, bits = self.rules.cut, self._bits
        row[0] = self.n
        for j, (mask, bit) in enumerate(zip(masks, bits)):
            cv2.threshold(mask, cut, self._values[j], cv2.THRESH_BINARY, dst=bit)
            if self._inside is not None:
                cv2.bitwise_and(bit, self._inside, dst=bit)

    def _overlaps(self, row: np.ndarray) -> None:
        bits, scratch, k = self._bits, self._scratch, self.rules.k
        nonzero = cv2.countNonZero
        for j, bit in enumerate(bits):
            row[1 + j] = nonzero(bit)
        for c, (j, m) in enumerate(self._pairs, start=1 + k):
            if row[1 + j] and row[1 + m]:
                row[c] = nonzero(cv2.min(bits[j], bits[m], dst=scratch))
            else:
                row[c] = 0.0

    def _code(self) -> np.ndarray:
        """The vote code of every pixel: ``uint8`` up to 8 detectors, else ``uint16``."""
        bits = self._bits
        if self.coded:
            code: np.ndarray = bits[0]
            if len(bits) > 1:
                code = cv2.bitwise_or(bits[0], bits[1], dst=self._scratch)
                for bit in bits[2:]:
                    cv2.bitwise_or(code, bit, dst=code)
            return code
        wide = np.zeros(self.shape, dtype=np.uint16)
        for j, bit in enumerate(bits):
            np.bitwise_or(wide, np.uint16(1 << j), out=wide, where=bit.view(bool))
        return wide

    def _patterns(self, index: int) -> np.ndarray:
        """Rows ``index, code, count`` of the frame's histogram over the evaluated pixels."""
        code = self._code().ravel()
        voted = np.flatnonzero(code != 0)  # pixels outside the ROI have code 0
        votes = code[voted]
        histogram = np.bincount(votes, minlength=1 << self.rules.k).astype(np.float64)
        histogram[0] = self.n - voted.size
        if self._patterns_recent is not None:
            width = (1 << self.rules.k) - 1
            self._patterns_recent[voted * width + votes - 1] += 1
            self._patterns_pending += 1
            if self._patterns_pending == np.iinfo(np.uint8).max:
                self._flush_patterns()
        present = np.flatnonzero(histogram)
        rows = np.empty((present.size, 3))
        rows[:, 0] = index
        rows[:, 1] = present
        rows[:, 2] = histogram[present]
        return rows

    def _flush_patterns(self) -> None:
        if self._patterns_total is not None and self._patterns_recent is not None:
            self._patterns_total += self._patterns_recent
            self._patterns_recent[...] = 0
        self._patterns_pending = 0

    @property
    def pixel_patterns(self) -> np.ndarray | None:
        """Per pixel ``(y, x)`` and code ``1..2**k − 1``, the frames so far with that code."""
        self._flush_patterns()
        if self._patterns_total is None:
            return None
        return self._patterns_total.reshape(*self.shape, -1)

    def _accumulate_entropy(self, recent: np.ndarray) -> None:
        if self._lut is not None:
            code = self._code()
            if code.dtype == np.uint8 and self._lut.size == 256:
                cv2.accumulate(cv2.LUT(code, self._lut), recent)
            else:
                recent += self._lut[code]
        else:
            r = self.rules
            votes = np.zeros(self.shape, dtype=np.float64)
            for bit, w in zip(self._bits, r.w):
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
    """Some frames of one video.

    ``rows``: frame number then :func:`row_width` columns; ``entropy_sum``:
    Σ ``H(P)`` per pixel; ``patterns`` (staple): ``(m, 3)`` rows ``row, code,
    count`` of the frames' code histograms; ``pixel_patterns`` (staple with
    entropy): per pixel ``(y, x)`` and code ``1..2**k − 1``, the frames with that code;
    ``truth`` (a pass that also counts against the ground truth): each detector's true
    counts per frame (:class:`~referee.core.pseudo.true_counts.TrueCounter`).
    """

    rows: np.ndarray
    entropy_sum: np.ndarray | None
    patterns: np.ndarray | None = None
    pixel_patterns: np.ndarray | None = None
    truth: VideoPieces | None = None


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
    lut: np.ndarray | None = None,
    truth: TrueCounter | None = None,
) -> _Partial:
    """Consume ``(frame, masks)`` pairs one at a time; nothing is kept but counts and sums.

    With ``lut`` (``H(P)`` per vote code) only the entropy map is summed. With ``truth``
    each frame's masks are also counted against its ground truth.
    """
    engine: _FrameEngine | None = None
    # Rows double as frames come: a temporal ROI may name far more frames than exist.
    rows = np.zeros((min(max(expected, 1), _FIRST_ROWS), 1 + row_width(rules, lut is not None)))
    histograms: list[np.ndarray] = []
    count = 0
    for i, masks in frames:
        check(cancel)
        if engine is None:
            engine = _FrameEngine(rules, roi, shape or masks[0].shape, entropy, lut)
        if count == rows.shape[0]:
            rows = np.concatenate([rows, np.zeros_like(rows)])
        row = rows[count]
        row[0] = i
        histogram = engine.frame(masks, row[1:], count)
        if histogram is not None:
            histograms.append(histogram)
        if truth is not None:
            truth.frame(i, masks)
        count += 1
        report(progress, count, expected)
    patterns = None
    if rules.staple and lut is None:
        patterns = np.concatenate(histograms) if histograms else np.zeros((0, 3))
    counted = None if truth is None else truth.pieces()
    if engine is None:
        return _Partial(rows[:0], None, patterns, truth=counted)
    return _Partial(rows[:count], engine.entropy_sum, patterns, engine.pixel_patterns, counted)


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
