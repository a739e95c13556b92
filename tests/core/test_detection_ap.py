"""COCO detection AP and AR (docs/measures.md §5), compared with pycocotools' COCOeval.

pycocotools is the peer tool, used here only: the same boxes are given to
``COCO`` / ``loadRes`` / ``COCOeval(..., "bbox")`` and its twelve ``stats``, its
per-category ``stats`` must equal Referee's to 1e-12, its precision and recall arrays
exactly.
"""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval

from referee.core.errors import InvalidOptionError
from referee.core.measures.detection_ap import (
    UNDEFINED,
    DetectedBox,
    DetectionAP,
    GroundTruthBox,
    coco_ap,
)

TOLERANCE = 1e-12


def peer_eval(
    truth: list[GroundTruthBox], detections: list[DetectedBox], category: int | None = None
) -> COCOeval:
    """pycocotools' evaluation of the same boxes (its printing silenced)."""
    frames = sorted({g.frame for g in truth} | {d.frame for d in detections})
    categories = sorted({g.category for g in truth} | {d.category for d in detections})
    dataset = {
        "info": {},
        "images": [{"id": f} for f in frames],
        "categories": [{"id": c, "name": str(c)} for c in categories],
        "annotations": [
            {
                "id": n,
                "image_id": g.frame,
                "category_id": g.category,
                "bbox": [g.x, g.y, g.width, g.height],
                "area": g.width * g.height if g.area is None else g.area,
                "iscrowd": int(g.iscrowd),
            }
            for n, g in enumerate(truth, start=1)
        ],
    }
    results = [
        {
            "image_id": d.frame,
            "category_id": d.category,
            "bbox": [d.x, d.y, d.width, d.height],
            "score": d.score,
        }
        for d in detections
    ]
    with contextlib.redirect_stdout(io.StringIO()):
        coco = COCO()
        coco.dataset = dataset
        coco.createIndex()
        evaluation = COCOeval(coco, coco.loadRes(results), "bbox")
        if category is not None:
            evaluation.params.catIds = [category]
        evaluation.evaluate()
        evaluation.accumulate()
        evaluation.summarize()
    return evaluation


def assert_same_as_peer(truth: list[GroundTruthBox], detections: list[DetectedBox]) -> DetectionAP:
    ours = coco_ap(truth, detections)
    peer = peer_eval(truth, detections)
    np.testing.assert_allclose(ours.overall.as_tuple(), peer.stats, rtol=0, atol=TOLERANCE)
    # pycocotools' axes are threshold, recall point, category, area, max_dets. The arrays are
    # computed with the same operations: equal to the last bit. (The means may add in
    # another order, hence the tolerance above.)
    np.testing.assert_array_equal(ours.precision, peer.eval["precision"].transpose(2, 3, 4, 0, 1))
    np.testing.assert_array_equal(ours.recall, peer.eval["recall"].transpose(1, 2, 3, 0))
    for category in ours.categories:
        alone = peer_eval(truth, detections, category)
        np.testing.assert_allclose(
            ours.per_category[category].as_tuple(), alone.stats, rtol=0, atol=TOLERANCE
        )
    return ours


def noisy(rng: np.random.Generator, box: tuple[float, float, float, float]) -> list[float]:
    """A detection near ``box``: shifted and resized by about a tenth of its size at most, mostly less."""
    x, y, w, h = box
    dx, dy = rng.normal(0.0, 0.06, 2) * (w, h)
    sw, sh = np.exp(rng.normal(0.0, 0.08, 2))
    return [float(x + dx), float(y + dy), float(w * sw), float(h * sh)]


