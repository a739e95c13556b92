"""The consensus and the true counts from one pass over the frames (docs/measures.md §7, §12).

``run_pseudo_with_pixels`` decodes each mask and each ground-truth frame once for both;
what it gives is compared here with ``run_pseudo`` and ``run_pixels``, each run on its
own, and a simulated estimate that uses it with one that reads the drawn frames apart.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from referee.core.demo.dataset import DemoLayout
from referee.core.evaluation import masks
from referee.core.exports.estimate import estimate_to_dict
from referee.core.frames import sources
from referee.core.model.project import Project, with_annotated
from referee.core.model.videos import VideoSpec
from referee.core.pseudo import true_counts
from referee.core.pseudo.committee_options import CommitteeOptions
from referee.core.workflow.estimate import run_estimate
from referee.core.workflow.options import EstimateOptions, PixelOptions, PseudoOptions
from referee.core.workflow.pixels import run_pixels
from referee.core.workflow.projects import project_of_outputs, project_videos
from referee.core.workflow.pseudo import run_pseudo, run_pseudo_with_pixels

METHODS = ("mog2", "knn", "cnt", "running-average")


def demo_project(demo: DemoLayout, dataset: Path | None = None) -> Project:
    return project_of_outputs(
        "masks", [demo.results[m] for m in METHODS], dataset=dataset or demo.dataset
    )


@pytest.mark.parametrize(
    ("workers", "committee"),
    [
        (1, CommitteeOptions()),
        (2, CommitteeOptions()),
        (2, CommitteeOptions(threshold=128, consensus="committee")),
    ],
)
def test_one_pass_gives_what_run_pseudo_and_run_pixels_give(
    demo: DemoLayout, workers: int, committee: CommitteeOptions
) -> None:
    project = demo_project(demo)
    options = PseudoOptions(committee=committee, workers=workers, entropy=False)
    both = run_pseudo_with_pixels(project, options)
    assert both is not None
    outcome, pixels = both
    # The consensus is run_pseudo's, to the last bit.
    alone = run_pseudo(project, PseudoOptions(committee=committee, workers=1, entropy=False))
    assert outcome.methods == alone.methods == METHODS
    for mine, theirs in zip(outcome.result.videos, alone.result.videos, strict=True):
        assert mine.key == theirs.key and np.array_equal(mine.frames, theirs.frames)
        for method in METHODS:
            assert np.array_equal(mine.per_frame[method], theirs.per_frame[method])
            assert mine.totals[method] == theirs.totals[method]
    # Compared with the truth, as run_pseudo compares it.
    assert outcome.truth is not None and alone.truth is not None
    assert outcome.truth_problem is None and alone.truth_problem is None
    for method in METHODS:
        mine_f1, their_f1 = (
            t.true_summary[method]["f1"].value for t in (outcome.truth, alone.truth)
        )
        assert mine_f1 == their_f1
    correlations = [t.summary["f1"].pearson.value for t in (outcome.truth, alone.truth)]
    assert correlations[0] == pytest.approx(correlations[1], nan_ok=True)
    # The true counts are run_pixels' per frame, per video and summarized.
    expected = run_pixels(project, PixelOptions(threshold=committee.threshold, workers=1))
    assert pixels.options.threshold == committee.threshold
    assert set(pixels.evaluations) == set(expected.evaluations) == set(METHODS)
    for method in METHODS:
        found, want = pixels.evaluations[method], expected.evaluations[method]
        assert [e.key for e in found] == [e.key for e in want]
        for e, w in zip(found, want, strict=True):
            assert e.per_frame.dtype == w.per_frame.dtype == np.int64
            assert np.array_equal(e.per_frame, w.per_frame), (method, e.key)
            assert (e.total, e.shadow_errors, e.threshold) == (
                w.total,
                w.shadow_errors,
                w.threshold,
            )
        assert pixels.methods[method].summary.values == expected.methods[method].summary.values
    # Not every frame counted alike: the comparison above is not between empty arrays.
    rows = np.concatenate([e.per_frame for e in pixels.evaluations["knn"]])
    assert rows[:, 1].any() and rows[:, 2].any() and rows[:, 3].any()


def test_one_pass_decodes_every_mask_and_ground_truth_frame_once(
    demo: DemoLayout, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = demo_project(demo)
    read: Counter[str] = Counter()
    original_mask, original_gt = sources.load_grey, true_counts.read_truth

    def mask(path: str, *args: object) -> np.ndarray | None:
        read[str(path)] += 1
        return original_mask(path, *args)  # type: ignore[arg-type]

    def gt(video: VideoSpec, i: int) -> np.ndarray:
        read[video.gt_name(i)] += 1
        return original_gt(video, i)

    monkeypatch.setattr(sources, "load_grey", mask)
    monkeypatch.setattr(true_counts, "read_truth", gt)
    monkeypatch.setattr(masks, "read_truth", lambda *a: pytest.fail("a second reading"))
    options = EstimateOptions(labels=10, simulate=True, workers=1)
    result = run_estimate(project, options)
    frames = sum(video.n_frames for video in project_videos(project))
    assert result.population == frames
    assert set(read.values()) == {1}  # no file twice
    truth = [p for p in read if Path(p).parent.name == "groundtruth"]
    assert len(truth) == frames and len(read) == frames * (1 + len(METHODS))


@pytest.mark.parametrize("workers", [1, 2])
def test_a_simulation_from_one_pass_is_the_simulation_from_two(
    demo: DemoLayout, workers: int
) -> None:
    """The estimate JSON of a simulation that reads everything in one pass is that of one
    given the consensus and the true counts, which reads the drawn frames apart."""
    project = demo_project(demo)
    options = EstimateOptions(labels=12, simulate=True, seed=5, repeat=3, workers=workers)
    one = run_estimate(project, options)
    consensus = PseudoOptions(workers=workers, entropy=False, compare_with_truth=False)
    pseudo = run_pseudo(project, consensus)
    pixels = run_pixels(project, PixelOptions(workers=workers))
    two = run_estimate(project, options, pseudo=pseudo, pixels=pixels)
    assert estimate_to_dict(one) == estimate_to_dict(two)
    assert len(one.repeats) == 3 and one.estimates["knn"]["f1"].true is not None


def test_without_ground_truth_on_every_frame_there_is_no_one_pass(
    demo: DemoLayout, tmp_path: Path
) -> None:
    """A video partly annotated by the project's record or by its files is no pass of both:
    the two passes read different frames, and the simulation refuses such a video."""
    shutil.copytree(demo.dataset, tmp_path / "dataset")
    project = demo_project(demo, tmp_path / "dataset")
    options = PseudoOptions(entropy=False, workers=1)
    video = project_videos(project)[0]
    recorded = with_annotated(project, video.label, [video.first, video.last])
    assert run_pseudo_with_pixels(recorded, options) is None
    (video.folder / "groundtruth" / f"gt{video.first + 1:06d}.png").unlink()
    assert run_pseudo_with_pixels(project, options) is None
    (video.folder / "ROI.bmp").unlink()
    assert run_pseudo_with_pixels(project, options) is None
