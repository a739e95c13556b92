"""LASIESTA sequences as a dataset (docs/measures.md §1): discovery, the colour mapping,
and ``referee evaluate`` through the real entry point on a small synthetic dataset whose
counts are worked out by hand below."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.annotation.document import GroundTruthDocument
from referee.core.annotation.saving import save
from referee.core.errors import InputFileError, MissingFrameError
from referee.core.formats.annotated import frames_with_ground_truth
from referee.core.formats.datasets import discover_dataset, read_truth, read_video_roi
from referee.core.formats.lasiesta import read_lasiesta_gt
from referee.core.frames.sources import CdnetResultSource
from referee.core.model.project import DetectorSource, Project
from referee.core.workflow.frame_layers import CdnetInputSource, FrameLayerReader
from referee.core.workflow.projects import open_path, project_videos

#: Grid letters of the ground truth and their (R, G, B): LASIESTA's colours, plus one it
#: does not use (blue) for the bad-input test.
COLOURS = {
    ".": (0, 0, 0),  # background
    "R": (255, 0, 0),  # moving object 1
    "G": (0, 255, 0),  # moving object 2
    "Y": (255, 255, 0),  # moving object 3
    "W": (255, 255, 255),  # moving object remaining static
    "-": (128, 128, 128),  # uncertain
    "B": (0, 0, 255),  # none of LASIESTA's
}

# Sequence I_SI_01, three frames of 4 x 6 pixels. Under the mapping of docs/measures.md §1
# (red, green, yellow, white: motion; black: static; grey: not evaluated) and a detector's
# masks ("#" detected), counted pixel by pixel:
#
# frame 1: red 4 (3 detected, 1 missed), green 4 (2 and 2), grey 5 (one detected: not
#          evaluated), black 11 (one detected) -> tp 5, fp 1, fn 3, tn 10
# frame 2: white 4 (2 and 2), red 4 (3 and 1), grey 5 (two detected), black 11 (two
#          detected) -> tp 5, fp 2, fn 3, tn 9
# frame 3: black 24, two detected -> tp 0, fp 2, fn 0, tn 22
# I_SI_01: tp 10, fp 5, fn 6, tn 41 (62 pixels = 72 - 10 grey)
I_SI_01_TRUTH = [
    ["RR-...", "RR-...", "---.GG", "....GG"],
    ["......", "WW.RR-", "WW.RR-", "...---"],
    ["......", "......", "......", "......"],
]
I_SI_01_MASKS = [
    ["##...#", "#.#...", "....#.", "....#."],
    ["..#...", "##.#.#", "...##.", "#....#"],
    ["......", "..##..", "......", "......"],
]
I_SI_01_COUNTS = {"tp": 10, "fp": 5, "fn": 6, "tn": 41}
# Sequence O_SU_02, one frame of 2 x 4: yellow 4 (1 detected), black 4 (1 detected)
# -> tp 1, fp 1, fn 3, tn 3.
O_SU_02_TRUTH = [["YY..", "YY.."]]
O_SU_02_MASKS = [["#..#", "...."]]
O_SU_02_COUNTS = {"tp": 1, "fp": 1, "fn": 3, "tn": 3}


def colour_image(rows: list[str]) -> np.ndarray:
    """The BGR image of a grid of :data:`COLOURS` letters."""
    rgb = np.array([[COLOURS[c] for c in row] for row in rows], dtype=np.uint8)
    return np.ascontiguousarray(rgb[:, :, ::-1])


def mask_image(rows: list[str]) -> np.ndarray:
    return np.array([[255 if c == "#" else 0 for c in row] for row in rows], dtype=np.uint8)


def write_sequence(parent: Path, name: str, truth: list[list[str]]) -> None:
    """``parent/name/name-i.bmp`` input frames and ``parent/name-GT/name-GT_i.bmp`` ground
    truth, as LASIESTA lays them out."""
    (parent / name).mkdir(parents=True)
    (parent / f"{name}-GT").mkdir()
    for i, rows in enumerate(truth, start=1):
        image = colour_image(rows)
        assert cv2.imwrite(str(parent / name / f"{name}-{i}.bmp"), np.full_like(image, 90))
        assert cv2.imwrite(str(parent / f"{name}-GT" / f"{name}-GT_{i}.bmp"), image)


def write_masks(folder: Path, masks: list[list[str]]) -> None:
    folder.mkdir(parents=True)
    for i, rows in enumerate(masks, start=1):
        assert cv2.imwrite(str(folder / f"bin{i:06d}.png"), mask_image(rows))


@pytest.fixture
def lasiesta(tmp_path: Path) -> tuple[Path, Path]:
    """A LASIESTA root of two sequences and one detector's results root."""
    root, results = tmp_path / "LASIESTA", tmp_path / "results" / "detector"
    write_sequence(root, "I_SI_01", I_SI_01_TRUTH)
    write_sequence(root, "O_SU_02", O_SU_02_TRUTH)
    write_masks(results / "I_SI_01", I_SI_01_MASKS)
    write_masks(results / "O_SU_02", O_SU_02_MASKS)
    return root, results