def synthetic(seed: int) -> tuple[list[GroundTruthBox], list[DetectedBox]]:
    """Frames 1–8, categories 1–3 (and 9, detections only); varied sizes, crowds, ties.

    Frame 2 has no ground truth, frame 3 no detection, frame 4 holds 40 boxes of
    category 1 and about 150 detections (more than 100).
    """
    rng = np.random.default_rng(seed)
    truth: list[GroundTruthBox] = []
    detections: list[DetectedBox] = []

    def score() -> float:
        return float(round(rng.uniform(), 1))  # tenths: many ties

    for frame in range(1, 9):
        for category in (1, 2, 3):
            count = 40 if (frame, category) == (4, 1) else int(rng.integers(0, 5))
            for _ in range(0 if frame == 2 else count):
                side = float(np.exp(rng.uniform(np.log(6.0), np.log(220.0))))
                aspect = float(np.exp(rng.uniform(-0.5, 0.5)))
                x, y = float(rng.uniform(0, 600)), float(rng.uniform(0, 400))
                box = (x, y, side * aspect, side / aspect)
                if rng.random() < 0.15:  # whole pixels: equal IoUs and areas on range limits
                    w, h = float(round(box[2])), float(round(box[3]))
                    box = (float(round(x)), float(round(y)), w, h)
                crowd = bool(rng.random() < 0.12)
                area = (
                    box[2] * box[3] * float(rng.uniform(0.5, 1.0)) if rng.random() < 0.3 else None
                )
                truth.append(GroundTruthBox(frame, category, *box, iscrowd=crowd, area=area))
                if frame == 3:
                    continue
                # Missed (0), found (1) or found twice (2); crowds draw several detections.
                hits = int(rng.choice([0, 1, 1, 1, 2])) + (2 if crowd else 0)
                for _ in range(hits):
                    detections.append(DetectedBox(frame, category, *noisy(rng, box), score()))
            extra = 110 if (frame, category) == (4, 1) else int(rng.integers(0, 3))
            for _ in range(0 if frame == 3 else extra):
                side = float(np.exp(rng.uniform(np.log(6.0), np.log(220.0))))
                xy = rng.uniform(0, 500, 2)
                detections.append(
                    DetectedBox(frame, category, float(xy[0]), float(xy[1]), side, side, score())
                )
        if frame != 3 and rng.random() < 0.5:
            detections.append(DetectedBox(frame, 9, 10.0, 10.0, 50.0, 50.0, score()))
    # Exact range limits: 32² and 96².
    truth += [
        GroundTruthBox(5, 2, 0.0, 0.0, 32.0, 32.0),
        GroundTruthBox(5, 2, 200.0, 0.0, 96.0, 96.0),
    ]
    detections += [
        DetectedBox(5, 2, 0.0, 0.0, 32.0, 32.0, 0.5),
        DetectedBox(5, 2, 200.0, 0.0, 96.0, 96.0, 0.5),
    ]
    return truth, detections


@pytest.mark.parametrize("seed", range(6))
def test_random_frames_equal_pycocotools(seed: int) -> None:
    truth, detections = synthetic(seed)
    assert sum(1 for d in detections if (d.frame, d.category) == (4, 1)) > 100
    ours = assert_same_as_peer(truth, detections)
    assert ours.per_category[9].as_tuple() == (UNDEFINED,) * 12
    assert 0.0 < ours.overall.ap < 1.0


def test_ties_exact_thresholds_and_crowds_equal_pycocotools() -> None:
    """Equal IoUs with two boxes (the later box wins), IoU exactly 0.5, a crowd with many detections."""
    truth = [
        GroundTruthBox(1, 1, 0.0, 0.0, 10.0, 10.0),
        GroundTruthBox(1, 1, 5.0, 0.0, 10.0, 10.0),
        GroundTruthBox(2, 1, 0.0, 0.0, 10.0, 10.0),
        GroundTruthBox(3, 1, 0.0, 0.0, 100.0, 100.0, iscrowd=True),
        GroundTruthBox(3, 1, 0.0, 0.0, 20.0, 20.0),
    ]
    detections = [
        DetectedBox(1, 1, 2.5, 0.0, 10.0, 10.0, 0.9),  # IoU 0.6 with both boxes of frame 1
        DetectedBox(1, 1, 0.0, 0.0, 10.0, 10.0, 0.8),
        DetectedBox(2, 1, 0.0, 0.0, 10.0, 5.0, 0.8),  # IoU exactly 0.5
        DetectedBox(3, 1, 0.0, 0.0, 20.0, 20.0, 0.8),
        DetectedBox(3, 1, 0.0, 0.0, 20.0, 20.0, 0.8),  # a duplicate: on the crowd, ignored
        DetectedBox(3, 1, 50.0, 50.0, 30.0, 30.0, 0.8),
    ]
    ours = assert_same_as_peer(truth, detections)
    assert ours.overall.ap50 == pytest.approx(1.0, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(1, 3),  # frame
            st.integers(1, 2),  # category
            st.integers(0, 8),
            st.integers(0, 8),
            st.integers(1, 8),
            st.integers(1, 8),
            st.sampled_from([1, 5, 15]),  # scale: small, medium and large boxes
            st.booleans(),  # a ground-truth box (else a detection)
            st.integers(0, 4),  # crowd when 0 (ground truth) / score in tenths
        ),
        min_size=1,
        max_size=25,
    ).filter(lambda boxes: any(not b[7] for b in boxes))
)
def test_grid_boxes_equal_pycocotools(
    boxes: list[tuple[int, int, int, int, int, int, int, bool, int]],
) -> None:
    """Whole-pixel boxes on a small grid: many equal IoUs, scores and areas on the limits."""
    truth, detections = [], []
    for frame, category, x, y, w, h, scale, is_truth, extra in boxes:
        box = (4.0 * x * scale, 4.0 * y * scale, 4.0 * w * scale, 4.0 * h * scale)
        if is_truth:
            truth.append(GroundTruthBox(frame, category, *box, iscrowd=extra == 0))
        else:
            detections.append(DetectedBox(frame, category, *box, extra / 10))
    assert_same_as_peer(truth, detections)


