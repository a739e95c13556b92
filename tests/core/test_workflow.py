"""The workflow's contracts: defaults in one place, extension points, recorded versions."""

from __future__ import annotations

import json
import math
import platform
from itertools import product
from pathlib import Path

import cv2
import numpy as np
import pytest
import scipy
from scipy import stats

from referee.core.cli.main import build_parser, main
from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats import registry
from referee.core.measures.boxes import VideoBoxes, boxes_from_rows
from referee.core.measures.indicators import INDICATORS, IndicatorValue, register_indicator
from referee.core.model.confusion import ConfusionMatrix, VideoConfusion
from referee.core.significance.hypothesis_tests import wilcoxon_method
from referee.core.significance.sweep import compare_pair
from referee.core.workflow.detections import run_boxes
from referee.core.workflow.options import (
    CountOptions,
    PixelOptions,
    RankingOptions,
    SignificanceOptions,
)
from referee.core.workflow.pixels import summarize_pixels
from referee.core.workflow.projects import project_of_outputs


def _defaults(*argv: str) -> dict:
    return vars(build_parser().parse_args(list(argv)))


def test_command_line_defaults_are_the_options_defaults(tmp_path: Path) -> None:
    rank = _defaults("rank", "a", "b", "c")
    assert (rank["top"], rank["gap"], rank["include_annotated"]) == (
        RankingOptions().top,
        RankingOptions().gap,
        RankingOptions().include_annotated,
    )
    report = _defaults("report", "demo")
    assert (report["top"], report["gap"], report["count_window"]) == (
        RankingOptions().top,
        RankingOptions().gap,
        CountOptions().window,
    )
    significance = _defaults("significance", "a", "b", "c")
    assert significance["test"] == report["test"] == SignificanceOptions().test == "auto"
    assert significance["alpha"] == report["alpha"] == SignificanceOptions().alpha
    assert _defaults("counts", "g.csv", "e.csv")["window"] == CountOptions().window
    evaluate = _defaults("evaluate", "d", "r")
    assert (evaluate["weights"], evaluate["rank_by"], evaluate["workers"]) == (
        PixelOptions().weights,
        PixelOptions().rank_by,
        PixelOptions().workers,
    )


def test_a_registered_indicator_is_computed_everywhere() -> None:
    def youden(cm: ConfusionMatrix) -> IndicatorValue:
        return IndicatorValue(cm.tp / (cm.tp + cm.fn) + cm.tn / (cm.tn + cm.fp) - 1)

    register_indicator(
        key="youden",
        name="Youden's J",
        symbol="J",
        formula="TPR + TNR − 1",
        compute=youden,
        range=(-1.0, 1.0),
    )
    try:
        with pytest.raises(InvalidOptionError, match="already registered"):
            register_indicator(key="youden", name="J", symbol="J", formula="", compute=youden)
        videos = [
            VideoConfusion("c", "a", ConfusionMatrix(tp=30, fp=10, fn=10, tn=50)),
            VideoConfusion("c", "b", ConfusionMatrix(tp=5, fp=5, fn=15, tn=75)),
        ]
        result = summarize_pixels({"m": videos}, PixelOptions(weights="video", rank_by="youden"))
        # The blend of the two normalized matrices, video weights 1/2 each, by hand:
        tp, fp, fn, tn = (0.30 + 0.05) / 2, (0.10 + 0.05) / 2, (0.10 + 0.15) / 2, (0.5 + 0.75) / 2
        expected = tp / (tp + fn) + tn / (tn + fp) - 1
        assert result.methods["m"].summary.values["youden"].value == pytest.approx(expected)
        assert result.ranking.indicator == "youden"
    finally:
        del INDICATORS["youden"]