def run_referee(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.core.cli", *map(str, args)], capture_output=True, text=True
    )


def evaluate_json(root: Path, results: Path, out: Path) -> dict[str, dict[str, int]]:
    completed = run_referee("evaluate", root, results, "--quiet", "--json", out)
    assert completed.returncode == 0, completed.stderr
    (method,) = json.loads(out.read_text())["methods"]
    return {
        v["video"]: {k: v["counts"][k] for k in ("tp", "fp", "fn", "tn")} for v in method["videos"]
    }


def test_evaluate_gives_the_counts_worked_out_by_hand(lasiesta, tmp_path):
    root, results = lasiesta
    counts = evaluate_json(root, results, tmp_path / "r.json")
    assert counts == {"I_SI_01": I_SI_01_COUNTS, "O_SU_02": O_SU_02_COUNTS}


def test_colours_become_cdnet_levels(tmp_path):
    path = tmp_path / "S-GT_1.bmp"
    cv2.imwrite(str(path), colour_image([".RGYW-"]))
    levels = read_lasiesta_gt(path, 1)
    assert levels.dtype == np.uint8
    assert levels.tolist() == [[0, 255, 255, 255, 255, 170]]


@pytest.mark.parametrize("colour", [(254, 0, 0), (0, 128, 0), (0, 0, 255), (255, 0, 255)])
def test_any_other_colour_is_refused_naming_it(tmp_path, colour):
    path = tmp_path / "S-GT_1.bmp"
    image = colour_image([".RGYW-"])
    image[0, 3] = colour[::-1]
    cv2.imwrite(str(path), image)
    with pytest.raises(InputFileError) as raised:
        read_lasiesta_gt(path, 1)
    assert f"(R, G, B) = {colour} at pixel (x, y) = (3, 0)" in str(raised.value)


def test_discovery_by_layout_in_a_root_one_level_down_and_of_one_sequence(tmp_path):
    write_sequence(tmp_path / "flat", "A", [["R."], ["R."]])
    write_sequence(tmp_path / "grouped" / "indoor", "A", [["R."]])
    write_sequence(tmp_path / "grouped" / "outdoor", "B", [["G."]])
    (tmp_path / "grouped" / "notes").mkdir()  # a folder holding no pair is not a sequence

    (flat,) = discover_dataset(tmp_path / "flat")
    assert (flat.label, flat.first, flat.last, flat.annotated) == ("A", 1, 2, None)
    assert flat.input_path(2) == tmp_path / "flat" / "A" / "A-2.bmp"
    assert flat.gt_path(2) == tmp_path / "flat" / "A-GT" / "A-GT_2.bmp"
    grouped = discover_dataset(tmp_path / "grouped")
    assert [v.label for v in grouped] == ["indoor/A", "outdoor/B"]
    (single,) = discover_dataset(tmp_path / "flat" / "A")
    assert single.label == "A" and single.last == 2
    assert frames_with_ground_truth(flat).count_within(1, 2) == 2


def test_no_roi_is_the_whole_frame_and_ground_truth_reads_as_levels(lasiesta):
    root, _ = lasiesta
    video = discover_dataset(root)[0]
    roi = read_video_roi(video)
    assert roi.shape == (4, 6) and roi.all()
    assert read_truth(video, 3).tolist() == [[0] * 6] * 4


def test_a_roi_bmp_in_the_sequence_folder_is_used(lasiesta):
    root, _ = lasiesta
    roi = np.zeros((4, 6), np.uint8)
    roi[:, :3] = 255
    cv2.imwrite(str(root / "I_SI_01" / "ROI.bmp"), roi)
    video = discover_dataset(root)[0]
    assert read_video_roi(video).tolist() == [[True] * 3 + [False] * 3] * 4


def test_the_window_layers_show_the_input_the_levels_and_the_comparison(lasiesta):
    root, results = lasiesta
    video = discover_dataset(root)[0]
    inputs = CdnetInputSource(video)
    detector = CdnetResultSource.for_video(results, video)
    reader = FrameLayerReader(inputs, inputs.frame_count, video, {"detector": detector})
    layers = reader.read(1)
    assert inputs.frame_count == 3 and layers.image.shape == (4, 6, 3)
    assert layers.groundtruth is not None and layers.evaluated
    assert layers.groundtruth[0].tolist() == [255, 255, 170, 0, 0, 0]  # "RR-..."
    # mask "##...#": tp, tp, not evaluated (grey), tn, tn, fp
    assert layers.comparisons["detector"][0].tolist() == [1, 1, 5, 0, 0, 2]


