"""``referee boxes`` on the formats annotators use (docs/measures.md §5, §10): YOLO folders
with their frame size, COCO results with the instances file that names their frames —
the numbers of the same boxes as MOTChallenge files, counted by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tests.core.test_coco import INSTANCES, RESULTS
from tests.core.test_detection_ap import peer_eval, synthetic


def boxes(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.core.cli", "boxes", *map(str, args)],
        capture_output=True,
        text=True,
    )


def _overall(path: Path) -> dict[str, object]:
    return json.loads(path.read_text())["overall"]


def test_yolo_folders_give_the_numbers_of_the_same_mot_files(tmp_path: Path) -> None:
    (tmp_path / "g.txt").write_text("1,7,10,20,30,40,1,-1,-1,-1\n2,7,12,20,30,40,1,-1,-1,-1\n")
    (tmp_path / "d.txt").write_text("1,3,11,20,30,40,0.9,-1,-1,-1\n2,3,40,21,30,40,0.8,-1,-1,-1\n")
    for name in ("g", "d"):
        convert = ["convert", tmp_path / f"{name}.txt", tmp_path / name, "--to", "yolo"]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "referee.core.cli",
                *convert,
                "--image-size",
                "100x80",
                "--lossy",
            ],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
    yolo = boxes(
        tmp_path / "g", tmp_path / "d", "--image-size", "100x80", "--json", tmp_path / "y.json"
    )
    mot = boxes(tmp_path / "g.txt", tmp_path / "d.txt", "--json", tmp_path / "m.json")
    assert yolo.returncode == mot.returncode == 0, yolo.stderr + mot.stderr
    ours = _overall(tmp_path / "y.json")
    # frame 1: IoU 29·40 / (2·1200 − 1160) = 0.935 (TP); frame 2: 2·40 ≈ 0.07 (miss + FP)
    assert (ours["tp"], ours["fp"], ours["misses"]) == (1, 1, 1)
    theirs = _overall(tmp_path / "m.json")
    for key, value in ours.items():  # YOLO keeps 12 significant digits of each box
        if isinstance(value, dict) and value["value"] is not None:
            assert value["value"] == pytest.approx(theirs[key]["value"], abs=1e-9), key
        else:
            assert value == theirs[key], key


def test_coco_results_pair_with_their_instances_file(tmp_path: Path) -> None:
    """Frame 1: the person (1, 1, 2, 2) against the detection (1.5, 1, 2, 2), IoU 3 / 5 =
    0.6, a true positive, and the car missed; frame 2 holds only a crowd, not counted,
    so the detected car there is a false positive."""
    (tmp_path / "instances.json").write_text(json.dumps(INSTANCES))
    (tmp_path / "results.json").write_text(json.dumps(RESULTS))
    done = boxes(
        tmp_path / "instances.json",
        tmp_path / "results.json",
        "--images",
        tmp_path / "instances.json",
        "--json",
        tmp_path / "c.json",
    )
    assert done.returncode == 0, done.stderr
    overall = _overall(tmp_path / "c.json")
    counts = ("gt_boxes", "det_boxes", "tp", "fp", "misses")
    assert tuple(overall[k] for k in counts) == (
        2,
        2,
        1,
        1,
        1,
    )


def test_the_ap_of_coco_files_per_class_is_pycocotools(tmp_path: Path) -> None:
    """Three categories (and detections of a fourth), crowds and given areas left out (the
    boxes Referee reads carry neither): each category's AP and the overall mean equal
    pycocotools' on the same boxes, through ``referee boxes --ap``."""
    truth, detections = synthetic(3)
    truth = [replace(g, iscrowd=False, area=None) for g in truth]
    images = sorted({g.frame for g in truth} | {d.frame for d in detections})
    instances = {
        "images": [
            {"id": f, "file_name": f"in{f:06d}.jpg", "width": 640, "height": 480} for f in images
        ],
        "categories": [{"id": c, "name": f"c{c}"} for c in (1, 2, 3, 9)],
        "annotations": [
            {"id": n, "image_id": g.frame, "category_id": g.category, "iscrowd": 0}
            | {"bbox": [g.x, g.y, g.width, g.height], "area": g.width * g.height}
            for n, g in enumerate(truth, start=1)
        ],
    }
    results = [
        {"image_id": d.frame, "category_id": d.category, "score": d.score}
        | {"bbox": [d.x, d.y, d.width, d.height]}
        for d in detections
    ]
    (tmp_path / "instances.json").write_text(json.dumps(instances))
    (tmp_path / "results.json").write_text(json.dumps(results))
    done = boxes(
        tmp_path / "instances.json",
        tmp_path / "results.json",
        "--images",
        tmp_path / "instances.json",
        "--ap",
        "--json",
        tmp_path / "ap.json",
    )
    assert done.returncode == 0, done.stderr
    (ours,) = json.loads((tmp_path / "ap.json").read_text())["detection_ap"].values()
    keys = list(ours)[:12]
    for category in (1, 2, 3, 9):
        peer = peer_eval(truth, detections, category).stats
        mine = [ours["per_category"][str(category)][k] for k in keys]
        assert [-1.0 if v is None else v for v in mine] == pytest.approx(peer, abs=1e-12)
    overall = [-1.0 if ours[k] is None else ours[k] for k in keys]
    assert overall == pytest.approx(peer_eval(truth, detections).stats, abs=1e-12)
