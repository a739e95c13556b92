"""MOTChallenge ground-truth rules applied to per-frame boxes before they are evaluated
(docs/measures.md §5).

* The consider flag: a ground-truth box whose confidence (the ``conf`` column, 0 or
  1 in MOT16, MOT17 and MOT20 ``gt.txt``) is below ``min_conf``, or with
  ``zero_marked`` is exactly 0, is not counted.
* Class rules (:data:`~referee.core.measures.box_rules.CLASS_RULES`): only the
  counted class is counted; and on every frame the detections are assigned
  one-to-one to *every* ground-truth box of the frame (any class, counted or not),
  maximizing the total IoU over the pairs with IoU at least
  :data:`~referee.core.measures.box_rules.DISTRACTOR_IOU`; a detection assigned to a
  box of a distractor class is removed, neither a true nor a false positive.
"""

from __future__ import annotations

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.measures.box_rules import CLASS_RULES, DISTRACTOR_IOU, ClassRule
from referee.core.measures.boxes import FrameBoxes, VideoBoxes, iou_matrix, map_boxes


def _subset(boxes: FrameBoxes, keep: np.ndarray) -> FrameBoxes:
    """The boxes where ``keep`` is True, with their labels, ids and confidences."""

    def pick(values: np.ndarray | None) -> np.ndarray | None:
        return None if values is None else values[keep]

    return FrameBoxes(
        boxes.boxes[keep], pick(boxes.labels), pick(boxes.ids), pick(boxes.confidences)
    )


def _class_rule(classes: str | None, video: VideoBoxes) -> ClassRule | None:
    if classes is None:
        return None
    if classes not in CLASS_RULES:
        raise InvalidOptionError(
            f"unknown MOTChallenge class rules {classes!r} (choose from {', '.join(CLASS_RULES)})"
        )
    if any(len(b) and b.labels is None for b in video.frames.values()):
        raise InvalidOptionError(
            f"the MOTChallenge class rules need the class of every ground-truth box, but the "
            f"boxes of video {video.name!r} have none"
        )
    return CLASS_RULES[classes]


def counted_groundtruth(
    groundtruth: VideoBoxes,
    min_conf: float | None = None,
    classes: str | None = None,
    zero_marked: bool = False,
) -> VideoBoxes:
    """The ground-truth boxes that count: confidence at least ``min_conf`` and, with
    ``zero_marked``, not exactly 0 (when the boxes have confidences), and, with class
    rules ``classes``, of the counted class.

    Raises
    ------
    InvalidOptionError
        Unknown class rules, or class rules on boxes without classes.
    """
    rule = _class_rule(classes, groundtruth)
    if min_conf is None and rule is None and not zero_marked:
        return groundtruth
    frames = {}
    for number, boxes in groundtruth.frames.items():
        keep = np.ones(len(boxes), dtype=bool)
        if min_conf is not None and boxes.confidences is not None:
            keep &= boxes.confidences >= min_conf
        if zero_marked and boxes.confidences is not None:
            keep &= boxes.confidences != 0
        if rule is not None and boxes.labels is not None:
            keep &= boxes.labels == rule.counted
        if keep.any():
            frames[number] = boxes if keep.all() else _subset(boxes, keep)
    return VideoBoxes(groundtruth.name, frames)


def distractor_matches(
    groundtruth: FrameBoxes, detections: FrameBoxes, distractors: tuple[int, ...]
) -> np.ndarray:
    """Which detections of one frame are assigned to a distractor-class box: a boolean
    array over ``detections`` (see the module's description)."""
    removed = np.zeros(len(detections), dtype=bool)
    labels = groundtruth.labels
    if labels is None or not len(detections) or not np.isin(labels, distractors).any():
        return removed
    iou = iou_matrix(groundtruth.boxes, detections.boxes)
    allowed = np.where(iou >= DISTRACTOR_IOU, iou, 0.0)
    for g, d in map_boxes(allowed, "hungarian"):
        if labels[g] in distractors:
            removed[d] = True
    return removed


def without_distractor_matches(
    groundtruth: VideoBoxes, detections: VideoBoxes, classes: str | None
) -> VideoBoxes:
    """``detections`` without those assigned to a distractor-class box of the whole
    ``groundtruth`` (every box, counted or not), under class rules ``classes``.

    Raises
    ------
    InvalidOptionError
        Unknown class rules, or class rules on ground truth without classes.
    """
    rule = _class_rule(classes, groundtruth)
    if rule is None:
        return detections
    frames = {}
    for number, boxes in detections.frames.items():
        removed = distractor_matches(groundtruth.at(number), boxes, rule.distractors)
        if not removed.all():
            frames[number] = _subset(boxes, ~removed) if removed.any() else boxes
    return VideoBoxes(detections.name, frames)
