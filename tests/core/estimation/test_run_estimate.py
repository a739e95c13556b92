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
    assert result.videos == ()  # no video is sampled: none has a frame to label next
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
    original = masks.read_truth
    monkeypatch.setattr(
        masks, "read_truth", lambda video, i: read.append(video.gt_name(i)) or original(video, i)
    )
    again = run_estimate(project, options, pseudo=outcome, pixels=pixels)
    assert again.frames == first.frames and again.estimates == first.estimates
    # One read of each drawn frame's ground truth serves every detector.
    assert len(set(read)) == len(drawn) and len(read) == len(drawn)
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
    options = EstimateOptions(labelled="annotated", estimator="surrogate")
    result = run_estimate(project, options, pseudo=outcome)
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
    with pytest.raises(UnavailableError, match="has none; use the tuned or surrogate"):
        options = EstimateOptions(labelled="annotated", estimator="plain")
        run_estimate(none_in_one, options, pseudo=outcome)


def test_a_partly_annotated_video_is_estimated_from_the_sampler_draws_it_has(
    demo: DemoLayout, tmp_path: Path
) -> None:
    project = copied(demo, tmp_path)
    video = project_videos(project)[0]
    frames = list(range(video.first, video.last + 1))
    recorded = [i for i in frames if i % 4]  # three frames in four have ground truth
    project = with_annotated(project, video.label, recorded)
    outcome = run_pseudo(project, CONSENSUS)
    pixels = run_pixels(project)  # the partly annotated video on its recorded frames only
    options = EstimateOptions(sampler="active", estimator="surrogate", uniform_share=0.2)
    result = run_estimate(project, options, pseudo=outcome, pixels=pixels)
    assert result.design == "active" and [v.video for v in result.videos] == [video.label]
    mine = result.videos[0]
    assert mine.frames == len(frames) and mine.next_frame not in recorded
    assert mine.left_out == len(recorded) - len({f.frame for f in result.frames})
    assert mine.labels == result.labels == sum(f.draws for f in result.frames)
    assert {f.video for f in result.frames} <= {video.label}
    assert {f.frame for f in result.frames} <= set(recorded)
    # The video's estimate by hand: the consensus total plus the mean weighted difference,
    # each draw weighted by q_i = 0.8 a_i / Σ a + 0.2 / N, a_i = Σ_detectors min(tp̂, fp̂ + fn̂).
    s_hat = {m: consensus_counts(outcome, m) for m in METHODS}
    s = {m: true_counts(pixels, m) for m in METHODS}
    keys = [(video.name, i) for i in frames]
    a = np.array(
        [sum(min(s_hat[m][k][0], s_hat[m][k][1] + s_hat[m][k][2]) for m in METHODS) for k in keys]
    )
    q = 0.8 * a / a.sum() + 0.2 / len(keys)
    draws = [f.frame for f in result.frames for _ in range(f.draws)]
    pooled_truth = {m: np.zeros(3) for m in METHODS}
    for method in METHODS:
        total = sum(s_hat[method][k] for k in keys)
        if draws:
            total = total + np.mean(
                [
                    (s[method][(video.name, i)] - s_hat[method][(video.name, i)])
                    / q[i - video.first]
                    for i in draws
                ],
                axis=0,
            )
        assert mine.estimates[method]["f1"].estimate == pytest.approx(f1(total))
        others = [t for k, t in s[method].items() if k[0] != video.name]
        pooled_truth[method] = np.sum(others, axis=0) + total
        assert result.estimates[method]["f1"].estimate == pytest.approx(f1(pooled_truth[method]))
        assert mine.trace[-1][method] == mine.estimates[method]["f1"]
        consensus_only = f1(sum(s_hat[method][k] for k in keys))
        assert mine.trace[0][method].estimate == pytest.approx(consensus_only)
    assert len(mine.trace) == mine.labels + 1
    # Labelling the proposed frame lengthens the labelled draws, which start the same.
    labelled = with_annotated(project, video.label, [*recorded, mine.next_frame])
    again = run_estimate(labelled, options, pseudo=run_pseudo(labelled, CONSENSUS))
    assert again.videos[0].labels > mine.labels
    before = [f.frame for f in result.frames]
    after = [f.frame for f in again.frames]
    assert after[: len(before)] == before and mine.next_frame in after


def test_annotated_frames_chosen_where_the_detectors_disagree_are_refused(
    demo: DemoLayout, tmp_path: Path
) -> None:
    """The annotator labelled the frames where the detectors disagree most (as §8's list
    proposes): taken as a uniform sample they would bias the estimate, so they are refused
    with the reason; every eighth frame is accepted."""
    from referee.core.estimation.sampler import acquisition_scores

    project = copied(demo, tmp_path)
    outcome = run_pseudo(project, CONSENSUS)
    video = next(v for v in outcome.result.videos if v.video == "plaza")
    s_hat = np.stack([video.per_frame[m][:, 1:4] for m in outcome.methods], axis=1)
    order = np.argsort(-acquisition_scores(s_hat))
    chosen = sorted(int(video.frames[k]) for k in order[:15])
    label = next(v.label for v in project_videos(project) if v.name == "plaza")
    disputed = with_annotated(project, label, chosen)
    with pytest.raises(UnavailableError, match=r"15 annotated frames of baseline/plaza are no"):
        run_estimate(disputed, EstimateOptions(labelled="annotated"), pseudo=outcome)
    even = with_annotated(project, label, [int(f) for f in video.frames[::8]])
    result = run_estimate(even, EstimateOptions(labelled="annotated"), pseudo=outcome)
    assert result.design == "annotated" and [v.video for v in result.videos] == [label]
