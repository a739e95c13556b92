"""Box propagation speed on the real CDnet highway video, against decoding alone.

A car is taken from the ground truth: the largest connected component of
motion (255) on the first frame from ``--start`` (default 500) where one of at
least 150 pixels lies clear of the image border; its bounding box is
propagated over the next ``--frames`` (default 100) frames with CSRT, KCF and
MIL (``propagate_box``, reading each frame with ``cv2.imread``). In
alternating rounds (this machine is shared and noisy, so only ratios measured
side by side count; the fastest time of each kind is kept) it prints for each
tracker:

* frames per second of the propagation, frame reading included;
* the ratio propagation / decode-only, decode-only being the reading and
  ``cv2.imread`` of the same frames in the same run;
* how far it got (the frame where it lost the car, if it did) and its mean IoU
  with the ground-truth component that overlaps it most on each frame
  (docs/measures.md §5), for information.

Usage: python benchmarks/tracker_propagation.py [--rounds N] [--start F] [--frames N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np

from referee.core.annotation.propagation import TRACKERS, Propagation, propagate_box

HIGHWAY = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "cdnet2014" / "baseline" / "highway"
)


def read_frame(frame: int) -> np.ndarray:
    return cv2.imread(str(HIGHWAY / "input" / f"in{frame:06d}.jpg"), cv2.IMREAD_COLOR)


def motion_boxes(frame: int) -> list[tuple[int, int, int, int]]:
    """Bounding boxes ``(x, y, w, h)`` of the ground truth's motion components, largest first."""
    truth = cv2.imread(str(HIGHWAY / "groundtruth" / f"gt{frame:06d}.png"), cv2.IMREAD_GRAYSCALE)
    _, _, stats, _ = cv2.connectedComponentsWithStats((truth == 255).astype(np.uint8))
    ranked = sorted(stats[1:], key=lambda s: -int(s[cv2.CC_STAT_AREA]))
    return [(int(s[0]), int(s[1]), int(s[2]), int(s[3])) for s in ranked if s[4] >= 150]


def pick_car(start: int) -> tuple[int, tuple[int, int, int, int]]:
    """The first frame from ``start`` with a car clear of the border, and its box."""
    height, width = read_frame(start).shape[:2]
    for frame in range(start, start + 500):
        for x, y, w, h in motion_boxes(frame):
            if x > 0 and y > 0 and x + w < width and y + h < height:
                return frame, (x, y, w, h)
    raise SystemExit(f"no car clear of the border within 500 frames of {start}")


def decode_only(first: int, last: int) -> float:
    """Seconds to read and decode frames ``first … last``, nothing else."""
    began = time.perf_counter()
    for frame in range(first, last + 1):
        read_frame(frame)
    return time.perf_counter() - began


def iou(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    dx = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    dy = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    union = a[2] * a[3] + b[2] * b[3] - dx * dy
    return dx * dy / union if union else 0.0


def mean_iou(result: Propagation) -> float:
    scores = [
        max((iou(box, truth) for truth in motion_boxes(frame)), default=0.0)
        for frame, box in result.boxes.items()
    ]
    return float(np.mean(scores)) if scores else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (best kept)")
    parser.add_argument("--start", type=int, default=500, help="look for a car from this frame")
    parser.add_argument("--frames", type=int, default=100, help="frames to propagate over")
    args = parser.parse_args()

    start, box = pick_car(args.start)
    last = start + args.frames
    decode: list[float] = []
    seconds: dict[str, list[float]] = {name: [] for name in TRACKERS}
    results: dict[str, Propagation] = {}
    for _ in range(args.rounds):
        decode.append(decode_only(start, last))
        for name in TRACKERS:
            results[name] = propagate_box(read_frame, start, box, args.frames, 1700, name)
            seconds[name].append(results[name].seconds)
    best_decode = min(decode)

    print(
        f"highway, car {box} on frame {start}, propagated to frame {last} "
        f"({args.frames} frames), best of {args.rounds} alternating rounds"
    )
    print(
        f"decode-only        : {best_decode:7.3f} s  ({(args.frames + 1) / best_decode:7.1f} frames/s)"
    )
    for name in TRACKERS:
        best, result = min(seconds[name]), results[name]
        tracked = len(result.boxes)
        lost = f"lost at {result.lost_at}" if result.lost_at is not None else "never lost"
        print(
            f"{name:<4} propagation   : {best:7.3f} s  ({tracked / best:7.1f} frames/s)  "
            f"ratio to decode-only {best / best_decode:6.2f}  {tracked} frames, {lost}, "
            f"mean IoU with the ground truth {mean_iou(result):.2f}"
        )


if __name__ == "__main__":
    main()
