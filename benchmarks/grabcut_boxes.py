"""GrabCut drafts from boxes on the real CDnet highway video: how close, how fast.

Every motion component (255) of at least 150 pixels, clear of the top and left border, on
the ground truth of frames 700, 750, … 1650 gives a box: its bounding box grown by 3
pixels, as an annotator would draw it. ``grabcut_draft`` paints each box from the frame
alone (no consensus), once with its sure core (``CORE_SHARE``) and once without; the
script prints, for each, the mean and median IoU of the motion painted with the
ground truth's motion in the box, how many boxes stay under 0.3 (GrabCut lost the car),
and the median and slowest time per box. Then the same frame 800 scaled up 2, 4 and 6
times (up to 1920×1440) times the largest car's box, cut at a lower resolution beyond
``MAX_CUT_PIXELS``.

Usage: python benchmarks/grabcut_boxes.py
"""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np

from referee.core.annotation.grabcut import CORE_SHARE, grabcut_draft

HIGHWAY = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "cdnet2014" / "baseline" / "highway"
)
FRAMES = range(700, 1700, 50)
PAD, MIN_AREA = 3, 150


def read(frame: int) -> tuple[np.ndarray, np.ndarray]:
    """The RGB frame and its ground truth."""
    image = cv2.imread(str(HIGHWAY / "input" / f"in{frame:06d}.jpg"), cv2.IMREAD_COLOR)
    truth = cv2.imread(str(HIGHWAY / "groundtruth" / f"gt{frame:06d}.png"), cv2.IMREAD_GRAYSCALE)
    return image[:, :, ::-1].copy(), truth


def boxes(truth: np.ndarray) -> list[tuple[int, int, int, int]]:
    """``(x0, y0, x1, y1)`` around each motion component, grown by :data:`PAD` pixels."""
    height, width = truth.shape
    _, _, stats, _ = cv2.connectedComponentsWithStats((truth == 255).astype(np.uint8))
    return [
        (x - PAD, y - PAD, min(width, x + w + PAD), min(height, y + h + PAD))
        for x, y, w, h, area in (map(int, s) for s in stats[1:])
        if area >= MIN_AREA and x >= PAD and y >= PAD
    ]


def draft_iou(image: np.ndarray, truth: np.ndarray, box: tuple[int, ...], core: float) -> float:
    label = np.zeros(truth.shape, np.uint8)
    grabcut_draft(label, image, box, core=core)
    x0, y0, x1, y1 = box
    painted, real = label[y0:y1, x0:x1] == 255, truth[y0:y1, x0:x1] == 255
    return float((painted & real).sum() / (painted | real).sum())


def main() -> None:
    for core in (CORE_SHARE, 0.0):
        ious, times = [], []
        for frame in FRAMES:
            image, truth = read(frame)
            for box in boxes(truth):
                start = time.perf_counter()
                ious.append(draft_iou(image, truth, box, core))
                times.append(time.perf_counter() - start)
        values = np.array(ious)
        print(
            f"core {core:.1f}: {len(values)} boxes, IoU mean {values.mean():.3f}, median "
            f"{np.median(values):.3f}, {int((values < 0.3).sum())} under 0.3; "
            f"{1000 * np.median(times):.0f} ms per box (slowest {1000 * max(times):.0f} ms)"
        )
    image, truth = read(800)
    box = max(boxes(truth), key=lambda b: (b[2] - b[0]) * (b[3] - b[1]))
    for scale in (2, 4, 6):
        big = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        large = cv2.resize(truth, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
        scaled = tuple(scale * v for v in box)
        start = time.perf_counter()
        iou = draft_iou(big, large, scaled, CORE_SHARE)
        elapsed = time.perf_counter() - start
        side = f"{scaled[2] - scaled[0]}×{scaled[3] - scaled[1]}"
        print(f"{big.shape[1]}×{big.shape[0]}, box {side}: {1000 * elapsed:.0f} ms, IoU {iou:.3f}")


if __name__ == "__main__":
    main()
