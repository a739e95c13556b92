"""``referee boxes --ap``: COCO's detection AP of MOTChallenge detections with scores, equal
to pycocotools on the same boxes (docs/measures.md §5)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from referee.core.cli.main import main
from referee.core.measures.detection_ap import DetectedBox, GroundTruthBox
from tests.core.test_detection_ap import peer_eval

KEYS = ("ap", "ap50", "ap75", "ap_small", "ap_medium", "ap_large")
KEYS += ("ar1", "ar10", "ar100", "ar_small", "ar_medium", "ar_large")


def _rows(rng: np.random.Generator) -> tuple[list[list[float]], list[list[float]]]:
    """Ground truth (frame, id, x, y, w, h, 1) on 12 frames and noisy detections with
    scores in tenths (ties), some missed, some false."""
    truth, found = [], []
    for frame in range(1, 13):
        for identity in range(1, 7):
            w, h = rng.uniform(8, 140, size=2).round(1)
            x, y = rng.uniform(0, 500, size=2).round(1)
            truth.append([frame, identity, x, y, w, h, 1])
            if rng.random() < 0.8:
                jitter = rng.normal(0, 0.08, size=4) * [w, h, w, h]
                score = round(float(rng.uniform(0.1, 1.0)), 1)
                found.append([frame, identity, x + jitter[0], y + jitter[1], w, h, score])
        for extra in range(int(rng.integers(0, 3))):
            x, y, w, h = rng.uniform(5, 300, size=4).round(1)
            found.append([frame, 50 + extra, x, y, w, h, round(float(rng.random()), 1)])
    return truth, found


def _write(path: Path, rows: list[list[float]]) -> Path:
    path.write_text("".join(",".join(f"{v:g}" for v in row) + "\n" for row in rows))
    return path


def _pycocotools(truth: list[list[float]], found: list[list[float]]) -> list[float]:
    """pycocotools' twelve numbers on the MOTChallenge rows, every box of category 1."""
    boxes = [GroundTruthBox(int(r[0]), 1, *r[2:6]) for r in truth]
    detections = [DetectedBox(int(r[0]), 1, *r[2:6], r[6]) for r in found]
    return [float(v) for v in peer_eval(boxes, detections).stats]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_ap_of_motchallenge_detections_is_pycocotools(tmp_path: Path, seed: int) -> None:
    truth, found = _rows(np.random.default_rng(seed))
    gt, det = _write(tmp_path / "gt.txt", truth), _write(tmp_path / "det.txt", found)
    # The files are read back as written: compare on the rounded values they hold.
    truth = [[float(v) for v in line.split(",")] for line in gt.read_text().splitlines()]
    found = [[float(v) for v in line.split(",")] for line in det.read_text().splitlines()]
    out = tmp_path / "out.json"
    argv = ["boxes", str(gt), str(det), "--ap", "--quiet", "--json", str(out)]
    assert main([*argv, "--benchmark", "none"]) == 0
    ours = json.loads(out.read_text(encoding="utf-8"))["detection_ap"]["det"]
    expected = _pycocotools(truth, found)
    for key, value in zip(KEYS, expected):
        if value == -1:
            assert ours[key] is None, key
        else:
            assert ours[key] == pytest.approx(value, abs=1e-12), key


def test_detections_without_scores_are_refused_in_one_line(tmp_path: Path, capsys) -> None:
    gt = _write(tmp_path / "gt.txt", [[1, 1, 0, 0, 10, 10, 1]])
    det = tmp_path / "det.xml"  # LIRIS boxes have no score
    det.write_text(
        '<?xml version="1.0"?>\n<tagset><video><videoName>gt</videoName>'
        '<action nr="1" class="1"><bbox x="0" y="0" width="10" height="10" framenr="1"/>'
        "</action></video></tagset>\n"
    )
    status = main(["boxes", str(gt), str(det), "--ap", "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and "detection AP needs a score" in err and "Traceback" not in err
