"""Frame layers of the demo: image, ground truth, comparisons, consensus and disagreement."""

from __future__ import annotations

import numpy as np
import pytest

from referee.core.errors import RefereeError
from referee.core.evaluation.batch import evaluate_method
from referee.core.formats.cdnet import discover_videos
from referee.core.frames.sources import CdnetResultSource
from referee.core.workflow.frame_layers import CdnetInputSource, FrameLayerReader


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
