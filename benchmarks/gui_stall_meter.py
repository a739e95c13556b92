"""Measuring the GUI thread of a benchmark: gaps between the ticks of a 1 ms timer (a
stall is a gap over :data:`TARGET_MS`), how the thread spent each (ran, waited for a
core, slept), and with ``--why`` the long calls and Qt events it ran meanwhile.

Used by ``benchmarks/gui_responsiveness.py``.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import pkgutil
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PySide6.QtCore import QEvent, QEventLoop, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication, QGraphicsScene

import referee.gui

TARGET_MS = 50.0
#: Calls shorter than this are not recorded by ``--why`` (ms).
LISTED_CALL_MS = 10.0
#: Stalls detailed per phase by ``--why``.
DETAILED_STALLS = 4


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


def receiver_name(receiver: QObject) -> str:
    """The receiver's class and, for a part of Qt's or pyqtgraph's (a viewport, a scene),
    the nearest of the project's widgets holding it: "QWidget in FrozenColumnsTable",
    "GraphicsScene in TimelineWidget" (a scene is held by its first view)."""
    name = type(receiver).__name__
    holder: QObject | None = receiver
    try:
        if isinstance(receiver, QGraphicsScene) and receiver.views():
            holder = receiver.views()[0]
        while holder is not None and not type(holder).__module__.startswith("referee."):
            holder = holder.parent()
    except RuntimeError:  # deleted as the event was handled
        return name
    return name if holder is None or holder is receiver else f"{name} in {type(holder).__name__}"


class TimedApplication(QApplication):
    """A QApplication that times the events it delivers on the GUI thread."""

    calls: GuiThreadCalls | None = None

    def notify(self, receiver: QObject, event: QEvent) -> bool:
        calls = self.calls
        if calls is None:
            return super().notify(receiver, event)
        kind = event.type()
        with calls.timing(lambda: f"event {kind.name} → {receiver_name(receiver)}"):
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
