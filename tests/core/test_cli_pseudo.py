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
from referee.core.pseudo.committee_options import CommitteeOptions
from referee.core.pseudo.staple import StapleFit
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
    assert "STAPLE model of 3 detectors" in text and "ps-F1" in text and "F1 (true)" in text
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

    # The grey variant holds the consensus of that frame: the posterior of the model
    # fitted to the video, whose parameters the JSON file gives.
    data = json.loads((tmp_path / "p.json").read_text(encoding="utf-8"))
    assert data["format"] == "referee-pseudo" and data["committee"]["consensus"] == "staple"
    video = demo.videos[0]
    entries = [
        next(e for e in m["videos"] if e["video"] == video.name)["model"] for m in data["methods"]
    ]
    model = StapleFit(
        entries[0]["prior"],
        tuple(e["sensitivity"] for e in entries),
        tuple(e["specificity"] for e in entries),
        entries[0]["iterations"],
        entries[0]["converged"],
    )
    spec = next(v for v in discover_videos(demo.dataset) if v.name == video.name)
    first, last = video.temporal_roi
    middle = list(range(first, last + 1))[(last - first + 1) // 2]
    sources = [CdnetResultSource.for_video(r, spec) for r in roots]
    p = consensus_map(spec, middle, sources, CommitteeOptions(), model)
    stored = read_heatmap_grey16_png(
        out / f"{video.category}_{video.name}" / f"consensus_{middle:06d}_grey16.png"
    )
    inside = ~np.isnan(p)
    assert np.abs(stored[inside] - p[inside]).max() < 1e-4

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
            "--consensus",
            "committee",
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
            "--consensus",
            "committee",
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
    committee = ("--consensus", "committee")
    assert (
        referee("pseudo", demo.dataset, *roots, "--quiet", *committee, "--weights-detectors", "1,2")
        == EXIT_USER_ERROR
    )
    assert "one weight per detector" in capsys.readouterr().err
    for flag in (("--no-trivial",), ("--weights-detectors", "1,2,1")):
        assert referee("pseudo", demo.dataset, *roots, "--quiet", *flag) == EXIT_USER_ERROR
        assert f"{flag[0]} applies to --consensus committee" in capsys.readouterr().err
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


# --- the seed's worked table through the command line (docs/measures.md §7) ----------------------

SEED = {
    "top": [1] * 7,
    "s1": [1, 1, 0, 1, 1, 0, 0],
    "s2": [1, 1, 1, 0, 0, 0, 0],
    "s3": [1, 1, 0, 0, 0, 1, 0],
    "bottom": [0] * 7,
}


def seed_video(root: Path) -> tuple[Path, dict[str, Path]]:
    """The seed's seven items as one frame of a 1×7 video, each classifier a result folder."""
    video = root / "items"
    (video / "input").mkdir(parents=True)
    folders = {}
    for name, bits in SEED.items():
        folders[name] = root / "results" / name
        folders[name].mkdir(parents=True)
        mask = (np.array([bits], dtype=np.uint8) * 255).reshape(1, 7)
        cv2.imwrite(str(folders[name] / "bin000001.png"), mask)
    return video, folders


def indicator(data: dict, key: str) -> dict[str, float | None]:
    return {m["method"]: m["videos"][0]["indicators"][key]["value"] for m in data["methods"]}


def test_committee_consensus_reproduces_the_seed_table(tmp_path: Path, referee, capsys) -> None:
    video, folders = seed_video(tmp_path)
    # S_⊤, S_1, S_2, S_3, S_⊥ as the committee's five members (no built-in trivial ones).
    out = tmp_path / "five.json"
    args = ("--quiet", "--consensus", "committee", "--no-trivial", "--json", out)
    assert referee("pseudo", video, *folders.values(), *args) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    precision, recall = indicator(data, "precision"), indicator(data, "recall")
    assert {m: round(v, 3) for m, v in precision.items() if v is not None} == {
        "top": 0.486,
        "s1": 0.600,
        "s2": 0.667,
        "s3": 0.667,
    }
    assert precision["bottom"] is None  # S_⊥ detects nothing: undefined
    assert [round(recall[m], 3) for m in SEED] == [1.0, 0.706, 0.588, 0.588, 0.0]
    # S_1, S_2, S_3 with the built-in trivial pair: the same committee, K' = 5.
    out = tmp_path / "three.json"
    detectors = [folders[m] for m in ("s1", "s2", "s3")]
    args = ("--quiet", "--consensus", "committee", "--json", out)
    assert referee("pseudo", video, *detectors, *args) == 0
    assert "K' = 5" in capsys.readouterr().out
    data = json.loads(out.read_text(encoding="utf-8"))
    precision, recall = indicator(data, "precision"), indicator(data, "recall")
    assert [round(precision[m], 3) for m in ("s1", "s2", "s3")] == [0.600, 0.667, 0.667]
    assert [round(recall[m], 3) for m in ("s1", "s2", "s3")] == [0.706, 0.588, 0.588]


def test_the_default_consensus_runs_on_the_seed_items(tmp_path: Path, referee, capsys) -> None:
    video, folders = seed_video(tmp_path)
    out = tmp_path / "default.json"
    detectors = [folders[m] for m in ("s1", "s2", "s3")]
    assert referee("pseudo", video, *detectors, "--quiet", "--json", out) == 0
    assert "STAPLE" in capsys.readouterr().out
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["committee"]["consensus"] == "staple"
    for m in data["methods"]:
        model = m["videos"][0]["model"]
        assert 0 < model["prior"] < 1 and 0 < model["sensitivity"] < 1
        assert m["videos"][0]["pseudo_counts"]["tp"] is not None


@pytest.mark.parametrize("consensus", ["staple", "committee"])
def test_a_consensus_that_disagrees_with_the_truth_is_said_to(
    demo: DemoLayout, tmp_path: Path, referee, capsys, consensus: str
) -> None:
    """The warning appears exactly when the summarized pseudo and true F1 of the detectors,
    read back from the CSV, correlate below 0.5 or differ by more than 0.1 on average."""
    table = tmp_path / "p.csv"
    roots = [demo.results[m] for m in (*METHODS, "mog", "running-average")]
    status = referee(
        "pseudo", demo.dataset, *roots, "--quiet", "--consensus", consensus, "--csv", table
    )
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(table.read_text(encoding="utf-8"))))
    summaries = [r for r in rows if r["row"].startswith("summary:")]
    pseudo = np.array([float(r["f1"]) for r in summaries])
    true = np.array([float(r["true_f1"]) for r in summaries])
    error = float(np.mean(np.abs(pseudo - true)))
    r = float(np.corrcoef(pseudo, true)[0, 1])
    warnings = [
        line for line in capsys.readouterr().out.splitlines() if line.startswith("warning:")
    ]
    if r < 0.5 or error > 0.1:
        assert len(warnings) == 1 and "disagrees with the ground truth" in warnings[0]
        if error > 0.1:
            assert f"differ by {error:.3f} on average" in warnings[0]
        if r < 0.5:
            assert f"correlate at {r:.3f}" in warnings[0]
    else:
        assert warnings == []
