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
until indicators, ranking and estimates are updated.

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
import functools
import importlib
import inspect
import os
import pkgutil
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import cv2
import numpy as np
from PySide6.QtCore import QEvent, QEventLoop, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication

import referee.gui
from referee.core.annotation.document import GroundTruthDocument
from referee.core.annotation.saving import save
from referee.core.demo.project import ensure_demo_project
from referee.core.model.project import DetectorSource, Project, with_detector
from referee.core.workflow.graph import STAGES, settled
from referee.core.workflow.projects import open_path
from referee.core.workflow.results import ProjectResults
from referee.gui.app import application
from referee.gui.main_window import MainWindow

HIGHWAY = Path(__file__).resolve().parents[1].parent / "shared/data/cdnet2014/baseline/highway"
TARGET_MS = 50.0
#: How often a user holding → steps (ms).
STEP_INTERVAL_MS = 40
#: How long each video plays (s).
PLAY_SECONDS = 4.0
#: Annotated frames saved in the save phase.
SAVES = 5
#: Calls shorter than this are not recorded by ``--why`` (ms).
LISTED_CALL_MS = 10.0
#: Stalls detailed per phase by ``--why``.
DETAILED_STALLS = 4


# --------------------------------------------------------------------------- the GUI thread's time


@dataclass(frozen=True)
class Split:
    """How the GUI thread spent a span of time (ms)."""

    wall: float
    ran: float
    queued: float

    @property
    def slept(self) -> float:
        """Neither running nor waiting for a core: waiting for the GIL, a lock or a file."""
        return max(self.wall - self.ran - self.queued, 0.0)

    def __str__(self) -> str:
        return f"ran {self.ran:.0f}, waited for a core {self.queued:.0f}, slept {self.slept:.0f}"


class ThreadClock:
    """Wall time, and the CPU and run-queue time of the thread that made it (Linux
    ``schedstat``; elsewhere the CPU time only)."""

    def __init__(self) -> None:
        try:
            self._schedstat: int | None = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
        except OSError:
            self._schedstat = None

    def now(self) -> tuple[float, float, float]:
        """Seconds: wall, on a core, waiting for a core."""
        wall = time.perf_counter()
        if self._schedstat is None:
            return wall, time.thread_time(), 0.0
        ran, queued = os.pread(self._schedstat, 64, 0).split()[:2]
        return wall, int(ran) / 1e9, int(queued) / 1e9

    @staticmethod
    def split(start: tuple[float, float, float], end: tuple[float, float, float]) -> Split:
        wall, ran, queued = (1000 * (b - a) for a, b in zip(start, end))
        return Split(wall, ran, queued)


def busy_cores() -> tuple[float, float]:
    """CPU seconds used so far: by the whole machine (Linux; else 0), by this process."""
    own = sum(os.times()[:2])
    try:
        with open("/proc/stat") as stat:
            ticks = [int(n) for n in stat.readline().split()[1:]]
    except OSError:
        return 0.0, own
    idle = ticks[3] + ticks[4]  # idle, iowait
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK"), own


# --------------------------------------------------------------------------- measuring


@dataclass
class Stall:
    """A gap over the target: when (perf_counter seconds) and how it was spent."""

    start: float
    end: float
    split: Split


@dataclass
class PhaseResult:
    """Gaps between the ticks of one phase, in milliseconds."""

    name: str
    start: float
    seconds: float
    gaps: np.ndarray
    worst_split: Split
    #: Cores kept busy on average: by this process, by every other one.
    own_cores: float
    other_cores: float
    stalls: list[Stall] = field(default_factory=list)

    @property
    def worst(self) -> float:
        return float(self.gaps.max()) if self.gaps.size else 0.0

    @property
    def p99(self) -> float:
        return float(np.percentile(self.gaps, 99)) if self.gaps.size else 0.0


