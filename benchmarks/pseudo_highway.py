"""Pseudo-evaluation speed on the real CDnet highway video, against decoding alone.

Four OpenCV background subtractors (MOG2, KNN, bgsegm MOG, bgsegm CNT) are
run once over the video's input frames; their masks, thresholded to 0/255,
are cached outside the repository. Then, in alternating rounds (this machine
is shared and noisy, so only ratios measured side by side count), it times:

* decoding the four detectors' mask PNGs of the temporal ROI and nothing else;
* ``pseudo_evaluate`` on them, one process, default consensus (the
  model-based one, docs/measures.md §7) with the per-pixel entropy map;
* the same with the committee consensus, for comparison;

and prints the ratio pseudo / decode-only (target <= 1.2), the same with two
worker processes, and the peak memory traced while evaluating 100 frames and
the whole temporal ROI (it must not grow with the number of frames beyond the
per-frame rows of the result, a few hundred bytes per frame).

Usage: python benchmarks/pseudo_highway.py [--rounds N] [--cache DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time
import tracemalloc
from pathlib import Path

import cv2

from referee.core.formats.cdnet import load_video
from referee.core.frames.sources import CdnetResultSource
from referee.core.pseudo.committee_options import CommitteeOptions
from referee.core.pseudo.dataset import pseudo_evaluate
from referee.core.pseudo.video import pseudo_evaluate_video

HIGHWAY = Path(__file__).resolve().parents[1].parent / "shared/data/cdnet2014/baseline/highway"


def _subtractors() -> dict[str, cv2.BackgroundSubtractor]:
    return {
        "mog2": cv2.createBackgroundSubtractorMOG2(detectShadows=True),
        "knn": cv2.createBackgroundSubtractorKNN(detectShadows=True),
        "mog": cv2.bgsegm.createBackgroundSubtractorMOG(),
        "cnt": cv2.bgsegm.createBackgroundSubtractorCNT(),
    }


def make_results(video_folder: Path, cache: Path) -> dict[str, Path]:
    """Run the four subtractors over every input frame; ``cache/<method>/bin%06d.png`` (0/255)."""
    subtractors = _subtractors()
    folders = {name: cache / name for name in subtractors}
    done = cache / ".complete"
    if done.exists():
        return folders
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    for path in sorted((video_folder / "input").glob("in*.jpg")):
        image = cv2.imread(str(path))
        for name, subtractor in subtractors.items():
            mask = subtractor.apply(image)
            mask[mask != 255] = 0  # shadows (127) are not detections
            cv2.imwrite(str(folders[name] / f"bin{path.stem[2:]}.png"), mask)
    done.touch()
    return folders


def decode_only(video, folders: dict[str, Path]) -> float:
    """Seconds to decode the four detectors' mask PNGs of the temporal ROI, nothing else."""
    prefixes = [str(folder / "bin") for folder in folders.values()]
    start = time.perf_counter()
    for i in video.frames:
        for prefix in prefixes:
            cv2.imread(f"{prefix}{i:06d}.png", cv2.IMREAD_GRAYSCALE)
    return time.perf_counter() - start


def pseudo_seconds(
    video, folders: dict[str, Path], workers: int, committee: CommitteeOptions | None = None
) -> float:
    start = time.perf_counter()
    pseudo_evaluate([video], folders, committee, workers=workers)
    return time.perf_counter() - start


def peak_traced_mib(video, folders: dict[str, Path], frames: range) -> float:
    sources = {m: CdnetResultSource(folder, video.first) for m, folder in folders.items()}
    tracemalloc.start()
    pseudo_evaluate_video(video, sources, frames=frames)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="alternating rounds; the fastest time of each kind is kept",
    )
    parser.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "referee-bench" / "highway-4"
    )
    args = parser.parse_args()

    video = load_video(HIGHWAY, category="baseline")
    folders = make_results(HIGHWAY, args.cache)
    n = video.n_frames

    committee = CommitteeOptions(consensus="committee")
    times: dict[str, list[float]] = {"decode": [], "pseudo1": [], "pseudo2": [], "committee": []}
    for _ in range(args.rounds):
        times["decode"].append(decode_only(video, folders))
        times["pseudo1"].append(pseudo_seconds(video, folders, workers=1))
        times["pseudo2"].append(pseudo_seconds(video, folders, workers=2))
        times["committee"].append(pseudo_seconds(video, folders, 1, committee))
    decode, pseudo1, pseudo2, by_committee = (
        min(times[k]) for k in ("decode", "pseudo1", "pseudo2", "committee")
    )
    ratios = sorted(p / d for p, d in zip(times["pseudo1"], times["decode"]))

    short = range(video.first, video.first + 100)
    peak_short = peak_traced_mib(video, folders, short)
    peak_full = peak_traced_mib(video, folders, video.frames)

    print(
        f"highway, frames {video.first}-{video.last} ({n} frames), 4 detectors "
        f"({', '.join(folders)}), best of {args.rounds} alternating rounds"
    )
    print(f"decode 4 mask PNGs only        : {decode:7.3f} s  ({n / decode:7.1f} frames/s)")
    print(f"pseudo_evaluate, 1 process     : {pseudo1:7.3f} s  ({n / pseudo1:7.1f} frames/s)")
    print(f"pseudo_evaluate, 2 processes   : {pseudo2:7.3f} s  ({n / pseudo2:7.1f} frames/s)")
    print(
        f"ratio pseudo / decode-only     : {pseudo1 / decode:7.3f}   (target <= 1.2; "
        f"per-round median {ratios[len(ratios) // 2]:.3f})"
    )
    print(f"speed-up with 2 processes      : {pseudo1 / pseudo2:7.3f}x")
    print(f"committee consensus / decode   : {by_committee / decode:7.3f}")
    print(f"peak traced memory, 100 frames : {peak_short:6.2f} MiB")
    print(f"peak traced memory, {n} frames: {peak_full:6.2f} MiB")


if __name__ == "__main__":
    main()
