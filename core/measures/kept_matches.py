"""The true positives of the IoU rule ``keep-matches`` (docs/measures.md §5): on every
frame, CLEAR MOT's matches, which keep a pair of identities matched on the previous frame
while its IoU reaches the threshold (TrackEval 1.3.0's ``CLEAR``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from referee.core.errors import InvalidOptionError
from referee.core.measures.boxes import VideoBoxes, frame_ious
from referee.core.measures.clear_matching import clear_matching
from referee.core.measures.tracked import tracked_sequence


def kept_matches(
    gt: VideoBoxes,
    det: VideoBoxes,
    frames: Sequence[int],
    iou_threshold: float,
    class_aware: bool = False,
) -> dict[int, list[tuple[int, int]]]:
    """Each frame's CLEAR MOT matches, as ``(gt index, det index)`` pairs sorted by
    ground-truth index, by frame number (frames without a match are absent).

    ``frames`` are the frames with a box, ascending; the matching runs over every frame
    from the first to the last of them. With ``class_aware``, boxes of different classes
    never match.

    Raises
    ------
    InvalidOptionError
        If a box has no identity, or an identity is on two boxes of one frame.
    """
    if not frames:
        return {}
    for video, side in ((gt, "ground truth"), (det, "detections")):
        if any(len(boxes) and boxes.ids is None for boxes in video.frames.values()):
            raise InvalidOptionError(
                f"the IoU rule keep-matches follows identities from frame to frame, but the "
                f"{side} of video {video.name!r} have none; choose another --iou-rule"
            )
    numbers = range(frames[0], frames[-1] + 1)
    try:
        sequence = tracked_sequence(gt, det, numbers)
    except InvalidOptionError as error:
        raise InvalidOptionError(f"IoU rule keep-matches: {error}") from None
    if class_aware:
        ious = tuple(frame_ious(gt.at(n), det.at(n), class_aware) for n in numbers)
        sequence = replace(sequence, similarity=ious)
    matching = clear_matching(sequence, iou_threshold)
    return {
        number: sorted(zip(matches.gt.tolist(), matches.tracker.tolist()))
        for number, matches in zip(numbers, matching.frames)
        if len(matches.gt)
    }
