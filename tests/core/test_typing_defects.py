"""The defects the type checker found, each pinned by a test that failed before its fix."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from referee.core.evaluation.masks import VideoEvaluation, VideoHistograms
from referee.core.exports.boxes import format_boxes_table
from referee.core.exports.pseudo import format_correlation_table
from referee.core.measures.action_matching import match_actions
from referee.core.measures.action_scores import pair_table
from referee.core.measures.boxes import boxes_from_rows, evaluate_boxes
from referee.core.measures.indicators import IndicatorValue, undefined
from referee.core.model.annotations import Action, AnnotationSet, VideoAnnotation
from referee.core.pseudo.truth import Correlation, TruthComparison
from referee.core.significance.sweep import Verdict, VerdictKind, compare_pair
from referee.core.significance.wording import verdict_text


def _action(number: int, first: int, last: int, box: tuple[int, int, int, int]) -> Action:
    frames = np.arange(first, last + 1)
    return Action(number, 1, frames, np.tile(box, (len(frames), 1)))


def test_pair_rows_put_each_ratio_in_its_own_field() -> None:
    """The table once filled the four ratios positionally; each is checked here by name.

    Ground truth: frames 1–10, box 10×10 at the origin (area 100). Detection:
    frames 5–12, box 10×5 at x = 2 (area 50). On the 6 common frames each
    intersection is 8×5 = 40: Area(g∩d) = 240, Area(g|d) = 600, Area(d|g) = 300.
    """
    gt = AnnotationSet.from_videos([VideoAnnotation("v", (_action(1, 1, 10, (0, 0, 10, 10)),))])
    det = AnnotationSet.from_videos([VideoAnnotation("v", (_action(7, 5, 12, (2, 0, 10, 5)),))])
    [row] = pair_table(match_actions(gt, det))
    assert (row.gt_number, row.det_number) == (1, 7)
    assert row.spatial_recall == pytest.approx(240 / 600)
    assert row.spatial_precision == pytest.approx(240 / 300)
    assert row.temporal_recall == pytest.approx(6 / 10)
    assert row.temporal_precision == pytest.approx(6 / 8)
    assert row.dice == pytest.approx(2 * 240 / (1000 + 400))


def test_a_verdict_without_a_reason_for_undefined_p_is_still_worded() -> None:
    """An undefined p may carry no reason; the sentence once called ``None.removeprefix``."""
    result = compare_pair([0.5, 0.6, 0.7, 0.9], [0.4, 0.6, 0.5, 0.8])
    rows = tuple(replace(row, p=IndicatorValue(math.nan)) for row in result.rows)
    silent = replace(result, rows=rows, verdict=Verdict(VerdictKind.P_UNDEFINED))
    assert verdict_text(silent).startswith("no significant difference: p is undefined")


def test_an_undefined_box_measure_without_a_reason_is_printed() -> None:
    """The boxes table once called ``None.removeprefix`` on such a value."""
    gt = boxes_from_rows("v", [1], np.array([[0, 0, 10, 10]]))
    result = evaluate_boxes(gt, boxes_from_rows("v", [1], np.array([[0, 0, 10, 10]])))
    silent = replace(result, overall=replace(result.overall, sfda=IndicatorValue(math.nan)))
    assert "SFDA undefined" in format_boxes_table(silent)


def test_counts_and_histograms_come_back_as_their_own_types(demo) -> None:
    """Evaluation once typed score histograms as per-frame evaluations."""
    from referee.core.evaluation.batch import evaluate_method, score_histograms_method
    from referee.core.formats.cdnet import discover_videos

    videos = discover_videos(demo.dataset)[:1]
    [evaluation] = evaluate_method(videos, demo.results["mog2"])
    root = next(iter(demo.soft_results.values()))
    [histograms] = score_histograms_method(videos, root)
    assert isinstance(evaluation, VideoEvaluation) and isinstance(histograms, VideoHistograms)
    # Every evaluated pixel of the video is in one histogram bin: the counts agree.
    total = evaluation.total.tp + evaluation.total.fp + evaluation.total.fn + evaluation.total.tn
    assert int(histograms.histograms.sum()) == total


def _correlations(summary: dict[str, Correlation]) -> TruthComparison:
    return TruthComparison("video", ("a", "b", "c"), {}, {}, {}, summary)


def test_an_undefined_correlation_without_a_reason_is_printed() -> None:
    """The correlation table once called ``None.removeprefix`` on such a value, and could not
    sort it beside a reason (``None < str``)."""
    silent = Correlation(IndicatorValue(math.nan), IndicatorValue(math.nan), 3)
    text = format_correlation_table(_correlations({"f1": silent}))
    assert text.endswith("\nundef.: undefined")
    few = undefined("undefined: fewer than 3 detectors with both values defined (2)")
    text = format_correlation_table(
        _correlations({"f1": silent, "recall": Correlation(few, few, 2)})
    )
    # "undefined" sorts before "undefined: …"; each loses its "undefined: " prefix.
    assert text.endswith("\nundef.: undefined; fewer than 3 detectors with both values defined (2)")
