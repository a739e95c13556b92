"""The label → estimate loop, and the per-frame cache, timed (issue 27).

Three measurements, each against a baseline of the same run:

1. **The loop.** A copy of a dataset is annotated on every 40th frame of its
   temporal ROI; the project's five (highway) or five (demo) detectors are
   evaluated, ranked and estimated once. Then, 20 times, the frame the sampler
   proposes next is given its ground truth through the core annotation
   document and saved, and the stage graph brings indicators, ranking and
   estimates up to date (per-frame counts from the session's cache). Printed:
   the median and worst time from the save to every result updated, beside
   the time of computing everything from nothing (no cache).
2. **``referee evaluate --cache DIR``** run again after one ground-truth PNG
   changed, whole process, against the first (cold) run with the cache and a
   run without it (alternating, medians of ``--repeats``); the outputs must be
   identical.
3. **``referee estimate --simulate --labels 20``** (no cache) against ``referee
   evaluate`` of the same detectors, whole processes, medians.

Processes run with Python's bytecode cached (as after any first run, or a
``pip install``), whatever ``PYTHONDONTWRITEBYTECODE`` says.

    python3 benchmarks/annotation_loop.py               # highway and the demo
    python3 benchmarks/annotation_loop.py --only demo

Targets: the loop ≤ 1 s (median over 20 saves) on highway; the cached run
≤ 0.15× the cold run; the estimate ≤ 1.2× the evaluation.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
from highway_detectors import HIGHWAY, highway_results

from referee.core.annotation.document import GroundTruthDocument
from referee.core.annotation.saving import save
from referee.core.cache import stamps
from referee.core.cache.store import FrameCache
from referee.core.demo.dataset import write_demo
from referee.core.formats.project_json import write_project
from referee.core.model.project import DetectorSource, Project, with_annotated
from referee.core.workflow.graph import changed_parts, invalidate, run_stages
from referee.core.workflow.options import AnalysisOptions
from referee.core.workflow.projects import project_videos
from referee.core.workflow.results import ProjectResults

#: Detectors of the highway runs.
HIGHWAY_DETECTORS = ("mog2", "knn", "mog", "cnt", "framediff")
#: Frames saved in the loop.
SAVES = 20
#: Every this many frames of the temporal ROI are annotated before the loop.
EVERY = 40


def _annotated_copy(video_folder: Path, root: Path) -> tuple[Path, dict[int, Path]]:
    """A copy of one video folder keeping the ground truth of every :data:`EVERY`-th
    frame of its temporal ROI; returns it and where the other frames' truth is."""
    copy = root / "dataset" / video_folder.name
    (copy / "groundtruth").mkdir(parents=True)
    for name in ("ROI.bmp", "temporalROI.txt"):
        shutil.copy(video_folder / name, copy / name)
    (copy / "input").symlink_to(video_folder / "input")
    first, last = (int(v) for v in (video_folder / "temporalROI.txt").read_text().split()[:2])
    kept = set(range(first, last + 1, EVERY))
    truth = {}
    for i in range(first, last + 1):
        source = video_folder / "groundtruth" / f"gt{i:06d}.png"
        if i in kept:
            shutil.copy(source, copy / "groundtruth" / source.name)
        else:
            truth[i] = source
    return copy, truth


def _project(root: Path, dataset: Path, detectors: dict[str, Path]) -> Project:
    project = Project(
        "loop",
        dataset=dataset,
        detectors=tuple(DetectorSource(name, masks=path) for name, path in detectors.items()),
    )
    video = project_videos(project, require_groundtruth=False)[0]
    kept = [i for i in video.frames if video.gt_path(i).exists()]
    return write_project(with_annotated(project, video.label, kept), root / "loop.referee.json")


def _next_frame(results: ProjectResults) -> int:
    estimate = results.estimate
    if estimate is None or not estimate.videos or estimate.videos[0].next_frame is None:
        raise RuntimeError(f"no frame to label next: {results.skipped}")
    return int(estimate.videos[0].next_frame)


