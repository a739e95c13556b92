"""Event-loop stalls of the GUI while it opens, evaluates, plays and steps through videos.

A 1 ms timer records when the event loop gets to run; the gaps between its
ticks are what a user feels. For each phase the script prints the worst gap
and the 99th percentile of the gaps, and splits the worst gap into what the
GUI thread did meanwhile (Linux): ran on a core, waited for a core (the
machine is busy), or slept (waited for the GIL that a job's thread holds, a
lock or a file). The idle window, measured in the same run, is the baseline.

Phases, for the demo project and for the CDnet highway video (``HIGHWAY``,
with two OpenCV background subtractors' masks written once to ``--cache``):
open it (to its first frame), evaluate it (until every job ended), play it,
and step through it with → every 40 ms while it is evaluated again; on the demo,
save ground truth for the frame the estimates propose next, five times, each
until indicators, ranking and estimates are updated; then propagate an annotated
frame's mask ten frames forward as drafts (a job) and step through the drafts.
Then open a dataset of 50 videos (links to highway, in a temporary folder): what
opening lists grows with the videos. Last, time a full collection of cyclic garbage on
the GUI thread (the window's collector runs one every few minutes of work), with and
without the objects the window set aside when built.

    python3 benchmarks/gui_responsiveness.py            # the table
    python3 benchmarks/gui_responsiveness.py --why      # and what ran on the GUI thread

``--why`` times, on the GUI thread only, every method and function of
``referee.gui`` (and the functions its modules import from ``referee``) and
every Qt event delivered (``QApplication.notify``); it lists per phase the
calls that took long and, for each of the worst stalls, the calls inside it.
Timing costs a little: take the table of a plain run.

Target (issue 15): worst stall < 50 ms in every phase. The machine is shared:
run it a few times, and look at the cores other processes kept busy (printed
with the table), or run it with ``--nice -10`` (as root) to weigh them less.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import cv2
import numpy as np
from gui_stall_meter import (
    TARGET_MS,
    GuiThreadCalls,
    PhaseResult,
    StallMeter,
    TimedApplication,
    idle,
    print_why,
    run_until,
)
from PySide6.QtCore import QTimer

from referee.core.annotation.document import GroundTruthDocument
from referee.core.annotation.saving import save
from referee.core.demo.project import ensure_demo_project
from referee.core.model.project import DetectorSource, Project, with_detector
from referee.core.model.videos import VideoSpec
from referee.core.workflow.graph import STAGES, settled
from referee.core.workflow.projects import open_path
from referee.core.workflow.results import ProjectResults
from referee.gui.app import application
from referee.gui.main_window import MainWindow

HIGHWAY = Path(__file__).resolve().parents[1].parent / "shared/data/cdnet2014/baseline/highway"
#: How often a user holding → steps (ms).
STEP_INTERVAL_MS = 40
#: How long each video plays (s).
PLAY_SECONDS = 4.0
#: Annotated frames saved in the save phase.
SAVES = 5
#: Frames a mask is propagated to in the drafts phase.
DRAFTS = 10
#: Videos of the dataset whose opening is timed (each a link to highway).
MANY_VIDEOS = 50


# --------------------------------------------------------------------------- the scenario


def highway_project(cache: Path) -> Project:
    """The highway video with two OpenCV background subtractors' masks as detectors
    (written to ``cache`` the first time)."""
    project = open_path(HIGHWAY)
    subtractors: dict[str, Callable[[], cv2.BackgroundSubtractor]] = {
        "opencv-mog2": lambda: cv2.createBackgroundSubtractorMOG2(history=200, detectShadows=True),
        "opencv-knn": lambda: cv2.createBackgroundSubtractorKNN(history=200, detectShadows=True),
    }
    for name, make in subtractors.items():
        folder = cache / name  # a single video's results: its frames in the root
        if not (folder / "complete").exists():
            print(f"  writing {name} masks of highway to {folder}", file=sys.stderr)
            folder.mkdir(parents=True, exist_ok=True)
            subtractor = make()
            for path in sorted((HIGHWAY / "input").glob("in*.jpg")):
                image = cv2.imread(str(path))
                if image is None:
                    raise OSError(f"cannot read {path}")
                motion = subtractor.apply(image) == 255  # 127: a shadow
                mask = np.where(motion, 255, 0).astype(np.uint8)
                cv2.imwrite(str(folder / f"bin{int(path.stem[2:]):06d}.png"), mask)
            (folder / "complete").touch()
        project = with_detector(project, DetectorSource(name, masks=folder))
    return project


def many_videos(folder: Path, count: int) -> Path:
    """A dataset of ``count`` videos in ``folder``, each a link to the highway video (five
    categories), to time what opening lists: every video's frames and ground truth."""
    for k in range(count):
        video = folder / f"category{k % 5}" / f"highway{k}"
        video.parent.mkdir(parents=True, exist_ok=True)
        video.symlink_to(HIGHWAY, target_is_directory=True)
    return folder


