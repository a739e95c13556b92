"""The discriminative test between trackers (docs/measures.md §9 with §5, "Tracking:
intervals and tests"): its cases are TrackEval's per-sequence (or per-block) HOTA, MOTA
and IDF1, and its p-values SciPy's tests on them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import trackeval
from scipy import stats

from referee.core.cli.main import main
from referee.core.errors import UnavailableError
from referee.core.workflow.detections import run_boxes
from referee.core.workflow.options import SignificanceOptions
from referee.core.workflow.projects import project_of_outputs
from referee.core.workflow.results import ProjectResults
from referee.core.workflow.significance import run_significance
from tests.core.test_mot_benchmark import trackeval_results
from tests.core.tracks_folder import SPLIT, TRACKERS, Rows, random_tracks, write_benchmark

#: Referee's measure → TrackEval's metric and field (α-averaged for HOTA).
MEASURES = {"hota": ("HOTA", "HOTA"), "mota": ("CLEAR", "MOTA"), "idf1": ("Identity", "IDF1")}


def _trackeval(gt: Path, trackers: Path, output: Path) -> dict[str, dict[str, dict]]:
    metrics = [
        trackeval.metrics.HOTA({"PRINT_CONFIG": False}),
        trackeval.metrics.CLEAR({"THRESHOLD": 0.5, "PRINT_CONFIG": False}),
        trackeval.metrics.Identity({"THRESHOLD": 0.5, "PRINT_CONFIG": False}),
    ]
    return trackeval_results(gt, trackers, output, metrics)


def _scores(theirs: dict, tracker: str, measure: str, labels: list[str]) -> np.ndarray:
    metric, field = MEASURES[measure]
    return np.array([float(np.mean(theirs[tracker][seq][metric][field])) for seq in labels])


def _significance(tmp_path: Path, gt: Path, trackers: Path, *options: str) -> dict:
    out = tmp_path / "s.json"
    paths = [str(trackers / SPLIT / t) for t in TRACKERS]
    argv = ["significance", "--tracking", str(gt), *paths, "--quiet", "--json", str(out)]
    assert main([*argv, "--force", *options]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("measure", "test"), [("hota", "t"), ("mota", "wilcoxon"), ("idf1", "t"), ("hota", "wilcoxon")]
)
def test_per_sequence_cases_are_trackevals_and_p_is_scipys(
    tmp_path: Path, measure: str, test: str
) -> None:
    gt, trackers = write_benchmark(tmp_path, random_tracks(7, 30, seed=21), 30)
    theirs = _trackeval(gt, trackers, tmp_path / "trackeval")
    data = _significance(tmp_path, gt, trackers, "--measure", measure, "--test", test)
    labels = [f"SEQ-{k}" for k in range(7)]
    assert [c["case"] for c in data["cases"]] == labels
    a, b = (_scores(theirs, t, measure, labels) for t in TRACKERS)
    ours = {t: np.array([c["scores"][t] for c in data["cases"]]) for t in TRACKERS}
    assert ours["A"] == pytest.approx(a, abs=1e-9) and ours["B"] == pytest.approx(b, abs=1e-9)
    if test == "t":
        expected = stats.ttest_rel(a, b).pvalue
    else:  # §9: the exact distribution for up to 50 distinct non-zero differences
        expected = stats.wilcoxon(a, b, zero_method="wilcox", method="exact").pvalue
    assert data["sweep"][0]["p"]["value"] == pytest.approx(expected, rel=1e-9)
    assert data["parameters"]["measure"] == measure


def _blocks_as_sequences(tracks: dict[str, Rows], spans: list[tuple[int, int]]) -> dict[str, Rows]:
    """Each block of each sequence as a sequence of its own, its frames numbered from 1."""
    return {
        f"{sequence}-{first}": {
            side: [(f - first + 1, *rest) for f, *rest in side_rows if first <= f <= last]
            for side, side_rows in rows.items()
        }
        for sequence, rows in tracks.items()
        for first, last in spans
    }


def test_per_block_cases_are_trackevals_on_the_cut_sequences(tmp_path: Path) -> None:
    tracks = random_tracks(2, 100, seed=5)
    gt, trackers = write_benchmark(tmp_path / "whole", tracks, 100)
    spans = [(1, 25), (26, 50), (51, 75), (76, 100)]
    cut = _blocks_as_sequences(tracks, spans)
    cut_gt, cut_trackers = write_benchmark(tmp_path / "cut", cut, 25)
    theirs = _trackeval(cut_gt, cut_trackers, tmp_path / "trackeval")
    data = _significance(tmp_path, gt, trackers, "--block-length", "25")
    assert [c["case"] for c in data["cases"]] == [
        f"{s}:{first}-{last}" for s in tracks for first, last in spans
    ]
    a, b = (_scores(theirs, t, "hota", list(cut)) for t in TRACKERS)
    ours = {t: np.array([c["scores"][t] for c in data["cases"]]) for t in TRACKERS}
    assert ours["A"] == pytest.approx(a, abs=1e-9) and ours["B"] == pytest.approx(b, abs=1e-9)
    assert data["sweep"][0]["p"]["value"] == pytest.approx(stats.ttest_rel(a, b).pvalue)
    assert data["parameters"]["block_length"] == 25


def test_the_workflow_builds_tracking_cases_from_the_boxes_result(tmp_path: Path) -> None:
    gt, trackers = write_benchmark(tmp_path, random_tracks(5, 20, seed=3), 20)
    project = project_of_outputs("boxes", [trackers / SPLIT / t for t in TRACKERS], groundtruth=gt)
    boxes = run_boxes(project)
    options = SignificanceOptions(cases="tracking", tracking_measure="mota")
    result = run_significance(project, options, upstream=ProjectResults(boxes=boxes))
    assert result.cases.measure == "per-sequence MOTA"
    assert result.cases.labels == tuple(f"SEQ-{k}" for k in range(5))
    for tracker in TRACKERS:
        expected = [s.clear.mota for s in boxes.tracking[tracker].sequences.values()]
        assert result.cases.column(tracker).tolist() == expected
    with pytest.raises(UnavailableError, match="no tracking measures for C"):
        run_significance(
            project,
            SignificanceOptions(cases="tracking", methods=("A", "C")),
            upstream=ProjectResults(boxes=boxes),
        )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--measure", "mota"], "--measure applies only with --tracking"),
        (["--block-length", "5"], "--block-length applies only with --tracking"),
        (["--tracking", "GT", "A", "B", "--block-length", "0"], "at least 1 frame, not 0"),
        (["--tracking", "GT", "A"], "--tracking needs the ground truth then at least two"),
    ],
)
def test_bad_tracking_options_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    gt, trackers = write_benchmark(tmp_path, random_tracks(2, 20, seed=1), 20)
    paths = {"GT": str(gt), **{t: str(trackers / SPLIT / t) for t in TRACKERS}}
    argv = [paths.get(option, option) for option in options]
    if "--tracking" not in argv:
        argv = ["--scores", str(_scores_file(tmp_path)), *argv]
    assert main(["significance", *argv, "--quiet"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: error: ") and message in lines[0]


def _scores_file(tmp_path: Path) -> Path:
    path = tmp_path / "scores.csv"
    path.write_text("case,A,B\n1,0.5,0.7\n2,0.4,0.6\n3,0.6,0.9\n", encoding="utf-8")
    return path
