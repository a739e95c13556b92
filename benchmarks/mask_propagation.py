"""Mask propagation on the real CDnet highway video, against copying the frame and the consensus.

From each of 20 ground-truth frames spread over the temporal ROI (from its
first frame + 10 to its last − 10), the true label map is propagated 1, 5 and
10 frames forward (and, for the default, backward) and compared with the true
ground truth of those frames. Each row is the mean, over the 20 start frames,
of the IoU of the motion level (255): ``|draft ∩ truth| / |draft ∪ truth|``
over the evaluated pixels (inside the ROI, truth not 170: docs/measures.md §1);
a pair where neither has motion is left out (the count is printed). Rows:

* (a) copy: the start frame's label map as it is;
* (b) consensus: the four detectors' majority (MOG2, KNN, MOG, CNT, cached by
  ``highway_detectors.py``), a pixel motion where at least half fire
  (``draft_from_share(share, 0.5, roi)``, the window's consensus draft);
* (c) Referee's propagation (``propagate_mask``) for each flow (Farnebäck,
  DIS), warp (objects, pixels) and with or without snapping to the consensus
  (the share of the four detectors firing; ``MaskPropagationOptions``'
  thresholds), with its time per frame, frame reading included (and, for
  the snapped rows, reading the four detectors' masks).

Brush dabs: the pixels a draft gets wrong (motion where the truth is not, or
the reverse, over the evaluated pixels) divided by the pixels one dab of the
window's default brush covers (a disc of radius ``DEFAULT_RADIUS``). It is a
lower bound on the dabs a correction takes (errors are thin and scattered;
a dab covers them only partly), the same for every row.

The target (issue "Annotating masks at speed"): at +5 frames, the default
propagation at least 0.05 above the better of (a) and (b).

Usage: python benchmarks/mask_propagation.py [--starts N] [--cache DIR]
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np
from highway_detectors import DEFAULT_CACHE, HIGHWAY, SUBTRACTORS, highway_results

from referee.core.annotation.label_maps import draft_from_share
from referee.core.annotation.mask_propagation import (
    MaskPropagationOptions,
    propagate_mask,
)
from referee.core.formats.cdnet import load_video, read_gt, read_roi
from referee.core.measures.pixel import GT_MOTION, GT_UNKNOWN
from referee.core.model.videos import VideoSpec
from referee.gui.annotation.mask_painter import DEFAULT_RADIUS

STEPS = (1, 5, 10)
DEFAULT = MaskPropagationOptions()
VARIANTS: tuple[MaskPropagationOptions, ...] = tuple(
    MaskPropagationOptions(method=method, warp=warp, snap=snap)
    for warp in ("objects", "pixels")
    for method in ("farneback", "dis")
    for snap in (False, True)
)
TARGET = 0.05


def motion_scores(draft: np.ndarray, truth: np.ndarray, roi: np.ndarray) -> tuple[float, int]:
    """IoU of the motion level over the evaluated pixels (NaN if neither has motion), and
    the number of evaluated pixels whose motion is wrong."""
    evaluated = roi & (truth != GT_UNKNOWN)
    drawn, true = (draft == GT_MOTION) & evaluated, (truth == GT_MOTION) & evaluated
    union = int(np.count_nonzero(drawn | true))
    iou = np.count_nonzero(drawn & true) / union if union else math.nan
    return iou, int(np.count_nonzero(drawn ^ true))


class Scores:
    """IoU and wrong pixels of one row, per number of frames propagated."""

    def __init__(self) -> None:
        self.iou: dict[int, list[float]] = {k: [] for k in STEPS}
        self.wrong: dict[int, list[int]] = {k: [] for k in STEPS}
        self.seconds = 0.0
        self.frames = 0

    def add(self, k: int, draft: np.ndarray, truth: np.ndarray, roi: np.ndarray) -> None:
        iou, wrong = motion_scores(draft, truth, roi)
        self.iou[k].append(iou)
        self.wrong[k].append(wrong)

    def mean_iou(self, k: int) -> float:
        return float(np.nanmean(self.iou[k]))

    def dabs(self, k: int) -> float:
        return float(np.mean(self.wrong[k])) / (math.pi * DEFAULT_RADIUS**2)

    def left_out(self) -> int:
        return sum(math.isnan(v) for values in self.iou.values() for v in values)


def name(options: MaskPropagationOptions, direction: str = "forward") -> str:
    snap = ", snapped" if options.snap else ""
    default = " (default)" if options == DEFAULT else ""
    back = ", backward" if direction == "backward" else ""
    return f"(c) {options.method}, {options.warp}{snap}{back}{default}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=20, help="ground-truth frames to start from")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="detector masks")
    args = parser.parse_args()

    video = load_video(HIGHWAY, category="baseline")
    roi = read_roi(video.roi_path)
    folders = highway_results(args.cache, SUBTRACTORS)
    reach = max(STEPS)
    starts = [
        int(v) for v in np.linspace(video.first + reach, video.last - reach, args.starts).round()
    ]

    def read_frame(frame: int) -> np.ndarray:
        return cv2.imread(str(video.input_path(frame)), cv2.IMREAD_COLOR)

    def share(frame: int) -> np.ndarray:
        masks = [
            cv2.imread(str(folder / f"bin{frame:06d}.png"), cv2.IMREAD_GRAYSCALE)
            for folder in folders.values()
        ]
        return np.mean([mask > 0 for mask in masks], axis=0)

    truths = {
        frame: read_gt(video.gt_path(frame), frame)
        for start in starts
        for frame in range(start - reach, start + reach + 1)
    }
    copy, consensus = Scores(), Scores()
    for start in starts:
        for k in STEPS:
            copy.add(k, truths[start], truths[start + k], roi)
            majority = draft_from_share(share(start + k), 0.5, roi)
            consensus.add(k, majority, truths[start + k], roi)
    rows: dict[str, Scores] = {"(a) copy the frame": copy, "(b) consensus (>= 2 of 4)": consensus}
    runs = [(options, "forward") for options in VARIANTS] + [(DEFAULT, "backward")]
    for options, direction in runs:
        rows[name(options, direction)] = propagate(
            video, starts, truths, roi, read_frame, share, options, direction
        )

    print(
        f"highway, {len(starts)} start frames {starts[0]}-{starts[-1]} "
        f"(temporal ROI {video.first}-{video.last}), detectors {', '.join(folders)}; "
        f"mean IoU of the motion level (255) with the ground truth"
    )
    head = " | ".join(f"+{k:<2} IoU" for k in STEPS)
    print(f"| {'draft':<46} | {head} | ms/frame |")
    print(f"|{'-' * 48}|" + "---------|" * len(STEPS) + "----------|")
    for label, scores in rows.items():
        cells = " | ".join(f"{scores.mean_iou(k):7.3f}" for k in STEPS)
        speed = f"{1000 * scores.seconds / scores.frames:8.1f}" if scores.frames else " " * 8
        print(f"| {label:<46} | {cells} | {speed} |")
    left_out = {label: s.left_out() for label, s in rows.items() if s.left_out()}
    if left_out:
        print(f"pairs with no motion in draft or truth, left out: {left_out}")

    ours = rows[name(DEFAULT)]
    print(f"\nbrush dabs per frame (wrong pixels / a disc of radius {DEFAULT_RADIUS:g} px):")
    for k in STEPS:
        saved = copy.dabs(k) - ours.dabs(k)
        print(
            f"  +{k:<2}: copy {copy.dabs(k):5.1f}, consensus {consensus.dabs(k):5.1f}, "
            f"default propagation {ours.dabs(k):5.1f}; saved against copying {saved:5.1f}"
        )
    better = max(copy.mean_iou(5), consensus.mean_iou(5))
    margin = ours.mean_iou(5) - better
    verdict = "met" if margin >= TARGET else "missed"
    print(
        f"\ntarget at +5: default {ours.mean_iou(5):.3f} - better of (a), (b) {better:.3f} = "
        f"{margin:+.3f} (target >= {TARGET}): {verdict}"
    )


def propagate(
    video: VideoSpec,
    starts: Sequence[int],
    truths: dict[int, np.ndarray],
    roi: np.ndarray,
    read_frame: Callable[[int], np.ndarray],
    share: Callable[[int], np.ndarray],
    options: MaskPropagationOptions,
    direction: str,
) -> Scores:
    """The scores of one variant over every start frame."""
    scores = Scores()
    sign = 1 if direction == "forward" else -1
    for start in starts:
        began = time.perf_counter()
        result = propagate_mask(
            truths[start],
            read_frame,
            start,
            direction,
            max(STEPS),
            video.frames,
            options,
            share if options.snap else None,
        )
        scores.seconds += time.perf_counter() - began
        scores.frames += len(result.drafts)
        for k in STEPS:
            scores.add(k, result.drafts[start + sign * k], truths[start + sign * k], roi)
    return scores


if __name__ == "__main__":
    main()
