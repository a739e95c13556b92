"""Pseudo evaluation of one video (docs/measures.md §7)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import (
    TYPE_CHECKING,
    NamedTuple,
)

import numpy as np

from referee.core.errors import InvalidOptionError, RefereeError
from referee.core.formats.cdnet import read_roi, result_frame_numbers
from referee.core.formats.datasets import fixed_frames
from referee.core.frames.sources import FrameSource, masks_by_frame
from referee.core.measures.indicators import (
    IndicatorValue,
    evaluate_all,
)
from referee.core.model.confusion import ConfusionMatrix, VideoConfusion
from referee.core.model.videos import VideoKey, VideoSpec, video_label
from referee.core.progress import CancelToken, ProgressCallback, check, shifted
from referee.core.pseudo.committee import _Rules
from referee.core.pseudo.committee_options import CommitteeOptions
from referee.core.pseudo.consensus import _map_measures, binary_entropy, consensus
from referee.core.pseudo.engine import _array_frames, _Partial, _stream, needs_entropy_pass
from referee.core.pseudo.staple import StapleFit, code_bits, staple_sums

if TYPE_CHECKING:
    pass


# ---------------------------------------------------------------------------
# Committee options


PER_FRAME_COLUMNS: tuple[str, ...] = ("frame", "tp", "fp", "fn", "tn")
"""Columns of the arrays in :attr:`PseudoVideoResult.per_frame`."""


@dataclass(frozen=True, eq=False)
class PseudoVideoResult:
    """Every detector's pseudo evaluation on one video (docs/measures.md §7).

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
    model
        The model-based consensus: the model fitted to all detectors' vote
        patterns on this video (``None`` for the committee consensus).
    patterns
        The model-based consensus: the video's histogram of vote patterns,
        as distinct codes (bit ``j`` set iff detector ``j`` detects) and
        their pixel counts.
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
    model: StapleFit | None = None
    patterns: tuple[np.ndarray, np.ndarray] | None = None

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
                f"frame {i} of {video_label(self.category, self.video)} was not evaluated"
            )
        _, tp, fp, fn, tn = (float(v) for v in self.per_frame[method][where[0]])
        return ConfusionMatrix(tp=tp, fp=fp, fn=fn, tn=tn)


def _finish(
    category: str,
    video: str,
    methods: tuple[str, ...],
    options: CommitteeOptions,
    pieces: Sequence[_Partial],
    roi: np.ndarray | None,
) -> PseudoVideoResult:
    """Add up a video's pieces (in frame order) into its result.

    A model-based result asked for its entropy map without per-pixel pattern
    counts (frames too large, see :func:`~referee.core.pseudo.engine.keeps_pixel_patterns`)
    has ``entropy`` ``None``: :func:`entropy_lut` then feeds a second pass.
    """
    label = video_label(category, video)
    rows = np.concatenate([piece.rows for piece in pieces])
    if rows.shape[0] == 0:
        raise RefereeError(f"video {label}: no frame to evaluate")
    entropy_sums = [piece.entropy_sum for piece in pieces if piece.entropy_sum is not None]
    rules = _Rules(options, methods)
    model = patterns = None
    if rules.staple:
        offsets = np.cumsum([0] + [piece.rows.shape[0] for piece in pieces[:-1]])
        histograms = np.concatenate(
            [
                piece.patterns + np.array([offset, 0, 0])
                for piece, offset in zip(pieces, offsets)
                if piece.patterns is not None
            ]
        )
        per_frame_sums, video_sums, model, patterns = staple_sums(
            histograms, rows[:, 1], rules.k, rules.loo
        )
        counts = [piece.pixel_patterns for piece in pieces if piece.pixel_patterns is not None]
        if counts:
            entropy_sums = [_entropy_of_patterns(model, counts, rows.shape[0], label)]
    else:
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
        _mean_entropy(entropy_sums, rows.shape[0], roi, label),
        roi,
        model,
        patterns,
    )


