"""The LIRIS action metric (docs/measures.md §4) on small hand-computed cases, and ``referee actions``."""

from __future__ import annotations

import argparse
import csv
import json
import math

import numpy as np
import pytest

from referee.core.cli import actions as cli_actions
from referee.core.cli import main as cli
from referee.core.errors import CancelledError, InvalidOptionError
from referee.core.measures.action_matching import greedy_match, match_actions, pair_statistics
from referee.core.measures.action_scores import evaluate_actions, operating_point
from referee.core.measures.liris_parameters import DEFAULT_GRID, LirisParameters
from referee.core.model.annotations import Action, AnnotationSet, VideoAnnotation
from referee.core.progress import CancelToken


def act(nr: int, cls: int, first: int, last: int, box: tuple[int, int, int, int]) -> Action:
    """Action ``nr`` of class ``cls`` with the same box on frames ``first..last``."""
    return Action.from_boxes(nr, cls, dict.fromkeys(range(first, last + 1), box))


def aset(**videos: list[Action]) -> AnnotationSet:
    return AnnotationSet(
        {name: VideoAnnotation(name, tuple(actions)) for name, actions in videos.items()}
    )


BOX = (0, 0, 10, 10)  # area 100


# --- pair statistics --------------------------------------------------------------------------


def _frame_by_frame(gt: list[Action], det: list[Action]) -> dict[str, np.ndarray]:
    """Intersection, Area(g|d), Area(d|g), common frames by plain loops over frames."""
    out = {
        k: np.zeros((len(gt), len(det)), dtype=np.int64)
        for k in ("inter", "g_on", "d_on", "common")
    }
    for i, g in enumerate(gt):
        for j, d in enumerate(det):
            for f in range(max(g.first, d.first), min(g.last, d.last) + 1):
                gx, gy, gw, gh = g.box_at(f)
                dx, dy, dw, dh = d.box_at(f)
                w = max(0, min(gx + gw, dx + dw) - max(gx, dx))
                h = max(0, min(gy + gh, dy + dh) - max(gy, dy))
                out["inter"][i, j] += w * h
                out["g_on"][i, j] += gw * gh
                out["d_on"][i, j] += dw * dh
                out["common"][i, j] += 1
    return out


def _random_action(rng: np.random.Generator, nr: int) -> Action:
    first = int(rng.integers(0, 30))
    n = int(rng.integers(1, 25))
    xy = rng.integers(0, 40, size=(n, 2))
    wh = rng.integers(0, 25, size=(n, 2))
    return Action(
        nr, int(rng.integers(1, 11)), np.arange(first, first + n), np.column_stack([xy, wh])
    )


def dense(stats, values: np.ndarray) -> np.ndarray:
    """A per-pair array of ``stats`` as an ``(n_gt, n_det)`` matrix, 0 for pairs not listed."""
    out = np.zeros((len(stats.area_gt), len(stats.area_det)), dtype=np.asarray(values).dtype)
    out[stats.gt, stats.det] = values
    return out


@pytest.mark.parametrize("seed", range(5))
def test_pair_statistics_equal_a_frame_by_frame_count(seed):
    rng = np.random.default_rng(seed)
    gt = [_random_action(rng, k) for k in range(6)]
    det = [_random_action(rng, k) for k in range(7)]
    stats = pair_statistics(gt, det)
    expected = _frame_by_frame(gt, det)
    assert np.array_equal(dense(stats, stats.intersection), expected["inter"])
    assert np.array_equal(dense(stats, stats.area_gt_on_common), expected["g_on"])
    assert np.array_equal(dense(stats, stats.area_det_on_common), expected["d_on"])
    assert np.array_equal(dense(stats, stats.common_frames), expected["common"])
    # Exactly the pairs that share a frame are listed, sorted by (gt, det).
    assert list(zip(stats.gt, stats.det)) == sorted(zip(*np.nonzero(expected["common"])))
    assert list(stats.area_gt) == [int(np.sum(a.boxes[:, 2] * a.boxes[:, 3])) for a in gt]
    assert list(stats.frames_det) == [len(a) for a in det]


