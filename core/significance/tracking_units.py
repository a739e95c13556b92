"""The units trackers are resampled and compared on (docs/measures.md §5, "Tracking:
intervals and tests"): their sequences when there are at least
:data:`~referee.core.significance.choices.MIN_SEQUENCES`, else consecutive frame blocks
of the sequences, each evaluated once as a sequence of its own.

A block is an approximation of its sequence: a track is cut at the block's borders, so
an identity switch across a border is not counted and each part of a cut track is
associated on its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.core.errors import UnavailableError
from referee.core.measures.boxes import VideoBoxes
from referee.core.measures.clear_mot import combine_clear_mot
from referee.core.measures.hota import combine_hota
from referee.core.measures.identity import combine_identity
from referee.core.measures.tracking import TrackingEvaluation, TrackingScores, evaluate_tracking
from referee.core.significance.choices import (
    MIN_SEQUENCES,
    check_block_length,
    check_tracking_measure,
)

#: What the units are.
SEQUENCES, BLOCKS = "sequences", "blocks"


def block_spans(grid: int, block: int) -> list[tuple[int, int]]:
    """Frames ``(first, last)`` of the consecutive blocks of ``block`` frames that cover
    frames 1 … ``grid``; a remainder shorter than half a block joins the block before it."""
    check_block_length(block)
    spans = [(first, min(first + block - 1, grid)) for first in range(1, grid + 1, block)]
    if len(spans) > 1 and 2 * (spans[-1][1] - spans[-1][0] + 1) < block:
        spans[-2:] = [(spans[-2][0], grid)]
    return spans


def block_tracking(
    groundtruth: Sequence[VideoBoxes],
    tracker: Sequence[VideoBoxes],
    block: int,
    lengths: Mapping[str, int | None] | None = None,
    only: Mapping[str, Sequence[int]] | None = None,
) -> TrackingEvaluation:
    """The tracker's tracking measures on each frame block of each sequence, every block
    evaluated once as a sequence of its own (its ``sequences``, labelled
    ``<sequence>:<first frame>-<last frame>``, in order).

    A sequence's frames are those :func:`~referee.core.measures.tracking.evaluate_tracking`
    reads with the same ``lengths`` and ``only``, cut by :func:`block_spans` into blocks
    of ``block`` of them up to the length ``lengths`` gives, else up to the ground
    truth's last frame; without a length, the last block also holds any later frame on
    which the tracker has boxes. The blocks thus hold every frame of the whole sequence,
    and are the same for every tracker.

    Raises
    ------
    InvalidOptionError
        If a box carries no identity, or ``block`` is below 1.
    """
    by_name = {video.name: video for video in tracker}
    gt_blocks: list[VideoBoxes] = []
    tracker_blocks: list[VideoBoxes] = []
    frames: dict[str, Sequence[int]] = {}
    for truth in groundtruth:
        found = by_name.get(truth.name, VideoBoxes(truth.name))
        numbers = (only or {}).get(truth.name)
        if numbers is None:
            length = (lengths or {}).get(truth.name)
            grid = length or max(truth.frames, default=0)
            end = length or max(grid, max(found.frames, default=0))  # evaluate_tracking's
            numbers = range(1, end + 1)
        else:
            grid = len(numbers)
        spans = block_spans(grid or len(numbers), block)
        for k, (first, last) in enumerate(spans):
            label = f"{truth.name}:{numbers[first - 1]}-{numbers[last - 1]}"
            frames[label] = numbers[first - 1 : len(numbers) if k == len(spans) - 1 else last]
            gt_blocks.append(VideoBoxes(label, truth.frames))
            tracker_blocks.append(VideoBoxes(label, found.frames))
    return evaluate_tracking(gt_blocks, tracker_blocks, only=frames)


def needs_blocks(sequences: int) -> bool:
    """Whether trackers evaluated on ``sequences`` sequences are resampled and compared on
    frame blocks: with fewer than :data:`MIN_SEQUENCES`."""
    return sequences < MIN_SEQUENCES


@dataclass(frozen=True, eq=False)
class TrackingUnits:
    """Each tracker's scores on the units resampled and compared.

    Attributes
    ----------
    kind
        :data:`SEQUENCES` or :data:`BLOCKS`.
    scores
        Tracker → unit label → its tracking measures; every tracker has the same units,
        in the same order.
    sequences
        How many sequences the units come from.
    """

    kind: str
    scores: dict[str, dict[str, TrackingScores]]
    sequences: int

    @property
    def count(self) -> int:
        """How many units each tracker has."""
        return len(next(iter(self.scores.values()), {}))


def tracking_units(
    tracking: Mapping[str, TrackingEvaluation], blocks: Mapping[str, TrackingEvaluation]
) -> TrackingUnits:
    """The units of the trackers of ``tracking``: their sequences when there are at
    least :data:`MIN_SEQUENCES`, else their blocks (``blocks``, from
    :func:`block_tracking`).

    Raises
    ------
    UnavailableError
        Fewer sequences than :data:`MIN_SEQUENCES` and a tracker without blocks.
    """
    sequences = len(next(iter(tracking.values())).sequences) if tracking else 0
    if not needs_blocks(sequences):
        return TrackingUnits(
            SEQUENCES, {n: dict(e.sequences) for n, e in tracking.items()}, sequences
        )
    missing = [name for name in tracking if name not in blocks]
    if missing:
        raise UnavailableError(
            f"with {sequences} sequence{'s' if sequences != 1 else ''} (fewer than "
            f"{MIN_SEQUENCES}) trackers are resampled on frame blocks, and "
            f"{', '.join(missing)} was evaluated without: give a block length"
        )
    return TrackingUnits(BLOCKS, {n: dict(blocks[n].sequences) for n in tracking}, sequences)


def measure_value(scores: TrackingScores, measure: str) -> float:
    """HOTA (α-averaged), MOTA or IDF1 of ``scores``, by key of :data:`TRACKING_MEASURES`."""
    check_tracking_measure(measure)
    if measure == "hota":
        return scores.hota.mean_hota
    if measure == "mota":
        return scores.clear.mota
    return scores.identity.idf1


def combined_values(units: Sequence[TrackingScores]) -> dict[str, float]:
    """HOTA, MOTA and IDF1 of ``units`` combined as sequences are (:func:`combine_hota`,
    :func:`combine_clear_mot`, :func:`combine_identity`), by key of
    :data:`TRACKING_MEASURES`."""
    return {
        "hota": combine_hota([u.hota for u in units]).mean_hota,
        "mota": combine_clear_mot([u.clear for u in units]).mota,
        "idf1": combine_identity([u.identity for u in units]).idf1,
    }


def measure_defined(scores: TrackingScores, measure: str) -> bool:
    """Whether ``measure`` has something to divide by on ``scores``: a ground-truth box
    for MOTA, a box on either side for HOTA and IDF1."""
    check_tracking_measure(measure)
    if measure == "hota":
        h = scores.hota
        return int(h.true_positives[0] + h.false_negatives[0] + h.false_positives[0]) > 0
    if measure == "mota":
        return scores.clear.tp + scores.clear.fn > 0
    i = scores.identity
    return i.idtp + i.idfn + i.idfp > 0
