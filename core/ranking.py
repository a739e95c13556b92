"""Which frames to annotate next: per-frame disagreement and a diverse ranking (SPEC §8).

A frame's *disagreement* needs no ground truth; it is a number in [0, 1],
higher meaning the detectors disagree more. Criteria:

Masks (K detectors' result masks of one video, evaluated pixels = inside the
ROI, or the whole frame when the video has no ``ROI.bmp``):

* ``vote-entropy`` (default): mean over the evaluated pixels of the binary
  entropy, in bits, of the vote fraction ``v/K`` of the K detectors (no
  trivial classifiers). Needs K >= 2.
* ``pairwise-dice``: ``1 − Dice`` of two chosen detectors' masks,
  ``Dice = 2|A∩B| / (|A| + |B|)``. Dice is undefined when both masks are
  empty; the detectors then agree, so the score is 0.
* ``pseudo-gap``: ``|pseudo-F1_A − pseudo-F1_B|`` on the frame, under the
  consensus of the whole committee (every given detector plus the trivial
  all-ones and all-zeros classifiers, SPEC §7 default). With the trivial
  classifiers pseudo-F1 is always defined; if it were not (no evaluated
  pixel), the score would be 0.

Boxes: ``pairwise-fda``, ``1 − FDA(t)`` between two detectors' boxes, one
playing the ground truth's role (SPEC §5 mapping); a frame where neither has
a box scores 0.

Actions: ``classes``, ``1 − |∩ C_k| / |∪ C_k|`` where ``C_k`` is the set of
classes of detector k's actions present on the frame; a frame where no
detector has an action scores 0.

Ranking (:func:`rank_frames`): by score descending, ties by frame number
ascending (then by video order); after a frame is chosen, every frame of the
same video within ±``gap`` of it (``|Δ| <= gap``) is suppressed; frames in
``exclude`` (those that already have ground truth) are skipped and suppress
nothing.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .annotations import VideoAnnotation
from .boxes import MAPPINGS, FrameBoxes, VideoBoxes, evaluate_frame
from .errors import InvalidOptionError, RefereeError
from .formats.cdnet import VideoSpec, read_roi
from .frames import FrameSource, masks_by_frame
from .indicators import evaluate
from .pixel import check_threshold
from .progress import CancelToken, ProgressCallback, check, report
from .pseudo import binary_entropy, consensus, pseudo_confusion

VOTE_ENTROPY = "vote-entropy"
PAIRWISE_DICE = "pairwise-dice"
PSEUDO_GAP = "pseudo-gap"
PAIRWISE_FDA = "pairwise-fda"
CLASSES = "classes"

#: Criteria for masks; the first is the default (SPEC §8).
MASK_CRITERIA: tuple[str, ...] = (VOTE_ENTROPY, PAIRWISE_DICE, PSEUDO_GAP)
#: Criteria that compare exactly two chosen detectors.
PAIR_CRITERIA: tuple[str, ...] = (PAIRWISE_DICE, PSEUDO_GAP, PAIRWISE_FDA)
#: Every criterion, for readers of exported rankings.
CRITERIA: tuple[str, ...] = MASK_CRITERIA + (PAIRWISE_FDA, CLASSES)

DEFAULT_GAP = 10

_DESCRIPTIONS = {
    VOTE_ENTROPY: "mean binary entropy (bits) of the detectors' vote fraction over the "
    "evaluated pixels",
    PAIRWISE_DICE: "1 − Dice of the two detectors' masks (0 when both are empty)",
    PSEUDO_GAP: "|pseudo-F1 difference| under the committee's consensus (trivial "
    "classifiers included)",
    PAIRWISE_FDA: "1 − FDA between the two detectors' boxes (0 when neither has a box)",
    CLASSES: "1 − |classes present for every detector| / |classes present for any| "
    "(0 when no detector has an action)",
}


# --- plain data ----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class FrameScores:
    """Per-frame disagreement of one video under one criterion (SPEC §8).

    Attributes
    ----------
    video
        The video's label: ``category/video`` for CDnet (the name alone when
        the category is the video), the ``videoName`` for LIRIS or MOTChallenge.
    criterion
        One of :data:`CRITERIA`.
    methods
        The detectors compared: the chosen two for the pair criteria, all of
        them for ``vote-entropy`` and ``classes``.
    frames
        ``int64`` frame numbers, increasing.
    scores
        ``float64`` disagreement of each frame, in [0, 1].
    committee
        For ``pseudo-gap``, every detector in the consensus (trivial
        classifiers not listed); else empty.
    """

    video: str
    criterion: str
    methods: tuple[str, ...]
    frames: np.ndarray
    scores: np.ndarray
    committee: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        frames = np.asarray(self.frames, dtype=np.int64).reshape(-1)
        scores = np.asarray(self.scores, dtype=np.float64).reshape(-1)
        if len(frames) != len(scores):
            raise InvalidOptionError(f"{len(frames)} frames but {len(scores)} scores")
        if np.any(np.diff(frames) <= 0):
            raise InvalidOptionError("frame numbers must be increasing and unique")
        if not np.all(np.isfinite(scores)):
            raise InvalidOptionError(f"video {self.video}: every score must be a finite number")
        for name, value in (("frames", frames), ("scores", scores)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        object.__setattr__(self, "methods", tuple(self.methods))
        object.__setattr__(self, "committee", tuple(self.committee))

    def __len__(self) -> int:
        return len(self.frames)

    @property
    def label(self) -> str:
        """The criterion as exported: ``pairwise-dice: A vs B`` for pairs, else the key."""
        if self.criterion in PAIR_CRITERIA and len(self.methods) == 2:
            return f"{self.criterion}: {self.methods[0]} vs {self.methods[1]}"
        return self.criterion

    def score_of(self, frame: int) -> float:
        """The score of ``frame``.

        Raises
        ------
        InvalidOptionError
            If the frame was not scored.
        """
        where = np.searchsorted(self.frames, frame)
        if where >= len(self.frames) or self.frames[where] != frame:
            raise InvalidOptionError(f"frame {frame} of {self.video} was not scored")
        return float(self.scores[where])


@dataclass(frozen=True)
class RankedFrame:
    """One frame to annotate: its place in the list, where it is, and why (SPEC §8).

    ``rank`` counts from 1; ``criterion`` is the :attr:`FrameScores.label`.
    """

    rank: int
    video: str
    frame: int
    score: float
    criterion: str


def describe(criterion: str) -> str:
    """One line saying what a criterion's score measures."""
    try:
        return _DESCRIPTIONS[criterion]
    except KeyError:
        raise InvalidOptionError(
            f"unknown criterion {criterion!r}; choose one of {', '.join(CRITERIA)}"
        ) from None


