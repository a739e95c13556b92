"""Every tracking measure of one tracker, per sequence and combined (docs/measures.md §5):
HOTA, CLEAR MOT, the identity measures and VACE's ATA, from the same boxes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from referee.core.measures.boxes import VideoBoxes
from referee.core.measures.clear_matching import clear_matching
from referee.core.measures.clear_mot import ClearMot, clear_mot, combine_clear_mot
from referee.core.measures.hota import HotaScores, combine_hota, hota
from referee.core.measures.identity import IdentityScores, combine_identity, identity_scores
from referee.core.measures.tracked import tracked_sequence
from referee.core.measures.tracking_frames import TrackedFrames, tracked_frames
from referee.core.measures.vace_tracks import VaceTrackScores, combine_vace_tracks, vace_tracks


@dataclass(frozen=True, eq=False)
class TrackingScores:
    """HOTA, CLEAR MOT, identity and VACE track measures of one sequence, or of several
    combined."""

    hota: HotaScores
    clear: ClearMot
    identity: IdentityScores
    vace: VaceTrackScores


@dataclass(frozen=True, eq=False)
class TrackingEvaluation:
    """One tracker's tracking measures on each sequence (in the ground truth's order) and
    combined over them as the benchmark combines each measure."""

    sequences: dict[str, TrackingScores]
    combined: TrackingScores
    #: Each sequence's frame-by-frame matching, for showing it (docs/measures.md §5).
    frames: dict[str, TrackedFrames] = field(default_factory=dict)


def evaluate_tracking(
    groundtruth: Sequence[VideoBoxes],
    tracker: Sequence[VideoBoxes],
    lengths: Mapping[str, int | None] | None = None,
    only: Mapping[str, Sequence[int]] | None = None,
) -> TrackingEvaluation:
    """The tracker's boxes against the ground truth, sequence by sequence.

    A sequence runs over frames 1 to its length (``lengths``, e.g. a benchmark's
    ``seqLength``), else to the last frame with a box on either side (frames without
    boxes count in CLEAR MOT's frames). A sequence the tracker has no boxes for counts
    every ground-truth box as missed. A sequence named in ``only`` runs over those
    frames alone (a partly annotated video's annotated frames): the tracker's boxes on
    other frames are not read.

    Raises
    ------
    InvalidOptionError
        If a box carries no identity.
    """
    by_name = {video.name: video for video in tracker}
    scores: dict[str, TrackingScores] = {}
    frames: dict[str, TrackedFrames] = {}
    for truth in groundtruth:
        found = by_name.get(truth.name, VideoBoxes(truth.name))
        length = (lengths or {}).get(truth.name) or max(
            [*truth.frames, *found.frames, 0], default=0
        )
        numbers = list((only or {}).get(truth.name, range(1, length + 1)))
        sequence = tracked_sequence(truth, found, numbers)
        matching = clear_matching(sequence)
        scores[truth.name] = TrackingScores(
            hota(sequence),
            clear_mot(sequence, matching=matching),
            identity_scores(sequence),
            vace_tracks(sequence),
        )
        frames[truth.name] = tracked_frames(truth, found, numbers, matching)
    every = list(scores.values())
    combined = TrackingScores(
        combine_hota([s.hota for s in every]),
        combine_clear_mot([s.clear for s in every]),
        combine_identity([s.identity for s in every]),
        combine_vace_tracks([s.vace for s in every]),
    )
    return TrackingEvaluation(scores, combined, frames)