def test_intersections_are_the_same_when_computed_in_small_blocks(monkeypatch):
    from referee.core.measures import action_matching as actions

    rng = np.random.default_rng(7)
    gt = [_random_action(rng, k) for k in range(5)]
    det = [_random_action(rng, k) for k in range(5)]
    whole = pair_statistics(gt, det).intersection
    monkeypatch.setattr(actions, "_BLOCK_ELEMENTS", 3)
    assert np.array_equal(pair_statistics(gt, det).intersection, whole)
    assert whole.any()


def test_touching_boxes_do_not_intersect_half_open():
    g = act(1, 1, 1, 4, (0, 0, 10, 10))  # x in [0, 10)
    touching = act(1, 1, 1, 4, (10, 0, 10, 10))  # x in [10, 20): no common pixel
    below = act(2, 1, 1, 4, (0, 10, 10, 10))  # y in [10, 20): no common pixel
    one_column = act(3, 1, 1, 4, (9, 0, 10, 10))  # x in [9, 19): one column, 10 px per frame
    stats = pair_statistics([g], [touching, below, one_column])
    assert dense(stats, stats.intersection).tolist() == [[0, 0, 40]]  # 4 frames × 10 px
    assert dense(stats, stats.overlap()).tolist()[0][:2] == [0.0, 0.0]
    matching = match_actions(aset(v=[g]), aset(v=[touching, below]))
    assert matching.videos[0].assigned == ()


def test_dice_overlap_is_zero_for_zero_areas_and_different_classes():
    empty_g = act(1, 1, 1, 3, (5, 5, 0, 4))  # zero width: area 0
    empty_d = act(1, 1, 1, 3, (5, 5, 4, 0))
    other_class = act(2, 2, 1, 3, BOX)
    g = act(2, 1, 1, 3, BOX)
    stats = pair_statistics([empty_g, g], [empty_d, other_class])
    assert dense(stats, stats.overlap()).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    # Ignoring class, g and other_class are identical: Dice = 2·300 / (300+300) = 1.
    assert dense(stats, stats.overlap(class_aware=False))[1, 1] == 1.0


# --- matching --------------------------------------------------------------------------------


def test_greedy_takes_the_larger_dice_even_when_that_pair_is_vetoed_and_never_rematches():
    g = act(1, 1, 1, 10, BOX)  # area 10 × 100 = 1000
    # d0: same box on frames 1..5. Area 500, ∩ 500, Dice = 1000/1500 = 0.667;
    #     ratios: sr = 500/500 = 1, sp = 1, tr = 5/10 = 0.5, tp = 5/5 = 1.
    d0 = act(1, 1, 1, 5, BOX)
    # d1: box shifted by 7 px on frames 1..10. ∩ = 3·10·10 = 300, Dice = 600/2000 = 0.3;
    #     ratios: sr = sp = 0.3, tr = tp = 1; it would pass at (0.1, 0.1, 0.5, 0.1).
    d1 = act(2, 1, 1, 10, (7, 0, 10, 10))
    matching = match_actions(aset(v=[g]), aset(v=[d0, d1]))
    assert matching.videos[0].assigned == ((0, 0),)
    assert matching.pairs.ratios.tolist() == [[1.0, 1.0, 0.5, 1.0]]
    # At t_tr = 0.5 the pair (g, d0) is vetoed (0.5 is not > 0.5); d1 stays unassigned.
    vetoed = operating_point(matching, (0.1, 0.1, 0.5, 0.1))
    assert (vetoed.assigned, vetoed.accepted) == (1, 0)
    assert vetoed.recall.value == 0.0 and vetoed.precision.value == 0.0
    assert vetoed.f.value == 0.0
    # At ε the pair is accepted: R = 1/1, P = 1/2, F = 2/3.
    at_eps = operating_point(matching, (0.1,) * 4)
    assert (at_eps.recall.value, at_eps.precision.value) == (1.0, 0.5)
    assert at_eps.f.value == pytest.approx(2 / 3)


