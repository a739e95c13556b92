"""Screenshot of the annotation tools on the demo, as the README shows them.

Opens a copy of the demo in a window of the given size, goes to the first
suggested frame of the partly annotated video, starts it from the consensus,
paints a stroke, raises the Annotation and History docks and saves the window.
With ``--boxes`` it shows box annotation instead: on the demo's street, a new
action with two keyframes (the frame shown is interpolated between them) and a
ground-truth action propagated by CSRT (its drafts dotted), in the Boxes dock. With
``--tracking`` it shows the Tracking dock and the street's first identity switch.

    python scripts/annotation_screenshot.py OUT.png [--size 1920x1080] [--dark] [--boxes]
        [--tracking]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication, QMessageBox

from referee.core.demo.project import ensure_demo_project
from referee.core.measures.pixel import GT_SHADOW
from referee.gui.annotation.mask_painter import Tool
from referee.gui.app import application
from referee.gui.main_window import MainWindow


def _wait(app: QApplication, ready, seconds: float = 120) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > end:
            raise TimeoutError("the window did not get ready")
        app.processEvents()
        time.sleep(0.01)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--dark", action="store_true")
    parser.add_argument("--boxes", action="store_true")
    parser.add_argument("--tracking", action="store_true")
    parser.add_argument(
        "--estimates", type=int, default=0, metavar="N", help="label N proposed frames first"
    )
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    app = application()
    with tempfile.TemporaryDirectory() as folder:
        project = ensure_demo_project(Path(folder) / "demo")
        window = MainWindow(remember_layout=False)
        window.resize(width, height)
        window.show()
        if args.dark:
            window.dark_action.trigger()
        window.open_project(project)
        _wait(app, lambda: not window.runner.jobs and bool(window.session.ranking))
        controller = window.annotation
        controller.history.raise_()
        if args.estimates:
            _label_proposals(app, window, args.estimates)
        elif args.boxes:
            _annotate_boxes(app, window)
        elif args.tracking:
            _show_tracking(app, window)
        else:
            _paint_mask(app, window)
        for _ in range(20):
            app.processEvents()
            time.sleep(0.02)
        window.grab().save(str(args.out))
        QMessageBox.question = lambda *a, **k: QMessageBox.StandardButton.Discard  # type: ignore[method-assign]
        window.close()


def _paint_mask(app: QApplication, window: MainWindow) -> None:
    controller = window.annotation
    controller.dock.raise_()
    controller.next_suggested()
    _wait(app, lambda: controller._frame is not None and bool(controller.editor.stack.count()))
    controller.set_tool(Tool.BRUSH)
    controller.painter.set_level(GT_SHADOW)
    controller.dock.level_box.setCurrentIndex(controller.dock.level_box.findData(GT_SHADOW))
    controller.painter.press(40, 100)
    for x in range(42, 90, 4):
        controller.painter.drag(x, 100 + (x - 40) / 4)
    controller.painter.release()


def _label_proposals(app: QApplication, window: MainWindow, count: int) -> None:
    """Accept the consensus draft on ``count`` frames the sampler proposes, saving each."""
    controller = window.annotation
    _wait(app, lambda: not window.runner.jobs and window.session.estimate is not None)
    for _ in range(count):
        proposal = window.next_frames_dock.proposal()
        if proposal is None:
            break
        controller.next_suggested()
        _wait(app, lambda p=proposal: controller._frame == p and bool(controller.editor.modified))
        controller.accept_frame()  # a draft is saved once accepted
        controller.save()
        _wait(app, lambda: not window.runner.jobs and window.session.estimate is not None)
    window.indicators_dock.raise_()
    window.next_frames_dock.raise_()


def _go(app: QApplication, window: MainWindow, frame: int) -> None:
    window.viewer.go_to("baseline/street", frame)
    _wait(app, lambda: window.annotation.boxes._frame == ("baseline_street", frame))


def _annotate_boxes(app: QApplication, window: MainWindow) -> None:
    boxes = window.annotation.boxes
    boxes.dock.raise_()
    window.annotation.set_tool(Tool.BOX)
    boxes.set_class(8)
    _go(app, window, 20)
    boxes.draw((100.0, 8.0, 30.0, 40.0))
    _go(app, window, 40)
    boxes.run("keyframe")
    boxes.move(boxes.items().index(boxes.selected), (118.0, 30.0, 30.0, 44.0))
    _go(app, window, 25)
    boxes.selected = boxes.items()[0]
    boxes.dock.frames_box.setValue(15)
    boxes.run("propagate")
    _wait(app, lambda: boxes.drafts is not None)
    _go(app, window, 30)


def _show_tracking(app: QApplication, window: MainWindow) -> None:
    _wait(app, lambda: window.session.results.boxes is not None)
    window.tracking.dock.raise_()
    window.viewer.go_to("baseline/street", 1)
    _wait(app, lambda: window.viewer.layers is not None and window.viewer.layers.frame == 1)
    window.tracking.step_switch(True)
    _wait(app, lambda: window.viewer.layers is not None and window.viewer.layers.frame > 1)


if __name__ == "__main__":
    main()
