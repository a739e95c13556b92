"""Evaluation speed on the real CDnet highway video, against decoding alone.

Prints, from one run (this machine is shared and noisy, so only ratios
measured side by side count):

* frames per second of ``evaluate_method`` in one thread;
* the time of decoding the same ground-truth and result PNGs and nothing else,
  with OpenCV (``cv2.imread``) and with the decoder ``referee evaluate`` uses for
  grey PNGs (``png_decode.decode_grey_png``, files read by Python);
* the ratio evaluate / decode-only, with OpenCV (the target, <= 1.15, was set
  when evaluation decoded with OpenCV) and with that decoder;
* the speed-up of two workers over one (target >= 1.7, set when evaluation
  decoded with OpenCV: frames that png_decode reads now run in one thread,
  two threads being slower, ``batch._decoded_by_python``);
* the peak memory traced during evaluation of a short and of the full
  temporal ROI (it must not grow with the number of frames).

The result evaluated is OpenCV's MOG2 run on the video's input frames
(``highway_detectors.py``), computed once into a cache folder outside the
repository.

Usage: python benchmarks/evaluate_highway.py [--rounds N] [--cache DIR]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from pathlib import Path

import cv2
from highway_detectors import DEFAULT_CACHE, HIGHWAY, highway_results

from referee.core.evaluation.batch import evaluate_method
from referee.core.evaluation.masks import evaluate_video
from referee.core.formats.cdnet import load_video
from referee.core.formats.png_decode import decode_grey_png
from referee.core.frames.sources import CdnetResultSource


def decode_only(video, result_folder: Path) -> float:
    """Seconds to decode the GT and result PNGs of the temporal ROI, nothing else."""
    start = time.perf_counter()
    for i in video.frames:
        cv2.imread(str(video.gt_path(i)), cv2.IMREAD_GRAYSCALE)
        cv2.imread(str(result_folder / f"bin{i:06d}.png"), cv2.IMREAD_GRAYSCALE)
    return time.perf_counter() - start


def fast_decode_only(video, result_folder: Path) -> float:
    """Seconds to read and decode the same PNGs with Referee's decoder, nothing else."""
    start = time.perf_counter()
    for i in video.frames:
        for path in (video.gt_path(i), result_folder / f"bin{i:06d}.png"):
            if decode_grey_png(path.read_bytes()) is None:
                raise SystemExit(f"{path}: not decoded by png_decode")
    return time.perf_counter() - start


def evaluate_seconds(video, results_root: Path, workers: int) -> float:
    start = time.perf_counter()
    evaluate_method([video], results_root, workers=workers)
    return time.perf_counter() - start


def peak_traced_mib(video, result_folder: Path, frames: range) -> float:
    tracemalloc.start()
    evaluate_video(video, CdnetResultSource(result_folder, video.first), frames=frames)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="alternating rounds; the fastest time of each kind is kept",
    )
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()

    video = load_video(HIGHWAY, category="baseline")
    result_folder = highway_results(args.cache)["mog2"]
    n = len(video.frames)

    times: dict[str, list[float]] = {"decode": [], "fast": [], "eval1": [], "eval2": []}
    for _ in range(args.rounds):
        times["decode"].append(decode_only(video, result_folder))
        times["fast"].append(fast_decode_only(video, result_folder))
        times["eval1"].append(evaluate_seconds(video, result_folder, workers=1))
        times["eval2"].append(evaluate_seconds(video, result_folder, workers=2))
    decode, fast, eval1, eval2 = (min(times[k]) for k in ("decode", "fast", "eval1", "eval2"))

    short = range(video.first, video.first + 100)
    peak_short = peak_traced_mib(video, result_folder, short)
    peak_full = peak_traced_mib(video, result_folder, video.frames)

    print(
        f"highway, frames {video.first}-{video.last} ({n} frames), "
        f"best of {args.rounds} alternating rounds"
    )
    print(f"decode GT + result PNGs only : {decode:7.3f} s  ({n / decode:7.1f} frames/s, OpenCV)")
    print(f"  the same with png_decode   : {fast:7.3f} s  ({n / fast:7.1f} frames/s)")
    print(f"evaluate, 1 thread           : {eval1:7.3f} s  ({n / eval1:7.1f} frames/s)")
    print(f"evaluate, 2 workers          : {eval2:7.3f} s  ({n / eval2:7.1f} frames/s)")
    print(f"ratio evaluate / decode-only : {eval1 / decode:7.3f}   (OpenCV; target <= 1.15)")
    print(f"  the same with png_decode   : {eval1 / fast:7.3f}")
    print(f"speed-up with 2 workers      : {eval1 / eval2:7.3f}x  (target >= 1.7; one thread here)")
    print(f"peak traced memory, 100 frames : {peak_short:6.2f} MiB")
    print(f"peak traced memory, {n} frames: {peak_full:6.2f} MiB")


if __name__ == "__main__":
    main()
