"""Frame layers of the demo: image, ground truth, comparisons, consensus and disagreement;
and the annotators' disagreement on a small dataset of annotators' label maps."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from referee.core.errors import RefereeError
from referee.core.evaluation.batch import evaluate_method
from referee.core.formats.cdnet import discover_videos
from referee.core.frames.sources import CdnetResultSource
from referee.core.model.project import AnnotatorSource, Project
from referee.core.workflow.agreement import labelled_videos
from referee.core.workflow.frame_layers import CdnetInputSource, FrameLayerReader
from referee.core.workflow.projects import project_videos
from tests.core.agreement_data import SHAPE, write_label, write_video


@pytest.fixture(scope="module")
def reader(demo) -> FrameLayerReader:
    video = discover_videos(demo.dataset)[0]
    detectors = {
        name: CdnetResultSource.for_video(root, video)
        for name, root in sorted(demo.results.items())
    }
    inputs = CdnetInputSource(video)
    return FrameLayerReader(inputs, inputs.frame_count, video, detectors)


def test_comparison_codes_count_to_the_evaluation(reader, demo) -> None:
    video = reader.video
    name = "mog2"
    evaluation = evaluate_method([video], demo.results[name])[0]
    frame = video.first + 3
    layers = reader.read(frame)
    n = np.bincount(layers.comparisons[name].ravel(), minlength=6)
    row = evaluation.per_frame[evaluation.frames == frame][0]
    _, tp, fp, fn, tn, se = (int(v) for v in row)
    assert (n[1], n[2] + n[4], n[3], n[0], n[4]) == (tp, fp, fn, tn, se)
    assert layers.image.shape == (*layers.groundtruth.shape, 3)


def test_frames_before_the_temporal_roi_are_not_evaluated(reader) -> None:
    layers = reader.read(1)
    assert reader.video.first > 1 and not layers.evaluated
    assert all((codes == 5).all() for codes in layers.comparisons.values())


def test_consensus_and_disagreement_follow_the_votes(reader) -> None:
    layers = reader.read(reader.video.first + 10)
    votes = sum((mask == 255).astype(float) for mask in layers.masks.values())
    k = len(layers.masks)
    np.testing.assert_allclose(layers.consensus, (votes + 1) / (k + 2), rtol=1e-6)
    q = votes / k
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.nan_to_num(-(q * np.log2(q) + (1 - q) * np.log2(1 - q)))
    np.testing.assert_allclose(layers.disagreement, h, atol=1e-6)
    assert layers.nbytes > layers.image.nbytes


def test_out_of_range_frame_is_a_clear_error(reader) -> None:
    with pytest.raises(RefereeError, match="outside the video"):
        reader.read(reader.frame_count + 1)


def _pairs_that_disagree(labels: list[np.ndarray], roi: np.ndarray) -> np.ndarray:
    """Per pixel, the share of pairs of annotators whose labels differ on motion (255), by
    looping over the pairs; NaN outside the ROI or where one gave neither 0, 50 nor 255."""
    counted = roi.copy()
    for label in labels:
        counted &= np.isin(label, (0, 50, 255))
    pairs = list(itertools.combinations(labels, 2))
    differ = sum(((a == 255) != (b == 255)).astype(float) for a, b in pairs)
    return np.where(counted, differ / len(pairs), np.nan)


def test_annotators_disagreement_over_those_who_labelled_the_frame(tmp_path: Path) -> None:
    roi = write_video(tmp_path / "data", "baseline", "v", 1, 4)
    rng = np.random.default_rng(3)
    levels = np.array([0, 50, 85, 170, 255], np.uint8)
    maps = {
        name: {f: rng.choice(levels, size=SHAPE, p=[0.5, 0.1, 0.05, 0.05, 0.3]) for f in (1, 2)}
        for name in ("ann", "bob", "cyd")
    }
    del maps["cyd"][1]  # frame 1: ann and bob only
    maps["ann"][3] = maps["ann"][1]  # frame 3: ann alone
    for name, frames in maps.items():
        for frame, label in frames.items():
            write_label(tmp_path / name, "baseline", "v", frame, label)
    project = Project(
        "p",
        dataset=tmp_path / "data",
        annotators=tuple(AnnotatorSource(n, tmp_path / n) for n in ("ann", "bob", "cyd", "dan")),
    )
    video = project_videos(project)[0]
    annotators = labelled_videos(project, video, True)
    assert list(annotators) == ["ann", "bob", "cyd"]  # dan has no folder
    inputs = _GreyFrames(4)
    reader = FrameLayerReader(inputs, 4, video, annotators=annotators)

    both = reader.read(2)
    expected = _pairs_that_disagree([maps[n][2] for n in ("ann", "bob", "cyd")], roi)
    np.testing.assert_allclose(both.annotator_disagreement, expected, atol=1e-6)
    assert both.nbytes >= both.image.nbytes + both.annotator_disagreement.nbytes
    two = reader.read(1)
    expected = _pairs_that_disagree([maps["ann"][1], maps["bob"][1]], roi)
    np.testing.assert_allclose(two.annotator_disagreement, expected, atol=1e-6)
    for frame in (3, 4):  # one annotator, none
        alone = reader.read(frame)
        assert alone.annotator_disagreement is None
    assert FrameLayerReader(inputs, 4, video).read(2).annotator_disagreement is None

    write_label(tmp_path / "bob", "baseline", "v", 2, np.zeros((10, 10), np.uint8))
    broken = reader.read(2)
    assert broken.annotator_disagreement is None
    assert any("gt000002.png" in problem for problem in broken.problems)


class _GreyFrames:
    """Grey input frames, for a reader that needs no input folder."""

    def __init__(self, count: int) -> None:
        self.frame_count = count

    def read(self, i: int) -> np.ndarray:
        return np.full((*SHAPE, 3), 128, np.uint8)
