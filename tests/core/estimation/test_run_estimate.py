"""``run_estimate`` on the demo (docs/measures.md §12): what is read, and what comes out.

Expected values are computed here from the consensus's per-frame counts and the
masks' true counts (``run_pseudo``, ``run_pixels``), not by the estimation code.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from referee.core.demo.dataset import DemoLayout
from referee.core.errors import UnavailableError
from referee.core.evaluation import masks
from referee.core.model.project import Project, with_annotated
from referee.core.workflow.estimate import run_estimate
from referee.core.workflow.options import EstimateOptions, PseudoOptions
from referee.core.workflow.pixels import run_pixels
from referee.core.workflow.projects import project_of_outputs, project_videos
from referee.core.workflow.pseudo import run_pseudo
from referee.core.workflow.results import PixelResult, PseudoOutcome

METHODS = ("mog2", "knn", "cnt")
CONSENSUS = PseudoOptions(entropy=False, compare_with_truth=False)


def demo_project(demo: DemoLayout, dataset: Path | None = None) -> Project:
    return project_of_outputs(
        "masks", [demo.results[m] for m in METHODS], dataset=dataset or demo.dataset
    )


def copied(demo: DemoLayout, tmp_path: Path) -> Project:
    """The demo's methods on a copy of its dataset, whose files a test may delete."""
    shutil.copytree(demo.dataset, tmp_path / "dataset")
    return demo_project(demo, tmp_path / "dataset")


def f1(t: np.ndarray) -> float:
    return float(2 * t[0] / (2 * t[0] + t[1] + t[2]))


def consensus_counts(outcome: PseudoOutcome, method: str) -> dict[tuple[str, int], np.ndarray]:
    return {
        (v.video, int(row[0])): row[1:4]
        for v in outcome.result.videos
        for row in v.per_frame[method]
    }


def true_counts(pixels: PixelResult, method: str) -> dict[tuple[str, int], np.ndarray]:
    return {
        (e.video, int(row[0])): row[1:4].astype(float)
        for e in pixels.evaluations[method]
        for row in e.per_frame
    }


def test_without_labels_the_estimate_is_the_consensus(demo: DemoLayout) -> None:
    project = demo_project(demo)
    outcome = run_pseudo(project, CONSENSUS)
    result = run_estimate(project, EstimateOptions(labels=0), pseudo=outcome)
    assert result.design == "none" and result.frames == () and result.labels == 0
    for method in METHODS:
        pooled = np.sum(list(consensus_counts(outcome, method).values()), axis=0)
        e = result.estimates[method]
        assert e["f1"].estimate == pytest.approx(f1(pooled))
        assert e["precision"].estimate == pytest.approx(pooled[0] / (pooled[0] + pooled[1]))
        assert np.isnan(e["f1"].low) and np.isnan(e["recall"].high) and e["f1"].true is None
    assert all(np.isnan(p) for row in result.beats.values() for p in row.values())


def test_every_frame_annotated_gives_the_true_values_without_width(demo: DemoLayout) -> None:
    project = demo_project(demo)
    result = run_estimate(project, EstimateOptions(estimator="plain"))
    pixels = run_pixels(project)
    assert result.design == "annotated" and result.labels == result.population
    for method in METHODS:
        truth = np.sum(list(true_counts(pixels, method).values()), axis=0)
        e = result.estimates[method]["f1"]
        assert e.estimate == pytest.approx(f1(truth)) and e.low == e.high == e.estimate


def test_a_simulation_reads_ground_truth_only_for_the_drawn_frames(
    demo: DemoLayout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = copied(demo, tmp_path)
    outcome = run_pseudo(project, CONSENSUS)
    pixels = run_pixels(project)
    options = EstimateOptions(labels=12, simulate=True, seed=5)
    first = run_estimate(project, options, pseudo=outcome, pixels=pixels)
    drawn = {(f.video, f.frame) for f in first.frames}
    assert first.labels == 12 and sum(f.draws for f in first.frames) == 12
    # Every other ground-truth file goes; reading one would fail.
    for video in project_videos(project):
        for gt in (video.folder / "groundtruth").iterdir():
            if (video.label, int(gt.stem[2:])) not in drawn:
                gt.unlink()
    read: list[str] = []
    original = masks.read_gt
    monkeypatch.setattr(
        masks, "read_gt", lambda path, i=None: read.append(path) or original(path, i)
    )
    again = run_estimate(project, options, pseudo=outcome, pixels=pixels)
    assert again.frames == first.frames and again.estimates == first.estimates
    assert len(set(read)) == len(drawn) and len(read) == len(drawn) * len(METHODS)
    for method in METHODS:
        truth = np.sum(list(true_counts(pixels, method).values()), axis=0)
        assert again.estimates[method]["f1"].true == pytest.approx(f1(truth))


def test_without_simulation_the_recorded_frames_are_the_labelled_ones(
    demo: DemoLayout, tmp_path: Path
) -> None:
    project = copied(demo, tmp_path)
    for video in project_videos(project):
        recorded = list(range(video.first, video.last + 1, 8))
        project = with_annotated(project, video.label, recorded)
        for gt in (video.folder / "groundtruth").iterdir():
            if int(gt.stem[2:]) not in recorded:
                gt.unlink()
    outcome = run_pseudo(project, CONSENSUS)
    result = run_estimate(project, EstimateOptions(), pseudo=outcome)
    pixels = run_pixels(project)  # on the recorded frames only
    labelled = {(f.video, f.frame) for f in result.frames}
    assert result.design == "annotated" and labelled == {
        (v.label, i) for v in project_videos(project) for i in v.annotated or ()
    }
    for method in METHODS:
        s_hat = consensus_counts(outcome, method)
        s = true_counts(pixels, method)
        total = sum(s_hat.values())
        for video in {v for v, _ in s_hat}:  # each video's annotated frames: a uniform sample
            big_n = sum(v == video for v, _ in s_hat)
            labelled = [k for k in s if k[0] == video]
            total += big_n / len(labelled) * sum(s[k] - s_hat[k] for k in labelled)
        e = result.estimates[method]["f1"]
        assert e.estimate == pytest.approx(f1(total)) and e.low < e.estimate < e.high
    with pytest.raises(UnavailableError, match="only some frames"):
        run_estimate(project, EstimateOptions(labels=5, simulate=True), pseudo=outcome)
    none_in_one = with_annotated(project, project_videos(project)[0].label, [])
    with pytest.raises(UnavailableError, match="has none; use the surrogate"):
        run_estimate(none_in_one, EstimateOptions(estimator="plain"), pseudo=outcome)
