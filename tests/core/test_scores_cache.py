"""Per-frame disagreement kept between runs (docs/measures.md §8): a ranking with the cache
gives exactly a cold run's scores, and scores again only frames whose masks changed."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.cache import stamps
from referee.core.cache.store import FrameCache
from referee.core.formats.cdnet import discover_videos
from referee.core.ranking.choices import PAIRWISE_DICE, VOTE_ENTROPY
from referee.core.workflow.options import RankingOptions
from referee.core.workflow.projects import project_of_outputs
from referee.core.workflow.ranking import run_ranking
from tests.core.test_evaluate import make_dataset, make_results
from tests.core.test_frame_cache import _cli, _rewrite

METHODS = ("a", "b", "c")


@pytest.fixture()
def dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(stamps, "RACY_SECONDS", 0.0)  # files count as settled at once
    make_dataset(tmp_path / "data")
    videos = discover_videos(tmp_path / "data")
    for seed, name in enumerate(METHODS, start=1):
        make_results(tmp_path / name, videos, seed=seed)
    return tmp_path


def _rank(root: Path, cache: FrameCache | None, criterion: str = VOTE_ENTROPY):
    project = project_of_outputs("masks", [root / m for m in METHODS], dataset=root / "data")
    options = RankingOptions(criterion=criterion, include_annotated=True, workers=1)
    return run_ranking(project, options, cache=cache)


def _vote_entropy(root: Path, category: str, video: str, frame: int) -> float:
    """A frame's vote entropy straight from the files (docs/measures.md §8): the mean over
    ROI pixels of the binary entropy of the share of detectors that detect."""
    folder = root / "data" / category / video if category != video else root / "data" / video
    roi = cv2.imread(str(folder / "ROI.bmp"), cv2.IMREAD_GRAYSCALE) > 0
    votes = sum(
        (cv2.imread(str(root / m / category / video / f"bin{frame:06d}.png"), 0) == 255)
        for m in METHODS
    )
    share = votes[roi] / len(METHODS)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(share * np.log2(share) + (1 - share) * np.log2(1 - share))
    return float(np.nan_to_num(h).mean())


def _scores(result) -> dict[tuple[str, int], float]:
    return {(s.video, int(f)): float(v) for s in result.scores for f, v in zip(s.frames, s.scores)}


def test_a_changed_mask_is_the_only_frame_scored_again(dataset: Path) -> None:
    folder = dataset / "cache"
    first = FrameCache(folder)
    cold = _rank(dataset, first)
    assert sum(len(f) for f in first.computed_of("scores").values()) == 38 + 25 + 5

    warm = FrameCache(folder)
    assert _scores(_rank(dataset, warm)) == _scores(cold) and warm.computed_of("scores") == {}

    _rewrite(dataset / "c" / "baseline" / "pets" / "bin000012.png", 4)
    again = FrameCache(folder)
    result = _rank(dataset, again)
    assert again.computed_of("scores") == {"baseline/pets": [12]}
    assert _scores(result) == _scores(_rank(dataset, None))
    assert _scores(result)[("baseline/pets", 12)] == pytest.approx(
        _vote_entropy(dataset, "baseline", "pets", 12), abs=1e-12
    )
    assert [(r.video, r.frame) for r in result.frames] == [
        (r.video, r.frame) for r in _rank(dataset, None).frames
    ]


def test_another_criterion_scores_every_frame_again(dataset: Path) -> None:
    folder = dataset / "cache"
    _rank(dataset, FrameCache(folder))
    again = FrameCache(folder)
    result = _rank(dataset, again, PAIRWISE_DICE)
    assert sum(len(f) for f in again.computed_of("scores").values()) == 38 + 25 + 5
    assert _scores(result) == _scores(_rank(dataset, None, PAIRWISE_DICE))


def test_a_corrupt_table_is_scored_again(dataset: Path) -> None:
    folder = dataset / "cache"
    cold = _rank(dataset, FrameCache(folder))
    for table in (folder / "v1").glob("*.npz"):
        table.write_bytes(b"\x00" * 10)
    again = FrameCache(folder)
    assert _scores(_rank(dataset, again)) == _scores(cold)
    assert sum(len(f) for f in again.computed_of("scores").values()) == 38 + 25 + 5


def test_the_command_line_ranks_alike_with_and_without_a_cache(tmp_path: Path) -> None:
    import time

    make_dataset(tmp_path / "data")
    videos = discover_videos(tmp_path / "data")
    for seed, name in enumerate(METHODS, start=1):
        make_results(tmp_path / name, videos, seed=seed)
    time.sleep(stamps.RACY_SECONDS + 0.2)  # files just written are never cached
    base = ["rank", tmp_path / "data", *(tmp_path / m for m in METHODS), "--quiet"]
    base.append("--include-annotated")  # every frame has ground truth
    first = _cli(*base, "--cache", tmp_path / "c", "--csv", tmp_path / "first.csv")
    _rewrite(tmp_path / "b" / "loose" / "loose" / "bin000006.png", 5)
    again = _cli(*base, "--cache", tmp_path / "c", "--csv", tmp_path / "again.csv")
    plain = _cli(*base, "--csv", tmp_path / "plain.csv")
    assert first.returncode == again.returncode == plain.returncode == 0, again.stderr
    assert (tmp_path / "again.csv").read_bytes() == (tmp_path / "plain.csv").read_bytes()
    assert again.stdout == plain.stdout
    assert list((tmp_path / "c" / "v1").glob("*.npz"))
