"""Time from a brush stroke segment to the repainted view, at 320×240 and at 1920×1080.

A frame view (the application's own) of 1280×720 pixels on screen shows the
frame fitted to it, with the label map the brush paints on; each measured step
is one stroke segment (the brush moves up to 12 image pixels, radius 8) and the
event processing that repaints the view. A paint event is required after every
segment, so the time covers the repaint. The baseline, in the same run, is a
full repaint of the same view without any edit.

    python benchmarks/paint_latency.py [--segments 400]

Target (issue 13): p95 under 16 ms at 320×240 and under 33 ms at 1920×1080.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import cv2
import numpy as np
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from referee.core.model.project import Project
from referee.core.model.videos import VideoSpec
from referee.gui.annotation.editor import AnnotationEditor
from referee.gui.annotation.mask_painter import MaskPainter, Tool
from referee.gui.viewer.frame_view import FrameView

SIZES = ((320, 240), (1920, 1080))
RADIUS = 8.0
#: Longest wait for the repaint after a segment (a segment that changed nothing has none).
WAIT_SECONDS = 0.2


class PaintCounter(QObject):
    """Counts paint events of the widget it watches."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def _painter(folder: Path, width: int, height: int) -> tuple[FrameView, MaskPainter]:
    """A frame view showing a random frame, painting on frame 1 of a new CDnet video."""
    rng = np.random.default_rng(0)
    (folder / "groundtruth").mkdir(parents=True)
    cv2.imwrite(str(folder / "ROI.bmp"), np.full((height, width), 255, np.uint8))
    video = VideoSpec("benchmark", folder.name, folder, 1, 1)
    view = FrameView()
    view.resize(1280, 720)
    view.show()
    view.show_frame(rng.integers(0, 256, size=(height, width), dtype=np.uint8))
    editor = AnnotationEditor()
    editor.open(Project("benchmark"), (video,))
    painter = MaskPainter(editor, view)
    painter.set_target(video.label, 1)
    painter.set_tool(Tool.BRUSH)
    painter.set_radius(RADIUS)
    return view, painter


def _percentiles(values: list[float]) -> tuple[float, float]:
    array = np.array(values) * 1000
    return float(np.percentile(array, 50)), float(np.percentile(array, 95))


def measure(folder: Path, width: int, height: int, segments: int) -> None:
    app = QApplication.instance()
    view, painter = _painter(folder, width, height)
    counter = PaintCounter()
    viewport = view._graphics.viewport()
    viewport.installEventFilter(counter)
    for _ in range(5):
        app.processEvents()
    rng = np.random.default_rng(1)
    x, y = width / 2, height / 2
    painter.press(x, y)
    times, missed, unchanged = [], 0, 0
    for _ in range(segments):
        x = float(np.clip(x + rng.uniform(-12, 12), 0, width - 1))
        y = float(np.clip(y + rng.uniform(-12, 12), 0, height - 1))
        before, edits = counter.count, painter.stroke_length
        start = time.perf_counter()
        painter.drag(x, y)
        if painter.stroke_length == edits:
            unchanged += 1  # the brush went over pixels it had painted: nothing to repaint
            continue
        while counter.count == before and time.perf_counter() - start < WAIT_SECONDS:
            app.processEvents()
        times.append(time.perf_counter() - start)
        missed += counter.count == before
    painter.release()
    full = []
    for _ in range(50):
        start = time.perf_counter()
        viewport.repaint()
        full.append(time.perf_counter() - start)
    p50, p95 = _percentiles(times)
    f50, _ = _percentiles(full)
    print(
        f"{width}×{height}: stroke segment → repainted view p50 {p50:.2f} ms, p95 {p95:.2f} ms "
        f"({len(times)} segments that changed pixels, {missed} of them not repainted; "
        f"{unchanged} changed none); full repaint p50 {f50:.2f} ms; "
        f"p95 / full repaint {p95 / f50:.2f}"
    )
    view.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segments", type=int, default=400)
    args = parser.parse_args()
    QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as folder:
        for width, height in SIZES:
            measure(Path(folder) / f"{width}x{height}", width, height, args.segments)


if __name__ == "__main__":
    main()
