"""The IoU rule ``keep-matches`` of the per-frame boxes (docs/measures.md §5): each frame's
true positives are CLEAR MOT's matches, so TP, FP, misses and MODA are TrackEval 1.3.0's
``CLEAR`` ``CLR_TP``, ``CLR_FP``, ``CLR_FN`` and ``MODA``, per sequence and pooled, even
where keeping an identity's match changes the matching."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import trackeval

from referee.core.cli.main import main
from referee.core.errors import InvalidOptionError
from referee.core.measures.boxes import BoxTotals, boxes_from_rows, evaluate_boxes
from referee.core.measures.tracked import tracked_sequence
from tests.core.test_mot_benchmark import _benchmark, _json, _write, trackeval_results
from tests.core.test_tracking_clear_identity import (
    _moving_boxes,
    _tracker_rows,
    _trackeval_data,
    _video,
)

SPLIT = "MOT17-train"
#: Per sequence: its length, ground-truth rows ``frame,id,x`` and tracker rows ``frame,id,x``;
#: every box is 100 × 100 at y = 0, so an IoU is that of the x extents [x, x + 100).
#: On the "crossing" frame, ground truth A = [0, 100), B = [60, 160) and tracker X = [30,
#: 130), Y = [-2, 98): IoU(A,X) = 70/130 = 0.538, IoU(B,X) = 70/130 = 0.538, IoU(A,Y) =
#: 98/102 = 0.961, IoU(B,Y) = 38/162 = 0.235. Alone, the best matching is A–Y, B–X (two
#: TPs); when X was A's match before, CLEAR keeps A–X and B finds nothing (one TP).
CROSSING_GT = [(1, 0), (2, 60)]
CROSSING_TRACKER = [(1, 30), (2, -2)]
SEQUENCES: dict[str, tuple[int, list[tuple[int, int, int]], list[tuple[int, int, int]]]] = {
    # A–X on frame 1 (IoU 0.905), nothing on frame 2, the crossing on frame 3 (A–X kept);
    # frame 4: A–X falls to 48/152 = 0.316, so A–Y (1.0) and B–X (0.852).
    "KEPT": (
        4,
        [(1, 1, 0), *((3, i, x) for i, x in CROSSING_GT), (4, 1, 0), (4, 2, 60)],
        [(1, 1, 5), *((3, i, x) for i, x in CROSSING_TRACKER), (4, 1, 52), (4, 2, 0)],
    ),
    # A–X on frame 1, ground truth alone on frame 2 (a miss that keeps the pair), then the
    # crossing: A–X kept again.
    "ONE-SIDED": (
        3,
        [(1, 1, 0), (2, 1, 0), *((3, i, x) for i, x in CROSSING_GT)],
        [(1, 1, 10), *((3, i, x) for i, x in CROSSING_TRACKER)],
    ),
    # The same boxes, but frame 1's match is tracker 3: nothing to keep, two TPs.
    "NEW-IDS": (
        3,
        [(1, 1, 0), *((3, i, x) for i, x in CROSSING_GT)],
        [(1, 3, 10), *((3, i, x) for i, x in CROSSING_TRACKER)],
    ),
}


def _mot17_folder(root: Path) -> tuple[Path, Path]:
    """TrackEval's layout of :data:`SEQUENCES`, one tracker ``T``."""
    gt, trackers = root / "gt", root / "trackers"
    _write(gt / "seqmaps" / f"{SPLIT}.txt", ["name", *SEQUENCES])
    for name, (length, truth, tracker) in SEQUENCES.items():
        folder = gt / SPLIT / name
        _write(folder / "gt" / "gt.txt", [f"{f},{i},{x},0,100,100,1,1,1" for f, i, x in truth])
        _write(folder / "seqinfo.ini", ["[Sequence]", f"name={name}", f"seqLength={length}"])
        rows = [f"{f},{i},{x},0,100,100,0.9,-1,-1,-1" for f, i, x in tracker]
        _write(trackers / SPLIT / "T" / "data" / f"{name}.txt", rows)
    return gt, trackers


