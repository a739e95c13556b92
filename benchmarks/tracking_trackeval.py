"""Whole-process speed of ``referee boxes`` against TrackEval on a MOT17-train folder.

One run, side by side, on a synthetic MOTChallenge benchmark folder generated
(seeded) into a temporary folder removed afterwards, in TrackEval's layout:
``gt/seqmaps/MOT17-train.txt``, ``gt/MOT17-train/<seq>/{seqinfo.ini, gt/gt.txt}``
and ``trackers/MOT17-train/<tracker>/data/<seq>.txt``. By default 20 sequences
of 600 frames with about 20 pedestrians on each frame; the ground truth also
holds distractors (person on vehicle, static person, distractor, reflection),
cars and occluders, and pedestrian rows whose consider flag is 0; the one
tracker jitters the boxes, misses objects for runs of frames (fragmentations),
switches and swaps identities and adds short false tracks.

Three rows, whole processes, start-up included, as the wall time of
``subprocess.run``; they take turns within each round (the machine is shared
and noisy) and the median of ``--rounds`` rounds is kept:

* ``referee boxes GT TRACKERS --benchmark MOT17 --quiet``: the MOT17 rules, the
  tracking measures (HOTA, CLEAR MOT, identity and what else ``referee boxes``
  gives) and also the VACE per-frame box measures (SFDA, MODA, N-MODP); it prints
  its tables (to a pipe here, discarded) and writes no file, as TrackEval here;
* the same with ``--json FILE --force``: it also writes FILE (every result, per
  frame included);
* TrackEval 1.3.0 (``trackeval.Evaluator`` on ``MotChallenge2DBox``, MOT17,
  train) with its ``HOTA``, ``CLEAR`` (threshold 0.5) and ``Identity`` metrics
  (and ``Count``, which it always adds), one process, no parallel pool; its
  plots, summary and detailed files, error log, printed tables and timing are
  turned off, so it writes no file; it prints the combined HOTA, MOTA and IDF1.

Before timing, each is run once, untimed (bytecode and files cached), and
their combined HOTA, MOTA and IDF1 are compared (the largest difference is
printed). Then it prints the medians and the ratio referee / TrackEval (target:
at most 1), and where Referee's time goes, from a third process run once a round
(the same command in process, medians): its imports, then the reading of the
files, the ground-truth rules and distractor removal, the VACE measures, the
tracking measures, the JSON and the rest.

Processes run with Python's bytecode cached (as after any first run, or a
``pip install``), whatever ``PYTHONDONTWRITEBYTECODE`` says.

Usage: python benchmarks/tracking_trackeval.py [--rounds N] [--sequences N]
       [--frames N] [--objects N] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

SPLIT = "MOT17-train"
TRACKER = "synthetic"
#: MOT17 classes other than pedestrian (1) that the ground truth holds, consider flag 0:
#: person on vehicle, static person, distractor, reflection (the distractors), car, occluder.
OTHER_CLASSES = (2, 7, 8, 12, 3, 9)
WIDTH, HEIGHT = 1920, 1080

#: Processes run as after any first run: with Python's bytecode cached.
_ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

TRACKEVAL = """\
import json, sys
import trackeval
gt, trackers = sys.argv[1:]
evaluator = trackeval.Evaluator({
    "USE_PARALLEL": False, "PRINT_RESULTS": False, "PRINT_CONFIG": False,
    "TIME_PROGRESS": False, "OUTPUT_SUMMARY": False, "OUTPUT_DETAILED": False,
    "PLOT_CURVES": False, "LOG_ON_ERROR": None,
})
dataset = trackeval.datasets.MotChallenge2DBox({
    "GT_FOLDER": gt, "TRACKERS_FOLDER": trackers, "BENCHMARK": "MOT17",
    "SPLIT_TO_EVAL": "train", "PRINT_CONFIG": False,
})
metrics = [
    trackeval.metrics.HOTA({"PRINT_CONFIG": False}),
    trackeval.metrics.CLEAR({"THRESHOLD": 0.5, "PRINT_CONFIG": False}),
    trackeval.metrics.Identity({"THRESHOLD": 0.5, "PRINT_CONFIG": False}),
]
results, _ = evaluator.evaluate([dataset], metrics)
found = {}
for tracker, sequences in results["MotChallenge2DBox"].items():
    fields = sequences["COMBINED_SEQ"]["pedestrian"]
    found[tracker] = {
        "hota": float(fields["HOTA"]["HOTA"].mean()),
        "mota": float(fields["CLEAR"]["MOTA"]),
        "idf1": float(fields["Identity"]["IDF1"]),
    }
