"""Worst event-loop stall of the GUI while it evaluates the demo and while it plays videos.

A 1 ms QTimer records when the event loop gets to run; the longest gap between
two ticks is the worst stall a user could feel. Opening the project (the window
rebuilds its lists, first paint) is measured apart from the jobs that follow. The same measurement on an idle
window, in the same run, is the baseline (this machine is shared and noisy).

    python benchmarks/gui_responsiveness.py

Target (issue 5): worst stall < 50 ms during the evaluation and during playback.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QElapsedTimer, QTimer

from referee.core.demo.project import ensure_demo_project
from referee.core.workflow.projects import open_path
from referee.gui.app import application
from referee.gui.main_window import MainWindow

HIGHWAY = Path(__file__).resolve().parents[1].parent / "shared/data/cdnet2014/baseline/highway"


class StallMeter:
    """Longest gap between ticks of a 1 ms timer, in milliseconds."""

    def __init__(self) -> None:
        self.clock = QElapsedTimer()
        self.timer = QTimer()
        self.timer.setInterval(1)
        self.timer.timeout.connect(self._tick)
        self.last = 0
        self.worst = 0

    def start(self) -> None:
        self.clock.start()
        self.last, self.worst = 0, 0
        self.timer.start()

    def _tick(self) -> None:
        now = self.clock.elapsed()
        self.worst = max(self.worst, now - self.last)
        self.last = now

    def stop(self) -> int:
        self.timer.stop()
        return self.worst


def run_until(app, condition, timeout_s: float) -> float:
    started = time.perf_counter()
    while not condition() and time.perf_counter() - started < timeout_s:
        app.processEvents()
        time.sleep(0.0005)
    return time.perf_counter() - started


def main() -> int:
    app = application()
    meter = StallMeter()
    with tempfile.TemporaryDirectory() as folder:
        demo = ensure_demo_project(Path(folder) / "demo")
        window = MainWindow()
        window.resize(1400, 900)
        window.show()
        run_until(app, lambda: False, 1.0)

        meter.start()
        run_until(app, lambda: False, 3.0)
        idle = meter.stop()

        meter.start()
        window.open_project(demo)
        opening_s = run_until(app, lambda: window.viewer.layers is not None, 60)
        opening = meter.stop()
        meter.start()
        seconds = run_until(app, lambda: window.session.evaluations and not window.runner.jobs, 300)
        evaluation = meter.stop()

        timeline = window.viewer.timeline
        timeline.set_fps(25)
        meter.start()
        timeline.toggle_play()
        run_until(app, lambda: False, 4.0)
        timeline.toggle_play()
        demo_play = meter.stop()

        highway_play = None
        if HIGHWAY.is_dir():
            window.open_project(open_path(HIGHWAY))
            run_until(app, lambda: window.viewer.layers is not None and not window.runner.jobs, 60)
            timeline.set_fps(30)
            meter.start()
            timeline.toggle_play()
            run_until(app, lambda: False, 5.0)
            timeline.toggle_play()
            highway_play = meter.stop()
        window.runner.cancel_all()
        window.viewer.loader.close()
        window.runner.wait(30000)

    print(f"idle window (baseline):                     worst stall {idle:4d} ms")
    print(
        f"opening the demo, to its first frame ({opening_s:.2f} s): worst stall {opening:4d} ms  "
        f"({opening / max(idle, 1):.1f}x idle)"
    )
    print(
        f"then evaluating it ({seconds:.1f} s, all jobs):  worst stall {evaluation:4d} ms  "
        f"({evaluation / max(idle, 1):.1f}x idle)"
    )
    print(
        f"playing the demo at 25 fps:                 worst stall {demo_play:4d} ms  "
        f"({demo_play / max(idle, 1):.1f}x idle)"
    )
    if highway_play is not None:
        print(
            f"playing highway (320x240) at 30 fps:        worst stall {highway_play:4d} ms  "
            f"({highway_play / max(idle, 1):.1f}x idle)"
        )
    print("target: < 50 ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