class StallMeter:
    """Gaps between the ticks of a 1 ms timer, and how the GUI thread spent them."""

    def __init__(self) -> None:
        self.clock = ThreadClock()
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(1)
        self.timer.timeout.connect(self._tick)
        self._gaps: list[float] = []
        self._stalls: list[Stall] = []
        self._worst = Split(0.0, 0.0, 0.0)
        self._last = self.clock.now()

    @contextmanager
    def phase(self, name: str, results: list[PhaseResult]) -> Iterator[None]:
        """Measure the block as phase ``name`` and append its result to ``results``."""
        self._gaps, self._stalls, self._worst = [], [], Split(0.0, 0.0, 0.0)
        self._last = self.clock.now()
        started = self._last[0]
        machine, own = busy_cores()
        self.timer.start()
        try:
            yield
        finally:
            self.timer.stop()
            self._tick()  # a block that never returned to the loop is one long gap
            seconds = time.perf_counter() - started
            machine_after, own_after = busy_cores()
            own_cores = (own_after - own) / seconds
            other_cores = max((machine_after - machine) / seconds - own_cores, 0.0)
            gaps = np.asarray(self._gaps)
            results.append(
                PhaseResult(
                    name, started, seconds, gaps, self._worst, own_cores, other_cores, self._stalls
                )
            )
            print(f"  {name}: {seconds:.1f} s, worst {self._worst.wall:.0f} ms", file=sys.stderr)

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Leave the block out of the phase's gaps (it is timed apart)."""
        self._tick()
        self.timer.stop()
        try:
            yield
        finally:
            self._last = self.clock.now()
            self.timer.start()

    def _tick(self) -> None:
        now = self.clock.now()
        gap = 1000 * (now[0] - self._last[0])
        if gap > self._worst.wall or gap > TARGET_MS:
            split = self.clock.split(self._last, now)
            if gap > self._worst.wall:
                self._worst = split
            if gap > TARGET_MS:
                self._stalls.append(Stall(self._last[0], now[0], split))
        self._gaps.append(gap)
        self._last = now


def run_until(condition: Callable[[], bool], timeout_s: float) -> None:
    """Run the event loop until ``condition()`` holds (checked every 5 ms) or ``timeout_s``."""
    if condition():
        return
    loop = QEventLoop()
    check = QTimer()
    check.setInterval(5)

    def quit_when_done() -> None:
        if condition():
            loop.quit()

    check.timeout.connect(quit_when_done)
    give_up = QTimer()
    give_up.setSingleShot(True)
    give_up.timeout.connect(loop.quit)
    check.start()
    give_up.start(int(timeout_s * 1000))
    loop.exec()
    check.stop()
    give_up.stop()


def idle(seconds: float) -> None:
    """Run the event loop for ``seconds``."""
    run_until(lambda: False, seconds)


# --------------------------------------------------------------------------- what --why times


@dataclass
class Call:
    """One long call on the GUI thread; ``depth`` 1 is called by the event loop itself."""

    label: str
    start: float
    depth: int
    split: Split

    @property
    def end(self) -> float:
        return self.start + self.split.wall / 1000


class GuiThreadCalls:
    """Long calls on the GUI thread: Python functions of ``referee.gui`` and Qt events."""

    def __init__(self) -> None:
        self.gui_thread = threading.get_ident()
        self.clock = ThreadClock()
        self.calls: list[Call] = []
        self.depth = 0

    @contextmanager
    def timing(self, label: Callable[[], str]) -> Iterator[None]:
        """Record the block as a call named ``label()`` if it runs long on the GUI thread."""
        if threading.get_ident() != self.gui_thread:
            yield
            return
        start = self.clock.now()
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            end = self.clock.now()
            if 1000 * (end[0] - start[0]) >= LISTED_CALL_MS:
                split = self.clock.split(start, end)
                self.calls.append(Call(label(), start[0], self.depth + 1, split))

    def wrap(self, function: Callable[..., Any], label: str) -> Callable[..., Any]:
        """``function``, timed. Like a slot, it is given no more positional arguments than
        it takes: Qt passes a slot the first arguments of a signal only."""
        code = function.__code__
        takes = None if code.co_flags & inspect.CO_VARARGS else code.co_argcount

        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.timing(lambda: label):
                return function(*args[:takes], **kwargs)

        return timed

    def patch_gui(self) -> None:
        """Time every function and method of ``referee.gui``, and the ``referee`` functions
        its modules import (before any widget connects them)."""
        for info in pkgutil.walk_packages(referee.gui.__path__, "referee.gui."):
            module = importlib.import_module(info.name)
            for name, value in list(vars(module).items()):
                if inspect.isclass(value) and value.__module__ == module.__name__:
                    for attr, method in list(vars(value).items()):
                        if inspect.isfunction(method) and not attr.startswith("__"):
                            setattr(value, attr, self.wrap(method, method.__qualname__))
                elif inspect.isfunction(value) and value.__module__.startswith("referee."):
                    setattr(module, name, self.wrap(value, f"{value.__module__}.{name}"))

    def within(self, start: float, end: float) -> list[Call]:
        """The calls that overlap ``start..end``, in the order they started."""
        found = [c for c in self.calls if c.end > start and c.start < end]
        return sorted(found, key=lambda c: (c.start, c.depth))


