"""Every tracking measure of one tracker, per sequence and combined (docs/measures.md §5):
HOTA, CLEAR MOT and the identity measures, from the same boxes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.core.measures.boxes import VideoBoxes
from referee.core.measures.clear_mot import ClearMot, clear_mot, combine_clear_mot
from referee.core.measures.hota import HotaScores, combine_hota, hota
from referee.core.measures.identity import IdentityScores, combine_identity, identity_scores
from referee.core.measures.tracked import tracked_sequence


@dataclass(frozen=True, eq=False)
class TrackingScores:
    """HOTA, CLEAR MOT and identity measures of one sequence, or of several combined."""

    hota: HotaScores
    clear: ClearMot
    identity: IdentityScores


@dataclass(frozen=True, eq=False)
class TrackingEvaluation:
    """One tracker's tracking measures on each sequence (in the ground truth's order) and
    combined over them as the benchmark combines each measure."""

    sequences: dict[str, TrackingScores]
    combined: TrackingScores


def evaluate_tracking(
    groundtruth: Sequence[VideoBoxes],
    tracker: Sequence[VideoBoxes],
    lengths: Mapping[str, int | None] | None = None,
) -> TrackingEvaluation:
    """The tracker's boxes against the ground truth, sequence by sequence.

    A sequence runs over frames 1 to its length (``lengths``, e.g. a benchmark's
    ``seqLength``), else to the last frame with a box on either side: a frame
    without boxes still breaks the continuation of a match. A sequence the tracker
    has no boxes for counts every ground-truth box as missed.

    Raises
    ------
    InvalidOptionError
        If a box carries no identity.
    """
    by_name = {video.name: video for video in tracker}
    scores: dict[str, TrackingScores] = {}
    for truth in groundtruth:
        found = by_name.get(truth.name, VideoBoxes(truth.name))
        length = (lengths or {}).get(truth.name) or max(
            [*truth.frames, *found.frames, 0], default=0
        )
        sequence = tracked_sequence(truth, found, range(1, length + 1))
        scores[truth.name] = TrackingScores(
            hota(sequence), clear_mot(sequence), identity_scores(sequence)
        )
    every = list(scores.values())
    combined = TrackingScores(
        combine_hota([s.hota for s in every]),
        combine_clear_mot([s.clear for s in every]),
        combine_identity([s.identity for s in every]),
    )
    return TrackingEvaluation(scores, combined)
