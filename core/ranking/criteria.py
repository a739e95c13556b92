"""Per-frame disagreement criteria (docs/measures.md §8)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.measures.boxes import FrameBoxes, evaluate_frame
from referee.core.measures.choices import check_threshold
from referee.core.measures.indicators import evaluate
from referee.core.progress import CancelToken, ProgressCallback, check, report
from referee.core.pseudo.consensus import binary_entropy, consensus, pseudo_confusion
from referee.core.ranking.choices import (
    CLASSES,
    CRITERIA,
    MASK_CRITERIA,
    PAIR_CRITERIA,
    PAIRWISE_DICE,
    PAIRWISE_FDA,
    PSEUDO_GAP,
    VOTE_ENTROPY,
)

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
    """Per-frame disagreement of one video under one criterion (docs/measures.md §8).

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
    selected: np.ndarray = mask[evaluated]
    return selected


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
    """Mean binary entropy (bits, 0..1) of the vote fraction over the evaluated pixels (docs/measures.md §8a).

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
    """``1 − Dice`` of two masks over the evaluated pixels (docs/measures.md §8b); 0 when both are empty."""
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
    """``|pseudo-F1_a − pseudo-F1_b|`` on one frame (docs/measures.md §8c, §7).

    The consensus is that of every mask in ``masks`` plus the trivial all-ones
    and all-zeros classifiers (docs/measures.md §7 default committee); pseudo-F1 is the
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
    """``1 − FDA`` between two detectors' boxes of one frame (docs/measures.md §8b, §5); 0 if neither has any.

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
    """Per-frame disagreement of masks given frame by frame (docs/measures.md §8).

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
