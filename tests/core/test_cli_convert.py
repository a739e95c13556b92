"""``referee convert`` through the real entry point (docs/measures.md §10): the richest
content both formats hold, refusals that say what would be lost, round trips, and bad
options in one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.formats import registry
from tests.core import cvat_fixtures

MOT = "1,7,10,20,30,40,1,-1,-1,-1\n1,8,50,20,10,10,1,-1,-1,-1\n2,7,12,20,30,40,1,-1,-1,-1\n"


def referee(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.core.cli", "convert", *map(str, args)],
        capture_output=True,
        text=True,
    )


def _one_line_error(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: error:"), done.stderr
    for word in words:
        assert word in lines[0]


def test_keyframes_are_not_dropped_silently(tmp_path: Path) -> None:
    """The CVAT track 3 is given by keyframes on frames 4 and 8 (CVAT's 0-based frames):
    MOTChallenge has no keyframe flag, so the conversion needs --lossy; then each
    interpolated box is a row, CVAT frame n being MOTChallenge frame n + 1."""
    source = cvat_fixtures.write(tmp_path, "walk.xml", cvat_fixtures.ROUND_TRIP)
    target = tmp_path / "walk.txt"
    _one_line_error(referee(source, target, "--to", "mot-csv"), "keyframes", "--lossy")
    assert not target.exists()
    done = referee(source, target, "--to", "mot-csv", "--lossy")
    assert done.returncode == 0, done.stderr
    assert "without its keyframes" in done.stdout
    rows = [line.split(",") for line in target.read_text().splitlines()]
    by_key = {(int(r[0]), int(r[1])): [float(v) for v in r[2:6]] for r in rows}
    # track 0 on CVAT frame 0: xtl 10.5, ytl 20, xbr 30.25, ybr 60
    assert by_key[(1, 0)] == [10.5, 20.0, 19.75, 40.0]
    # track 3, halfway between its keyframes (0, 0, 10, 10) on 4 and (8, 4, 20, 10) on 8
    assert by_key[(7, 3)] == [4.0, 2.0, 11.0, 8.0]
    assert sorted(f for f, i in by_key if i == 3) == [5, 6, 7, 8, 9, 10]


def test_tracks_round_trip_through_cvat(tmp_path: Path) -> None:
    source = tmp_path / "seq.txt"
    source.write_text(MOT)
    done = referee(source, tmp_path / "seq.xml", "--to", "cvat-video", "--image-size", "640x480")
    assert done.returncode == 0, done.stderr
    assert "(mot-csv, tracks: 2)" in done.stdout
    back = referee(tmp_path / "seq.xml", tmp_path / "back.txt", "--to", "mot-csv")
    assert back.returncode == 0, back.stderr
    ours, _ = registry.read(tmp_path / "back.txt", registry.BOXES)
    theirs, _ = registry.read(source, registry.BOXES)
    for frame in (1, 2):
        a, b = ours[0].at(frame), theirs[0].at(frame)
        assert a.ids.tolist() == b.ids.tolist() and np.array_equal(a.boxes, b.boxes)


def test_yolo_needs_lossy_for_identities_and_a_frame_size(tmp_path: Path) -> None:
    source = tmp_path / "seq.txt"
    source.write_text(MOT)
    target = tmp_path / "labels"
    _one_line_error(referee(source, target, "--to", "yolo"), "identities", "--lossy")
    _one_line_error(referee(source, target, "--to", "yolo", "--lossy"), "image_size")
    done = referee(source, target, "--to", "yolo", "--lossy", "--image-size", "100x80")
    assert done.returncode == 0, done.stderr
    first = (target / "000001.txt").read_text().split()
    # box 10, 20, 30, 40 in 100 × 80: centre (25, 40) → 0.25 0.5, size 0.3 0.5
    assert [float(v) for v in first[1:5]] == pytest.approx([0.25, 0.5, 0.3, 0.5], abs=1e-9)


def test_label_maps_become_cdnet_ground_truth(tmp_path: Path) -> None:
    """The polygons and masks of the CVAT file, rasterized by its reader, are written as
    the CDnet levels the map gives, frame by frame."""
    source = cvat_fixtures.write(tmp_path, "video.xml", cvat_fixtures.VIDEO)
    levels = {"person": 255, "car": 255, "road": 50}
    done = referee(
        source, tmp_path / "gt", "--to", "cdnet-png", "--labels", "person=255,car=255,road=50"
    )
    assert done.returncode == 0, done.stderr
    (maps,) = registry.read(source, registry.LABEL_MAPS, levels=levels)[0].values()
    for frame, label in maps.items():
        written = cv2.imread(str(tmp_path / "gt" / f"gt{frame:06d}.png"), cv2.IMREAD_UNCHANGED)
        assert np.array_equal(written, label), frame
    assert 50 in set(np.unique(maps[1]).tolist())  # the road is on the first frame


def test_labels_from_a_json_file(tmp_path: Path) -> None:
    source = cvat_fixtures.write(tmp_path, "video.xml", cvat_fixtures.VIDEO)
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"person": 255, "car": 255, "road": 0}))
    done = referee(source, tmp_path / "gt", "--to", "cdnet-png", "--labels", labels)
    assert done.returncode == 0, done.stderr


def test_bad_requests_are_one_line(tmp_path: Path) -> None:
    source = tmp_path / "seq.txt"
    source.write_text(MOT)
    _one_line_error(referee(source, tmp_path / "x", "--to", "nope"), "unknown target format")
    _one_line_error(referee(source, tmp_path / "x.xml", "--to", "liris-xml"), "liris-xml writes")
    _one_line_error(
        referee(source, tmp_path / "x.xml", "--to", "cvat-video", "--images", "a.json"),
        "--images is not used",
    )
    _one_line_error(
        referee(source, tmp_path / "x.xml", "--to", "cvat-video", "--image-size", "big"),
        "WIDTHxHEIGHT",
    )
    _one_line_error(referee(source, tmp_path / "gt", "--to", "cdnet-png", "--labels", "a=b"))
    _one_line_error(referee(tmp_path / "missing.txt", tmp_path / "y.xml", "--to", "cvat-video"))
    existing = tmp_path / "exists.xml"
    existing.write_text("mine")
    _one_line_error(referee(source, existing, "--to", "cvat-video"), "--force")
    assert existing.read_text() == "mine"
    assert referee(source, existing, "--to", "cvat-video", "--force").returncode == 0