print("RESULTS " + json.dumps(found))
"""

#: Referee in one process: imports timed apart, then the command with its stages timed.
REFEREE_INSIDE = """\
import json, sys, time
start = time.perf_counter()
import scipy.optimize
from referee.core.cli import boxes as cli_boxes
from referee.core.cli.main import main
from referee.core.exports import box_benchmark
from referee.core.workflow import detections
imported = time.perf_counter() - start
spent = {"read": 0.0, "vace": 0.0, "tracking": 0.0, "rules": 0.0, "json": 0.0}
def timed(module, name, stage):
    function = getattr(module, name)
    def wrapper(*args, **kwargs):
        began = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            spent[stage] += time.perf_counter() - began
    setattr(module, name, wrapper)
timed(detections, "read_groundtruth", "read")
timed(detections, "read_tracker", "read")
timed(detections, "evaluate_boxes", "vace")
timed(detections, "evaluate_tracking", "tracking")
timed(detections, "counted_groundtruth", "rules")
timed(detections, "without_distractor_matches", "rules")
timed(box_benchmark, "benchmark_to_dict", "json")
timed(cli_boxes, "write_json", "json")
began = time.perf_counter()
assert main(["boxes", *sys.argv[1:]]) == 0
total = time.perf_counter() - began
print("TIMES " + json.dumps({"import": imported, "command": total, **spent}))
"""


# --- the synthetic benchmark folder -------------------------------------------------------


@dataclass(frozen=True)
class Size:
    """How large the synthetic benchmark is."""

    sequences: int
    frames: int
    objects: int
    seed: int


def _track(rng: np.random.Generator, length: int, still: bool = False) -> np.ndarray:
    """One object's boxes ``(x, y, w, h)`` on ``length`` frames, moving at a steady speed
    with a random walk (barely moving when ``still``), its size drifting slowly."""
    w = float(rng.uniform(30, 110))
    h = w * float(rng.uniform(2.2, 2.8))
    speed = rng.normal(0, 0.2 if still else 2.0, 2)
    walk = np.cumsum(rng.normal(0, 0.1 if still else 0.8, (length, 2)), axis=0)
    start = rng.uniform((0, 0), (WIDTH - w, HEIGHT - h))
    xy = start + speed * np.arange(length)[:, np.newaxis] + walk
    drift = 1 + 0.002 * np.cumsum(rng.normal(0, 1, (length, 1)), axis=0).clip(-60, 60)
    return np.column_stack([xy, np.column_stack([np.full(length, w), np.full(length, h)]) * drift])


def _tracks(
    rng: np.random.Generator, count: int, frames: int, still: bool = False
) -> list[tuple[int, np.ndarray]]:
    """``count`` objects, each on a quarter to all of the ``frames``: first frame, boxes."""
    tracks = []
    for _ in range(count):
        length = int(rng.integers(frames // 4, frames + 1))
        first = int(rng.integers(1, frames - length + 2))
        tracks.append((first, _track(rng, length, still)))
    return tracks


def _groundtruth_rows(
    rng: np.random.Generator, size: Size
) -> tuple[list[str], list[tuple[int, np.ndarray]]]:
    """One sequence's ``gt.txt`` rows ``frame,id,x,y,w,h,consider,class,visibility``, and
    the tracks the tracker sees (pedestrians and distractors)."""
    # An object stays on 5/8 of the frames on average: this many keep ``objects`` on a frame.
    pedestrians = _tracks(rng, round(size.objects * 8 / 5), size.frames)
    others = [(c, t) for c in OTHER_CLASSES for t in _tracks(rng, 1, size.frames, c == 7)]
    rows: list[tuple[int, str]] = []
    seen: list[tuple[int, np.ndarray]] = []
    for identity, (cls, (first, boxes)) in enumerate([(1, t) for t in pedestrians] + others, 1):
        hidden = cls == 1 and rng.random() < 0.08  # a pedestrian never counted
        visibility = rng.uniform(0, 1, len(boxes))
        for k, (x, y, w, h) in enumerate(np.rint(boxes).astype(int)):
            consider = int(cls == 1 and not hidden and visibility[k] > 0.03)
            line = f"{first + k},{identity},{x},{y},{w},{h},{consider},{cls},{visibility[k]:.3f}"
            rows.append((first + k, line))
        if cls in (1, 2, 7, 8, 12):
            seen.append((first, np.rint(boxes)))
    rows.sort(key=lambda row: row[0])
    return [line for _, line in rows], seen


def _tracker_rows(
    rng: np.random.Generator, seen: list[tuple[int, np.ndarray]], frames: int
) -> list[str]:
    """One sequence's tracker rows ``frame,id,x,y,w,h,conf,-1,-1,-1``."""
    next_id = 1
    # Per object: first frame, boxes, detected on each frame, tracker id on each frame.
    tracked: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] = []
    for first, boxes in seen:
        n = len(boxes)
        detected = np.ones(n, dtype=bool)
        state = True
        for k in range(n):  # misses come in runs: a fragmentation after each
            state = rng.random() > 0.02 if state else rng.random() < 0.25
            detected[k] = state
        ids = np.empty(n, dtype=np.int64)
        ids[0], next_id = next_id, next_id + 1
        for k in range(1, n):
            gap = not detected[k - 1] and detected[k]
            if rng.random() < 1 / 600 or (gap and rng.random() < 0.3):
                ids[k], next_id = next_id, next_id + 1  # an identity switch
            else:
                ids[k] = ids[k - 1]
        jitter = rng.normal(0, 0.06, boxes.shape) * boxes[:, [2, 3, 2, 3]]
        noisy = boxes + jitter
        noisy[:, 2:] = np.maximum(noisy[:, 2:], 4)
        tracked.append((first, noisy, detected, ids))
    for _ in range(len(tracked) // 10):  # two objects swap identities from a frame on
        a, b = rng.choice(len(tracked), 2, replace=False)
        (fa, _, _, ia), (fb, _, _, ib) = tracked[a], tracked[b]
        lo, hi = max(fa, fb), min(fa + len(ia), fb + len(ib))
        if hi - lo > 2:
            at = int(rng.integers(lo, hi))
            sa, sb = slice(at - fa, hi - fa), slice(at - fb, hi - fb)
            ia[sa], ib[sb] = ib[sb].copy(), ia[sa].copy()
    for _ in range(len(tracked) * 2):  # short false tracks
        length = int(rng.integers(3, 40))
        first = int(rng.integers(1, frames - length + 2))
        boxes = _track(rng, length)
        tracked.append((first, boxes, np.ones(length, dtype=bool), np.full(length, next_id)))
        next_id += 1
    rows: list[tuple[int, str]] = []
    for first, boxes, detected, ids in tracked:
        conf = rng.uniform(0.3, 1.0, len(boxes))
        for j in np.flatnonzero(detected).tolist():
            x, y, w, h = boxes[j]
            frame = first + j
            rows.append((frame, f"{frame},{ids[j]},{x:.2f},{y:.2f},{w:.2f},{h:.2f},{conf[j]:.3f}"))
    rows.sort(key=lambda row: row[0])
    return [f"{line},-1,-1,-1" for _, line in rows]


def _write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


def write_benchmark(root: Path, size: Size) -> tuple[Path, Path, int, int]:
    """The ground-truth and trackers folders, and how many ground-truth and tracker rows."""
    gt, trackers = root / "gt", root / "trackers"
    names = [f"MOT17-{k + 1:02d}-SYN" for k in range(size.sequences)]
    _write(gt / "seqmaps" / f"{SPLIT}.txt", ["name", *names])
    gt_rows = tracker_rows = 0
    for k, name in enumerate(names):
        rng = np.random.default_rng([size.seed, k])
        truth, seen = _groundtruth_rows(rng, size)
        found = _tracker_rows(rng, seen, size.frames)
        folder = gt / SPLIT / name
        info = ["[Sequence]", f"name={name}", "imDir=img1", "frameRate=30"]
        info += [f"seqLength={size.frames}", f"imWidth={WIDTH}", f"imHeight={HEIGHT}"]
        _write(folder / "seqinfo.ini", [*info, "imExt=.jpg"])
        _write(folder / "gt" / "gt.txt", truth)
        _write(trackers / SPLIT / TRACKER / "data" / f"{name}.txt", found)
        gt_rows, tracker_rows = gt_rows + len(truth), tracker_rows + len(found)
    return gt, trackers, gt_rows, tracker_rows


# --- running and timing -------------------------------------------------------------------


def referee_program() -> str:
    """The ``referee`` console script of this Python (not a shim that would add its own start-up)."""
    beside = Path(sys.executable).with_name("referee")
    found = str(beside) if beside.is_file() else shutil.which("referee")
    if found is None:
        raise SystemExit("referee is not installed (no 'referee' next to python or on PATH)")
    return found


def run(command: list[str]) -> tuple[float, str]:
    """Wall time of one whole process and what it printed; stop with its error if it fails."""
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=_ENVIRONMENT)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        error = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise SystemExit(f"{' '.join(command[:3])} … failed ({done.returncode}): {error}")
    return seconds, done.stdout


