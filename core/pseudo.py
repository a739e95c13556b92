"""Pseudo ground truth from a committee of detectors (SPEC §7, seed 004).

K binary classifiers give ``S_k(i) ∈ {0, 1}`` per pixel or item ``i``. Their
(weighted) mean is the consensus ``P(i)``; by default the committee also holds
the trivial all-ones and all-zeros classifiers (``K' = K + 2``). A classifier
``S`` then has the *pseudo confusion matrix* of expected counts under ``P``:
``tp = Σ S·P``, ``fp = Σ S·(1−P)``, ``fn = Σ (1−S)·P``, ``tn = Σ (1−S)·(1−P)``,
from which every indicator of the registry has a pseudo version.

Videos are evaluated streaming, frame by frame, without ground truth
(:func:`pseudo_evaluate`). Which pixels and frames count:

* pixels inside ``ROI.bmp`` when the video has one, else the whole frame;
* the frames of ``temporalROI.txt`` when the video has one (every detector
  must then have every such frame), else the frames that every detector has.

Per frame, each pixel's votes are packed into a *code* (bit ``j`` set iff
detector ``j`` detects it). Every sum the measures need is a linear function
of the histogram of codes over the evaluated pixels, so a frame costs a few
whole-image passes whatever the weights or the leave-one-out option
(committees of more than 8 detectors use a direct per-pixel path instead).
Pseudo NCC and PSNR come from the streamed sums ``n, Σs, Σp, Σp², Σsp``.

When ground truth exists too, :func:`compare_with_truth` correlates every
pseudo indicator with its true value across detectors (Pearson, Spearman).
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    NamedTuple,
)

import cv2
import numpy as np

from .confusion import ConfusionMatrix, VideoConfusion
from .errors import InvalidOptionError, RefereeError
from .formats.cdnet import VideoSpec, read_roi, result_frame_numbers
from .frames import FrameSource, masks_by_frame
from .indicators import INDICATORS, NO_PIXELS, IndicatorValue, evaluate_all, undefined
from .pixel import check_threshold
from .progress import CancelToken, ProgressCallback, check, report

if TYPE_CHECKING:
    from .summarize import Summary

# Worker processes import this module: SciPy (through .summarize) is imported
# only where correlations and summaries are computed, which workers never do.
VideoKey = tuple[str, str]


def consensus(
    masks: Sequence[np.ndarray],
    weights: Sequence[float] | None = None,
    include_trivial: bool = True,
) -> np.ndarray:
    """Consensus ``P`` of binary masks, in [0, 1] (SPEC §7).

    Parameters
    ----------
    masks
        The committee's masks, all of one shape; a value counts as 1 iff it is
        non-zero (pass boolean masks, or 0/255 images).
    weights
        One non-negative weight per mask (default: all 1). The trivial
        classifiers, when included, weigh 1 each.
    include_trivial
        Add the all-ones and all-zeros classifiers to the committee (default,
        as in the seed's worked table).

    Returns
    -------
    ``float64`` array of the masks' shape.
    """
    if len(masks) == 0:
        raise InvalidOptionError("the committee is empty: give at least one detector")
    w = np.ones(len(masks)) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (len(masks),) or np.any(w < 0):
        raise InvalidOptionError(
            f"give one non-negative weight per detector ({len(masks)} detectors, weights {list(w)})"
        )
    shape = np.shape(masks[0])
    total = np.zeros(shape, dtype=np.float64)
    for mask, weight in zip(masks, w):
        if np.shape(mask) != shape:
            raise InvalidOptionError(
                f"committee masks differ in size: {shape} and {np.shape(mask)}"
            )
        if weight:
            total += weight * (np.asarray(mask) != 0)
    denominator = w.sum()
    if include_trivial:
        total += 1.0  # the all-ones classifier; the all-zeros one adds nothing
        denominator += 2.0
    if denominator <= 0:
        raise InvalidOptionError("the committee's weights sum to 0")
    return total / denominator


def pseudo_confusion(
    mask: np.ndarray, p: np.ndarray, evaluated: np.ndarray | None = None
) -> ConfusionMatrix:
    """Pseudo confusion matrix of ``mask`` under the consensus ``p`` (SPEC §7).

    Parameters
    ----------
    mask
        The classifier's output; non-zero means positive.
    p
        Consensus probabilities, same shape.
    evaluated
        Optional boolean mask of the pixels that count (e.g. the ROI).

    Returns
    -------
    Expected counts ``tp = Σ S·P``, ``fp = Σ S·(1−P)``, ``fn = Σ (1−S)·P``,
    ``tn = Σ (1−S)·(1−P)`` (floats).
    """
    s = np.asarray(mask) != 0
    p = np.asarray(p, dtype=np.float64)
    if s.shape != p.shape:
        raise InvalidOptionError(f"mask shape {s.shape} differs from consensus shape {p.shape}")
    if evaluated is not None:
        s, p = s[evaluated], p[evaluated]
    n = float(s.size)
    sum_s = float(np.count_nonzero(s))
    sum_p = float(p.sum())
    tp = float(p[s].sum())
    fp = sum_s - tp
    fn = sum_p - tp
    return ConfusionMatrix(tp=tp, fp=fp, fn=fn, tn=n - sum_s - fn)


# ---------------------------------------------------------------------------
# Committee options


PER_FRAME_COLUMNS: tuple[str, ...] = ("frame", "tp", "fp", "fn", "tn")
"""Columns of the arrays in :attr:`PseudoVideoResult.per_frame`."""

MAP_MEASURES: tuple[str, ...] = ("ncc", "psnr")
"""Measures of the maps ``S`` and ``P`` themselves, beside the registry indicators."""

CORRELATED: tuple[str, ...] = tuple(INDICATORS) + MAP_MEASURES
"""Every key :func:`compare_with_truth` correlates: the registry, then NCC and PSNR."""

S_EQUALS_P = "undefined: S equals P everywhere"
CONSTANT_MASK = "undefined: the mask is the same on every pixel (no variance)"
CONSTANT_REFERENCE = "undefined: the consensus is the same on every pixel (no variance)"

_MAX_CODE_BITS = 8  # committees up to this size pack their votes into one uint8 code


@dataclass(frozen=True)
class CommitteeOptions:
    """Who votes in the consensus ``P`` and how (SPEC §7 options).

    Attributes
    ----------
    include_trivial
        Add the all-ones and all-zeros classifiers, weight 1 each (default, as
        in the seed's table: ``K' = K + 2``).
    leave_one_out
        Evaluate each detector against the consensus of the *other* members
        (default off: every detector is in its own reference).
    weights
        One non-negative weight per detector, in the order of the methods
        (default: all 1).
    threshold
        Detection rule of SPEC §1: ``None`` (default) a mask value of 255 is
        a detection, ``T`` values ``>= T`` are.
    """

    include_trivial: bool = True
    leave_one_out: bool = False
    weights: tuple[float, ...] | None = None
    threshold: int | None = None

    def __post_init__(self) -> None:
        if self.weights is not None:
            try:
                weights = tuple(float(w) for w in self.weights)
            except (TypeError, ValueError):
                raise InvalidOptionError(
                    f"detector weights must be numbers, got {self.weights!r}"
                ) from None
            object.__setattr__(self, "weights", weights)

    def describe(self, methods: Sequence[str]) -> str:
        """One line naming every option, defaults included, for reports."""
        k = len(methods)
        members = f"{k} detector{'' if k == 1 else 's'}"
        members += (
            f" + trivial all-ones and all-zeros (K' = {k + 2})"
            if self.include_trivial
            else f", no trivial classifiers (K' = {k})"
        )
        weights = (
            "equal weights"
            if self.weights is None
            else "weights " + ", ".join(f"{m} {w:g}" for m, w in zip(methods, self.weights))
        )
        loo = (
            "leave-one-out (each detector against the others)"
            if self.leave_one_out
            else "each detector against the whole committee"
        )
        rule = "detected iff 255" if self.threshold is None else f"detected iff >= {self.threshold}"
        return f"committee: {members}; {weights}; {loo}; {rule}"


class _Rules:
    """The committee arithmetic for the given detectors, checked once."""

    def __init__(self, options: CommitteeOptions, methods: Sequence[str]) -> None:
        k = len(methods)
        if k == 0:
            raise InvalidOptionError("the committee is empty: give at least one detector")
        if options.weights is None:
            w = np.ones(k)
        else:
            w = np.asarray(options.weights, dtype=float)
            if w.shape != (k,):
                raise InvalidOptionError(
                    f"give one weight per detector: {k} detectors ({', '.join(methods)}) "
                    f"but {len(options.weights)} weights"
                )
            if not np.all(np.isfinite(w)) or np.any(w < 0):
                raise InvalidOptionError(
                    f"detector weights must be non-negative numbers, "
                    f"got {', '.join(f'{v:g}' for v in w)}"
                )
        t = 1.0 if options.include_trivial else 0.0
        den = float(w.sum()) + 2.0 * t
        if den <= 0:
            raise InvalidOptionError(
                "the committee's weights sum to 0: give a detector a "
                "positive weight or include the trivial classifiers"
            )
        den_k = den - w if options.leave_one_out else np.full(k, den)
        for method, d in zip(methods, den_k):
            if d <= 0:
                raise InvalidOptionError(
                    f"leave-one-out leaves no committee to evaluate {method} against; "
                    "include the trivial classifiers or more detectors"
                )
        threshold = check_threshold(options.threshold)
        self.k = k
        self.w = w
        self.t = t
        self.den = den
        self.den_k = den_k
        self.loo = options.leave_one_out
        # A pixel is detected iff its value > cut (cv2.THRESH_BINARY's rule).
        self.cut = 254 if threshold is None else threshold - 1

    def entropy_lut(self) -> np.ndarray:
        """``H(P)`` of the whole committee for each vote code (committees of <= 8 detectors).

        Code ``c`` has bit ``j`` set iff detector ``j`` detects the pixel; the
        table has 256 entries (unused codes are 0), ``float32``.
        """
        codes = np.arange(1 << self.k)
        bits = ((codes[:, None] >> np.arange(self.k)) & 1).astype(np.float64)
        lut = np.zeros(256, dtype=np.float32)
        lut[: codes.size] = binary_entropy((bits @ self.w + self.t) / self.den)
        return lut

    def sums(self, overlaps: np.ndarray) -> np.ndarray:
        """Per frame and detector ``tp, fp, fn, tn, Σ P²`` from the frames' overlap rows.

        ``overlaps`` is ``(frames, 1 + k + k(k−1)/2)``: the evaluated pixels
        ``n``, then the pixels each detector detects (``G_jj``), then those
        each pair ``j < l`` both detect (``G_jl``). With votes
        ``V = Σ_j w_j S_j`` every sum is a quadratic form of ``G``:
        ``Σ S_k V = (G w)_k``, ``Σ V = Σ_j w_j G_jj``, ``Σ V² = wᵀ G w``;
        leave-one-out takes ``w_k S_k`` out of ``V`` for detector ``k``.
        Returns ``(frames, k, 5)``.
        """
        k, w, t = self.k, self.w, self.t
        n = overlaps[:, :1]
        diag = overlaps[:, 1 : 1 + k]
        gram = np.zeros((overlaps.shape[0], k, k))
        gram[:, np.arange(k), np.arange(k)] = diag
        upper = np.triu_indices(k, 1)
        gram[:, upper[0], upper[1]] = overlaps[:, 1 + k :]
        gram[:, upper[1], upper[0]] = overlaps[:, 1 + k :]
        gw = gram @ w
        removed = w if self.loo else np.zeros(k)  # the weight taken out of V for detector k
        sv = (diag @ w)[:, None] - removed * diag  # Σ V_k
        svv = (gw @ w)[:, None] - 2.0 * removed * gw + removed * removed * diag  # Σ V_k²
        ssv = gw - removed * diag  # Σ S_k V_k
        den = self.den_k
        tp = (ssv + t * diag) / den
        p = (sv + t * n) / den
        p2 = (svv + 2.0 * t * sv + t * t * n) / (den * den)
        fn = p - tp
        return np.stack([tp, diag - tp, fn, n - diag - fn, p2], axis=2)


def binary_entropy(p: np.ndarray | float) -> np.ndarray:
    """``H(P) = −P log2 P − (1−P) log2(1−P)`` in bits, 0 at ``P ∈ {0, 1}`` (SPEC §7)."""
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(p * np.log2(p) + (1.0 - p) * np.log2(1.0 - p))
    return np.where((p <= 0.0) | (p >= 1.0), 0.0, h)


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
        self._pairs = [(j, l) for j in range(rules.k) for l in range(j + 1, rules.k)]
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
        for c, (j, l) in enumerate(self._pairs, start=1 + k):
            if row[1 + j] and row[1 + l]:
                row[c] = nonzero(cv2.min(bits[j], bits[l], dst=scratch))
            else:
                row[c] = 0.0
        if self._recent is not None:
            self._accumulate_entropy(self._recent)

    def _accumulate_entropy(self, recent: np.ndarray) -> None:
        bits = self._bits
        if self._lut is not None:
            code = bits[0]
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
    rows = np.zeros((max(expected, 1), 2 + k + k * (k - 1) // 2))
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


# ---------------------------------------------------------------------------
# Results


def ncc_from_sums(
    n: float, sum_s: float, sum_p: float, sum_p2: float, sum_sp: float
) -> IndicatorValue:
    """Pearson correlation of a binary map ``S`` and a map ``P`` from their sums (SPEC §7).

    ``Σ S² = Σ S`` since ``S ∈ {0, 1}``. Normalized sums (``n = 1``) work alike.
    Undefined when there is no pixel or either map is constant.
    """
    if n <= 0:
        return undefined(NO_PIXELS)
    ms, mp = sum_s / n, sum_p / n
    var_s = ms * (1.0 - ms)
    var_p = sum_p2 / n - mp * mp
    if var_s <= 0:
        return undefined(CONSTANT_MASK)
    if var_p <= 1e-12 * max(sum_p2 / n, 1e-300):
        return undefined(CONSTANT_REFERENCE)
    r = (sum_sp / n - ms * mp) / math.sqrt(var_s * var_p)
    return IndicatorValue(min(1.0, max(-1.0, r)))


def psnr_from_sums(n: float, sum_s: float, sum_p2: float, sum_sp: float) -> IndicatorValue:
    """``−10 log10(mean (S−P)²)`` in dB, peak 1, from the sums (SPEC §7).

    Undefined (not infinite) when ``S`` equals ``P`` on every pixel.
    """
    if n <= 0:
        return undefined(NO_PIXELS)
    mse = (sum_s - 2.0 * sum_sp + sum_p2) / n
    if mse <= 1e-15:
        return undefined(S_EQUALS_P)
    return IndicatorValue(-10.0 * math.log10(mse))


def _map_measures(cm: ConfusionMatrix, sum_p2: float) -> dict[str, IndicatorValue]:
    """NCC and PSNR of a (pseudo or true) matrix with ``Σ P²`` (``= tp + fn`` for a binary P)."""
    s, p = cm.tp + cm.fp, cm.tp + cm.fn
    return {
        "ncc": ncc_from_sums(cm.total, s, p, sum_p2, cm.tp),
        "psnr": psnr_from_sums(cm.total, s, sum_p2, cm.tp),
    }


def true_values(cm: ConfusionMatrix) -> dict[str, IndicatorValue]:
    """The true counterpart of every :data:`CORRELATED` key from a real confusion matrix.

    Registry indicators as usual; ``ncc`` is the Pearson correlation of the
    detection and the binary ground truth (it equals MCC); ``psnr`` is
    ``−10 log10`` of the error rate.
    """
    return {**evaluate_all(cm), **_map_measures(cm, cm.tp + cm.fn)}


@dataclass(frozen=True, eq=False)
class PseudoVideoResult:
    """Every detector's pseudo evaluation on one video (SPEC §7).

    Attributes
    ----------
    category, video
        The video's key.
    methods
        The detectors, in committee order.
    options
        The committee options used.
    frames
        Evaluated frame numbers, ``int64``.
    per_frame
        Per method, ``float64`` array ``(n_frames, 5)``, columns
        :data:`PER_FRAME_COLUMNS` (pseudo counts are expected counts, not
        whole numbers).
    totals
        Per method, the pseudo confusion matrix summed over the frames, in pixels.
    sum_p_squared
        Per method, ``Σ P²`` over the evaluated pixels (with leave-one-out
        each detector has its own ``P``); with the totals it gives NCC and PSNR.
    entropy
        Per-pixel mean over the frames of ``H(P)`` (bits, 0..1) of the whole
        committee, NaN outside the ROI; ``None`` if not asked for.
    roi
        The ROI used (``True`` inside), ``None`` for the whole frame.
    """

    category: str
    video: str
    methods: tuple[str, ...]
    options: CommitteeOptions
    frames: np.ndarray
    per_frame: dict[str, np.ndarray]
    totals: dict[str, ConfusionMatrix]
    sum_p_squared: dict[str, float]
    entropy: np.ndarray | None
    roi: np.ndarray | None

    @property
    def key(self) -> VideoKey:
        return (self.category, self.video)

    def confusion(self, method: str) -> VideoConfusion:
        """The method's pseudo totals as a :class:`VideoConfusion` (what summaries take)."""
        return VideoConfusion(self.category, self.video, self.totals[method])

    def ncc(self, method: str) -> IndicatorValue:
        """Pseudo NCC: Pearson correlation of ``S`` and ``P`` over the video's evaluated pixels."""
        return _map_measures(self.totals[method], self.sum_p_squared[method])["ncc"]

    def psnr(self, method: str) -> IndicatorValue:
        """Pseudo PSNR ``−10 log10(mean (S−P)²)`` over the video's evaluated pixels, in dB."""
        return _map_measures(self.totals[method], self.sum_p_squared[method])["psnr"]

    def values(self, method: str) -> dict[str, IndicatorValue]:
        """Every registry indicator on the pseudo totals, then ``ncc`` and ``psnr``."""
        return {
            **evaluate_all(self.totals[method]),
            **_map_measures(self.totals[method], self.sum_p_squared[method]),
        }

    def frame_confusion(self, method: str, i: int) -> ConfusionMatrix:
        """Pseudo confusion matrix of frame ``i`` alone.

        Raises
        ------
        InvalidOptionError
            If frame ``i`` was not evaluated.
        """
        where = np.flatnonzero(self.frames == i)
        if where.size == 0:
            raise InvalidOptionError(
                f"frame {i} of {_label(self.category, self.video)} was not evaluated"
            )
        _, tp, fp, fn, tn = (float(v) for v in self.per_frame[method][where[0]])
        return ConfusionMatrix(tp=tp, fp=fp, fn=fn, tn=tn)


def _label(category: str, video: str) -> str:
    return f"{category}/{video}" if category and category != video else video


def _finish(
    category: str,
    video: str,
    methods: tuple[str, ...],
    options: CommitteeOptions,
    pieces: Sequence[_Partial],
    roi: np.ndarray | None,
) -> PseudoVideoResult:
    """Add up a video's pieces (in frame order) into its result."""
    rows = np.concatenate([piece.rows for piece in pieces])
    if rows.shape[0] == 0:
        raise RefereeError(f"video {_label(category, video)}: no frame to evaluate")
    entropy_sums = [piece.entropy_sum for piece in pieces if piece.entropy_sum is not None]
    entropy = None
    if entropy_sums:
        if len({e.shape for e in entropy_sums}) > 1:
            raise RefereeError(f"video {_label(category, video)}: its masks change size")
        entropy = np.sum(entropy_sums, axis=0) / rows.shape[0]
        if roi is not None:
            entropy[~roi] = np.nan
    rules = _Rules(options, methods)
    overlaps = rows[:, 1:]
    per_frame_sums = rules.sums(overlaps)  # (frames, k, 5)
    # Overlaps are whole numbers, so their sum is exact; the sums are linear in them.
    video_sums = rules.sums(overlaps.sum(axis=0, keepdims=True))[0]
    per_frame, totals, p2 = {}, {}, {}
    for j, method in enumerate(methods):
        per_frame[method] = np.column_stack([rows[:, 0], per_frame_sums[:, j, :4]])
        tp, fp, fn, tn, p2[method] = (float(v) for v in video_sums[j])
        totals[method] = ConfusionMatrix(tp=tp, fp=fp, fn=fn, tn=tn)
    return PseudoVideoResult(
        category,
        video,
        methods,
        options,
        rows[:, 0].astype(np.int64),
        per_frame,
        totals,
        p2,
        entropy,
        roi,
    )


# ---------------------------------------------------------------------------
# One video


def pseudo_evaluate_arrays(
    frames: Iterable[tuple[int, Sequence[np.ndarray]]],
    methods: Sequence[str],
    committee: CommitteeOptions = CommitteeOptions(),
    roi: np.ndarray | None = None,
    category: str = "",
    video: str = "",
    entropy: bool = True,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    n_frames: int = 0,
) -> PseudoVideoResult:
    """Pseudo evaluation of in-memory masks, consumed one frame at a time (SPEC §7).

    Parameters
    ----------
    frames
        ``(frame number, masks)`` pairs, increasing frame numbers, one mask per
        method (``uint8``: detected per ``committee.threshold``; or ``bool``).
        A generator keeps memory flat.
    methods
        Names of the detectors, in the order of the masks.
    committee
        Committee options.
    roi
        ``True`` where pixels are evaluated; ``None`` for the whole frame.
    category, video
        The key the result carries.
    entropy
        Also accumulate the per-pixel mean of ``H(P)``.
    progress, cancel
        ``(frames done, n_frames)`` after every frame / polled between frames.
    n_frames
        Expected number of frames, for progress (0 if unknown).
    """
    methods = tuple(methods)
    rules = _Rules(committee, methods)
    shape = None if roi is None else np.shape(roi)
    roi = None if roi is None else np.asarray(roi, dtype=bool)
    partial = _stream(
        _array_frames(frames, rules.k, shape),
        rules,
        roi,
        shape,
        entropy,
        n_frames,
        progress,
        cancel,
    )
    return _finish(category, video, methods, committee, [partial], roi)


def _roi_of(video: VideoSpec) -> np.ndarray | None:
    return read_roi(video.roi_path) if video.roi_path.is_file() else None


def pseudo_frames(video: VideoSpec, sources: Sequence[FrameSource]) -> Sequence[int]:
    """The frames evaluated on ``video`` (SPEC §7).

    The temporal ROI when the video folder holds ``temporalROI.txt``; else the
    frames that every detector has (their result folders are listed).

    Raises
    ------
    InvalidOptionError
        Without a temporal ROI, if a source is not a CDnet result folder (a
        mask video cannot list its frames).
    RefereeError
        If the detectors have no frame in common.
    """
    from .frames import CdnetResultSource

    if video.temporal_roi_path.is_file():
        return video.frames
    common: set[int] | None = None
    for source in sources:
        if not isinstance(source, CdnetResultSource):
            raise InvalidOptionError(
                f"{video.folder}: without temporalROI.txt the frames evaluated are those every "
                f"detector has, but {source!r} cannot list its frames; give result folders "
                "or add a temporalROI.txt 'first last'"
            )
        numbers = set(result_frame_numbers(source.folder))
        common = numbers if common is None else common & numbers
    if not common:
        raise RefereeError(
            f"{video.folder}: the detectors have no result frame in common; "
            "check the result folders or add a temporalROI.txt"
        )
    return sorted(common)


class _Job(NamedTuple):
    """One video to evaluate, its sources, frames and the size every mask must have."""

    video: VideoSpec
    sources: tuple[FrameSource, ...]
    frames: Sequence[int]
    shape: tuple[int, int]
    reference: str


def _job(
    video: VideoSpec, sources: Sequence[FrameSource], frames: Iterable[int] | None
) -> tuple[_Job, np.ndarray | None]:
    numbers: Sequence[int]
    if frames is None:
        numbers = pseudo_frames(video, sources)
    else:
        numbers = frames if isinstance(frames, range) else [int(i) for i in frames]
    if len(numbers) == 0:
        raise RefereeError(f"video {_label(video.category, video.name)}: no frame to evaluate")
    roi = _roi_of(video)
    if roi is not None:
        shape, reference = roi.shape, str(video.roi_path)
    else:
        first = sources[0].read(numbers[0])
        shape, reference = first.shape, str(sources[0].path_of(numbers[0]))
    return _Job(video, tuple(sources), numbers, shape, reference), roi


def pseudo_evaluate_video(
    video: VideoSpec,
    sources: Mapping[str, FrameSource],
    committee: CommitteeOptions = CommitteeOptions(),
    frames: Iterable[int] | None = None,
    entropy: bool = True,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> PseudoVideoResult:
    """Pseudo evaluation of every detector on one video, streaming (SPEC §7).

    Parameters
    ----------
    video
        The video: ``ROI.bmp`` and ``temporalROI.txt`` are used when present;
        ground truth is not needed.
    sources
        Each detector's masks, by method name (committee order).
    committee
        Committee options.
    frames
        Increasing frame numbers; default :func:`pseudo_frames`.
    entropy
        Also accumulate the per-pixel mean of ``H(P)``.
    progress, cancel
        ``(frames done, frames total)`` after every frame / polled between frames.

    Raises
    ------
    MissingFrameError, InputFileError, SizeMismatchError
        For missing or unreadable masks and sizes differing from the ROI (or,
        without ROI, from the first mask), naming the files.
    CancelledError
        If ``cancel`` is set.
    """
    methods = tuple(sources)
    rules = _Rules(committee, methods)
    check(cancel)
    job, roi = _job(video, list(sources.values()), frames)
    partial = _stream(
        masks_by_frame(job.sources, job.frames, job.shape, job.reference),
        rules,
        roi,
        job.shape,
        entropy,
        len(job.frames),
        progress,
        cancel,
    )
    return _finish(video.category, video.name, methods, committee, [partial], roi)


def consensus_map(
    video: VideoSpec,
    frame: int,
    sources: Mapping[str, FrameSource] | Sequence[FrameSource],
    committee: CommitteeOptions = CommitteeOptions(),
) -> np.ndarray:
    """The consensus ``P`` of one frame, for display (SPEC §7 heatmaps).

    Parameters
    ----------
    video
        The video (its ``ROI.bmp`` if present).
    frame
        1-based frame number; every detector must have it.
    sources
        The committee's masks (by method name, or in committee order).
    committee
        Committee options; leave-one-out plays no part (the map is the whole
        committee's).

    Returns
    -------
    ``float64`` array ``(h, w)`` in [0, 1], NaN outside the ROI.
    """
    names = (
        list(sources)
        if isinstance(sources, Mapping)
        else [f"detector {j + 1}" for j in range(len(sources))]
    )
    members = list(sources.values()) if isinstance(sources, Mapping) else list(sources)
    rules = _Rules(committee, names)
    job, roi = _job(video, members, [frame])
    _, masks = next(masks_by_frame(job.sources, job.frames, job.shape, job.reference))
    p = consensus([m > rules.cut for m in masks], rules.w, committee.include_trivial)
    if roi is not None:
        p[~roi] = np.nan
    return p


# ---------------------------------------------------------------------------
# Many videos, optionally in worker processes


class _Chunk(NamedTuple):
    """Consecutive frames of one video, evaluated in a worker process."""

    index: int  # position of the video in the job list
    position: int  # position of the first frame in the video's frame list
    job: _Job
    methods: tuple[str, ...]
    committee: CommitteeOptions
    entropy: bool


def _run_chunk(chunk: _Chunk) -> _Partial:
    """Evaluate one chunk (module level so worker processes can run it)."""
    job = chunk.job
    roi = _roi_of(job.video)
    return _stream(
        masks_by_frame(job.sources, job.frames, job.shape, job.reference),
        _Rules(chunk.committee, chunk.methods),
        roi,
        job.shape,
        chunk.entropy,
        len(job.frames),
        None,
        None,
    )


def _plan(
    jobs: Sequence[_Job],
    methods: tuple[str, ...],
    committee: CommitteeOptions,
    entropy: bool,
    workers: int,
) -> list[_Chunk]:
    from .evaluate import frame_chunks

    total = sum(len(job.frames) for job in jobs)
    size = max(16, math.ceil(total / (4 * workers)))
    chunks = []
    for index, job in enumerate(jobs):
        n = len(job.frames)
        # Sequential decoders (video files) would re-decode from the start per chunk.
        sequential = any(not getattr(s, "random_access", True) for s in job.sources)
        for first, last in frame_chunks(0, n - 1, n if sequential else size):
            piece = job._replace(frames=job.frames[first : last + 1])
            chunks.append(_Chunk(index, first, piece, methods, committee, entropy))
    return chunks


def _run_parallel(
    chunks: Sequence[_Chunk],
    workers: int,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
) -> list[list[tuple[int, _Partial]]]:
    """Run chunks in a process pool; per video, the ``(position, partial)`` pairs."""
    from .evaluate import _init_worker, _pool_context

    total = sum(len(c.job.frames) for c in chunks)
    results: list[list[tuple[int, _Partial]]] = [
        [] for _ in range(1 + max(c.index for c in chunks))
    ]
    executor = cf.ProcessPoolExecutor(
        max_workers=workers, mp_context=_pool_context(), initializer=_init_worker
    )
    try:
        pending = {executor.submit(_run_chunk, c): c for c in chunks}
        done = 0
        while pending:
            check(cancel)
            finished, _ = cf.wait(pending, timeout=0.1, return_when=cf.FIRST_COMPLETED)
            for future in finished:
                chunk = pending.pop(future)
                results[chunk.index].append((chunk.position, future.result()))
                done += len(chunk.job.frames)
                report(progress, done, total)
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
    return results


@dataclass(frozen=True)
class PseudoSummary:
    """One detector's pseudo results summarized over videos (SPEC §2 applied to §7).

    ``summary`` blends the videos' normalized pseudo matrices with the weights
    of its scheme; ``ncc`` and ``psnr`` come from the same blend applied to
    the normalized sums ``(Σs, Σp, Σp², Σsp) / n``, i.e. they are the NCC and
    PSNR of the weighted mixture of the videos' pixels.
    """

    method: str
    summary: Summary
    ncc: IndicatorValue
    psnr: IndicatorValue

    @property
    def values(self) -> dict[str, IndicatorValue]:
        """Every registry indicator of the blend, then ``ncc`` and ``psnr``."""
        return {**self.summary.values, "ncc": self.ncc, "psnr": self.psnr}


def summarize_pseudo(
    videos: Sequence[PseudoVideoResult],
    scheme: str = "auto",
    custom: Mapping[VideoKey, float] | None = None,
) -> dict[str, PseudoSummary]:
    """Summarize every detector's pseudo matrices over videos, like real ones (SPEC §2, §7).

    ``scheme`` and ``custom`` are those of :func:`~referee.core.summarize.summarize`.

    Raises
    ------
    RefereeError
        No video, videos evaluated with different detectors, or any error of
        :func:`~referee.core.summarize.summarize`.
    """
    from .summarize import summarize

    if not videos:
        raise RefereeError("nothing to summarize: no video")
    methods = videos[0].methods
    for v in videos:
        if v.methods != methods:
            raise RefereeError(
                f"video {_label(v.category, v.video)} was evaluated with "
                f"detectors {', '.join(v.methods)}, not {', '.join(methods)}"
            )
    out = {}
    for method in methods:
        summary = summarize([v.confusion(method) for v in videos], scheme, custom)
        blended = np.zeros(4)
        for v in videos:
            cm, w = v.totals[method], summary.weights[v.key]
            blended += (
                w
                * np.array([cm.tp + cm.fp, cm.tp + cm.fn, v.sum_p_squared[method], cm.tp])
                / cm.total
            )
        s, p, p2, sp = blended
        out[method] = PseudoSummary(
            method, summary, ncc_from_sums(1.0, s, p, p2, sp), psnr_from_sums(1.0, s, p2, sp)
        )
    return out


@dataclass(frozen=True, eq=False)
class PseudoResult:
    """Pseudo evaluation of a committee of detectors on a dataset (SPEC §7).

    ``videos`` in the order given; ``summaries`` per method, summarized with
    the weight scheme :attr:`scheme`.
    """

    methods: tuple[str, ...]
    options: CommitteeOptions
    videos: tuple[PseudoVideoResult, ...]
    summaries: dict[str, PseudoSummary]

    @property
    def scheme(self) -> str:
        """The weight scheme actually used (``auto`` resolved)."""
        return next(iter(self.summaries.values())).summary.scheme

    def video(self, key: VideoKey) -> PseudoVideoResult:
        """The result of one video by ``(category, name)``."""
        for v in self.videos:
            if v.key == key:
                return v
        raise InvalidOptionError(f"no video {key[0]}/{key[1]} in this result")


def pseudo_evaluate(
    videos: Sequence[VideoSpec],
    results_by_method: Mapping[str, str | Path],
    committee: CommitteeOptions = CommitteeOptions(),
    workers: int = 1,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    scheme: str = "auto",
    custom: Mapping[VideoKey, float] | None = None,
    entropy: bool = True,
) -> PseudoResult:
    """Pseudo-evaluate K detectors on every video without ground truth (SPEC §7).

    Parameters
    ----------
    videos
        The videos (e.g. from ``discover_videos(root, require_groundtruth=False)``).
        Each video's frames are its temporal ROI, or, without
        ``temporalROI.txt``, the frames every detector has; its pixels are
        those inside ``ROI.bmp``, or the whole frame without one.
    results_by_method
        Each detector's results root (see
        :func:`~referee.core.evaluate.result_sources`), by method name; the
        order is the committee order (and that of ``committee.weights``).
    committee
        Committee options (trivial classifiers, leave-one-out, weights, threshold).
    workers
        Worker processes; with more than 1 each video's frames are split into
        contiguous chunks whose sums are added (identical result). Sources must
        then be picklable and a calling script must guard its top level with
        ``if __name__ == "__main__":``.
    progress, cancel
        Progress in frames over all videos; cancellation token.
    scheme, custom
        Weights of the summary over videos (SPEC §2), as for
        :func:`~referee.core.summarize.summarize`.
    entropy
        Also accumulate each video's per-pixel mean of ``H(P)``.

    Raises
    ------
    InvalidOptionError
        Bad committee options, or a bad number of workers.
    InputFileError, MissingFrameError, SizeMismatchError
        Missing, unreadable or mis-sized masks or ROI, naming the files.
    CancelledError
        If ``cancel`` is set.
    """
    from .evaluate import _check_workers, result_sources

    workers = _check_workers(workers)
    methods = tuple(results_by_method)
    rules = _Rules(committee, methods)
    if not videos:
        raise RefereeError("no video to evaluate")
    check(cancel)
    per_method = [result_sources(videos, root) for root in results_by_method.values()]
    jobs, rois = [], []
    for v, video in enumerate(videos):
        job, roi = _job(video, [sources[v] for sources in per_method], None)
        jobs.append(job)
        rois.append(roi)
    chunks = _plan(jobs, methods, committee, entropy, workers)
    results = []
    if workers > 1 and len(chunks) > 1:
        parts = _run_parallel(chunks, workers, progress, cancel)
        for job, roi, pieces in zip(jobs, rois, parts):
            ordered = [piece for _, piece in sorted(pieces, key=lambda item: item[0])]
            results.append(
                _finish(job.video.category, job.video.name, methods, committee, ordered, roi)
            )
    else:
        total = sum(len(job.frames) for job in jobs)
        offset = 0
        for job, roi in zip(jobs, rois):

            def step(done: int, _: int, offset: int = offset) -> None:
                report(progress, offset + done, total)

            partial = _stream(
                masks_by_frame(job.sources, job.frames, job.shape, job.reference),
                rules,
                roi,
                job.shape,
                entropy,
                len(job.frames),
                step,
                cancel,
            )
            results.append(
                _finish(job.video.category, job.video.name, methods, committee, [partial], roi)
            )
            offset += len(job.frames)
    return PseudoResult(
        methods, committee, tuple(results), summarize_pseudo(results, scheme, custom)
    )


# ---------------------------------------------------------------------------
# Against ground truth, when it exists


@dataclass(frozen=True)
class Correlation:
    """Pearson and Spearman correlation across detectors of a pseudo and a true value.

    ``n_detectors`` counts the detectors where both values are defined (the
    others are left out).
    """

    pearson: IndicatorValue
    spearman: IndicatorValue
    n_detectors: int


def correlation(pseudo_values: Sequence[float], true_values: Sequence[float]) -> Correlation:
    """Pearson and Spearman correlation of two series of per-detector values (SPEC §7).

    Pairs where either value is NaN are left out. Undefined, with the reason,
    when fewer than 3 pairs remain or either series is constant.
    """
    from scipy import stats

    x = np.asarray(pseudo_values, dtype=float)
    y = np.asarray(true_values, dtype=float)
    if x.shape != y.shape:
        raise InvalidOptionError(f"{x.size} pseudo values but {y.size} true values")
    keep = np.isfinite(x) & np.isfinite(y)
    x, y, n = x[keep], y[keep], int(keep.sum())
    reason = None
    if n < 3:
        reason = f"undefined: fewer than 3 detectors with both values defined ({n})"
    elif np.ptp(x) <= 1e-12 * max(1.0, float(np.abs(x).max())):
        reason = "undefined: the pseudo values are the same for every detector"
    elif np.ptp(y) <= 1e-12 * max(1.0, float(np.abs(y).max())):
        reason = "undefined: the true values are the same for every detector"
    if reason is not None:
        return Correlation(undefined(reason), undefined(reason), n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pearson = float(stats.pearsonr(x, y).statistic)
        spearman = float(stats.spearmanr(x, y).statistic)
    return Correlation(IndicatorValue(pearson), IndicatorValue(spearman), n)


@dataclass(frozen=True, eq=False)
class TruthComparison:
    """Pseudo values against true values, per video and summarized (SPEC §7).

    ``true_per_video[video key][method]`` and ``true_summary[method]`` hold
    :func:`true_values` (the summary from the true matrices blended with the
    same weight scheme as the pseudo ones); ``per_video[video key][key]`` and
    ``summary[key]`` the :class:`Correlation` across detectors, for every key
    of :data:`CORRELATED`.
    """

    scheme: str
    methods: tuple[str, ...]
    true_per_video: dict[VideoKey, dict[str, dict[str, IndicatorValue]]]
    true_summary: dict[str, dict[str, IndicatorValue]]
    per_video: dict[VideoKey, dict[str, Correlation]]
    summary: dict[str, Correlation]


def _correlations(
    pseudo: Mapping[str, Mapping[str, IndicatorValue]],
    truth: Mapping[str, Mapping[str, IndicatorValue]],
    methods: Sequence[str],
) -> dict[str, Correlation]:
    return {
        key: correlation(
            [pseudo[m][key].value for m in methods], [truth[m][key].value for m in methods]
        )
        for key in CORRELATED
    }


def compare_with_truth(
    pseudo: PseudoResult,
    truth: Mapping[str, Sequence[Any]],
    custom: Mapping[VideoKey, float] | None = None,
) -> TruthComparison:
    """Correlate every pseudo indicator with its true value across detectors (SPEC §7).

    Parameters
    ----------
    pseudo
        A :func:`pseudo_evaluate` result.
    truth
        Per method, its real per-video results: :class:`VideoConfusion` or
        :class:`~referee.core.evaluate.VideoEvaluation` objects (e.g. from
        :func:`~referee.core.evaluate.evaluate_method`), covering the same
        videos.
    custom
        Custom weights, when ``pseudo`` was summarized with them.

    Raises
    ------
    RefereeError
        If ``truth`` misses a method or a video of ``pseudo``.
    """
    from .summarize import resolve_scheme, summarize

    methods = pseudo.methods
    missing = [m for m in methods if m not in truth]
    if missing:
        raise RefereeError(
            f"no true results for {', '.join(missing)}; evaluate every "
            "detector of the committee against the ground truth"
        )
    confusions: dict[str, dict[VideoKey, VideoConfusion]] = {}
    for method in methods:
        items = [getattr(item, "confusion", item) for item in truth[method]]
        confusions[method] = {item.key: item for item in items}
        for v in pseudo.videos:
            if v.key not in confusions[method]:
                raise RefereeError(
                    f"no true result of {method} on video {_label(v.category, v.video)}"
                )
    true_per_video, per_video = {}, {}
    for v in pseudo.videos:
        true_per_video[v.key] = {m: true_values(confusions[m][v.key].cm) for m in methods}
        per_video[v.key] = _correlations(
            {m: v.values(m) for m in methods}, true_per_video[v.key], methods
        )
    scheme = resolve_scheme([v.confusion(methods[0]) for v in pseudo.videos], pseudo.scheme)
    true_summary = {}
    for method in methods:
        ordered = [confusions[method][v.key] for v in pseudo.videos]
        true_summary[method] = true_values(summarize(ordered, scheme, custom).cm)
    summary = _correlations({m: pseudo.summaries[m].values for m in methods}, true_summary, methods)
    return TruthComparison(scheme, methods, true_per_video, true_summary, per_video, summary)


__all__ = [
    "CORRELATED",
    "MAP_MEASURES",
    "PER_FRAME_COLUMNS",
    "CommitteeOptions",
    "Correlation",
    "PseudoResult",
    "PseudoSummary",
    "PseudoVideoResult",
    "TruthComparison",
    "binary_entropy",
    "compare_with_truth",
    "consensus",
    "consensus_map",
    "correlation",
    "ncc_from_sums",
    "pseudo_confusion",
    "pseudo_evaluate",
    "pseudo_evaluate_arrays",
    "pseudo_evaluate_video",
    "pseudo_frames",
    "psnr_from_sums",
    "summarize_pseudo",
    "true_values",
]