# --- one frame -----------------------------------------------------------------------------


def _selected(mask: np.ndarray, evaluated: np.ndarray | None) -> np.ndarray:
    mask = np.asarray(mask) != 0
    if evaluated is None:
        return mask.ravel()
    evaluated = np.asarray(evaluated, dtype=bool)
    if evaluated.shape != mask.shape:
        raise InvalidOptionError(
            f"mask shape {mask.shape} differs from the evaluated-pixel mask's {evaluated.shape}"
        )
    return mask[evaluated]


def _vote_histogram(masks: Sequence[np.ndarray], evaluated: np.ndarray | None) -> np.ndarray:
    """Evaluated pixels per number of votes ``0..K``."""
    votes: np.ndarray | None = None
    for mask in masks:
        selected = _selected(mask, evaluated)
        if votes is None:
            votes = np.zeros(selected.shape, dtype=np.int32)
        elif selected.shape != votes.shape:
            raise InvalidOptionError("the detectors' masks differ in size")
        votes += selected
    assert votes is not None
    return np.bincount(votes, minlength=len(masks) + 1).astype(np.float64)


def vote_entropy(masks: Sequence[np.ndarray], evaluated: np.ndarray | None = None) -> float:
    """Mean binary entropy (bits, 0..1) of the vote fraction over the evaluated pixels (SPEC §8a).

    Parameters
    ----------
    masks
        The K >= 2 detectors' masks of one frame, one shape; non-zero is a detection.
    evaluated
        ``True`` where pixels count (the ROI); ``None`` for every pixel.

    Raises
    ------
    InvalidOptionError
        Fewer than two masks, shapes that differ, or no evaluated pixel.
    """
    if len(masks) < 2:
        raise InvalidOptionError("vote entropy needs at least two detectors")
    histogram = _vote_histogram(masks, evaluated)
    n = histogram.sum()
    if n == 0:
        raise InvalidOptionError("no evaluated pixel: the region of interest is empty")
    k = len(masks)
    return float(binary_entropy(np.arange(k + 1) / k) @ histogram / n)


