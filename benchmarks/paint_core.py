"""Cost of one brush segment on a ground-truth label map, against copying the whole map.

Times ``paint_segment`` (radius 8 px, segments at most 20 px long, random
positions and levels) on a 320×240 and a 1920×1080 label map, and, in
alternating blocks of the same run (this machine is shared and noisy, so only
ratios measured side by side count), ``label.copy()`` of the whole map. A
segment's cost must not grow with the image: its time stays flat while the
copy's grows 27-fold.

    python benchmarks/paint_core.py [--segments 1000] [--seed 0]

Budget (the desktop application's brush): a segment plus repainting the view
in < 16 ms at 320×240 and < 33 ms at 1920×1080.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from referee.core.annotation.label_maps import LEVELS, paint_segment

RADIUS = 8.0
MAX_LENGTH = 20.0
SIZES = ((320, 240), (1920, 1080))
BLOCK = 100


def random_segments(
    rng: np.random.Generator, width: int, height: int, count: int
) -> list[tuple[tuple[float, float], tuple[float, float], int]]:
    """``count`` segments ``(start, end, level)`` of length ≤ MAX_LENGTH starting inside the map."""
    segments = []
    for _ in range(count):
        x, y = rng.uniform(0, width), rng.uniform(0, height)
        angle, length = rng.uniform(0, 2 * math.pi), rng.uniform(0, MAX_LENGTH)
        end = (x + length * math.cos(angle), y + length * math.sin(angle))
        segments.append(((x, y), end, int(rng.choice(LEVELS))))
    return segments


def time_size(width: int, height: int, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Milliseconds of each segment and of each whole-map copy, in alternating blocks.

    Blocks rather than strict alternation: a 2 MB copy between two segments
    would evict the label map from the caches and charge that to the segment.
    """
    rng = np.random.default_rng(seed)
    label = rng.choice(np.array(LEVELS, np.uint8), size=(height, width))
    segments = random_segments(rng, width, height, count)
    paint_ms, copy_ms = np.empty(count), np.empty(count)
    for block in range(0, count, BLOCK):
        for k in range(block, min(count, block + BLOCK)):
            start, end, level = segments[k]
            began = time.perf_counter_ns()
            paint_segment(label, start, end, RADIUS, level)
            paint_ms[k] = (time.perf_counter_ns() - began) / 1e6
        for k in range(block, min(count, block + BLOCK)):
            began = time.perf_counter_ns()
            label.copy()
            copy_ms[k] = (time.perf_counter_ns() - began) / 1e6
    return paint_ms, copy_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--segments", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(
        f"paint_segment, radius {RADIUS:g} px, length <= {MAX_LENGTH:g} px, "
        f"{args.segments} segments per size (milliseconds)"
    )
    print(
        f"{'size':>10} {'paint p50':>10} {'paint p95':>10} {'copy p50':>10} {'copy p95':>10} "
        f"{'paint/copy p50':>15}"
    )
    for width, height in SIZES:
        paint_segment(np.zeros((height, width), np.uint8), (1, 1), (2, 2), RADIUS, 255)  # warm-up
        paint_ms, copy_ms = time_size(width, height, args.segments, args.seed)
        p50, p95 = np.percentile(paint_ms, [50, 95])
        c50, c95 = np.percentile(copy_ms, [50, 95])
        print(
            f"{width:>5}x{height:<4} {p50:10.4f} {p95:10.4f} {c50:10.4f} {c95:10.4f} "
            f"{p50 / c50:15.2f}"
        )


if __name__ == "__main__":
    main()
