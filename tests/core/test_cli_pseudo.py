"""``referee pseudo`` (docs/measures.md §7) through the real entry point and its error handling."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.cli import main as cli
from referee.core.cli.main import EXIT_USER_ERROR
from referee.core.demo.dataset import DemoLayout
from referee.core.demo.scenes import HEIGHT, WIDTH
from referee.core.formats.cdnet import discover_videos
from referee.core.formats.heatmap_png import read_heatmap_grey16_png
from referee.core.frames.sources import CdnetResultSource
from referee.core.pseudo.video import consensus_map

METHODS = ("mog2", "knn", "cnt")


@pytest.fixture
def referee():
    """The ``referee`` command, run in-process."""
    return lambda *args: cli.main([str(a) for a in args])


def test_pseudo_on_the_demo_prints_writes_and_draws(
    demo: DemoLayout, tmp_path: Path, referee, capsys
) -> None:
    out = tmp_path / "heat"
    roots = [demo.results[m] for m in METHODS]
    assert (
        referee(
            "pseudo",
            demo.dataset,
            *roots,
            "--quiet",
            "--heatmaps",
            out,
            "--json",
            tmp_path / "p.json",
            "--csv",
            tmp_path / "p.csv",
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "K' = 5" in text and "ps-F1" in text and "F1 (true)" in text
    assert "Pearson" in text and "Spearman" in text and "ps-PSNR" in text

    for video in demo.videos:
        folder = out / f"{video.category}_{video.name}"
        first, last = video.temporal_roi
        middle = list(range(first, last + 1))[(last - first + 1) // 2]
        for name in (f"consensus_{middle:06d}.png", "entropy.png"):
            image = cv2.imread(str(folder / name), cv2.IMREAD_UNCHANGED)
            assert image.shape == (HEIGHT, WIDTH, 3) and image.dtype == np.uint8
        grey = cv2.imread(str(folder / "entropy_grey16.png"), cv2.IMREAD_UNCHANGED)
        assert grey.shape == (HEIGHT, WIDTH) and grey.dtype == np.uint16

    # The grey variant holds the consensus of that frame.
    video = demo.videos[0]
    spec = next(v for v in discover_videos(demo.dataset) if v.name == video.name)
    first, last = video.temporal_roi
    middle = list(range(first, last + 1))[(last - first + 1) // 2]
    p = consensus_map(spec, middle, [CdnetResultSource.for_video(r, spec) for r in roots])
    stored = read_heatmap_grey16_png(
        out / f"{video.category}_{video.name}" / f"consensus_{middle:06d}_grey16.png"
    )
    inside = ~np.isnan(p)
    assert np.abs(stored[inside] - p[inside]).max() < 1e-4

    data = json.loads((tmp_path / "p.json").read_text(encoding="utf-8"))
    assert data["format"] == "referee-pseudo" and data["committee"]["include_trivial"] is True
    assert [m["method"] for m in data["methods"]] == list(METHODS)
    assert set(data["correlations"]["summary"]) >= {"f1", "precision", "ncc", "psnr"}
    rows = list(csv.DictReader(io.StringIO((tmp_path / "p.csv").read_text(encoding="utf-8"))))
    assert len(rows) == len(METHODS) * (len(demo.videos) + 1)
    assert rows[-1]["row"].startswith("summary:") and rows[-1]["true_f1"] != ""


def test_committee_options_and_chosen_frame(
    demo: DemoLayout, tmp_path: Path, referee, capsys
) -> None:
    out = tmp_path / "heat"
    roots = [demo.results[m] for m in METHODS]
    video = demo.videos[1]
    first = video.temporal_roi[0]
    assert (
        referee(
            "pseudo",
            demo.dataset,
            *roots,
            "--quiet",
            "--no-trivial",
            "--leave-one-out",
            "--weights-detectors",
            "1,2,1",
            "--weights",
            "pixels",
            "--frame",
            first,
            "--heatmaps",
            out,
            "--json",
            tmp_path / "p.json",
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "no trivial classifiers (K' = 3)" in text and "leave-one-out" in text
    assert "knn 2" in text and "weights 'pixels'" in text
    assert (out / f"{video.category}_{video.name}" / f"consensus_{first:06d}.png").is_file()
    data = json.loads((tmp_path / "p.json").read_text(encoding="utf-8"))
    assert data["committee"]["weights"] == {"mog2": 1.0, "knn": 2.0, "cnt": 1.0}
    assert data["committee"]["leave_one_out"] is True

    # Writing the same heatmaps again needs --force.
    assert (
        referee(
            "pseudo",
            demo.dataset,
            *roots,
            "--quiet",
            "--no-trivial",
            "--leave-one-out",
            "--frame",
            first,
            "--heatmaps",
            out,
        )
        == EXIT_USER_ERROR
    )
    assert "--force" in capsys.readouterr().err


def test_user_errors_exit_2(demo: DemoLayout, tmp_path: Path, referee, capsys) -> None:
    roots = [demo.results[m] for m in METHODS]
    assert (
        referee("pseudo", demo.dataset, *roots, "--quiet", "--weights-detectors", "1,2")
        == EXIT_USER_ERROR
    )
    assert "one weight per detector" in capsys.readouterr().err
    assert (
        referee(
            "pseudo", demo.dataset, *roots, "--quiet", "--heatmaps", tmp_path, "--frame", 100000
        )
        == EXIT_USER_ERROR
    )
    assert "missing" in capsys.readouterr().err
    existing = tmp_path / "p.json"
    existing.write_text("{}")
    assert referee("pseudo", demo.dataset, *roots, "--json", existing) == EXIT_USER_ERROR


def test_dataset_without_ground_truth(demo: DemoLayout, tmp_path: Path, referee, capsys) -> None:
    video = demo.videos[2]
    copy = tmp_path / video.name
    shutil.copytree(video.path, copy, ignore=shutil.ignore_patterns("groundtruth", "*.jpg"))
    (copy / "input").mkdir(exist_ok=True)
    roots = [tmp_path / "results" / m for m in METHODS]  # a one-video dataset's result folders
    for m, root in zip(METHODS, roots):
        shutil.copytree(demo.results[m] / video.category / video.name, root)
    assert referee("pseudo", copy, *roots, "--quiet", "--csv", tmp_path / "p.csv") == 0
    text = capsys.readouterr().out
    assert "no ground truth" in text and "Pearson" not in text and "F1 (true)" not in text
    header = (tmp_path / "p.csv").read_text(encoding="utf-8").splitlines()[0]
    assert "true_f1" not in header and "ncc" in header
