"""The frame-by-frame outcomes the window draws (docs/measures.md §5): a hand-worked case,
and on random sequences as many switch and resumed events as TrackEval counts IDSW and
Frag, and per-frame misses and false positives that add up to its CLR_FN and CLR_FP."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import trackeval

from referee.core.measures.boxes import VideoBoxes, boxes_from_rows
from referee.core.measures.tracked import tracked_sequence
from referee.core.measures.tracking import evaluate_tracking
from referee.core.measures.tracking_frames import TrackOutcome
from tests.core.test_tracking_clear_identity import (
    _moving_boxes,
    _tracker_rows,
    _trackeval_data,
    _video,
)

BOX = {1: (0.0, 0.0, 10.0, 10.0), 2: (50.0, 0.0, 10.0, 10.0)}
FAR = (200.0, 200.0, 10.0, 10.0)


def _rows(rows: list[tuple[int, int, tuple[float, ...]]], name: str = "seq") -> VideoBoxes:
    return boxes_from_rows(
        name, [r[0] for r in rows], [r[2] for r in rows], ids=[r[1] for r in rows]
    )


def test_hand_worked_switch_fragment_miss_and_false_positive() -> None:
    """Object 1 is tracked as 10 on frames 1–2 and as 11 from frame 3: one switch, on
    frame 3. Object 2 is tracked as 20 on frames 1–2, missed on frame 3 (20 is far off:
    a false positive), tracked as 20 again from frame 4: resumed on frame 4, no switch."""
    gt = _rows([(f, i, BOX[i]) for f in range(1, 6) for i in (1, 2)])
    tracker = _rows(
        [(f, 10 if f <= 2 else 11, BOX[1]) for f in range(1, 6)]
        + [(f, 20, FAR if f == 3 else BOX[2]) for f in range(1, 6)]
    )
    frames = evaluate_tracking([gt], [tracker]).frames["seq"]
    assert frames.switch_frames() == [3]
    assert frames.fragment_frames() == [4]
    numbers, fp, fn = frames.errors()
    assert numbers.tolist() == [1, 2, 3, 4, 5]
    assert fp.tolist() == [0, 0, 1, 0, 0] and fn.tolist() == [0, 0, 1, 0, 0]

    by_side = {(o.groundtruth, o.identity): o for o in frames.outcomes(3)}
    assert by_side[(True, 1)].outcome is TrackOutcome.MATCHED
    assert by_side[(True, 1)].switched and not by_side[(True, 1)].resumed
    assert (by_side[(True, 1)].partner, by_side[(True, 1)].previous) == (11, 10)
    assert by_side[(True, 2)].outcome is TrackOutcome.MISS
    assert by_side[(False, 11)].outcome is TrackOutcome.MATCHED
    assert by_side[(False, 11)].partner == 1
    assert by_side[(False, 20)].outcome is TrackOutcome.FALSE_POSITIVE
    assert by_side[(False, 20)].box == FAR

    resumed = {(o.groundtruth, o.identity): o for o in frames.outcomes(4)}
    assert resumed[(True, 2)].resumed and not resumed[(True, 2)].switched
    assert not resumed[(True, 1)].resumed and not resumed[(True, 1)].switched
    assert frames.outcomes(9) == []


def test_only_annotated_frames_are_read() -> None:
    """Ground truth on frames 1 and 3 only: over every frame, the tracker's box on frame 2
    is a false positive; over the annotated frames it is not read."""
    gt = _rows([(1, 1, BOX[1]), (3, 1, BOX[1])])
    tracker = _rows([(f, 10, BOX[1]) for f in (1, 2, 3)])
    whole = evaluate_tracking([gt], [tracker]).frames["seq"]
    only = evaluate_tracking([gt], [tracker], only={"seq": [1, 3]}).frames["seq"]
    assert whole.errors()[1].tolist() == [0, 1, 0]
    assert only.numbers == (1, 3) and only.errors()[1].tolist() == [0, 0]
    assert whole.fragment_frames() == only.fragment_frames() == []


@pytest.mark.parametrize("seed", range(40))
def test_events_add_up_to_trackeval_counts(seed: int) -> None:
    rng = np.random.default_rng(seed)
    frames = int(rng.integers(2, 40))
    gt_rows = _moving_boxes(rng, frames, int(rng.integers(1, 7)))
    gt = _video("seq", [(f + 1, *rest) for f, *rest in gt_rows])
    tracker = _video("seq", [(f + 1, *rest) for f, *rest in _tracker_rows(rng, gt_rows, frames)])
    evaluation = evaluate_tracking([gt], [tracker], {"seq": frames})
    result = evaluation.frames["seq"]
    clear: Any = trackeval.metrics.CLEAR({"THRESHOLD": 0.5, "PRINT_CONFIG": False})
    theirs = clear.eval_sequence(
        _trackeval_data(tracked_sequence(gt, tracker, range(1, frames + 1)))
    )
    if theirs["CLR_Frames"] == 0:  # one side empty: TrackEval counts no event
        return
    objects = [o for f in result.numbers for o in result.outcomes(f) if o.groundtruth]
    switches = sum(o.switched for o in objects)
    resumed = sum(o.resumed for o in objects)
    _, fp, fn = result.errors()
    assert switches == theirs["IDSW"]
    assert resumed == theirs["Frag"]
    assert int(fp.sum()) == theirs["CLR_FP"] and int(fn.sum()) == theirs["CLR_FN"]
