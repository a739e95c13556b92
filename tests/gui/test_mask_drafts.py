"""Propagating a mask from the Annotation dock (docs/measures.md §1): the next frames
without ground truth become drafts, close to the true ground truth, in one undoable
edit; frames with ground truth are left alone."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from referee.core.annotation.review import FrameStatus
from referee.core.formats.project_json import read_project
from referee.core.measures.pixel import GT_MOTION
from tests.gui.test_annotation import CORRIDOR, _wait_frame, window  # noqa: F401


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    union = np.count_nonzero(a | b)
    return 1.0 if union == 0 else np.count_nonzero(a & b) / union


def test_propagation_drafts_the_next_frames_in_one_edit(
    qtbot,
    window,  # noqa: F811 (the annotation tests' fixture, imported)
    demo,
    demo_copy: Path,
) -> None:
    annotated = sorted(read_project(demo_copy / "demo.referee.json").annotated_frames(CORRIDOR))
    start = annotated[len(annotated) // 2]
    following = annotated[annotated.index(start) + 1]  # saved ground truth, 8 frames on
    window.viewer.go_to(CORRIDOR, start)
    _wait_frame(qtbot, window, CORRIDOR, start)
    document = window.annotation.editor.document_or_raise()
    count = following - start + 2  # reaches past the next annotated frame
    job = window.annotation.propagate("forward", count)
    assert job is not None
    qtbot.waitUntil(
        lambda: document.status(CORRIDOR, start + 1) is FrameStatus.DRAFT, timeout=60000
    )
    drafted = range(start + 1, start + count + 1)
    for frame in drafted:
        expected = FrameStatus.GROUND_TRUTH if frame == following else FrameStatus.DRAFT
        assert document.status(CORRIDOR, frame) is expected, frame
    # The drafts against the demo's full ground truth (the copy keeps every eighth frame).
    truth_folder = demo.dataset / "shadow" / "corridor" / "groundtruth"
    for frame in (start + 1, start + 3):
        truth = cv2.imread(str(truth_folder / f"gt{frame:06d}.png"), cv2.IMREAD_GRAYSCALE)
        draft = document.label_map(CORRIDOR, frame)
        assert _iou(draft == GT_MOTION, truth == GT_MOTION) >= 0.7, frame
    window.annotation.editor.stack.undo()  # one edit takes every draft back
    for frame in drafted:
        if frame != following:
            assert document.status(CORRIDOR, frame) is FrameStatus.NONE, frame