def test_ties_go_to_the_lowest_gt_index_then_the_lowest_detection_index():
    left = act(1, 1, 1, 10, (0, 0, 10, 10))
    right = act(2, 1, 1, 10, (10, 0, 10, 10))
    wide = act(1, 1, 1, 10, (0, 0, 20, 10))  # ∩ 1000 with each; Dice = 2000/3000 with each
    # One detection, two GT actions at equal Dice: GT index 0 wins, whichever box it is.
    assert match_actions(aset(v=[left, right]), aset(v=[wide])).videos[0].assigned == ((0, 0),)
    assert match_actions(aset(v=[right, left]), aset(v=[wide])).videos[0].assigned == ((0, 0),)
    # One GT action, two detections at equal Dice: detection index 0 wins.
    assert match_actions(aset(v=[wide]), aset(v=[right, left])).videos[0].assigned == ((0, 0),)
    # Equal maxima at (0, 1) and (1, 0): the lower GT index is taken first.
    overlap = np.array([[0.2, 0.8, 0.0], [0.8, 0.0, 0.5]])
    assert greedy_match(overlap) == ((0, 1), (1, 0))
    # Equal maxima in one row, (1, 0) and (1, 2): the lower detection index; then row 0
    # takes its best remaining column 1 (0.3), not column 0.
    overlap = np.array([[0.1, 0.3, 0.0], [0.9, 0.0, 0.9]])
    assert greedy_match(overlap) == ((1, 0), (0, 1))


def test_greedy_match_stops_at_zero_overlap():
    assert greedy_match(np.zeros((2, 3))) == ()
    assert greedy_match(np.zeros((0, 3))) == ()
    assert greedy_match(np.array([[0.0, 0.4], [0.0, 0.6]])) == ((1, 1),)


# --- acceptance ------------------------------------------------------------------------------


def test_a_ratio_equal_to_its_threshold_fails_the_strict_test():
    g = act(1, 1, 1, 10, BOX)
    half = act(1, 1, 1, 5, BOX)  # temporal recall 5/10 = 0.5 exactly
    evaluation = evaluate_actions(aset(v=[g]), aset(v=[half]), LirisParameters(epsilon=0.5))
    (row,) = evaluation.pairs
    assert row.temporal_recall == 0.5
    assert (row.outcome, row.failed) == ("vetoed", ("temporal recall",))
    assert evaluation.overall.point.accepted == 0
    # Spatial recall 300/1000 = 0.3 against the grid value 3/10: fails at 0.3, passes at 0.2.
    shifted = act(1, 1, 1, 10, (7, 0, 10, 10))
    curves = evaluate_actions(aset(v=[g]), aset(v=[shifted])).overall.curves
    sr = list(curves.accepted[0])
    assert sr == [1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]  # accepted iff 0.3 > t, t = 0, 0.1, ..., 1


def test_class_mismatch_is_not_matched_but_counts_in_the_confusion_matrix():
    g = act(1, 1, 1, 10, BOX)  # class 1 DI
    d = act(1, 2, 1, 10, BOX)  # class 2 GI, identical boxes
    evaluation = evaluate_actions(aset(v=[g]), aset(v=[d]))
    assert evaluation.matching.videos[0].assigned == ()
    assert evaluation.matching.videos[0].assigned_any_class == ((0, 0),)
    point = evaluation.overall.point
    assert (point.accepted, point.missed, point.false_alarms) == (0, 1, 1)
    assert point.f.value == 0.0
    assert [r.outcome for r in evaluation.pairs] == ["miss", "false alarm"]
    counts = evaluation.confusion.counts
    assert counts[0, 1] == 1 and counts.sum() == 1  # row class 1, column class 2
    assert evaluation.confusion.percentages[0, 1] == 100.0
    assert np.isnan(evaluation.confusion.percentages[1]).all()