def dice_disagreement(a: np.ndarray, b: np.ndarray, evaluated: np.ndarray | None = None) -> float:
    """``1 − Dice`` of two masks over the evaluated pixels (SPEC §8b); 0 when both are empty."""
    sa, sb = _selected(a, evaluated), _selected(b, evaluated)
    if sa.shape != sb.shape:
        raise InvalidOptionError(f"the two masks differ in size: {np.shape(a)} and {np.shape(b)}")
    size = int(np.count_nonzero(sa)) + int(np.count_nonzero(sb))
    if size == 0:
        return 0.0
    return 1.0 - 2.0 * np.count_nonzero(sa & sb) / size


def pseudo_f1_gap(
    masks: Sequence[np.ndarray], a: int, b: int, evaluated: np.ndarray | None = None
) -> float:
    """``|pseudo-F1_a − pseudo-F1_b|`` on one frame (SPEC §8c, §7).

    The consensus is that of every mask in ``masks`` plus the trivial all-ones
    and all-zeros classifiers (SPEC §7 default committee); pseudo-F1 is the
    registry's ``f1`` of the pseudo confusion matrix over the evaluated pixels.
    A pseudo-F1 that is undefined (no evaluated pixel) gives 0.
    """
    if a == b:
        raise InvalidOptionError("the pseudo-F1 gap compares two different detectors")
    detected = [np.asarray(m) != 0 for m in masks]
    p = consensus(detected)
    f1 = [evaluate("f1", pseudo_confusion(detected[j], p, evaluated)) for j in (a, b)]
    if not (f1[0].defined and f1[1].defined):
        return 0.0
    return abs(f1[0].value - f1[1].value)


def fda_disagreement(
    a_boxes: FrameBoxes, b_boxes: FrameBoxes, mapping: str = "hungarian", class_aware: bool = False
) -> float:
    """``1 − FDA`` between two detectors' boxes of one frame (SPEC §8b, §5); 0 if neither has any.

    ``a_boxes`` plays the ground truth's role in the mapping (with the default
    Hungarian mapping the score is symmetric).
    """
    if len(a_boxes) == 0 and len(b_boxes) == 0:
        return 0.0
    return 1.0 - evaluate_frame(0, a_boxes, b_boxes, mapping=mapping, class_aware=class_aware).fda


def class_disagreement(class_sets: Sequence[Collection[int]]) -> float:
    """``1 − |∩ C_k| / |∪ C_k|`` of the detectors' class sets on one frame; 0 if all are empty."""
    sets = [set(c) for c in class_sets]
    union = set().union(*sets)
    if not union:
        return 0.0
    return 1.0 - len(set.intersection(*sets)) / len(union)


# --- masks of one video, streaming ---------------------------------------------------------


def _check_pair(methods: Sequence[str], pair: tuple[str, str] | None) -> tuple[int, int]:
    if len(methods) < 2:
        raise InvalidOptionError(f"comparing detectors needs at least two, got {len(methods)}")
    if pair is None:
        return 0, 1
    a, b = pair
    for name in (a, b):
        if name not in methods:
            raise InvalidOptionError(
                f"no detector named {name!r}; the detectors are {', '.join(methods)}"
            )
    if a == b:
        raise InvalidOptionError(
            f"the two detectors compared are both {a!r}; choose two different ones"
        )
    return list(methods).index(a), list(methods).index(b)


def _check_criterion(criterion: str, allowed: Sequence[str]) -> str:
    if criterion not in allowed:
        raise InvalidOptionError(
            f"unknown criterion {criterion!r} here; choose one of {', '.join(allowed)}"
        )
    return criterion


def _detected(mask: np.ndarray, cut: int) -> np.ndarray:
    mask = np.asarray(mask)
    if mask.dtype == bool:
        return mask
    if mask.dtype != np.uint8:
        raise InvalidOptionError(f"masks must be uint8 grey levels or bool, not {mask.dtype}")
    return mask > cut