class TimedApplication(QApplication):
    """A QApplication that times the events it delivers on the GUI thread."""

    calls: GuiThreadCalls | None = None

    def notify(self, receiver: QObject, event: QEvent) -> bool:
        calls = self.calls
        if calls is None:
            return super().notify(receiver, event)
        kind = event.type()
        with calls.timing(lambda: f"event {kind.name} → {type(receiver).__name__}"):
            return super().notify(receiver, event)


def print_why(results: list[PhaseResult], calls: GuiThreadCalls) -> None:
    """Per phase: the long GUI-thread calls, then the calls inside its worst stalls."""
    for result in results:
        found = calls.within(result.start, result.start + result.seconds)
        if not found:
            continue
        print(f"\n== {result.name}: GUI-thread calls ≥ {LISTED_CALL_MS:.0f} ms, by longest run")
        by_label: dict[str, list[Call]] = defaultdict(list)
        for call in found:
            by_label[call.label].append(call)
        rows = sorted(by_label.items(), key=lambda item: -max(c.split.ran for c in item[1]))
        print(f"   {'calls':>5} {'max ms':>6} {'max ran':>7} {'total ms':>8}  function or event")
        for label, group in rows[:25]:
            longest = max(c.split.wall for c in group)
            ran = max(c.split.ran for c in group)
            total = sum(c.split.wall for c in group)
            print(f"   {len(group):5d} {longest:6.0f} {ran:7.0f} {total:8.0f}  {label}")
        worst = sorted(result.stalls, key=lambda s: -s.split.wall)[:DETAILED_STALLS]
        for stall in worst:
            print(
                f"   stall {stall.split.wall:.0f} ms at +{stall.start - result.start:.2f} s "
                f"({stall.split}):"
            )
            for call in calls.within(stall.start, stall.end)[:14]:
                indent = "  " * (call.depth - 1)
                print(f"      {indent}{call.split.wall:4.0f} ms ({call.split})  {call.label}")


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
    load: Callable[[], Project],
    fps: float,
) -> None:
    """Open, evaluate, play and step through one project; ``load`` reads it (as
    File › Open does, on the GUI thread)."""
    timeline = window.viewer.timeline
    with meter.phase(f"{name}: open, to its first frame", results):
        window.viewer.layers = None
        window.open_project(load())
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
        if HIGHWAY.is_dir():
            highway_project(args.cache)  # write the masks before measuring
        window = MainWindow(remember_layout=False)
        window.session.error.connect(lambda message: print(message, file=sys.stderr))
        window.resize(1400, 900)
        window.show()
        idle(1.0)
        with meter.phase("idle window (baseline), 3 s", results):
            idle(3.0)
        measure_project(window, meter, results, "demo", lambda: open_path(demo_file), 25)
        saved = measure_saves(window, meter, results, SAVES)
        if HIGHWAY.is_dir():
            measure_project(
                window, meter, results, "highway", lambda: highway_project(args.cache), 30
            )
        window.runner.cancel_all()
        window.viewer.loader.close()
        window.runner.wait(30000)
    print_table(results, (load_before, os.getloadavg()[0]))
    print(
        f"demo: save → indicators, ranking and estimates updated in the window: median "
        f"{np.median(saved):.2f} s, worst {max(saved):.2f} s over {len(saved)} saves"
    )
    if calls is not None:
        print_why(results, calls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