def test_videos_present_in_only_one_set_are_misses_or_false_alarms():
    gt = aset(a=[act(1, 1, 1, 10, BOX)], c=[act(1, 3, 1, 10, BOX)])
    det = aset(a=[act(1, 1, 1, 10, BOX)], b=[act(1, 1, 1, 10, BOX), act(2, 4, 1, 10, BOX)])
    evaluation = evaluate_actions(gt, det)
    assert evaluation.matching.names == ("a", "c", "b")
    point = evaluation.overall.point
    # 1 accepted of 2 GT actions and of 3 detections: R = 1/2, P = 1/3, F = 2/5.
    assert (point.recall.value, point.precision.value) == (0.5, pytest.approx(1 / 3))
    assert point.f.value == pytest.approx(0.4)
    only_det = evaluation.per_video["b"].point
    assert math.isnan(only_det.recall.value) and "no ground-truth" in only_det.recall.reason
    assert (only_det.precision.value, only_det.f.value, only_det.false_alarms) == (0.0, 0.0, 2)
    only_gt = evaluation.per_video["c"].point
    assert math.isnan(only_gt.precision.value) and "no detected" in only_gt.precision.reason
    assert (only_gt.recall.value, only_gt.f.value, only_gt.missed) == (0.0, 0.0, 1)
    assert [(r.video, r.outcome) for r in evaluation.pairs] == [
        ("a", "accepted"),
        ("c", "miss"),
        ("b", "false alarm"),
        ("b", "false alarm"),
    ]


def test_empty_detections_give_undefined_precision_zero_recall_and_zero_f():
    gt = aset(v=[act(1, 1, 1, 10, BOX), act(2, 5, 1, 10, (50, 50, 10, 10))])
    for det in (AnnotationSet({}), aset(v=[])):
        evaluation = evaluate_actions(gt, det)
        point = evaluation.overall.point
        assert math.isnan(point.precision.value)
        assert point.precision.reason == "undefined: no detected action"
        assert (point.recall.value, point.f.value) == (0.0, 0.0)
        assert all(v.value == 0.0 for v in evaluation.overall.integrals.values())
        assert evaluation.overall.final.value == 0.0
    nothing = evaluate_actions(AnnotationSet({}), AnnotationSet({})).overall
    assert math.isnan(nothing.point.f.value) and math.isnan(nothing.final.value)
    assert nothing.final.reason == "undefined: no ground-truth and no detected action"


# --- integrated measures ---------------------------------------------------------------------


def test_integrated_measure_is_the_mean_of_eleven_f_values():
    # Four videos, each one GT action on frames 1..20 and one detection with the same box
    # on frames 1..k: temporal recall k/20 = 0.15, 0.35, 0.55, 0.95; all other ratios 1.
    # A fifth video has one false alarm: 4 GT actions, 5 detections, F = 2A/9.
    gt, det = {}, {}
    for v, k in enumerate((3, 7, 11, 19)):
        gt[f"v{v}"] = [act(1, 1, 1, 20, BOX)]
        det[f"v{v}"] = [act(1, 1, 1, k, BOX)]
    det["fa"] = [act(1, 1, 1, 20, BOX)]
    evaluation = evaluate_actions(aset(**gt), aset(**det))
    # Accepted A(t) = #{ratio > t} for t = 0, .1, ..., 1: 4 4 3 3 2 2 1 1 1 1 0 (sum 22).
    tr = evaluation.overall.curves
    assert tr.accepted[2].tolist() == [4, 4, 3, 3, 2, 2, 1, 1, 1, 1, 0]
    assert evaluation.overall.integrals["tr"].value == pytest.approx(2 * 22 / (9 * 11))  # 4/9
    # The other three ratios are 1: A = 4 for t = 0..0.9, 0 at t = 1 → mean F = 10·(8/9)/11.
    for key in ("sr", "sp", "tp"):
        assert evaluation.overall.integrals[key].value == pytest.approx(80 / 99)
    assert evaluation.overall.final.value == pytest.approx((4 / 9 + 3 * 80 / 99) / 4)
    # Curves: precision = A/5, recall = A/4 at every grid value.
    assert tr.precision[2].tolist() == pytest.approx([a / 5 for a in tr.accepted[2]])
    assert tr.recall[2].tolist() == pytest.approx([a / 4 for a in tr.accepted[2]])


