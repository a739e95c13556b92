"""Cost of the LIRIS integrated score against one operating point (docs/measures.md §4).

The matching does not depend on the thresholds, so the 45 operating points of
the integrated measures (ε, then 4 thresholds × 11 grid values) must be cheap
re-counts. On a deterministic synthetic set of 200 videos × 20 actions × 300
frames (detections: jittered boxes, shifted and shortened durations, some
class swaps, some missing actions, some false alarms) this prints, from
alternating rounds (the fastest time of each kind is kept):

* (a) one operating point at ε, matching included;
* (b) the integrated score: all 45 points, curves, per video, matching included;
* (c) the complete ``evaluate_actions`` (also the class confusion matrix and
  the per-pair table), for information;
* the ratio (b)/(a) (target <= 1.5) and (c)/(a).

Usage: python benchmarks/actions_integrated.py [--rounds N] [--seed S]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from referee.core.measures.action_matching import match_actions
from referee.core.measures.action_scores import evaluate_actions, operating_point, score_matching
from referee.core.measures.liris_parameters import LirisParameters
from referee.core.model.annotations import Action, AnnotationSet, VideoAnnotation

N_VIDEOS, N_ACTIONS, N_FRAMES = 200, 20, 300
WIDTH, HEIGHT = 640, 480


def _action(number: int, action_class: int, first: int, boxes: np.ndarray) -> Action:
    frames = np.arange(first, first + len(boxes), dtype=np.int64)
    return Action(number, action_class, frames, boxes)


def _track(rng: np.random.Generator, length: int) -> np.ndarray:
    """A box moving smoothly inside the frame: ``(length, 4)`` x, y, w, h."""
    w, h = rng.integers(40, 160), rng.integers(60, 240)
    start = np.array([rng.integers(0, WIDTH - w), rng.integers(0, HEIGHT - h)])
    step = rng.normal(0, 1.5, size=(length, 2)).cumsum(axis=0)
    xy = np.clip(start + step, 0, [WIDTH - w, HEIGHT - h]).round().astype(np.int64)
    return np.column_stack([xy, np.full(length, w), np.full(length, h)])


def make_sets(seed: int = 0) -> tuple[AnnotationSet, AnnotationSet]:
    """Ground truth and a noisy detection set, the same for the same seed."""
    rng = np.random.default_rng(seed)
    gt_videos, det_videos = {}, {}
    for v in range(N_VIDEOS):
        name = f"video{v:03d}"
        gt_actions, det_actions = [], []
        for a in range(N_ACTIONS):
            length = int(rng.integers(30, 150))
            first = int(rng.integers(1, N_FRAMES - length + 2))
            boxes = _track(rng, length)
            action_class = int(rng.integers(1, 11))
            gt_actions.append(_action(a + 1, action_class, first, boxes))
            if rng.random() < 0.1:  # missed
                continue
            cut_start = int(rng.integers(-10, 15))
            cut_end = int(rng.integers(-10, 25))
            lo, hi = max(0, cut_start), min(length, length - cut_end)
            if hi - lo < 5:
                lo, hi = 0, length
            det = boxes[lo:hi].copy()
            det[:, :2] += rng.integers(-6, 7, size=(len(det), 2))
            det[:, 2:] += rng.integers(-8, 9, size=(len(det), 2))
            det = np.clip(det, 1, None)
            if rng.random() < 0.1:  # class swap
                action_class = int(rng.integers(1, 11))
            det_actions.append(_action(len(det_actions) + 1, action_class, first + lo, det))
        for _ in range(int(rng.integers(0, 4))):  # false alarms
            length = int(rng.integers(20, 100))
            first = int(rng.integers(1, N_FRAMES - length + 2))
            det_actions.append(
                _action(len(det_actions) + 1, int(rng.integers(1, 11)), first, _track(rng, length))
            )
        gt_videos[name] = VideoAnnotation(name, tuple(gt_actions))
        det_videos[name] = VideoAnnotation(name, tuple(det_actions))
    return AnnotationSet(gt_videos), AnnotationSet(det_videos)


def _seconds(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="alternating rounds; the fastest time of each kind is kept",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    gt, det = make_sets(args.seed)
    params = LirisParameters()
    n_gt = sum(len(v.actions) for v in gt)
    n_det = sum(len(v.actions) for v in det)
    print(
        f"synthetic set: {len(gt)} videos, {n_gt} GT actions, {n_det} detections, "
        f"{N_FRAMES} frames per video"
    )

    def one_point() -> object:
        return operating_point(match_actions(gt, det), (params.epsilon,) * 4)

    def integrated() -> object:
        return score_matching(match_actions(gt, det), params)

    def everything() -> object:
        return evaluate_actions(gt, det, params)

    point = integrated_ = full = float("inf")
    for _ in range(args.rounds):
        point = min(point, _seconds(one_point))
        integrated_ = min(integrated_, _seconds(integrated))
        full = min(full, _seconds(everything))

    overall, _ = score_matching(match_actions(gt, det), params)
    print(
        f"F at epsilon = {overall.point.f.value:.4f}, final integrated score = "
        f"{overall.final.value:.4f}"
    )
    print(f"(a) one operating point, matching included:    {point * 1000:8.1f} ms")
    print(f"(b) integrated score, 45 points + curves:       {integrated_ * 1000:8.1f} ms")
    print(f"(c) evaluate_actions (+ confusion, pair table): {full * 1000:8.1f} ms")
    print(
        f"ratio (b)/(a) = {integrated_ / point:.3f} (target <= 1.5); (c)/(a) = {full / point:.3f}"
    )


if __name__ == "__main__":
    main()