def _mean_entropy(
    sums: Sequence[np.ndarray], frames: int, roi: np.ndarray | None, label: str
) -> np.ndarray | None:
    """The per-pixel mean of ``H(P)`` from pieces' sums, NaN outside the ROI."""
    if not sums:
        return None
    if len({e.shape for e in sums}) > 1:
        raise RefereeError(f"video {label}: its masks change size")
    entropy: np.ndarray = np.sum(sums, axis=0) / frames
    if roi is not None:
        entropy[~roi] = np.nan
    return entropy


def _entropy_of_patterns(
    model: StapleFit, counts: Sequence[np.ndarray], frames: int, label: str
) -> np.ndarray:
    """Σ over frames of ``H(W)`` per pixel from per-pixel counts of each non-zero code."""
    if len({c.shape for c in counts}) > 1:
        raise RefereeError(f"video {label}: its masks change size")
    k = len(model.sensitivity)
    total = counts[0] if len(counts) == 1 else np.sum(counts, axis=0)  # (h, w, 2**k − 1)
    h = binary_entropy(model.posterior(code_bits(np.arange(1 << k), k)))
    sums = np.full(total.shape[:2], h[0] * frames)
    for code in range(1, 1 << k):  # code by code: no float copy of every count
        sums += (h[code] - h[0]) * total[:, :, code - 1]
    return sums


def entropy_lut(model: StapleFit) -> np.ndarray:
    """``H(W)`` of every vote code, ``float32`` (256 entries up to 8 detectors, for ``cv2.LUT``)."""
    k = len(model.sensitivity)
    lut = binary_entropy(model.posterior(code_bits(np.arange(1 << k), k))).astype(np.float32)
    return np.pad(lut, (0, 256 - lut.size)) if lut.size < 256 else lut


# ---------------------------------------------------------------------------
# One video


def pseudo_evaluate_arrays(
    frames: Iterable[tuple[int, Sequence[np.ndarray]]],
    methods: Sequence[str],
    committee: CommitteeOptions | None = None,
    roi: np.ndarray | None = None,
    category: str = "",
    video: str = "",
    entropy: bool = True,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    n_frames: int = 0,
) -> PseudoVideoResult:
    """Pseudo evaluation of in-memory masks, consumed one frame at a time (docs/measures.md §7).

    Parameters
    ----------
    frames
        ``(frame number, masks)`` pairs, increasing frame numbers, one mask per
        method (``uint8``: detected per ``committee.threshold``; or ``bool``).
        A generator keeps memory flat.
    methods
        Names of the detectors, in the order of the masks.
    committee
        Committee options (default: :class:`CommitteeOptions`' defaults).
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
    committee = CommitteeOptions() if committee is None else committee
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
    result = _finish(category, video, methods, committee, [partial], roi)
    if not (entropy and result.entropy is None and result.model is not None):
        return result
    if not isinstance(frames, Sequence):
        raise InvalidOptionError(
            "the model-based entropy map of frames this large takes a second pass over "
            "them: give the frames as a list, or pass entropy=False"
        )
    second = _stream(
        _array_frames(frames, rules.k, shape),
        rules,
        roi,
        shape,
        entropy,
        n_frames,
        None,
        cancel,
        entropy_lut(result.model),
    )
    return with_entropy(result, [second])


def with_entropy(result: PseudoVideoResult, pieces: Sequence[_Partial]) -> PseudoVideoResult:
    """``result`` with the entropy map of a second pass's pieces (in frame order)."""
    sums = [piece.entropy_sum for piece in pieces if piece.entropy_sum is not None]
    label = video_label(result.category, result.video)
    return replace(result, entropy=_mean_entropy(sums, result.frames.size, result.roi, label))


def _roi_of(video: VideoSpec) -> np.ndarray | None:
    # Whatever is there is read (a named pipe or a folder is refused, never skipped).
    return read_roi(video.roi_path) if os.path.lexists(video.roi_path) else None


