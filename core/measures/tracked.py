"""A sequence of tracked boxes as the tracking measures read it (docs/measures.md §5).

Per frame: the identities of the ground-truth boxes and of the tracker's boxes,
numbered densely from 0 over the whole sequence, and the IoU of every
(ground truth, tracker) pair of the frame. CLEAR MOT, the identity measures and
HOTA all start from this.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.measures.boxes import VideoBoxes, iou_matrix


@dataclass(frozen=True, eq=False)
class TrackedSequence:
    """One sequence, frame by frame.

    Attributes
    ----------
    name
        The sequence's name.
    gt_ids, tracker_ids
        Per frame, ``int64`` identities in ``0 .. num_gt_ids − 1`` (resp.
        ``num_tracker_ids − 1``), distinct within a frame.
    similarity
        Per frame, ``float64`` ``(len(gt_ids[t]), len(tracker_ids[t]))`` IoU in [0, 1].
    num_gt_ids, num_tracker_ids
        How many identities each side has over the sequence.
    """

    name: str
    gt_ids: tuple[np.ndarray, ...]
    tracker_ids: tuple[np.ndarray, ...]
    similarity: tuple[np.ndarray, ...]
    num_gt_ids: int
    num_tracker_ids: int

    def __post_init__(self) -> None:
        if not len(self.gt_ids) == len(self.tracker_ids) == len(self.similarity):
            raise InvalidOptionError("every frame needs ground-truth ids, tracker ids and IoU")
        for t, (g, k, s) in enumerate(zip(self.gt_ids, self.tracker_ids, self.similarity)):
            if np.shape(s) != (len(g), len(k)):
                raise InvalidOptionError(
                    f"frame {t}: IoU of shape {np.shape(s)} for {len(g)}×{len(k)}"
                )
            for ids, count, side in (
                (g, self.num_gt_ids, "ground-truth"),
                (k, self.num_tracker_ids, "tracker"),
            ):
                if len(ids) and (
                    ids.min() < 0 or ids.max() >= count or len(set(ids.tolist())) < len(ids)
                ):
                    raise InvalidOptionError(
                        f"frame {t}: {side} ids must be distinct, 0 to {count - 1}"
                    )

    @property
    def num_frames(self) -> int:
        return len(self.gt_ids)

    @property
    def num_gt_dets(self) -> int:
        return sum(len(g) for g in self.gt_ids)

    @property
    def num_tracker_dets(self) -> int:
        return sum(len(k) for k in self.tracker_ids)


def tracked_sequence(
    gt: VideoBoxes, tracker: VideoBoxes, frames: Iterable[int] | None = None
) -> TrackedSequence:
    """The sequence of ``gt`` against ``tracker`` over ``frames`` (default: every frame
    either has), identities renumbered densely in order of appearance.

    Raises
    ------
    InvalidOptionError
        If a side's boxes carry no identities, or an identity twice on a frame.
    """
    numbers = sorted(set(gt.frames) | set(tracker.frames)) if frames is None else list(frames)
    gt_index: dict[int, int] = {}
    tracker_index: dict[int, int] = {}
    gt_ids, tracker_ids, similarity = [], [], []
    for frame in numbers:
        g, k = gt.at(frame), tracker.at(frame)
        gt_ids.append(_dense(g.ids, len(g), gt_index, gt.name, frame))
        tracker_ids.append(_dense(k.ids, len(k), tracker_index, tracker.name, frame))
        similarity.append(iou_matrix(g.boxes, k.boxes))
    return TrackedSequence(
        gt.name,
        tuple(gt_ids),
        tuple(tracker_ids),
        tuple(similarity),
        len(gt_index),
        len(tracker_index),
    )


def _dense(
    ids: np.ndarray | None, count: int, index: dict[int, int], name: str, frame: int
) -> np.ndarray:
    if count and ids is None:
        raise InvalidOptionError(f"{name}: tracking measures need an identity for every box")
    found: Sequence[int] = [] if ids is None else ids.tolist()
    if len(set(found)) < len(found):
        repeated = min(i for i in set(found) if found.count(i) > 1)  # only on the error
        raise InvalidOptionError(
            f"{name}: frame {frame} has identity {repeated} on more than one box; "
            "tracking measures need one box per identity and frame"
        )
    return np.array([index.setdefault(int(i), len(index)) for i in found], dtype=np.int64)
