"""Throughput on this machine's cores and on a local Dask cluster, and memory on a long video.

Prints, from one run (this machine is shared and noisy, so only ratios
measured side by side count):

* 20 method x video pairs (the five cached highway detectors of
  ``highway_detectors.py`` on four copies of the highway video, linked under
  four category names in a cache folder): frames per second of
  ``evaluate_methods`` in one thread, on every local core, and on a local Dask
  cluster of as many workers as cores and of twice as many, each next to
  decode-only throughput on the same cores (the same PNG files decoded by as
  many threads and nothing else) and as a ratio to it;
* a synthetic 100,000-frame sequence (64x48 ground truth and masks drawn on
  the fly into a temporary folder, removed afterwards): the peak resident
  memory of ``referee evaluate`` on it, as a whole process (target < 300 MB).

Usage: python benchmarks/scale_out.py [--rounds N] [--frames N] [--cache DIR]
"""

from __future__ import annotations

import argparse
import logging
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np
from highway_detectors import DEFAULT_CACHE, HIGHWAY, highway_results

from referee.core.cluster import connected
from referee.core.evaluation.batch import evaluate_methods
from referee.core.formats.cdnet import discover_videos
from referee.core.frames.results import result_sources
from referee.core.model.videos import VideoSpec
from referee.core.parallel import available_cores

DETECTORS = ("mog2", "knn", "mog", "cnt", "framediff")
COPIES = ("baseline", "copy2", "copy3", "copy4")


def linked_dataset(cache: Path, results: dict[str, Path]) -> tuple[Path, dict[str, Path]]:
    """A dataset of four highway copies and each detector's results root, as symlinks."""
    root = cache / "four-highways"
    dataset, roots = root / "dataset", {}
    for category in COPIES:
        target = dataset / category / "highway"
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            target.symlink_to(HIGHWAY, target_is_directory=True)
        for name, folder in results.items():
            link = root / "results" / name / category / "highway"
            link.parent.mkdir(parents=True, exist_ok=True)
            if not link.exists():
                link.symlink_to(folder, target_is_directory=True)
            roots[name] = root / "results" / name
    return dataset, roots


def decode_only(videos: Sequence[VideoSpec], roots: dict[str, Path], threads: int) -> float:
    """Seconds to decode every ground-truth and result PNG once, on ``threads`` threads."""
    files = [
        path
        for video in videos
        for i in video.frames
        for path in (
            str(video.gt_path(i)),
            *(str(roots[n] / video.category / video.name / f"bin{i:06d}.png") for n in roots),
        )
    ]
    share = [files[k::threads] for k in range(threads)]

    def decode(part: list[str]) -> None:
        for path in part:
            cv2.imread(path, cv2.IMREAD_GRAYSCALE)

    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(decode, share))
    return time.perf_counter() - start


def evaluate_seconds(
    videos: Sequence[VideoSpec], roots: dict[str, Path], workers: int | None
) -> float:
    sources = {name: result_sources(videos, root) for name, root in roots.items()}
    start = time.perf_counter()
    evaluate_methods(videos, sources, workers=workers)
    return time.perf_counter() - start


def best(rounds: int, measure: Callable[[], float]) -> float:
    return min(measure() for _ in range(rounds))


def throughput(cache: Path, rounds: int) -> None:
    dataset, roots = linked_dataset(cache, highway_results(cache, DETECTORS))
    videos = discover_videos(dataset)
    pairs = len(videos) * len(roots)
    frames = sum(v.n_frames for v in videos) * len(roots)
    cores = available_cores()
    print(f"{pairs} method x video pairs, {frames} frames compared, best of {rounds}")
    print(f"{'run':<34}{'frames/s':>10}{'decode-only':>13}{'ratio':>8}")
    rows: list[tuple[str, float, float]] = []
    rows.append(
        (
            "1 thread",
            best(rounds, lambda: evaluate_seconds(videos, roots, 1)),
            best(rounds, lambda: decode_only(videos, roots, 1)),
        )
    )
    rows.append(
        (
            f"every local core ({cores})",
            best(rounds, lambda: evaluate_seconds(videos, roots, None)),
            best(rounds, lambda: decode_only(videos, roots, cores)),
        )
    )
    # As many workers as cores, then twice as many (more workers than cores: what it costs).
    for workers in (cores, 2 * cores):
        with connected(local_workers=workers):
            on_cluster = best(rounds, lambda: evaluate_seconds(videos, roots, None))
        rows.append((f"local Dask cluster, {workers} workers", on_cluster, rows[1][2]))
    for name, seconds, decode in rows:
        print(
            f"{name:<34}{frames / seconds:>10.0f}{frames / decode:>13.0f}{decode / seconds:>8.2f}"
        )


def write_long_sequence(folder: Path, n: int) -> tuple[Path, Path]:
    """A one-video CDnet dataset of ``n`` 64x48 frames and a result folder."""
    video, result = folder / "long", folder / "result"
    (video / "groundtruth").mkdir(parents=True)
    (video / "input").mkdir()
    result.mkdir()
    rng = np.random.default_rng(0)
    cv2.imwrite(str(video / "ROI.bmp"), np.full((48, 64), 255, np.uint8))
    (video / "temporalROI.txt").write_text(f"1 {n}\n")
    for i in range(1, n + 1):
        gt = np.zeros((48, 64), np.uint8)
        x = i % 48
        gt[10:30, x : x + 16] = 255
        mask = np.where(rng.random((48, 64)) < 0.05, 255, gt).astype(np.uint8)
        cv2.imwrite(str(video / "groundtruth" / f"gt{i:06d}.png"), gt)
        cv2.imwrite(str(result / f"bin{i:06d}.png"), mask)
    cv2.imwrite(str(video / "input" / "in000001.jpg"), np.zeros((48, 64, 3), np.uint8))
    return video, result


def long_sequence_memory(n: int) -> None:
    with tempfile.TemporaryDirectory(prefix="referee-long-") as folder:
        start = time.perf_counter()
        video, result = write_long_sequence(Path(folder), n)
        written = time.perf_counter() - start
        for where in ((), ("--dask-local", "2")):
            before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            start = time.perf_counter()
            command = [sys.executable, "-m", "referee.core.cli.main", "evaluate"]
            subprocess.run(
                [*command, str(video), str(result), "--quiet", *where],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            seconds = time.perf_counter() - start
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            label = "on every local core" if not where else "on a 2-worker local Dask cluster"
            grown = "" if peak > before else " (no larger than an earlier process)"
            print(
                f"{n} synthetic frames {label}: {seconds:.1f} s "
                f"({n / seconds:.0f} frames/s), peak memory of the largest process so far "
                f"{peak / 1024:.0f} MB{grown} (target < 300 MB)"
            )
        print(f"(writing the {n} frames took {written:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="runs of each kind; best kept")
    parser.add_argument("--frames", type=int, default=100_000, help="synthetic sequence length")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    logging.getLogger("distributed").setLevel(logging.ERROR)
    throughput(args.cache, args.rounds)
    long_sequence_memory(args.frames)


if __name__ == "__main__":
    main()