def test_the_registry_names_formats_and_takes_new_readers(tmp_path: Path) -> None:
    mot = tmp_path / "det.txt"
    mot.write_text("1,1,0,0,10,10,1\n2,1,1,0,10,10,1\n", encoding="utf-8")
    assert registry.detect(mot, registry.BOXES).name == "mot-csv"
    (tmp_path / "stats.txt").write_text("", encoding="utf-8")
    (tmp_path / "cm.csv").write_text("", encoding="utf-8")
    assert registry.detect(tmp_path / "stats.txt", registry.CONFUSIONS).name == "stats-txt"
    assert registry.detect(tmp_path / "cm.csv", registry.CONFUSIONS).name == "cm-csv"
    assert registry.detect(tmp_path / "cm.csv", registry.COUNTS).name == "counts-csv"
    odd = tmp_path / "det.boxes"
    odd.write_text("1 0 0 10 10\n", encoding="utf-8")
    with pytest.raises(InputFileError, match=r"det\.boxes: cannot tell the format.*MOTChallenge"):
        registry.read(odd, registry.BOXES)

    def read_boxes_file(path: Path, min_conf: float | None = None) -> list[VideoBoxes]:
        rows = np.loadtxt(path, ndmin=2)
        return [boxes_from_rows("det", rows[:, 0].astype(int), rows[:, 1:5])]

    reader = registry.register_reader(
        name="plain-boxes",
        kind=registry.BOXES,
        description="a .boxes file 'frame x y w h'",
        claims=lambda path: path.suffix == ".boxes",
        read=read_boxes_file,
    )
    try:
        project = project_of_outputs("boxes", [odd], groundtruth=mot)
        result = run_boxes(project)
        assert result.formats == {"": "mot-csv", "det": "plain-boxes"}
        # A one-video MOT file faces the single video of the other file: frame 1 matches.
        assert result.evaluations["det"].overall.tp == 1
    finally:
        registry._READERS.remove(reader)


def test_every_json_output_records_the_library_versions(demo, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    root = str(demo.results["mog2"])
    assert main(["evaluate", str(demo.dataset), root, "--quiet", "--json", str(out)]) == 0
    versions = json.loads(out.read_text(encoding="utf-8"))["versions"]
    assert versions == {
        "referee": versions["referee"],
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "opencv": cv2.__version__,
    }


def _exact_two_sided(d: np.ndarray) -> float:
    """Wilcoxon's exact p by enumerating every sign pattern (no ties, no zeros)."""
    ranks = stats.rankdata(np.abs(d))
    observed = min(ranks[d > 0].sum(), ranks[d < 0].sum())
    sums = [sum(r for r, s in zip(ranks, signs) if s) for signs in product((0, 1), repeat=d.size)]
    return min(1.0, 2 * np.mean([s <= observed for s in sums]))


def _normal_two_sided(d: np.ndarray) -> float:
    """The normal approximation with the tie correction, zeros dropped, no continuity."""
    d = d[d != 0]
    n = d.size
    ranks = stats.rankdata(np.abs(d))
    w_plus = ranks[d > 0].sum()
    _, counts = np.unique(np.abs(d), return_counts=True)
    variance = n * (n + 1) * (2 * n + 1) / 24 - (counts**3 - counts).sum() / 48
    z = (w_plus - n * (n + 1) / 4) / math.sqrt(variance)
    return 2 * stats.norm.sf(abs(z))


def test_wilcoxon_p_does_not_depend_on_the_scipy_version() -> None:
    # Scores in eighths, so the differences are exact: 0.25 four times, ±0.125, one zero.
    a = np.array([0.875, 0.75, 0.75, 0.625, 0.5, 0.5, 0.375, 0.25])
    b = np.array([0.625, 0.625, 0.5, 0.375, 0.5, 0.25, 0.5, 0.125])
    tied = a - b
    assert wilcoxon_method(tied) == "asymptotic"
    p = compare_pair(a, b, test="wilcoxon").rows[0].p.value
    assert p == pytest.approx(_normal_two_sided(tied), rel=1e-12)
    distinct = np.array([0.31, -0.12, 0.45, 0.07, 0.26, -0.03, 0.18])
    assert wilcoxon_method(distinct) == "exact"
    p = compare_pair(distinct, np.zeros(distinct.size), test="wilcoxon").rows[0].p.value
    assert p == pytest.approx(_exact_two_sided(distinct), rel=1e-12)


def test_the_report_records_the_library_versions(demo) -> None:
    from referee.core.demo.project import demo_project
    from referee.core.report.build import assemble_report
    from referee.core.report.compute import ReportResults
    from referee.core.report.tables_out import report_to_dict

    document = assemble_report(demo_project(demo), ReportResults())
    versions = report_to_dict(document)["versions"]
    assert (versions["numpy"], versions["scipy"], versions["opencv"]) == (
        np.__version__,
        scipy.__version__,
        cv2.__version__,
    )
    facts = dict(document.facts)["library versions"]
    assert f"numpy {np.__version__}" in facts and f"python {platform.python_version()}" in facts