def measure_opening_many(
    window: MainWindow, meter: StallMeter, results: list[PhaseResult], dataset: Path, count: int
) -> None:
    """Open a dataset of ``count`` videos (:func:`many_videos`), to its first frame; the
    jobs its opening starts are then cancelled."""
    with meter.phase(f"{count} videos: open, to the first frame", results):
        window.viewer.layers = None
        window.open(dataset)
        run_until(lambda: window.viewer.layers is not None, 60)
    window.runner.cancel_all()
    run_until(lambda: not window.runner.jobs, 60)
    idle(0.5)


def full_collection() -> str:
    """A full collection of cyclic garbage on the GUI thread, as the window's collector runs
    one after ten of the second generation (one every few minutes of work; none within
    this script): timed as the window leaves it, then with nothing set aside (as before
    the window set its libraries and widgets aside), the baseline."""
    gc.collect()
    walked, started = len(gc.get_objects()), time.perf_counter()
    gc.collect()
    now = (time.perf_counter() - started) * 1000
    gc.unfreeze()  # as before the window set its libraries and widgets aside: the baseline
    walked_all, started = len(gc.get_objects()), time.perf_counter()
    gc.collect()
    before = (time.perf_counter() - started) * 1000
    return (
        f"a full garbage collection on the GUI thread: {now:.1f} ms ({walked:,} objects "
        f"walked); with nothing set aside {before:.1f} ms ({walked_all:,} objects), "
        f"{now / before:.3f}×"
    )


def evaluate(window: MainWindow) -> None:
    """Run the event loop until every job ended and its result was taken (a job's end and
    its result reach the GUI thread as two events; a result may start another job)."""
    deadline = time.perf_counter() + 600
    while time.perf_counter() < deadline:
        run_until(lambda: not window.runner.jobs, deadline - time.perf_counter())
        idle(0.2)
        if not window.runner.jobs:
            break
    running = [job.title for job in window.runner.jobs]
    if running or not window.session.evaluations:
        raise RuntimeError(
            f"the evaluation did not end (still running: {running}) or failed "
            "(see the messages above)"
        )


def measure_project(
    window: MainWindow,
    meter: StallMeter,
    results: list[PhaseResult],
    name: str,
    start: Callable[[], object],
    fps: float,
) -> None:
    """Open, evaluate, play and step through one project; ``start`` starts opening it (as
    File › Open does: its folders are listed in a job, then it is shown)."""
    timeline = window.viewer.timeline
    with meter.phase(f"{name}: open, to its first frame", results):
        window.viewer.layers = None
        start()
        run_until(lambda: window.viewer.layers is not None, 60)
    with meter.phase(f"{name}: evaluate, until all jobs end", results):
        evaluate(window)
    with meter.phase(f"{name}: play at {fps:g} fps for {PLAY_SECONDS:g} s", results):
        timeline.set_fps(fps)
        timeline.toggle_play()
        idle(PLAY_SECONDS)
        timeline.toggle_play()
    timeline.go_to_first()
    idle(0.5)
    stepper = QTimer()
    stepper.setInterval(STEP_INTERVAL_MS)
    stepper.timeout.connect(lambda: timeline.step(1))
    with meter.phase(f"{name}: step → every {STEP_INTERVAL_MS} ms, evaluating again", results):
        window.session.recompute()
        stepper.start()
        evaluate(window)
        stepper.stop()
    idle(0.5)


