"""The catalogue of bad inputs, for the formats ``referee convert`` reads (CVAT for video
and for images, COCO, labelme, MOTChallenge): valid files broken at random — cut short,
a byte changed, a line dropped or repeated — are converted or refused with a Referee
error naming the file, never another exception; and through the real entry point a
broken file is one line and exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.core.errors import RefereeError
from referee.core.workflow.convert import run_convert
from referee.core.workflow.options import ConvertOptions
from tests.core import cvat_fixtures
from tests.core.test_coco import INSTANCES

LABELME = {
    "version": "5.4.1",
    "flags": {},
    "shapes": [
        {"label": "person", "points": [[1, 1], [5, 1], [5, 6]], "shape_type": "polygon"},
        {"label": "car", "points": [[6, 2], [9, 7]], "shape_type": "rectangle"},
    ],
    "imagePath": "in000001.jpg",
    "imageData": None,
    "imageHeight": 10,
    "imageWidth": 12,
}
MOT = "1,7,10,20,30,40,1,-1,-1,-1\n1,8,50,20,10,10,1,-1,-1,-1\n2,7,12,20,30,40,1,-1,-1,-1\n"
#: Each valid input, its file name, and a conversion that reads it.
INPUTS: dict[str, tuple[str, str, ConvertOptions]] = {
    "cvat-video": (
        "video.xml",
        cvat_fixtures.VIDEO,
        ConvertOptions(to="cdnet-png", labels={"person": 255, "car": 255, "road": 50}),
    ),
    "cvat-images": ("images.xml", cvat_fixtures.IMAGES, ConvertOptions(to="coco")),
    "coco": (
        "instances.json",
        json.dumps(INSTANCES),
        ConvertOptions(to="cvat-images", lossy=True, image_size=(6, 4)),
    ),
    "labelme": (
        "in000001.json",
        json.dumps(LABELME),
        ConvertOptions(to="cdnet-png", labels={"person": 255, "car": 50}),
    ),
    "mot-csv": ("seq.txt", MOT, ConvertOptions(to="cvat-video")),
}


def _broken(text: str, how: str, at: float, byte: int) -> bytes:
    data = text.encode()
    k = int(at * len(data))
    lines = data.split(b"\n")
    j = int(at * len(lines))
    if how == "cut":
        return data[:k]
    if how == "byte":
        return data[:k] + bytes([byte]) + data[k + 1 :]
    if how == "drop-line":
        return b"\n".join(lines[:j] + lines[j + 1 :])
    return b"\n".join(lines[: j + 1] + lines[j:])  # a line twice


@pytest.mark.parametrize("name", list(INPUTS))
def test_the_valid_files_convert(tmp_path: Path, name: str) -> None:
    file_name, text, options = INPUTS[name]
    source = tmp_path / file_name
    source.write_text(text)
    done = run_convert(source, tmp_path / "out", options)
    assert done.source_format == name and done.items > 0


@pytest.mark.parametrize("name", list(INPUTS))
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    how=st.sampled_from(["cut", "byte", "drop-line", "repeat-line"]),
    at=st.floats(0, 0.999),
    byte=st.integers(0, 255),
)
def test_a_broken_file_converts_or_is_refused_by_name(
    tmp_path: Path, name: str, how: str, at: float, byte: int
) -> None:
    file_name, text, options = INPUTS[name]
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    source = folder / file_name
    source.write_bytes(_broken(text, how, at, byte))
    try:
        run_convert(source, folder / "out", options)
    except RefereeError as error:
        message = str(error)
        assert "\n" not in message.strip()
        assert file_name in message or "labels" in message or "cannot" in message, message


def test_the_command_line_says_it_in_one_line(tmp_path: Path) -> None:
    source = tmp_path / "instances.json"
    source.write_text(json.dumps(INSTANCES)[:200])
    command = ["convert", str(source), str(tmp_path / "o"), "--to", "cvat-images"]
    done = subprocess.run(
        [sys.executable, "-m", "referee.core.cli", *command],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("referee: error:") and "instances.json" in line