def test_worked_example() -> None:
    """Two small boxes on one frame, three detections, AP worked out by hand.

    A = (0, 0, 10, 10) and B = (20, 0, 10, 10). Detection 1 (score 0.9) is A
    itself; detection 2 (0.8) overlaps nothing; detection 3 (0.7) is
    (20, 0, 10, 7.7), IoU 77/100 = 0.77 with B: a match at the six thresholds
    0.50–0.75, not at 0.80–0.95.

    At the six thresholds the ranked list is TP, FP, TP: recall 1/2, 1/2, 1,
    precision 1, 1/2, 2/3, envelope 1, 2/3, 2/3. The 51 recall points 0–0.50 read
    1, the 50 points 0.51–1 read 2/3: AP = (51 + 50 · 2/3) / 101 = 253/303.
    At the four others: TP, FP, FP; recall stays 1/2, so the 51 points up to 0.50
    read 1 and the others 0: AP = 51/101. Over the ten thresholds,
    AP = (6 · 253/303 + 4 · 51/101) / 10 = 71/101.
    AR: one detection a frame finds A only (1/2 at every threshold); with ten,
    recall is 1 at six thresholds and 1/2 at four: (6 + 4 · 1/2) / 10 = 0.8.
    Both boxes are small (area 100): nothing counts as medium or large (−1).
    """
    truth = [
        GroundTruthBox(7, 1, 0.0, 0.0, 10.0, 10.0),
        GroundTruthBox(7, 1, 20.0, 0.0, 10.0, 10.0),
    ]
    detections = [
        DetectedBox(7, 1, 0.0, 0.0, 10.0, 10.0, 0.9),
        DetectedBox(7, 1, 40.0, 0.0, 10.0, 10.0, 0.8),
        DetectedBox(7, 1, 20.0, 0.0, 10.0, 7.7, 0.7),
    ]
    result = coco_ap(truth, detections)
    expected = (
        *(71 / 101, 253 / 303, 253 / 303, 71 / 101, UNDEFINED, UNDEFINED),
        *(0.5, 0.8, 0.8, 0.8, UNDEFINED, UNDEFINED),
    )
    assert result.overall.as_tuple() == pytest.approx(expected, abs=1e-12)
    assert result.per_category[1] == result.overall
    assert_same_as_peer(truth, detections)


def test_without_detections_every_target_is_missed() -> None:
    """pycocotools cannot load an empty result list; Referee gives AP 0 and AR 0."""
    truth = [GroundTruthBox(1, 1, 0.0, 0.0, 50.0, 50.0), GroundTruthBox(1, 2, 0.0, 0.0, 5.0, 5.0)]
    result = coco_ap(truth, [])
    assert result.overall.ap == 0.0
    assert result.overall.ar100 == 0.0
    assert result.overall.ap_large == UNDEFINED
    assert result.per_category[2].ap_small == 0.0


def test_max_dets_must_be_three_increasing_numbers() -> None:
    with pytest.raises(InvalidOptionError):
        coco_ap([], [], max_dets=(10, 1, 100))
    with pytest.raises(InvalidOptionError, match="finite"):
        coco_ap([], [DetectedBox(1, 1, 0.0, 0.0, 1.0, 1.0, float("nan"))])