def score_mask_frames(
    frames: Iterable[tuple[int, Sequence[np.ndarray]]],
    methods: Sequence[str],
    criterion: str = VOTE_ENTROPY,
    pair: tuple[str, str] | None = None,
    roi: np.ndarray | None = None,
    video: str = "",
    threshold: int | None = None,
    n_frames: int = 0,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> FrameScores:
    """Per-frame disagreement of masks given frame by frame (SPEC §8).

    Parameters
    ----------
    frames
        ``(frame number, masks)`` pairs, increasing frame numbers, one 2-D mask
        per method in the order of ``methods`` (``uint8``: detected per
        ``threshold``; or ``bool``). A generator keeps memory flat.
    methods
        The detectors' names.
    criterion
        One of :data:`MASK_CRITERIA`.
    pair
        The two detectors of ``pairwise-dice`` and ``pseudo-gap`` (default:
        the first two methods); ignored by ``vote-entropy``.
    roi
        ``True`` where pixels are evaluated; ``None`` for the whole frame.
    video
        The label the result carries.
    threshold
        ``None``: a value of 255 is a detection; ``T``: values ``>= T`` are.
    n_frames
        Expected number of frames, for progress (0 if unknown).
    progress, cancel
        ``(frames done, n_frames)`` after every frame / polled between frames.

    Raises
    ------
    InvalidOptionError
        Bad criterion or pair, too few detectors, masks of the wrong number,
        type or size, or an empty ROI.
    """
    methods = tuple(methods)
    _check_criterion(criterion, MASK_CRITERIA)
    a, b = _check_pair(methods, None if criterion == VOTE_ENTROPY else pair)
    threshold = check_threshold(threshold)
    cut = 254 if threshold is None else threshold - 1  # detected iff value > cut
    evaluated = None if roi is None else np.asarray(roi, dtype=bool)
    if evaluated is not None and not evaluated.any():
        raise InvalidOptionError(f"video {video}: the region of interest holds no pixel")
    if evaluated is not None and evaluated.all():
        evaluated = None
    shape = None if roi is None else np.shape(roi)
    numbers: list[int] = []
    scores: list[float] = []
    for i, masks in frames:
        check(cancel)
        if len(masks) != len(methods):
            raise InvalidOptionError(
                f"frame {i} has {len(masks)} masks for {len(methods)} detectors"
            )
        detected = [_detected(m, cut) for m in masks]
        for mask in detected:
            shape = shape or mask.shape
            if mask.ndim != 2 or mask.shape != shape:
                raise InvalidOptionError(f"frame {i}: mask shape {mask.shape} differs from {shape}")
        if criterion == VOTE_ENTROPY:
            score = vote_entropy(detected, evaluated)
        elif criterion == PAIRWISE_DICE:
            score = dice_disagreement(detected[a], detected[b], evaluated)
        else:
            score = pseudo_f1_gap(detected, a, b, evaluated)
        numbers.append(int(i))
        scores.append(score)
        report(progress, len(numbers), n_frames)
    compared = methods if criterion == VOTE_ENTROPY else (methods[a], methods[b])
    return FrameScores(
        video,
        criterion,
        compared,
        np.array(numbers, dtype=np.int64),
        np.array(scores, dtype=np.float64),
        methods if criterion == PSEUDO_GAP else (),
    )


def video_label(video: VideoSpec) -> str:
    """``category/video``, or the video's name alone when it is its own category."""
    return video.name if video.category == video.name else f"{video.category}/{video.name}"


def mask_frame_scores(
    video: VideoSpec,
    sources: Mapping[str, FrameSource],
    criterion: str = VOTE_ENTROPY,
    pair: tuple[str, str] | None = None,
    threshold: int | None = None,
    frames: Iterable[int] | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> FrameScores:
    """Per-frame disagreement of the detectors' masks on one video, streaming (SPEC §8).

    Parameters
    ----------
    video
        The video: pixels inside its ``ROI.bmp`` are evaluated (every pixel when
        it has none); ground truth is not read.
    sources
        Each detector's masks, by name. ``pairwise-dice`` reads only the two
        compared detectors; the other criteria read all of them.
    criterion, pair, threshold
        See :func:`score_mask_frames`.
    frames
        Increasing frame numbers; default the video's temporal ROI.
    progress, cancel
        ``(frames done, frames total)`` after every frame / polled between frames.

    Raises
    ------
    MissingFrameError, InputFileError, SizeMismatchError
        Missing or unreadable masks, sizes differing from the ROI (or from the
        first mask), naming the files.
    CancelledError
        If ``cancel`` is set.
    """
    methods = tuple(sources)
    _check_criterion(criterion, MASK_CRITERIA)
    a, b = _check_pair(methods, None if criterion == VOTE_ENTROPY else pair)
    if criterion == PAIRWISE_DICE:
        methods, pair = (methods[a], methods[b]), None
    numbers = video.frames if frames is None else [int(i) for i in frames]
    check(cancel)
    roi = read_roi(video.roi_path) if video.roi_path.is_file() else None
    if roi is not None and not roi.any():
        raise RefereeError(
            f"{video.roi_path}: the region of interest holds no pixel; "
            "every pixel outside it is ignored, so nothing would be scored"
        )
    stream = masks_by_frame(
        [sources[m] for m in methods],
        numbers,
        None if roi is None else roi.shape,
        str(video.roi_path),
    )
    return score_mask_frames(
        stream,
        methods,
        criterion,
        pair,
        roi,
        video_label(video),
        threshold,
        len(numbers),
        progress,
        cancel,
    )


def mask_scores(
    videos: Sequence[VideoSpec],
    sources: Mapping[str, Sequence[FrameSource]],
    criterion: str = VOTE_ENTROPY,
    pair: tuple[str, str] | None = None,
    threshold: int | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> list[FrameScores]:
    """:func:`mask_frame_scores` of every video over its temporal ROI (SPEC §8).

    ``sources[method][v]`` is that method's masks of ``videos[v]`` (e.g. from
    :func:`~referee.core.evaluate.result_sources`). Progress counts frames over
    all videos.
    """
    for method, per_video in sources.items():
        if len(per_video) != len(videos):
            raise InvalidOptionError(
                f"{method}: {len(per_video)} result sources for {len(videos)} videos"
            )
    total = sum(v.n_frames for v in videos)
    out = []
    offset = 0
    for index, video in enumerate(videos):

        def step(done: int, _: int, offset: int = offset) -> None:
            report(progress, offset + done, total)

        out.append(
            mask_frame_scores(
                video,
                {m: s[index] for m, s in sources.items()},
                criterion,
                pair,
                threshold,
                None,
                step,
                cancel,
            )
        )
        offset += video.n_frames
    return out


# --- boxes ---------------------------------------------------------------------------------


def _span(numbers: Iterable[int]) -> range:
    numbers = list(numbers)
    return range(min(numbers), max(numbers) + 1) if numbers else range(0)


def box_frame_scores(
    a: VideoBoxes,
    b: VideoBoxes,
    methods: tuple[str, str] = ("A", "B"),
    frames: Iterable[int] | None = None,
    mapping: str = "hungarian",
    class_aware: bool = False,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> FrameScores:
    """``1 − FDA`` between two detectors' boxes on every frame of one video (SPEC §8b, §5).

    Parameters
    ----------
    a, b
        The two detectors' boxes of the same video (``a`` plays the ground
        truth's role in the mapping); the result carries ``a``'s name.
    methods
        The two detectors' names.
    frames
        Frame numbers to score; default every frame from the first to the last
        one where either detector has a box (frames in between with no box
        score 0).
    mapping, class_aware
        As in :func:`~referee.core.boxes.evaluate_boxes`.
    progress, cancel
        In frames; polled every 64 frames.
    """
    if mapping not in MAPPINGS:
        raise InvalidOptionError(
            f"unknown mapping {mapping!r}; choose one of {', '.join(MAPPINGS)}"
        )
    if len(methods) != 2 or methods[0] == methods[1]:
        raise InvalidOptionError(f"give two different detector names, not {methods!r}")
    if frames is None:
        numbers = list(
            _span(f for side in (a, b) for f, boxes in side.frames.items() if len(boxes))
        )
    else:
        numbers = sorted({int(f) for f in frames})
    scores = np.zeros(len(numbers))
    for k, frame in enumerate(numbers):
        if k % 64 == 0:
            check(cancel)
            report(progress, k, len(numbers))
        scores[k] = fda_disagreement(a.at(frame), b.at(frame), mapping, class_aware)
    report(progress, len(numbers), len(numbers))
    return FrameScores(
        a.name, PAIRWISE_FDA, tuple(methods), np.array(numbers, dtype=np.int64), scores
    )


def _by_name(videos: Iterable, what: str) -> dict:
    out: dict = {}
    for video in videos:
        if video.name in out:
            raise InvalidOptionError(
                f"{what} holds two videos named {video.name!r}; video names must be unique"
            )
        out[video.name] = video
    return out


def box_scores(
    a: Iterable[VideoBoxes],
    b: Iterable[VideoBoxes],
    methods: tuple[str, str] = ("A", "B"),
    mapping: str = "hungarian",
    class_aware: bool = False,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> list[FrameScores]:
    """:func:`box_frame_scores` of every video, paired by name (SPEC §8b).

    Videos follow ``a``'s order, then those only in ``b``; a video missing on
    one side has no box there (its frames with boxes score 1).
    """
    a_videos = _by_name(a, f"the boxes of {methods[0]}")
    b_videos = _by_name(b, f"the boxes of {methods[1]}")
    names = list(a_videos) + [n for n in b_videos if n not in a_videos]
    out = []
    for index, name in enumerate(names):
        check(cancel)
        out.append(
            box_frame_scores(
                a_videos.get(name, VideoBoxes(name)),
                b_videos.get(name, VideoBoxes(name)),
                methods,
                None,
                mapping,
                class_aware,
                None,
                cancel,
            )
        )
        report(progress, index + 1, len(names))
    return out


# --- action classes ------------------------------------------------------------------------


def class_frame_scores(
    videos: Sequence[VideoAnnotation | None],
    methods: Sequence[str],
    name: str = "",
    frames: Iterable[int] | None = None,
) -> FrameScores:
    """Per-frame class disagreement of K detectors' actions on one video (SPEC §8).

    Parameters
    ----------
    videos
        Each detector's actions of the video (``None``: the detector has none).
    methods
        The detectors' names, same order.
    name
        The video's label; default the first given video's name.
    frames
        Frame numbers to score; default every frame from the first to the last
        one covered by any detector's action.
    """
    if len(videos) != len(methods) or len(methods) < 2:
        raise InvalidOptionError(
            "class disagreement needs at least two detectors, one annotation per detector"
        )
    actions = [a for v in videos if v is not None for a in v.actions]
    if not name:
        name = next((v.name for v in videos if v is not None), "")
    if frames is None:
        numbers = np.arange(
            min((a.first for a in actions), default=0),
            max((a.last for a in actions), default=-1) + 1,
            dtype=np.int64,
        )
    else:
        numbers = np.array(sorted({int(f) for f in frames}), dtype=np.int64)
    union = np.zeros(len(numbers), dtype=np.int64)
    common = np.full(len(numbers), -1, dtype=np.int64)
    for video in videos:
        present = np.zeros(len(numbers), dtype=np.int64)  # bit c set iff class c is present
        for action in () if video is None else video.actions:
            lo, hi = np.searchsorted(numbers, [action.first, action.last + 1])
            present[lo:hi] |= np.int64(1) << action.action_class
        union |= present
        common &= present
    n_union = _popcount(union)
    scores = np.where(n_union > 0, 1.0 - _popcount(common) / np.maximum(n_union, 1), 0.0)
    return FrameScores(name, CLASSES, tuple(methods), numbers, scores)


def _popcount(values: np.ndarray) -> np.ndarray:
    bits = (values[:, None] >> np.arange(63)) & 1
    return bits.sum(axis=1)


def class_scores(
    annotations: Mapping[str, Iterable[VideoAnnotation]], cancel: CancelToken | None = None
) -> list[FrameScores]:
    """:func:`class_frame_scores` of every video, detectors paired by video name (SPEC §8).

    ``annotations`` maps each detector's name to its videos (an
    :class:`~referee.core.annotations.AnnotationSet` works). Videos follow the
    first detector's order, then those first seen in later ones; a detector
    without a video has no action in it.
    """
    methods = list(annotations)
    per_method = [_by_name(annotations[m], f"the actions of {m}") for m in methods]
    names = list(dict.fromkeys(n for videos in per_method for n in videos))
    out = []
    for name in names:
        check(cancel)
        out.append(class_frame_scores([videos.get(name) for videos in per_method], methods, name))
    return out


# --- ranking -------------------------------------------------------------------------------


def rank_frames(
    scores: FrameScores | Sequence[FrameScores],
    gap: int = DEFAULT_GAP,
    exclude: Collection[int] | Mapping[str, Collection[int]] = frozenset(),
    top: int | None = None,
) -> list[RankedFrame]:
    """Frames to annotate next, most disagreement first, spread out in time (SPEC §8).

    Parameters
    ----------
    scores
        One video's scores, or several videos' (ranked together; suppression
        acts within a video only).
    gap
        After choosing a frame, suppress every frame of its video with
        ``|Δ frame| <= gap`` (a frame exactly ``gap`` away is suppressed,
        ``gap + 1`` away is not); 0 suppresses nothing else.
    exclude
        Frames to skip (those that already have ground truth): a collection of
        frame numbers, applied to every video, or a mapping from a video's
        label to its frames. Excluded frames are never chosen and suppress nothing.
    top
        Keep at most this many entries (default: all that survive).

    Returns
    -------
    Entries ranked 1, 2, …: score descending, ties by frame number ascending,
    then by the order of ``scores``.
    """
    videos = [scores] if isinstance(scores, FrameScores) else list(scores)
    if isinstance(gap, bool) or not isinstance(gap, (int, np.integer)) or gap < 0:
        raise InvalidOptionError(f"the gap must be a whole number of frames >= 0, not {gap!r}")
    if top is not None and (
        isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1
    ):
        raise InvalidOptionError(f"top must be a whole number >= 1, not {top!r}")
    labels = [v.video for v in videos]
    if len(set(labels)) != len(labels):
        raise InvalidOptionError("two score lists carry the same video label; rank each video once")
    if isinstance(exclude, Mapping):
        skipped = [frozenset(int(f) for f in exclude.get(v.video, ())) for v in videos]
    else:
        shared = frozenset(int(f) for f in exclude)
        skipped = [shared] * len(videos)
    # Candidates: (−score, frame, video index), sorted; excluded frames are dropped.
    candidates = []
    for index, (video, skip) in enumerate(zip(videos, skipped)):
        keep = ~np.isin(video.frames, np.fromiter(skip, dtype=np.int64, count=len(skip)))
        frames, values = video.frames[keep], video.scores[keep]
        candidates.append(
            np.column_stack(
                [-values, frames.astype(np.float64), np.full(len(frames), float(index))]
            )
        )
    table = np.concatenate(candidates) if candidates else np.zeros((0, 3))
    order = np.lexsort((table[:, 2], table[:, 1], table[:, 0]))
    chosen: list[list[int]] = [[] for _ in videos]
    out: list[RankedFrame] = []
    for row in order:
        if top is not None and len(out) >= top:
            break
        index, frame = int(table[row, 2]), int(table[row, 1])
        taken = chosen[index]  # sorted
        at = bisect.bisect_left(taken, frame)
        if (at < len(taken) and taken[at] - frame <= gap) or (at and frame - taken[at - 1] <= gap):
            continue
        taken.insert(at, frame)
        video = videos[index]
        out.append(
            RankedFrame(len(out) + 1, video.video, frame, float(-table[row, 0]), video.label)
        )
    return out


__all__ = [
    "CLASSES",
    "CRITERIA",
    "DEFAULT_GAP",
    "MASK_CRITERIA",
    "PAIRWISE_DICE",
    "PAIRWISE_FDA",
    "PAIR_CRITERIA",
    "PSEUDO_GAP",
    "VOTE_ENTROPY",
    "FrameScores",
    "RankedFrame",
    "box_frame_scores",
    "box_scores",
    "class_disagreement",
    "class_frame_scores",
    "class_scores",
    "describe",
    "dice_disagreement",
    "fda_disagreement",
    "mask_frame_scores",
    "mask_scores",
    "pseudo_f1_gap",
    "rank_frames",
    "score_mask_frames",
    "video_label",
    "vote_entropy",
]