def measure_loop(name: str, video_folder: Path, detectors: dict[str, Path]) -> None:
    """Save :data:`SAVES` proposed frames one by one; time each update."""
    options = AnalysisOptions()
    with tempfile.TemporaryDirectory(prefix="referee-loop-") as folder:
        root = Path(folder)
        dataset, truth = _annotated_copy(video_folder, root)
        project = _project(root, dataset, detectors)
        time.sleep(stamps.RACY_SECONDS + 0.2)  # files just written are never cached
        start = time.perf_counter()
        cold = run_stages(project, options)
        cold_seconds = time.perf_counter() - start
        cache = FrameCache(root / "cache")
        results = run_stages(project, options, cache=cache)
        document = GroundTruthDocument(project, project_videos(project))
        label = project_videos(project)[0].label
        times = []
        for _ in range(SAVES):
            frame = _next_frame(results)
            answer = cv2.imread(str(truth[frame]), cv2.IMREAD_GRAYSCALE)
            start = time.perf_counter()
            document.replace_label_map(label, frame, answer)
            document.set_review(label, frame, document.accepted(label, frame, "now"))
            outcome = save(document)
            invalidate(results, parts=changed_parts(project, outcome.files))
            project = outcome.project
            run_stages(project, options, results=results, cache=cache)
            times.append(time.perf_counter() - start)
            if results.estimate is None:
                raise RuntimeError(f"the estimate was not updated: {results.skipped}")
        del cold
    median, worst = statistics.median(times), max(times)
    print(
        f"{name:8s} save → indicators, ranking, estimates: median {median:.3f} s, "
        f"worst {worst:.3f} s over {SAVES} saves; everything from nothing {cold_seconds:.2f} s "
        f"({median / cold_seconds:.3f}×)"
    )


#: Processes run as after any first run: with Python's bytecode cached.
_ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _timed(arguments: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "referee.core.cli", *arguments],
        capture_output=True,
        text=True,
        check=False,
        env=_ENVIRONMENT,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"referee {' '.join(arguments)} failed: {done.stderr}")
    return seconds, done.stdout


def measure_cache(video_folder: Path, detectors: dict[str, Path], repeats: int) -> None:
    """``evaluate --cache`` after one ground-truth PNG changed, against the cold run."""
    cold_times, warm_times, plain_times = [], [], []
    with tempfile.TemporaryDirectory(prefix="referee-cache-") as folder:
        root = Path(folder)
        dataset = root / video_folder.name
        shutil.copytree(video_folder / "groundtruth", dataset / "groundtruth")
        for name in ("ROI.bmp", "temporalROI.txt"):
            shutil.copy(video_folder / name, dataset / name)
        time.sleep(stamps.RACY_SECONDS + 0.2)
        first, last = (int(v) for v in (dataset / "temporalROI.txt").read_text().split()[:2])
        base = ["evaluate", str(dataset), *map(str, detectors.values()), "--quiet"]
        _timed(base)  # bytecode and files in the page cache, as for every later run
        for r in range(repeats):
            cache = root / f"cache{r}"
            seconds, _ = _timed([*base, "--cache", str(cache)])
            cold_times.append(seconds)
            changed = dataset / "groundtruth" / f"gt{first + (r * 97) % (last - first):06d}.png"
            image = cv2.imread(str(changed), cv2.IMREAD_UNCHANGED)
            cv2.imwrite(str(changed), np.where(image == 0, 255, image).astype(np.uint8))
            seconds, warm = _timed([*base, "--cache", str(cache)])
            warm_times.append(seconds)
            seconds, plain = _timed(base)
            plain_times.append(seconds)
            if warm != plain:
                raise RuntimeError("the cached run printed other results than a run without")
    cold, warm, plain = (statistics.median(t) for t in (cold_times, warm_times, plain_times))
    print(
        f"evaluate --cache, {len(detectors)} detectors: first run {cold:.2f} s, again after one "
        f"ground-truth PNG changed {warm:.2f} s ({warm / cold:.3f}× the first), without cache "
        f"{plain:.2f} s; identical output"
    )


def measure_estimate(video_folder: Path, detectors: dict[str, Path], repeats: int) -> None:
    """``estimate --simulate --labels 20`` against ``evaluate``, whole processes."""
    paths = [str(video_folder), *map(str, detectors.values())]
    evaluations, estimates = [], []
    _timed(["estimate", *paths, "--simulate", "--labels", "20", "--quiet"])  # bytecode cached
    for _ in range(repeats):
        evaluations.append(_timed(["evaluate", *paths, "--quiet"])[0])
        estimates.append(_timed(["estimate", *paths, "--simulate", "--labels", "20", "--quiet"])[0])
    evaluate, estimate = statistics.median(evaluations), statistics.median(estimates)
    print(
        f"estimate --simulate --labels 20: {estimate:.2f} s, evaluate {evaluate:.2f} s "
        f"({estimate / evaluate:.2f}×), {len(detectors)} detectors"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("highway", "demo"))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.only in (None, "highway"):
        detectors = highway_results(names=HIGHWAY_DETECTORS)
        measure_loop("highway", HIGHWAY, detectors)
        measure_cache(HIGHWAY, detectors, args.repeats)
        measure_estimate(HIGHWAY, detectors, args.repeats)
    if args.only in (None, "demo"):
        with tempfile.TemporaryDirectory(prefix="referee-demo-") as folder:
            demo = write_demo(Path(folder) / "demo")
            video = demo.dataset / demo.videos[0].category / demo.videos[0].name
            results = {
                name: path / demo.videos[0].category / demo.videos[0].name
                for name, path in demo.results.items()
            }
            measure_loop("demo", video, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