def test_open_path_takes_a_lasiesta_root_with_the_results_beside_it(lasiesta):
    root, results = lasiesta
    project = open_path(root)
    assert project.dataset == root
    assert [d.name for d in project.detectors] == ["detector"]
    assert project.detectors[0].masks == results
    assert [v.label for v in project_videos(project)] == ["I_SI_01", "O_SU_02"]


def test_frame_range_applies_to_lasiesta_sequences(lasiesta, tmp_path):
    root, results = lasiesta
    completed = run_referee(
        "evaluate", root, results, "--quiet", "--frames", "1:2", "--json", tmp_path / "r.json"
    )
    assert completed.returncode == 0, completed.stderr
    (method,) = json.loads((tmp_path / "r.json").read_text())["methods"]
    (video,) = (v for v in method["videos"] if v["video"] == "I_SI_01")
    # frames 1 and 2 of the hand count above
    assert {k: video["counts"][k] for k in ("tp", "fp", "fn", "tn")} == {
        "tp": 10,
        "fp": 3,
        "fn": 6,
        "tn": 19,
    }


def test_pseudo_and_rank_run_on_a_lasiesta_root(lasiesta, tmp_path):
    root, results = lasiesta
    other = tmp_path / "results" / "other"
    write_masks(other / "I_SI_01", [["......"] * 4] * 3)
    write_masks(other / "O_SU_02", [["...."] * 2])
    for command in ("pseudo", "rank"):
        completed = run_referee(command, root, results, other, "--quiet")
        assert completed.returncode == 0, completed.stderr
    pseudo = run_referee("pseudo", root, results, other, "--quiet")
    assert "ground truth found: true values computed" in pseudo.stdout


def one_line_error(root: Path, results: Path) -> str:
    completed = run_referee("evaluate", root, results, "--quiet")
    assert completed.returncode == 2
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1, completed.stderr
    return lines[0]


def test_a_colour_none_of_lasiesta_is_one_line_naming_the_file(lasiesta):
    root, results = lasiesta
    bad = root / "I_SI_01-GT" / "I_SI_01-GT_2.bmp"
    cv2.imwrite(str(bad), colour_image(["......", "WW.RR-", "WW.RB-", "...---"]))
    line = one_line_error(root, results)
    assert str(bad) in line
    assert "(R, G, B) = (0, 0, 255) at pixel (x, y) = (4, 2)" in line


def test_a_ground_truth_frame_of_another_size_is_one_line_naming_both_files(lasiesta):
    root, results = lasiesta
    bad = root / "I_SI_01-GT" / "I_SI_01-GT_3.bmp"
    cv2.imwrite(str(bad), colour_image(["...", "..."]))
    line = one_line_error(root, results)
    assert str(bad) in line and "3x2" in line
    assert str(root / "I_SI_01-GT" / "I_SI_01-GT_1.bmp") in line and "6x4" in line


def test_a_missing_ground_truth_frame_is_one_line_naming_it(lasiesta):
    root, results = lasiesta
    missing = root / "I_SI_01-GT" / "I_SI_01-GT_2.bmp"
    missing.unlink()
    line = one_line_error(root, results)
    assert str(missing) in line and "frame 2 is missing" in line
    with pytest.raises(MissingFrameError):
        discover_dataset(root)


def test_the_last_ground_truth_frame_is_needed_as_long_as_the_input(lasiesta):
    root, _ = lasiesta
    missing = root / "I_SI_01-GT" / "I_SI_01-GT_3.bmp"
    missing.unlink()  # the input still has frame 3
    with pytest.raises(MissingFrameError, match="frame 3 is missing") as raised:
        discover_dataset(root)
    assert raised.value.path == missing


def test_an_empty_ground_truth_folder_is_named(tmp_path):
    (tmp_path / "S").mkdir()
    (tmp_path / "S-GT").mkdir()
    with pytest.raises(InputFileError, match="holds no ground-truth frame") as raised:
        discover_dataset(tmp_path)
    assert raised.value.path == tmp_path / "S-GT"


def test_saving_an_annotation_of_a_lasiesta_sequence_is_refused(lasiesta, tmp_path):
    root, _ = lasiesta
    project = Project(
        name="p", dataset=root, detectors=(DetectorSource("d"),), file=tmp_path / "p.referee.json"
    )
    videos = project_videos(project)
    document = GroundTruthDocument(project, videos)
    label_map = document.label_map("I_SI_01", 3)
    label_map[0, 0] = 255
    document.mask_changed("I_SI_01", 3)
    target = root / "I_SI_01-GT" / "I_SI_01-GT_3.bmp"
    before = target.read_bytes()
    with pytest.raises(InputFileError, match="does not write it") as raised:
        save(document)
    assert raised.value.path == target
    assert target.read_bytes() == before