def test_grid_is_built_as_i_over_10_and_parameters_are_checked():
    assert tuple(i / 10 for i in range(11)) == DEFAULT_GRID
    assert DEFAULT_GRID[3] == 0.3 and DEFAULT_GRID[7] == 0.7  # not 0.30000000000000004
    assert LirisParameters().point_thresholds().shape == (45, 4)
    for bad in (
        {"epsilon": 1.5},
        {"epsilon": -0.1},
        {"epsilon": math.nan},
        {"grid": ()},
        {"grid": (0.0, 2.0)},
    ):
        with pytest.raises(InvalidOptionError):
            LirisParameters(**bad)


# --- confusion matrix and pair table ---------------------------------------------------------


def test_confusion_matrix_counts_accepted_class_agnostic_pairs_with_row_percentages():
    def far(k: int) -> tuple[int, int, int, int]:
        return (100 * k, 0, 10, 10)

    gt = aset(
        v=[
            act(1, 1, 1, 10, far(0)),
            act(2, 1, 1, 10, far(1)),
            act(3, 1, 1, 10, far(2)),
            act(4, 3, 1, 10, far(3)),
            act(5, 5, 1, 20, far(4)),
        ]
    )
    det = aset(
        v=[
            act(1, 1, 1, 10, far(0)),
            act(2, 1, 1, 10, far(1)),
            act(3, 2, 1, 10, far(2)),
            act(4, 3, 1, 10, far(3)),
            act(5, 5, 20, 20, far(4)),
        ]
    )  # class 5: 1 common frame of 20: tr 0.05, vetoed
    confusion = evaluate_actions(gt, det).confusion
    assert confusion.counts[0, 0] == 2 and confusion.counts[0, 1] == 1  # class 1 → 1, 1, 2
    assert confusion.counts[2, 2] == 1
    assert confusion.counts.sum() == 4  # vetoed pair absent
    assert confusion.percentages[0, :2].tolist() == pytest.approx([200 / 3, 100 / 3])
    assert confusion.percentages[2, 2] == 100.0
    assert np.isnan(confusion.percentages[4]).all()  # class 5: empty row


def test_pair_table_lists_every_failing_criterion():
    g0 = act(1, 4, 1, 20, BOX)
    d0 = act(7, 4, 20, 39, BOX)  # 1 common frame: tr = 1/20, tp = 1/20; sr = sp = 1
    g1 = act(2, 1, 1, 10, (200, 0, 10, 10))
    d1 = act(8, 1, 1, 10, (200, 0, 10, 10))
    g2 = act(3, 2, 1, 10, (400, 0, 10, 10))
    d2 = act(9, 6, 1, 10, (600, 0, 10, 10))
    rows = evaluate_actions(aset(v=[g0, g1, g2]), aset(v=[d0, d1, d2])).pairs
    assert [(r.outcome, r.gt_number, r.det_number) for r in rows] == [
        ("vetoed", 1, 7),
        ("accepted", 2, 8),
        ("miss", 3, None),
        ("false alarm", None, 9),
    ]
    vetoed = rows[0]
    assert vetoed.failed == ("temporal recall", "temporal precision")
    assert (vetoed.temporal_recall, vetoed.temporal_precision) == (0.05, 0.05)
    assert (vetoed.spatial_recall, vetoed.spatial_precision) == (1.0, 1.0)
    assert vetoed.dice == pytest.approx(2 * 100 / (2000 + 2000))
    assert (vetoed.gt_class, vetoed.det_class) == (4, 4)
    assert rows[1].failed == () and rows[1].dice == 1.0
    assert math.isnan(rows[2].dice) and rows[3].det_class == 6


# --- pooling, progress, cancellation ---------------------------------------------------------