def _all_settled(results: ProjectResults) -> bool:
    """Whether every stage has its result or its reason for being skipped."""
    return all(settled(results, stage.key) for stage in STAGES)


def measure_saves(
    window: MainWindow, meter: StallMeter, results: list[PhaseResult], saves: int
) -> list[float]:
    """Save ground truth for the frame the estimates propose next, ``saves`` times, each
    written by the core annotation document and handed to the window's session as the
    Annotation dock's Save does; returns the seconds from each save to every job ended.
    The phase's stalls are those of the update: the writing itself is timed apart."""
    session = window.session
    seconds, writing = [], []
    with meter.phase(f"demo: after each of {saves} saves, until estimates are updated", results):
        for _ in range(saves):
            estimate = session.estimate
            proposed = [v for v in (estimate.videos if estimate else ()) if v.next_frame]
            if not proposed or session.project is None:
                raise RuntimeError(f"no frame proposed to label: {session.results.skipped}")
            label, frame = proposed[0].video, int(proposed[0].next_frame)
            start = time.perf_counter()
            with meter.paused():  # the save's own writing is timed apart
                document = GroundTruthDocument(session.project, session.videos)
                label_map = document.label_map(label, frame).copy()
                height, width = label_map.shape
                label_map[height // 3 : height // 2, width // 3 : width // 2] = 255
                document.replace_label_map(label, frame, label_map)
                document.set_review(label, frame, document.accepted(label, frame, "now"))
                outcome = save(document)
            writing.append(time.perf_counter() - start)
            session.annotations_saved(outcome.project, outcome.files)
            run_until(lambda: not window.runner.jobs and _all_settled(session.results), 120)
            seconds.append(time.perf_counter() - start)
            evaluate(window)
    print(
        f"  the saves themselves (on the GUI thread, files synced): median "
        f"{np.median(writing) * 1000:.0f} ms, worst {max(writing) * 1000:.0f} ms",
        file=sys.stderr,
    )
    return seconds


def measure_drafts(window: MainWindow, meter: StallMeter, results: list[PhaseResult]) -> None:
    """From the first annotated frame (in the temporal ROI) of the demo followed by one
    without ground truth, propagate its mask :data:`DRAFTS` frames forward (a job, until its drafts are pushed),
    then step through those frames every :data:`STEP_INTERVAL_MS` ms (frames that hold
    ground truth are not drafted)."""
    session, timeline = window.session, window.viewer.timeline

    def starts(video: VideoSpec) -> list[int]:
        annotated = session.annotated()[video.label]
        return [
            f
            for f in annotated
            if video.first <= f <= video.last - DRAFTS and f + 1 not in annotated
        ]

    video = next(v for v in session.videos if starts(v))
    start = starts(video)[0]
    window.viewer.go_to(video.label, start)
    run_until(lambda: window.annotation._frame == (video.label, start), 30)
    stack = window.annotation.editor.stack
    before = stack.index()
    with meter.phase(f"demo: propagate a mask {DRAFTS} frames, until drafted", results):
        job = window.annotation.propagate("forward", DRAFTS)
        if job is None:
            raise RuntimeError("the propagation did not start")
        run_until(lambda: not window.runner.jobs, 120)
    if stack.index() != before + 1:
        raise RuntimeError(f"the propagation pushed no drafts: {stack.undoText()!r}")
    stepper = QTimer()
    stepper.setInterval(STEP_INTERVAL_MS)
    stepper.timeout.connect(lambda: timeline.step(1))
    with meter.phase(f"demo: step through the drafts every {STEP_INTERVAL_MS} ms", results):
        stepper.start()
        run_until(lambda: window.annotation._frame == (video.label, start + DRAFTS), 30)
        stepper.stop()
    stack.undo()  # the drafts, as one edit
    idle(0.5)


def print_table(results: list[PhaseResult], load: tuple[float, float]) -> None:
    """One line per phase: duration, worst gap, 99th percentile, the worst gap's split."""
    print(
        f"\n{'phase':<50} {'s':>5} {'worst':>5} {'p99':>5} {'cores':>9}"
        f"   the worst gap: GUI thread …"
    )
    for result in results:
        over = "" if result.worst < TARGET_MS else f"  {result.worst / TARGET_MS:.1f}x target"
        print(
            f"{result.name:<50} {result.seconds:5.1f} {result.worst:5.0f} {result.p99:5.1f} "
            f"{result.own_cores:4.1f}+{result.other_cores:3.1f}   {result.worst_split}{over}"
        )
    print(
        f"ms; target: worst < {TARGET_MS:.0f} ms. cores: busy on average, this process + "
        f"the others, of {os.cpu_count()}. In the worst gap, 'waited for a core': runnable "
        f"but no core free;\n'slept': it waited for the GIL, a lock or a file. "
        f"Load average (1 min) before {load[0]:.1f}, after {load[1]:.1f}."
    )


def prioritize(nice: int) -> None:
    """Run this process at niceness ``nice``, before it starts a thread (threads inherit it).

    Linux groups the processes of a session (autogroups) and shares the cores between
    groups first: the process starts a session of its own and sets its group's niceness.
    """
    if os.getsid(0) != os.getpid():
        os.setsid()
    with contextlib.suppress(OSError):  # no autogroups: the process's niceness is enough
        Path("/proc/self/autogroup").write_text(str(nice))
    os.nice(nice)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--why", action="store_true", help="list what ran on the GUI thread")
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "referee-benchmark",
        help="where the highway detectors' masks are written once (default: %(default)s)",
    )
    parser.add_argument(
        "--nice",
        type=int,
        default=0,
        help="run at this niceness, e.g. -10 as root: other programs' load then weighs "
        "less, as on a machine that runs Referee alone",
    )
    args = parser.parse_args()
    if args.nice:
        prioritize(args.nice)
    calls = GuiThreadCalls() if args.why else None
    if calls is not None:
        calls.patch_gui()
        TimedApplication.calls = calls
        TimedApplication(sys.argv[:1])
    application()
    load_before = os.getloadavg()[0]
    meter = StallMeter()
    results: list[PhaseResult] = []
    with tempfile.TemporaryDirectory() as folder:
        demo = ensure_demo_project(Path(folder) / "demo")
        assert demo.file is not None
        demo_file = demo.file
        highway = highway_project(args.cache) if HIGHWAY.is_dir() else None  # masks written
        window = MainWindow(remember_layout=False)
        window.session.error.connect(lambda message: print(message, file=sys.stderr))
        window.resize(1400, 900)
        window.show()
        idle(1.0)
        with meter.phase("idle window (baseline), 3 s", results):
            idle(3.0)
        measure_project(window, meter, results, "demo", lambda: window.open(demo_file), 25)
        saved = measure_saves(window, meter, results, SAVES)
        measure_drafts(window, meter, results)
        if highway is not None:
            measure_project(
                window, meter, results, "highway", lambda: window.open_project(highway), 30
            )
            dataset = many_videos(Path(folder) / "many", MANY_VIDEOS)
            measure_opening_many(window, meter, results, dataset, MANY_VIDEOS)
        window.runner.cancel_all()
        window.viewer.loader.close()
        window.runner.wait(30000)
        collection = full_collection()
    print_table(results, (load_before, os.getloadavg()[0]))
    print(
        f"demo: save → indicators, ranking and estimates updated in the window: median "
        f"{np.median(saved):.2f} s, worst {max(saved):.2f} s over {len(saved)} saves"
    )
    print(collection)
    if calls is not None:
        print_why(results, calls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
