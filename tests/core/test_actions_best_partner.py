"""The LIRIS matching's two readings (docs/measures.md §4): one-to-one (the default) and
best-partner, on cases built so that they differ; every expected value is worked out by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from referee.core.errors import InvalidOptionError
from referee.core.formats.liris_xml_writer import write_liris
from referee.core.measures.action_scores import evaluate_actions
from referee.core.measures.liris_parameters import LirisParameters
from referee.core.model.annotations import Action
from referee.core.model.project import DetectorSource, Project
from referee.core.report.build import build_report
from referee.core.report.document import Paragraph, Report
from referee.core.report.options import ReportOptions
from referee.core.workflow.options import ActionOptions, AnalysisOptions
from tests.core.test_actions import act, aset

ONE = LirisParameters()
BEST = LirisParameters(matching="best-partner")


def side_by_side(n: int) -> tuple[list[Action], list[Action]]:
    """``n`` ground-truth actions side by side (10×10 boxes, frames 1–10) under one detection
    covering all of them, one more ground-truth action and two more detections far away.

    Each pair (ground truth k, the wide detection) has O = 2·1000 / (1000 + n·1000) > 0 and
    passes every test at ε = 0.1: spatial recall 100/100, spatial precision 100/(n·100),
    temporal recall and precision 10/10. The wide detection's partner is ground truth 1
    (all tie; the lowest index wins).
    """
    gt = [act(k + 1, 1, 1, 10, (10 * k, 0, 10, 10)) for k in range(n)]
    gt.append(act(n + 1, 1, 1, 10, (200, 200, 10, 10)))
    det = [
        act(1, 1, 1, 10, (0, 0, 10 * n, 10)),
        act(2, 1, 1, 10, (100, 100, 10, 10)),
        act(3, 1, 1, 10, (300, 300, 10, 10)),
    ]
    return gt, det


def competing() -> tuple[list[Action], list[Action]]:
    """A ground-truth action whose best partner is vetoed, while one-to-one finds it another.

    Box B = (0, 0, 10, 10), area 100. g0: B on frames 1–20; g1: B on frame 5 only.
    d0: B on frames 1–20; d1: (0, 0, 30, 30), area 900, on frames 5–13 (9 frames).

    O(g0, d0) = 1; O(g0, d1) = 2·900 / (2000 + 8100) ≈ 0.178;
    O(g1, d0) = 2·100 / (100 + 2000) ≈ 0.095; O(g1, d1) = 2·100 / (100 + 8100) ≈ 0.024.
    (g1, d0) fails temporal precision (1/20); (g1, d1) passes (sp 100/900, tp 1/9 > 0.1);
    (g0, d1) passes (sr 900/900, sp 900/8100 ≈ 0.111, tr 9/20, tp 9/9).
    """
    box = (0, 0, 10, 10)
    gt = [act(1, 1, 1, 20, box), act(2, 1, 5, 5, box)]
    det = [act(1, 1, 1, 20, box), act(2, 1, 5, 13, (0, 0, 30, 30))]
    return gt, det


def rpf(params: LirisParameters, gt: list[Action], det: list[Action]) -> tuple[float, ...]:
    point = evaluate_actions(aset(v=gt), aset(v=det), params).overall.point
    return point.recall.value, point.precision.value, point.f.value


def test_a_detection_covering_two_actions_counts_for_both_only_best_partner() -> None:
    gt, det = side_by_side(2)
    # One-to-one: (g1, wide) is the only pair; 1 of 3 ground truths, 1 of 3 detections.
    assert rpf(ONE, gt, det) == pytest.approx((1 / 3, 1 / 3, 1 / 3), abs=1e-15)
    # Best-partner: g1 and g2 both have the wide detection as partner, accepted: R = 2/3;
    # the wide detection's partner is g1, accepted; the two far ones have none: P = 1/3.
    # F = 2·(2/3)(1/3) / (2/3 + 1/3) = 4/9.
    assert rpf(BEST, gt, det) == pytest.approx((2 / 3, 1 / 3, 4 / 9), abs=1e-15)
    point = evaluate_actions(aset(v=gt), aset(v=det), BEST).overall.point
    assert (point.assigned, point.accepted, point.missed) == (2, 2, 1)
    assert (point.det_assigned, point.det_accepted, point.false_alarms) == (1, 1, 2)


def test_a_vetoed_best_partner_is_missed_even_where_one_to_one_finds_another() -> None:
    gt, det = competing()
    # One-to-one: (g0, d0) at O = 1 first, then (g1, d1) (g0 and d0 are taken): both accepted.
    assert rpf(ONE, gt, det) == (1.0, 1.0, 1.0)
    # Best-partner: g0 -> d0 accepted, g1 -> d0 vetoed (temporal precision): R = 1/2;
    # d0 -> g0 accepted, d1 -> g0 accepted: P = 1; F = 2·(1/2)·1 / (3/2) = 2/3.
    assert rpf(BEST, gt, det) == pytest.approx((0.5, 1.0, 2 / 3), abs=1e-15)
    rows = [
        (r.outcome, r.gt_index, r.det_index, r.failed)
        for r in evaluate_actions(aset(v=gt), aset(v=det), BEST).pairs
    ]
    assert rows == [
        ("accepted", 0, 0, ()),
        ("vetoed", 1, 0, ("temporal precision",)),
        ("accepted", 0, 1, ()),  # d1's pair, not listed among the ground truths' pairs
    ]


def test_videos_pool_each_sides_counts() -> None:
    a_gt, a_det = side_by_side(3)
    b_gt, b_det = competing()
    gt, det = aset(a=a_gt, b=b_gt), aset(a=a_det, b=b_det)
    # 6 ground-truth actions, 5 detections. One-to-one: 1 pair in a, 2 in b: R = 3/6,
    # P = 3/5, F = 2·3 / 11.
    one = evaluate_actions(gt, det, ONE).overall.point
    assert (one.recall.value, one.precision.value) == (0.5, 0.6)
    assert one.f.value == pytest.approx(6 / 11, abs=1e-15)
    # Best-partner: found 3 in a, 1 in b: R = 4/6; correct 1 in a, 2 in b: P = 3/5;
    # F = 2·(2/3)(3/5) / (2/3 + 3/5) = 12/19.
    best = evaluate_actions(gt, det, BEST)
    point = best.overall.point
    assert (point.accepted, point.det_accepted) == (4, 3)
    assert point.recall.value == pytest.approx(2 / 3, abs=1e-15)
    assert point.precision.value == 0.6
    assert point.f.value == pytest.approx(12 / 19, abs=1e-15)
    assert best.per_video["a"].point.recall.value == 0.75  # 3 of 4
    assert best.per_video["b"].point.f.value == pytest.approx(2 / 3, abs=1e-15)


def test_the_class_confusion_gives_every_ground_truth_its_partner() -> None:
    # Classes 1 and 2 side by side under one detection of class 3.
    gt = [act(1, 1, 1, 10, (0, 0, 10, 10)), act(2, 2, 1, 10, (10, 0, 10, 10))]
    det = [act(1, 3, 1, 10, (0, 0, 20, 10))]
    one = evaluate_actions(aset(v=gt), aset(v=det), ONE).confusion.counts
    best = evaluate_actions(aset(v=gt), aset(v=det), BEST).confusion.counts
    # Rows and columns are classes 1..10: index class − 1.
    assert (one[0, 2], one[1, 2], one.sum()) == (1, 0, 1)
    assert (best[0, 2], best[1, 2], best.sum()) == (1, 1, 2)


def test_an_unknown_reading_is_refused() -> None:
    with pytest.raises(InvalidOptionError, match="one-to-one, best-partner"):
        LirisParameters(matching="many-to-many")


# --- through the real entry point, and in the report -------------------------------------------


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path]:
    gt, det = side_by_side(2)
    write_liris(tmp_path / "gt.xml", aset(v=gt))
    write_liris(tmp_path / "det.xml", aset(v=det))
    return tmp_path / "gt.xml", tmp_path / "det.xml"


def referee(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.core.cli", *map(str, args)],
        capture_output=True,
        text=True,
    )


def f_line(stdout: str) -> str:
    return next(line for line in stdout.splitlines() if line.strip().startswith("F "))


def test_cli_names_the_reading_and_gives_its_scores(files: tuple[Path, Path], tmp_path: Path):
    gt, det = files
    default = referee("actions", gt, det, "--quiet")
    assert default.returncode == 0, default.stderr
    assert "Matching: one-to-one" in default.stdout
    assert f_line(default.stdout).split()[-1] == "0.3333"

    out = tmp_path / "best.json"
    best = referee("actions", gt, det, "--quiet", "--matching", "best-partner", "--json", out)
    assert best.returncode == 0, best.stderr
    assert "Matching: best-partner" in best.stdout
    assert f_line(best.stdout).split()[-1] == "0.4444"
    assert "found           2 ground-truth actions" in best.stdout
    assert "correct         1 detections" in best.stdout
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["parameters"]["matching"] == "best-partner"
    overall = document["overall"]
    assert overall["at_epsilon"]["f"]["value"] == pytest.approx(4 / 9, abs=1e-15)
    assert (overall["accepted"], overall["det_accepted"]) == (2, 1)


def test_cli_refuses_a_bad_reading_in_one_line(files: tuple[Path, Path]) -> None:
    gt, det = files
    completed = referee("actions", gt, det, "--matching", "greedy")
    assert completed.returncode == 2
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: error:")
    assert "'greedy'" in lines[0] and "one-to-one, best-partner" in lines[0]
    assert completed.stdout == ""


def test_the_report_names_a_reading_that_is_not_the_default(files: tuple[Path, Path]) -> None:
    gt, det = files
    project = Project(
        name="actions", actions_groundtruth=gt, detectors=(DetectorSource("m", actions=det),)
    )
    created = datetime(2026, 1, 1, tzinfo=UTC)

    def report_of(params: LirisParameters) -> Report:
        options = ReportOptions(analysis=AnalysisOptions(actions=ActionOptions(params)))
        return build_report(project, options, created=created)

    default, best = report_of(ONE), report_of(BEST)
    assert "matching best-partner" in dict(best.facts)["LIRIS"]
    assert "matching" not in dict(default.facts)["LIRIS"]
    table = best.table("actions-point")
    (row,) = table.rows
    cells = dict(zip(table.columns, row))
    assert (cells["found"], cells["correct"]) == (2, 1)
    assert cells["F"].value == pytest.approx(4 / 9, abs=1e-15)
    assert "accepted" in default.table("actions-point").columns
    paragraphs = [
        next(s for s in report.sections if s.key == "actions").blocks[0]
        for report in (default, best)
    ]
    assert all(isinstance(p, Paragraph) for p in paragraphs)
    assert ["best-partner" in p.text for p in paragraphs] == [False, True]