def test_overall_values_pool_actions_not_average_videos():
    gt = aset(
        a=[act(1, 1, 1, 10, BOX)], b=[act(k, 1, 1, 10, (20 * k, 0, 10, 10)) for k in range(1, 4)]
    )
    det = aset(a=[act(1, 1, 1, 10, BOX)], b=[])
    evaluation = evaluate_actions(gt, det)
    # Pooled recall 1/4; the mean of per-video recalls would be (1 + 0)/2.
    assert evaluation.overall.point.recall.value == 0.25
    assert evaluation.per_video["a"].point.recall.value == 1.0


def test_progress_is_reported_per_video_and_cancel_stops():
    gt = aset(a=[act(1, 1, 1, 3, BOX)], b=[act(1, 1, 1, 3, BOX)])
    calls: list[tuple[int, int]] = []
    evaluate_actions(gt, gt, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 2), (2, 2)]
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        evaluate_actions(gt, gt, cancel=token)


# --- command line ----------------------------------------------------------------------------


@pytest.fixture
def referee_main(monkeypatch):
    """``cli.main`` with the ``actions`` command registered (if the lead has not yet)."""
    build = cli.build_parser

    def build_with_actions() -> argparse.ArgumentParser:
        parser = build()
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        if "actions" not in commands.choices:
            cli_actions.add_commands(commands)
        return parser

    monkeypatch.setattr(cli, "build_parser", build_with_actions)
    return cli.main


def test_cli_prints_scores_and_writes_json_csv_and_curves(referee_main, tmp_path, capsys):
    from referee.core.formats.liris_xml_writer import write_liris

    gt = aset(v=[act(1, 1, 1, 10, BOX), act(2, 3, 1, 10, (50, 0, 10, 10))])
    det = aset(v=[act(1, 1, 1, 5, BOX), act(2, 4, 1, 10, (300, 0, 10, 10))])
    write_liris(tmp_path / "gt.xml", gt)
    write_liris(tmp_path / "det.xml", det)
    out = [tmp_path / name for name in ("r.json", "pairs.csv", "curves.csv")]
    status = referee_main(
        [
            "actions",
            str(tmp_path / "gt.xml"),
            str(tmp_path / "det.xml"),
            "--json",
            str(out[0]),
            "--csv",
            str(out[1]),
            "--curves",
            str(out[2]),
            "--quiet",
        ]
    )
    assert status == 0
    printed = capsys.readouterr().out
    assert "I_tr (temporal recall)" in printed and "Final score" in printed
    assert "accepted        1" in printed and "false alarms    1" in printed
    result = json.loads(out[0].read_text())
    assert result["overall"]["at_epsilon"]["f"]["value"] == 0.5  # R = P = 1/2
    assert result["overall"]["integrals"]["tr"]["value"] == pytest.approx(5 / 11 * 0.5)
    with out[1].open(newline="") as handle:
        pairs = list(csv.DictReader(handle))
    assert [p["outcome"] for p in pairs] == ["accepted", "miss", "false alarm"]
    with out[2].open(newline="") as handle:
        curves = list(csv.DictReader(handle))
    assert len(curves) == 2 * 4 * 11  # overall and one video, 4 thresholds, 11 values
    # An existing output without --force is a user error (exit 2), and so is a bad ε.
    assert (
        referee_main(
            [
                "actions",
                str(tmp_path / "gt.xml"),
                str(tmp_path / "det.xml"),
                "--json",
                str(out[0]),
                "--quiet",
            ]
        )
        == cli.EXIT_USER_ERROR
    )
    assert (
        referee_main(
            [
                "actions",
                str(tmp_path / "gt.xml"),
                str(tmp_path / "det.xml"),
                "--epsilon",
                "2",
                "--quiet",
            ]
        )
        == cli.EXIT_USER_ERROR
    )
    assert (
        referee_main(
            ["actions", str(tmp_path / "missing.xml"), str(tmp_path / "det.xml"), "--quiet"]
        )
        == cli.EXIT_USER_ERROR
    )
