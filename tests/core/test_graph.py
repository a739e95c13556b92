"""The stage graph: a change makes stale only what depends on it, and bringing the results
up to date gives exactly a cold run's results (DESIGN "Long work")."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.cache import stamps
from referee.core.cache.store import FrameCache
from referee.core.demo.dataset import DemoLayout
from referee.core.workflow.graph import (
    DETECTIONS,
    MASK_TRUTH,
    RECORD,
    STAGES,
    changed_parts,
    invalidate,
    run_stages,
)
from referee.core.workflow.options import AnalysisOptions, EstimateOptions, RankingOptions
from referee.core.workflow.projects import project_of_outputs, project_videos
from referee.core.workflow.results import ProjectResults


def _full() -> ProjectResults:
    results = ProjectResults()
    for stage in STAGES:
        setattr(results, stage.key, object())
    return results


@pytest.mark.parametrize(
    ("parts", "options", "lost", "stale"),
    [
        # A saved annotation: what reads ground truth or the record is computed again
        # (the annotators' agreement too: a saved mask may be an annotator's); the ranking
        # leaves out the new frame from its kept scores; pseudo ground truth and
        # significance follow the new true values.
        (
            {MASK_TRUTH, RECORD},
            set(),
            {"pixels", "curves", "boxes", "estimate", "agreement"},
            {"ranking", "pseudo", "significance"},
        ),
        (
            {DETECTIONS},
            set(),
            {s.key for s in STAGES} - {"significance", "estimate", "agreement"},
            {"significance", "estimate"},
        ),
        (set(), {"pixels"}, set(), {"pixels", "pseudo", "significance", "estimate"}),
        (set(), {"ranking"}, set(), {"ranking"}),
    ],
)
def test_a_change_makes_wrong_only_what_depends_on_it(
    parts: set[str], options: set[str], lost: set[str], stale: set[str]
) -> None:
    results = _full()
    before = {stage.key: getattr(results, stage.key) for stage in STAGES}
    again = invalidate(results, parts=parts, options=options)
    assert again == lost | stale
    assert set(results.stale) == stale
    for key, value in before.items():
        if key in again:
            assert getattr(results, key) is None
        else:
            assert getattr(results, key) is value
        if key in stale:
            assert results.stale[key] is value


@pytest.fixture()
def masks_project(demo: DemoLayout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A private copy of the demo's dataset and masks, files settled at once."""
    monkeypatch.setattr(stamps, "RACY_SECONDS", 0.0)
    root = tmp_path / "demo"
    shutil.copytree(demo.root, root)
    outputs = [root / p.relative_to(demo.root) for p in demo.results.values()]
    dataset = root / demo.dataset.relative_to(demo.root)
    return project_of_outputs("masks", outputs, dataset=dataset)


#: Annotated frames are ranked too: the demo has ground truth on every frame.
OPTIONS = AnalysisOptions(
    ranking=RankingOptions(include_annotated=True), estimate=EstimateOptions(labels=0)
)
MASK_STAGES = ("pixels", "pseudo", "ranking", "estimate")


def test_after_one_ground_truth_frame_changes_only_it_is_read_and_results_equal_a_cold_run(
    masks_project, tmp_path: Path
) -> None:
    folder = tmp_path / "cache"
    results = run_stages(masks_project, OPTIONS, cache=FrameCache(folder))
    assert all(getattr(results, key) is not None for key in MASK_STAGES), results.skipped
    pseudo, ranking = results.pseudo, results.ranking

    video = project_videos(masks_project)[0]
    frame = int(video.truth_frames[len(video.truth_frames) // 2])
    path = video.gt_path(frame)
    truth = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    cv2.imwrite(str(path), np.where(truth == 0, 255, truth).astype(np.uint8))

    again = invalidate(results, parts=changed_parts(masks_project, [path]))
    assert {"pixels", "pseudo", "ranking", "estimate"} <= again
    cache = FrameCache(folder)
    run_stages(masks_project, OPTIONS, results=results, cache=cache)
    assert cache.computed_of("counts") == {video.label: [frame]}
    assert results.pseudo.result is pseudo.result  # the consensus reads no ground truth
    assert results.ranking.scores is ranking.scores  # nor do the frames' disagreements

    cold = run_stages(masks_project, OPTIONS)
    for name, evaluations in cold.pixels.evaluations.items():
        for mine, theirs in zip(results.pixels.evaluations[name], evaluations):
            np.testing.assert_array_equal(mine.per_frame, theirs.per_frame)
    assert results.pixels.ranking.summary_values == cold.pixels.ranking.summary_values
    assert repr(results.pseudo.truth) == repr(cold.pseudo.truth)  # NaN too: repr
    assert [r.frame for r in results.ranking.frames] == [r.frame for r in cold.ranking.frames]
    assert repr(results.estimate.estimates) == repr(cold.estimate.estimates)


def test_a_saved_record_is_told_apart_from_a_saved_mask(masks_project) -> None:
    video = project_videos(masks_project)[0]
    assert changed_parts(masks_project, [video.gt_path(video.first)]) == {MASK_TRUTH, RECORD}
    unknown = changed_parts(masks_project, [Path("somewhere.txt")])
    assert MASK_TRUTH in unknown and DETECTIONS not in unknown