def _clear(gt: Path, trackers: Path, output: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """TrackEval's CLEAR: tracker → sequence (and COMBINED_SEQ) → fields."""
    metric = trackeval.metrics.CLEAR({"THRESHOLD": 0.5, "PRINT_CONFIG": False})
    found = trackeval_results(gt, trackers, output, [metric])
    return {
        tracker: {seq: fields["CLEAR"] for seq, fields in sequences.items()}
        for tracker, sequences in found.items()
    }


def _rows(tracker: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """A tracker's JSON totals per sequence, then pooled under TrackEval's name."""
    return [(v["name"], v["totals"]) for v in tracker["videos"]] + [
        ("COMBINED_SEQ", tracker["overall"])
    ]


def _assert_clear(totals: dict[str, Any], clear: dict[str, Any], where: object) -> None:
    found = (totals["tp"], totals["fp"], totals["misses"])
    assert found == (clear["CLR_TP"], clear["CLR_FP"], clear["CLR_FN"]), where
    assert totals["moda"]["value"] == pytest.approx(clear["MODA"], abs=1e-12), where


def test_keep_matches_gives_trackevals_counts_where_identities_matter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gt, trackers = _mot17_folder(tmp_path)
    theirs = _clear(gt, trackers, tmp_path / "trackeval")["T"]
    # By hand: KEPT 1 + 1 + 2 TPs of 5 boxes, ONE-SIDED 1 + 0 + 1 of 4, NEW-IDS 1 + 2 of 3.
    expected_tp = {"KEPT": 4, "ONE-SIDED": 2, "NEW-IDS": 3, "COMBINED_SEQ": 9}
    assert {name: fields["CLR_TP"] for name, fields in theirs.items()} == expected_tp
    out = tmp_path / "keep.json"
    argv = ["boxes", str(gt), str(trackers), "--json", str(out), "--iou-rule", "keep-matches"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "IoU rule keep-matches" in printed
    ours = json.loads(out.read_text(encoding="utf-8"))
    assert ours["parameters"]["iou_rule"] == "keep-matches"
    [tracker] = ours["trackers"]
    for name, totals in _rows(tracker):
        _assert_clear(totals, theirs[name], name)
    # threshold-then-map ignores identities: two TPs on each crossing, not TrackEval's.
    other = _json(gt, trackers, tmp_path / "t.json", "--iou-rule", "threshold-then-map")
    tp = {name: totals["tp"] for name, totals in _rows(other["trackers"][0])}
    assert tp == {"KEPT": 5, "ONE-SIDED": 3, "NEW-IDS": 3, "COMBINED_SEQ": 11}


def test_the_benchmarks_rule_is_keep_matches(tmp_path: Path, capsys) -> None:
    """Unasked, a MOT17 folder is evaluated under keep-matches, so MODA is CLEAR's MODA;
    the output says so."""
    gt, trackers = _benchmark(tmp_path)
    data = _json(gt, trackers, tmp_path / "b.json")
    printed = capsys.readouterr().out
    assert "IoU rule keep-matches" in printed
    assert "keeping the previous frame's pairs (keep-matches)" in printed
    assert data["parameters"]["iou_rule"] == "keep-matches"
    theirs = _clear(gt, trackers, tmp_path / "trackeval")
    for tracker in data["trackers"]:
        for name, totals in _rows(tracker):
            _assert_clear(totals, theirs[tracker["name"]][name], (tracker["name"], name))


@pytest.mark.parametrize("first", range(0, 60, 6))
def test_random_tracks_give_clears_counts(first: int) -> None:
    """Noisy trackers with swaps, fragments and false positives: per sequence and pooled,
    keep-matches counts CLEAR's TP, FP, FN and MODA (TrackEval's ``eval_sequence`` and
    ``combine_sequences`` on the same sequences)."""
    metric = trackeval.metrics.CLEAR({"THRESHOLD": 0.5, "PRINT_CONFIG": False})
    truths, tracks, theirs = [], [], {}
    for seed in range(first, first + 6):
        rng = np.random.default_rng(seed)
        frames = int(rng.integers(1, 40))
        gt_rows = _moving_boxes(rng, frames, int(rng.integers(1, 7)))
        truth = _video(f"s{seed}", gt_rows)
        track = _video(f"s{seed}", _tracker_rows(rng, gt_rows, frames))
        truths.append(truth)
        tracks.append(track)
        sequence = tracked_sequence(truth, track, range(frames))
        theirs[truth.name] = metric.eval_sequence(_trackeval_data(sequence))
    ours = evaluate_boxes(truths, tracks, iou_rule="keep-matches")
    rows: list[tuple[str, BoxTotals]] = [(v.name, v.totals) for v in ours.videos]
    rows.append(("COMBINED_SEQ", ours.overall))
    theirs["COMBINED_SEQ"] = metric.combine_sequences(dict(theirs))
    for name, totals in rows:
        clear = theirs[name]
        counts = (totals.tp, totals.false_positives, totals.misses)
        assert counts == (clear["CLR_TP"], clear["CLR_FP"], clear["CLR_FN"]), name
        if totals.n_gt:
            assert totals.moda.value == pytest.approx(clear["MODA"], abs=1e-12), name


def test_keep_matches_needs_identities() -> None:
    boxes = [[0, 0, 10, 10], [0, 0, 10, 10]]
    with_ids = boxes_from_rows("v", [1, 2], boxes, ids=[1, 1])
    without = boxes_from_rows("v", [1, 2], boxes)
    with pytest.raises(InvalidOptionError, match="keep-matches follows identities") as error:
        evaluate_boxes(with_ids, without, iou_rule="keep-matches")
    assert "detections of video 'v' have none" in str(error.value)
    twice = boxes_from_rows("v", [1, 1], boxes, ids=[4, 4])
    with pytest.raises(InvalidOptionError, match=r"keep-matches: .*identity 4 on more than one"):
        evaluate_boxes(with_ids, twice, iou_rule="keep-matches")
    # Without identities the other rules stand.
    assert evaluate_boxes(with_ids, without, iou_rule="threshold-then-map").overall.tp == 2


def test_class_aware_keep_matches_matches_one_class_only() -> None:
    """Frame 1: A (class 1) matches X (class 1). Frame 2: X turns class 2 and still covers
    A; Y (class 1) covers A at IoU 0.8. Class-aware, A–X cannot be kept: A–Y."""
    gt = boxes_from_rows("v", [1, 2], [[0, 0, 10, 10]] * 2, ids=[1, 1], labels=[1, 1])
    boxes = [[0, 0, 10, 10], [0, 0, 10, 10], [0, 0, 10, 8]]
    det = boxes_from_rows("v", [1, 2, 2], boxes, ids=[7, 7, 8], labels=[1, 2, 1])
    aware = evaluate_boxes(gt, det, class_aware=True, iou_rule="keep-matches")
    assert [f.tp for f in aware.videos[0].frames] == [((0, 0, 1.0),), ((0, 1, 0.8),)]
    blind = evaluate_boxes(gt, det, iou_rule="keep-matches")
    assert [f.tp for f in blind.videos[0].frames] == [((0, 0, 1.0),), ((0, 0, 1.0),)]