def pseudo_frames(video: VideoSpec, sources: Sequence[FrameSource]) -> Sequence[int]:
    """The frames evaluated on ``video`` (docs/measures.md §7).

    The temporal ROI when the dataset fixes it (``temporalROI.txt``, a LASIESTA
    sequence's frames); else the frames that every detector has (their result folders
    are listed).

    Raises
    ------
    InvalidOptionError
        Without a temporal ROI, if a source is not a CDnet result folder (a
        mask video cannot list its frames).
    RefereeError
        If the detectors have no frame in common.
    """
    from referee.core.frames.sources import CdnetResultSource

    if fixed_frames(video):
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
        raise RefereeError(f"video {video_label(video.category, video.name)}: no frame to evaluate")
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
    committee: CommitteeOptions | None = None,
    frames: Iterable[int] | None = None,
    entropy: bool = True,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> PseudoVideoResult:
    """Pseudo evaluation of every detector on one video, streaming (docs/measures.md §7).

    Parameters
    ----------
    video
        The video: ``ROI.bmp`` and ``temporalROI.txt`` are used when present;
        ground truth is not needed.
    sources
        Each detector's masks, by method name (committee order).
    committee
        Committee options (default: :class:`CommitteeOptions`' defaults).
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
    committee = CommitteeOptions() if committee is None else committee
    methods = tuple(sources)
    rules = _Rules(committee, methods)
    check(cancel)
    job, roi = _job(video, list(sources.values()), frames)
    n = len(job.frames)
    total = 2 * n if needs_entropy_pass(rules, job.shape, entropy) else n
    partial = _stream(
        masks_by_frame(job.sources, job.frames, job.shape, job.reference),
        rules,
        roi,
        job.shape,
        entropy,
        n,
        shifted(progress, 0, total),
        cancel,
    )
    result = _finish(video.category, video.name, methods, committee, [partial], roi)
    if total == n or result.model is None:
        return result
    second = _stream(
        masks_by_frame(job.sources, job.frames, job.shape, job.reference),
        rules,
        roi,
        job.shape,
        entropy,
        n,
        shifted(progress, n, total),
        cancel,
        entropy_lut(result.model),
    )
    return with_entropy(result, [second])


def consensus_map(
    video: VideoSpec,
    frame: int,
    sources: Mapping[str, FrameSource] | Sequence[FrameSource],
    committee: CommitteeOptions | None = None,
    model: StapleFit | None = None,
) -> np.ndarray:
    """The consensus ``P`` of one frame, for display (docs/measures.md §7 heatmaps).

    Parameters
    ----------
    video
        The video (its ``ROI.bmp`` if present).
    frame
        1-based frame number; every detector must have it.
    sources
        The committee's masks (by method name, or in committee order).
    committee
        Committee options (default: :class:`CommitteeOptions`' defaults);
        leave-one-out plays no part (the map is the whole committee's).
    model
        The model-based consensus: the video's fitted model
        (:attr:`PseudoVideoResult.model`), required; ``P`` is its posterior.

    Returns
    -------
    ``float64`` array ``(h, w)`` in [0, 1], NaN outside the ROI.

    Raises
    ------
    InvalidOptionError
        A model-based consensus without its model.
    """
    committee = CommitteeOptions() if committee is None else committee
    names = (
        list(sources)
        if isinstance(sources, Mapping)
        else [f"detector {j + 1}" for j in range(len(sources))]
    )
    members = list(sources.values()) if isinstance(sources, Mapping) else list(sources)
    rules = _Rules(committee, names)
    if rules.staple and (model is None or len(model.sensitivity) != rules.k):
        raise InvalidOptionError(
            "the model-based consensus of a frame needs the model fitted to the "
            f"{rules.k} detectors on the video: evaluate the video first"
        )
    job, roi = _job(video, members, [frame])
    _, masks = next(masks_by_frame(job.sources, job.frames, job.shape, job.reference))
    detected = [m > rules.cut for m in masks]
    if model is not None and rules.staple:
        p = model.posterior_map(detected)
    else:
        p = consensus(detected, rules.w, committee.include_trivial)
    if roi is not None:
        p[~roi] = np.nan
    return p