def _tagged(printed: str, tag: str) -> dict[str, Any]:
    line = next(line for line in printed.splitlines() if line.startswith(f"{tag} "))
    return dict(json.loads(line.removeprefix(f"{tag} ")))


def referee_results(output: Path) -> dict[str, dict[str, float]]:
    """Each tracker's combined HOTA, MOTA and IDF1 from ``referee boxes``'s JSON."""
    tracking = json.loads(output.read_text(encoding="utf-8"))["tracking"]
    return {
        tracker: {key: float(found["combined"][key]) for key in ("hota", "mota", "idf1")}
        for tracker, found in tracking.items()
    }


def print_agreement(ours: dict[str, dict[str, float]], theirs: dict[str, dict[str, float]]) -> None:
    """The combined values of both, and their largest difference."""
    if set(ours) != set(theirs):
        raise SystemExit(f"trackers differ: referee {sorted(ours)}, TrackEval {sorted(theirs)}")
    largest = 0.0
    for tracker in sorted(ours):
        for key in ("hota", "mota", "idf1"):
            largest = max(largest, abs(ours[tracker][key] - theirs[tracker][key]))
        shown = ", ".join(f"{k.upper()} {v:.6f}" for k, v in ours[tracker].items())
        print(f"combined, {tracker}: {shown}")
    verdict = "agree" if largest <= 1e-9 else "DISAGREE"
    print(
        f"referee vs TrackEval, combined HOTA, MOTA, IDF1: max |difference| {largest:.2e} ({verdict})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds; medians are kept")
    parser.add_argument("--sequences", type=int, default=20)
    parser.add_argument("--frames", type=int, default=600, help="frames per sequence")
    parser.add_argument("--objects", type=int, default=20, help="pedestrians per frame, about")
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args()
    size = Size(args.sequences, args.frames, args.objects, args.seed)
    cores = len(os.sched_getaffinity(0))
    print(
        f"machine: {cores} cores available, load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at start"
    )

    with tempfile.TemporaryDirectory(prefix="referee-trackeval-") as folder:
        root = Path(folder)
        gt, trackers, gt_rows, tracker_rows = write_benchmark(root, size)
        print(
            f"synthetic {SPLIT}: {size.sequences} sequences × {size.frames} frames, seed "
            f"{size.seed}; {gt_rows:,} ground-truth rows, {tracker_rows:,} tracker rows"
        )
        output = root / "referee.json"
        printing = [str(gt), str(trackers), "--benchmark", "MOT17", "--quiet"]
        options = [*printing, "--json", str(output), "--force"]
        rows = {
            "referee boxes": [referee_program(), "boxes", *printing],
            "… --json FILE": [referee_program(), "boxes", *options],
            "TrackEval": [sys.executable, "-c", TRACKEVAL, str(gt), str(trackers)],
        }
        inside = [sys.executable, "-c", REFEREE_INSIDE, *options]

        _, printed = run(rows["TrackEval"])  # untimed: bytecode and files cached
        run(rows["… --json FILE"])
        print_agreement(referee_results(output), _tagged(printed, "RESULTS"))

        times: dict[str, list[float]] = {label: [] for label in rows}
        stages: list[dict[str, float]] = []
        labels = list(rows)
        for r in range(args.rounds):
            for label in labels[r % len(labels) :] + labels[: r % len(labels)]:
                times[label].append(run(rows[label])[0])
            stages.append(_tagged(run(inside)[1], "TIMES"))

    medians = {label: statistics.median(ts) for label, ts in times.items()}
    print(f"\nwhole processes, wall time in seconds, median of {args.rounds} rounds")
    print(f"{'':<16} {'median':>7} {'min':>7} {'max':>7}")
    for label, ts in times.items():
        print(f"{label:<16} {medians[label]:7.3f} {min(ts):7.3f} {max(ts):7.3f}")
    print()
    for label in ("referee boxes", "… --json FILE"):
        ratio = medians[label] / medians["TrackEval"]
        verdict = "met" if ratio <= 1 else "NOT met"
        print(f"{label} / TrackEval: {ratio:.3f} (target <= 1: {verdict})")

    stage = {key: statistics.median(s[key] for s in stages) for key in stages[0]}
    timed = ("read", "vace", "tracking", "rules", "json")
    rest = stage["command"] - sum(stage[key] for key in timed)
    print(f"\nreferee in one process, median of {args.rounds} (seconds):")
    print(f"  imports (Referee, NumPy, SciPy)            {stage['import']:7.3f}")
    print(f"  the command, imports excluded              {stage['command']:7.3f}")
    print(f"    reading the files                        {stage['read']:7.3f}")
    print(f"    ground-truth rules, distractors removed  {stage['rules']:7.3f}")
    print(f"    VACE per-frame box measures              {stage['vace']:7.3f}")
    print(f"    tracking measures (HOTA, CLEAR, …)       {stage['tracking']:7.3f}")
    print(f"    JSON (building and writing)              {stage['json']:7.3f}")
    print(f"    the rest (tables printed, …)             {rest:7.3f}")


if __name__ == "__main__":
    main()
