"""Per-frame disagreement and the diverse ranking of frames to annotate (docs/measures.md §8)."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.errors import CancelledError, InvalidOptionError, MissingFrameError
from referee.core.formats.annotated import annotated_frames
from referee.core.formats.cdnet import load_video
from referee.core.frames.sources import CdnetResultSource
from referee.core.measures.boxes import FrameBoxes, boxes_from_rows
from referee.core.model.annotations import Action, AnnotationSet, VideoAnnotation
from referee.core.progress import CancelToken
from referee.core.ranking.choices import (
    CLASSES,
    PAIRWISE_DICE,
    PAIRWISE_FDA,
    PSEUDO_GAP,
    VOTE_ENTROPY,
)
from referee.core.ranking.criteria import (
    FrameScores,
    class_disagreement,
    dice_disagreement,
    fda_disagreement,
    pseudo_f1_gap,
    score_mask_frames,
    vote_entropy,
)
from referee.core.ranking.order import rank_frames
from referee.core.ranking.scores import (
    box_frame_scores,
    box_scores,
    class_frame_scores,
    class_scores,
    mask_frame_scores,
)

H_THIRD = -(1 / 3 * math.log2(1 / 3) + 2 / 3 * math.log2(2 / 3))  # 0.9183 bits


def _masks(*rows: str) -> list[np.ndarray]:
    """One 1-row uint8 mask per string of 0/1 (255 where '1')."""
    return [np.array([[255 if c == "1" else 0 for c in row]], dtype=np.uint8) for row in rows]


# --- vote entropy --------------------------------------------------------------------------


def test_vote_entropy_by_hand_on_two_frames_of_three_detectors() -> None:
    # Frame 1, four pixels: votes 1/3, 0/3, 3/3, 2/3 -> (H(1/3) + 0 + 0 + H(2/3)) / 4.
    # Frame 2: the detectors agree everywhere -> 0.
    frame1 = _masks("1011", "0010", "0011")
    frame2 = _masks("0110", "0110", "0110")
    result = score_mask_frames([(1, frame1), (2, frame2)], ["a", "b", "c"])
    assert result.criterion == VOTE_ENTROPY and result.methods == ("a", "b", "c")
    assert result.frames.tolist() == [1, 2]
    assert pytest.approx(0.9183, abs=1e-4) == H_THIRD
    # With the trivial classifiers a 1-of-3 vote would be 2/5 (H = 0.971): not used here.
    assert result.scores[0] == pytest.approx(2 * H_THIRD / 4, abs=1e-12)
    assert result.scores[1] == 0.0


def test_vote_entropy_counts_roi_pixels_only() -> None:
    masks = _masks("1011", "0010", "0011")
    roi = np.array([[True, True, False, False]])  # pixels with votes 1/3 and 0/3
    assert vote_entropy([m != 0 for m in masks], roi) == pytest.approx(H_THIRD / 2)
    assert vote_entropy(masks) == pytest.approx(H_THIRD / 2)  # whole frame: 2 of 4 pixels
    with pytest.raises(InvalidOptionError, match="at least two"):
        vote_entropy(masks[:1])
    with pytest.raises(InvalidOptionError, match="empty"):
        vote_entropy(masks, np.zeros((1, 4), dtype=bool))


def test_threshold_decides_what_a_detection_is() -> None:
    soft = [np.array([[254, 200, 199]], dtype=np.uint8), np.array([[255, 0, 0]], dtype=np.uint8)]
    exact = score_mask_frames([(1, soft)], ["a", "b"], PAIRWISE_DICE)
    assert exact.scores[0] == 1.0  # 254 is not 255: a is empty, b is not
    soft_rule = score_mask_frames([(1, soft)], ["a", "b"], PAIRWISE_DICE, threshold=200)
    assert soft_rule.scores[0] == pytest.approx(1 - 2 / 3)  # a = {254, 200}, b = {255}


# --- pairwise 1 - Dice ---------------------------------------------------------------------


def test_pairwise_dice_by_hand() -> None:
    a, b = _masks("111000", "001100")  # |A| = 3, |B| = 2, |A∩B| = 1 -> Dice 2/5
    assert dice_disagreement(a, b) == pytest.approx(0.6)
    empty = np.zeros((1, 6), dtype=np.uint8)
    assert dice_disagreement(empty, empty) == 0.0  # both empty: agreement, not undefined
    assert dice_disagreement(a, empty) == 1.0
    roi = np.array([[False, False, True, True, False, False]])
    assert dice_disagreement(a, b, roi) == pytest.approx(1 - 2 * 1 / 3)
    result = score_mask_frames(
        [(5, _masks("111000", "001100", "111111"))], ["x", "y", "z"], PAIRWISE_DICE, pair=("z", "y")
    )
    assert result.methods == ("z", "y") and result.label == "pairwise-dice: z vs y"
    assert result.scores[0] == pytest.approx(1 - 2 * 2 / 8)


# --- pseudo-F1 gap -------------------------------------------------------------------------


def test_pseudo_gap_on_the_seed_table() -> None:
    # docs/measures.md §7 table: P = .8 .8 .4 .4 .4 .4 .2 from S_1, S_2, S_3 and the trivial pair.
    # Pseudo-F1 = 2 ΣSP / (ΣS + ΣP): S_1 4.8/7.4, S_2 4/6.4, S_3 4/6.4.
    masks = _masks("1101100", "1110000", "1100010")
    assert pseudo_f1_gap(masks, 0, 1) == pytest.approx(4.8 / 7.4 - 4 / 6.4, abs=1e-12)
    assert pseudo_f1_gap(masks, 1, 2) == pytest.approx(0.0, abs=1e-12)
    result = score_mask_frames([(1, masks)], ["S1", "S2", "S3"], PSEUDO_GAP, pair=("S2", "S1"))
    assert result.committee == ("S1", "S2", "S3") and result.methods == ("S2", "S1")
    assert result.scores[0] == pytest.approx(4.8 / 7.4 - 4 / 6.4, abs=1e-12)


# --- boxes: 1 - FDA ------------------------------------------------------------------------


def test_pairwise_fda_by_hand() -> None:
    a = FrameBoxes(np.array([[0, 0, 10, 10]]))
    b = FrameBoxes(np.array([[5, 0, 10, 10]]))  # IoU 50 / 150 = 1/3
    assert fda_disagreement(a, b) == pytest.approx(1 - 1 / 3)
    b2 = FrameBoxes(np.array([[5, 0, 10, 10], [50, 50, 5, 5]]))  # FDA = (1/3) / 1.5
    assert fda_disagreement(a, b2) == pytest.approx(1 - 2 / 9)
    empty = FrameBoxes(np.zeros((0, 4)))
    assert fda_disagreement(empty, empty) == 0.0
    assert fda_disagreement(a, empty) == 1.0

    video_a = boxes_from_rows("v", [2, 4], [[0, 0, 10, 10], [0, 0, 10, 10]])
    video_b = boxes_from_rows("v", [2, 5], [[5, 0, 10, 10], [0, 0, 10, 10]])
    result = box_frame_scores(video_a, video_b, ("A", "B"))
    assert result.criterion == PAIRWISE_FDA and result.label == "pairwise-fda: A vs B"
    # Default frames: those with a box on either side; frame 3 has none, so it is not listed.
    assert result.frames.tolist() == [2, 4, 5]
    assert result.scores.tolist() == pytest.approx([2 / 3, 1.0, 1.0])
    only_a = boxes_from_rows("w", [7], [[0, 0, 3, 3]])
    videos = box_scores([video_a, only_a], [video_b], ("A", "B"))
    assert [v.video for v in videos] == ["v", "w"]
    assert videos[1].scores.tolist() == [1.0]


# --- action classes ------------------------------------------------------------------------


def _action(number: int, cls: int, first: int, last: int) -> Action:
    return Action.from_boxes(number, cls, dict.fromkeys(range(first, last + 1), (0, 0, 5, 5)))


def test_class_disagreement_by_hand() -> None:
    assert class_disagreement([{4, 5}, {4}, {4, 7}]) == pytest.approx(1 - 1 / 3)
    assert class_disagreement([set(), set()]) == 0.0
    assert class_disagreement([{4}, set()]) == 1.0
    d1 = VideoAnnotation("v", (_action(1, 4, 10, 12), _action(2, 5, 12, 12)))
    d2 = VideoAnnotation("v", (_action(1, 4, 11, 12),))
    d3 = VideoAnnotation("v", (_action(1, 4, 12, 12), _action(2, 7, 12, 15)))
    result = class_frame_scores([d1, d2, d3], ["d1", "d2", "d3"])
    assert result.criterion == CLASSES and result.frames.tolist() == list(range(10, 16))
    # 10: {4},{},{} -> 1; 11: {4},{4},{} -> 1 - 0/1; 12: {4,5},{4},{4,7} -> 2/3; 13-15: {},{},{7}.
    assert result.scores.tolist() == pytest.approx([1, 1, 2 / 3, 1, 1, 1])
    agree = class_frame_scores([d2, d2], ["x", "y"], frames=[1, 11, 12])
    assert agree.scores.tolist() == [0.0, 0.0, 0.0]  # frame 1: nobody has anything
    sets = {
        "d1": AnnotationSet.from_videos([d1]),
        "d2": AnnotationSet.from_videos([d2, VideoAnnotation("w", (_action(1, 8, 3, 3),))]),
    }
    by_video = class_scores(sets)
    assert [s.video for s in by_video] == ["v", "w"]
    assert by_video[1].scores.tolist() == [1.0]  # only d2 has video w


# --- ranking -------------------------------------------------------------------------------


def _scores(values: dict[int, float], n: int = 30, video: str = "v") -> FrameScores:
    frames = np.arange(1, n + 1)
    return FrameScores(
        video, VOTE_ENTROPY, ("a", "b"), frames, np.array([values.get(int(f), 0.0) for f in frames])
    )


def test_ties_go_to_the_lower_frame() -> None:
    scores = FrameScores("v", VOTE_ENTROPY, ("a", "b"), [1, 2, 3, 4], [0.5, 0.9, 0.5, 0.9])
    ranked = rank_frames(scores, gap=0)
    assert [(r.rank, r.frame, r.score) for r in ranked] == [
        (1, 2, 0.9),
        (2, 4, 0.9),
        (3, 1, 0.5),
        (4, 3, 0.5),
    ]
    assert all(r.criterion == "vote-entropy" and r.video == "v" for r in ranked)


def test_gap_suppresses_frames_at_distance_gap_but_not_gap_plus_one() -> None:
    scores = _scores({10: 1.0, 15: 0.9, 5: 0.85, 16: 0.8, 4: 0.7})
    ranked = rank_frames(scores, gap=5)
    # 15 and 5 are exactly 5 from 10: dropped. 16 and 4 are 6 away: kept. Then the zeros.
    assert [r.frame for r in ranked] == [10, 16, 4, 22, 28]
    assert [r.rank for r in ranked] == [1, 2, 3, 4, 5]
    assert [r.frame for r in rank_frames(scores, gap=0)][:5] == [10, 15, 5, 16, 4]


def test_excluded_frames_are_skipped_and_suppress_nothing() -> None:
    scores = _scores({10: 1.0, 15: 0.9, 5: 0.85, 16: 0.8, 4: 0.7})
    ranked = rank_frames(scores, gap=5, exclude={10})
    assert [r.frame for r in ranked][:2] == [15, 5]  # 10 never chosen, so 5 survives
    assert 10 not in [r.frame for r in ranked]


def test_top_n_and_several_videos() -> None:
    scores = _scores({10: 1.0, 15: 0.9, 5: 0.85, 16: 0.8, 4: 0.7})
    assert [r.frame for r in rank_frames(scores, gap=5, top=2)] == [10, 16]
    other = _scores({12: 0.95, 2: 0.95}, video="w")
    ranked = rank_frames([scores, other], gap=5, exclude={"w": {2}}, top=4)
    # Suppression acts within a video: w's frame 12 is near v's 10 but survives.
    assert [(r.video, r.frame) for r in ranked] == [("v", 10), ("w", 12), ("v", 16), ("v", 4)]


def test_rank_frames_rejects_bad_options() -> None:
    scores = _scores({})
    with pytest.raises(InvalidOptionError, match="gap"):
        rank_frames(scores, gap=-1)
    with pytest.raises(InvalidOptionError, match="top"):
        rank_frames(scores, top=0)
    with pytest.raises(InvalidOptionError, match="finite"):
        FrameScores("v", VOTE_ENTROPY, ("a",), [1], [math.nan])


# --- streaming from files ------------------------------------------------------------------


def _write_video(
    root: Path, masks: dict[str, list[np.ndarray]], gt_frames: set[int], roi: np.ndarray
) -> Path:
    video = root / "dataset" / "cat" / "vid"
    (video / "groundtruth").mkdir(parents=True)
    n = len(next(iter(masks.values())))
    (video / "temporalROI.txt").write_text(f"1 {n}\n")
    cv2.imwrite(str(video / "ROI.bmp"), roi.astype(np.uint8) * 255)
    for i in gt_frames:
        cv2.imwrite(str(video / "groundtruth" / f"gt{i:06d}.png"), np.zeros_like(roi, np.uint8))
    for method, frames in masks.items():
        folder = root / "results" / method / "cat" / "vid"
        folder.mkdir(parents=True)
        for i, mask in enumerate(frames, start=1):
            cv2.imwrite(str(folder / f"bin{i:06d}.png"), mask)
    return video


def test_mask_frame_scores_stream_files_with_roi(tmp_path: Path) -> None:
    frames = {"a": _masks("1011", "0110"), "b": _masks("0010", "0110"), "c": _masks("0011", "0110")}
    roi = np.array([[1, 1, 1, 0]], dtype=bool)
    folder = _write_video(tmp_path, frames, {2}, roi)
    (tmp_path / "results" / "c" / "cat" / "vid" / "bin000002.png").unlink()
    video = load_video(folder, "cat", require_groundtruth=False)
    sources = {m: CdnetResultSource.for_video(tmp_path / "results" / m, video) for m in frames}
    assert set(annotated_frames(video)) == {2}
    # Pairwise reads only the two compared detectors, so c's missing frame 2 is harmless.
    pair = mask_frame_scores(video, sources, PAIRWISE_DICE, pair=("a", "b"))
    assert pair.video == "cat/vid" and pair.frames.tolist() == [1, 2]
    assert pair.scores.tolist() == pytest.approx([1 - 2 * 1 / 3, 0.0])
    seen: list[tuple[int, int]] = []
    first = mask_frame_scores(video, sources, frames=[1], progress=lambda d, t: seen.append((d, t)))
    assert first.scores[0] == pytest.approx(H_THIRD / 3)  # ROI: votes 1/3, 0/3, 3/3
    assert seen == [(1, 1)]
    with pytest.raises(MissingFrameError, match="bin000002"):
        mask_frame_scores(video, sources)
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        mask_frame_scores(video, sources, frames=[1], cancel=token)


def test_annotated_frames_lists_ground_truth_files_only(tmp_path: Path) -> None:
    folder = tmp_path / "vid"
    (folder / "input").mkdir(parents=True)
    video = load_video(folder, require_groundtruth=False)
    assert not annotated_frames(video)  # no groundtruth/ folder at all
    (folder / "groundtruth").mkdir()
    for name in (
        "gt000003.png",
        "gt000010.png",
        "gt000004.png.bak",
        "gt12.png",
        "bin000005.png",
        "gt000006.jpg",
    ):
        (folder / "groundtruth" / name).write_bytes(b"")  # listed, never decoded
    assert set(annotated_frames(video)) == {3, 10}
