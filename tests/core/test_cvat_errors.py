"""Bad CVAT files (docs/measures.md §10, §11): one line naming the file, the line and the
element; no traceback; bounded time and memory."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from referee.core.cli.main import main
from referee.core.errors import InputFileError
from referee.core.formats import registry
from referee.core.formats.cvat_xml import IMAGES, MAX_FILE_BYTES, VIDEO, read_cvat
from referee.core.limits import MAX_BOXES_PER_FRAME
from tests.core import cvat_fixtures as fx


def _video(body: str, size: int = 10, labels: tuple[str, ...] = ("person",)) -> str:
    return fx.document(fx.meta("t", size, list(labels)), body)


def _box(frame: int, xtl: str = "1", xbr: str = "5", extra: str = "") -> str:
    return f'<box frame="{frame}" xtl="{xtl}" ytl="1" xbr="{xbr}" ybr="5"{extra}/>'


def _track(*shapes: str, track_id: int = 0, label: str = "person") -> str:
    return (
        f'  <track id="{track_id}" label="{label}">\n    '
        + "\n    ".join(shapes)
        + "\n  </track>\n"
    )


CASES = {
    "malformed": (
        _video(_track(_box(0)).replace("</track>", "")),
        r"line \d+: not well-formed XML",
    ),
    "wrong version": (
        _video(_track(_box(0))).replace("<version>1.1</version>", "<version>1.0</version>"),
        r"line 3: <version> is '1.0'; Referee reads CVAT XML 1.1",
    ),
    "no version": (
        _video(_track(_box(0))).replace("<version>1.1</version>", ""),
        r"<annotations> does not start with <version>1.1</version>",
    ),
    "xbr < xtl": (
        _video(_track(_box(0), _box(1, xtl="6", xbr="5.5"))),
        r'line \d+: <box frame="1"> of track 0: xbr=5.5 is less than xtl=6',
    ),
    "frame beyond the task": (
        _video(_track(_box(0), _box(12))),
        r'<box frame="12"> of track 0: frame 12 is out of range; the task has 10 frames',
    ),
    "undeclared label": (
        _video(_track(_box(0), label="car")),
        r"<track id=\"0\">: label 'car' is not declared in <meta> \(declared: 'person'\)",
    ),
    "not a number": (
        _video(_track(_box(0, xtl="abc"))),
        r"<box frame=\"0\"> of track 0: Element 'box', attribute 'xtl': .*'abc'",
    ),
    "infinity": (
        _video(_track(_box(0, xbr="INF"))),
        r"<box frame=\"0\"> of track 0: .*'INF'",
    ),
    "beyond the coordinates": (
        _video(_track(_box(0, xbr="1e7"))),
        r"xbr=1E\+7 is beyond 1,000,000 pixels",
    ),
    "unknown element": (
        _video(_track(_box(0), '<cube frame="1"/>')),
        r"<cube frame=\"1\"> of track 0: Element 'cube': This element is not expected",
    ),
    "id twice": (
        _video(_track(_box(0)) + _track(_box(1))),
        r"<track id=\"0\">: this id is used twice \(first on line \d+\)",
    ),
    "frame twice": (
        _video(_track(_box(3), _box(3))),
        r"<box frame=\"3\"> of track 0: the track already has a shape on this frame",
    ),
    "two kinds": (
        _video(_track(_box(0), '<polygon frame="1" points="0,0;1,0;0,1"/>')),
        r"<polygon frame=\"1\"> of track 0: a <polygon> in a track of <box>",
    ),
    "polygon left out": (
        _video(
            _track(
                '<polygon frame="0" points="0,0;4,0;0,4"/>',
                '<polygon frame="3" points="0,0;4,0;0,4"/>',
            )
        ),
        r"<track id=\"0\">: frames 1–2 between its polygons .* are not written",
    ),
    "two points": (
        _video(_track('<polygon frame="0" points="0,0;4,0"/>')),
        r"<polygon frame=\"0\"> of track 0: a polygon needs at least 3 points",
    ),
    "rotated": (
        _video(_track(_box(0, extra=' rotation="30"'))),
        r"<box frame=\"0\"> of track 0: the box is rotated by 30°",
    ),
    "mask runs": (
        _video(_track('<mask frame="0" rle="1, 2" left="0" top="0" width="2" height="2"/>')),
        r"<mask frame=\"0\"> of track 0: the run lengths add up to 3 pixels, not the 2×2 = 4",
    ),
    "empty mask": (
        _video(_track('<mask frame="0" rle="4" left="0" top="0" width="2" height="2"/>')),
        r"<mask frame=\"0\"> of track 0: the mask has no pixel set",
    ),
    "doctype": (
        _video(_track(_box(0))).replace(
            "<annotations>", '<!DOCTYPE a [<!ENTITY x "y">]><annotations>'
        ),
        r"line 2: the document contains <!DOCTYPE; DTDs and entity declarations are refused",
    ),
    "images in video": (
        _video(_track(_box(0)) + '  <image id="0"/>\n'),
        r"<image id=\"0\">: a CVAT for video file holds no <image>",
    ),
    "frame beyond Referee's": (
        _video(_track(_box(10_000_000), _box(10_000_001, extra=' outside="1"')), size=20_000_000),
        r"<track id=\"0\">: CVAT frames 10000000–10000000 are Referee frames",
    ),
}


def _check_one_line(error: InputFileError, path: Path) -> str:
    text = str(error)
    assert "\n" not in text and text.startswith(f"{path}: ")
    return text


@pytest.mark.parametrize("case", CASES)
def test_a_bad_file_is_one_line_naming_file_line_and_element(tmp_path: Path, case: str) -> None:
    text, expected = CASES[case]
    path = fx.write(tmp_path, "bad.xml", text)
    with pytest.raises(InputFileError, match=expected) as caught:
        registry.read(path, registry.BOXES)
    _check_one_line(caught.value, path)


def test_other_roots_and_flavours(tmp_path: Path) -> None:
    liris = fx.write(tmp_path, "liris.xml", "<tagset/>")
    with pytest.raises(
        InputFileError, match="the root element is <tagset>, expected <annotations>"
    ):
        read_cvat(liris, VIDEO)
    video = fx.write(tmp_path, "video.xml", _video(_track(_box(0))))
    with pytest.raises(InputFileError, match=r"<track id=\"0\">: a CVAT for images file holds no"):
        read_cvat(video, IMAGES)
    outside = fx.document(fx.meta("t", 2, ["a"], mode="annotation"), '  <image id="2"/>\n')
    with pytest.raises(InputFileError, match=r"<image id=\"2\">: image 2 is out of range"):
        registry.read(fx.write(tmp_path, "i.xml", outside), registry.BOXES)


def test_a_file_beyond_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    path = fx.write(tmp_path, "huge.xml", _video(_track(_box(0))))
    with path.open("r+b") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: nothing to read, only its size
    with pytest.raises(
        InputFileError,
        match=r"33,554,433 bytes, more than the 33,554,432 a CVAT file may have \(MAX_XML_FILE_BYTES\)",
    ) as caught:
        read_cvat(path, VIDEO)
    _check_one_line(caught.value, path)


def test_keyframes_far_apart_are_refused_before_filling_in(tmp_path: Path) -> None:
    path = fx.write(tmp_path, "far.xml", _video(_track(_box(0), _box(6_000_000)), size=6_000_001))
    start = time.perf_counter()
    with pytest.raises(InputFileError, match=r"<track id=\"0\">: .* 6,000,001 boxes, which"):
        registry.read(path, registry.BOXES)
    assert time.perf_counter() - start < 2
    # Two tracks of 3,000,000 boxes: the second brings the file beyond MAX_TRACK_BOXES.
    two = "".join(_track(_box(0), _box(2_999_999), track_id=k) for k in (0, 1))
    path = fx.write(tmp_path, "far2.xml", _video(two, size=3_000_000))
    with pytest.raises(InputFileError, match=r"<track id=\"1\">: .* 3,000,000 boxes, which"):
        registry.read(path, registry.BOXES)


def test_too_many_tracks_on_a_frame(tmp_path: Path) -> None:
    tracks = "".join(_track(_box(0), track_id=k) for k in range(MAX_BOXES_PER_FRAME + 1))
    path = fx.write(tmp_path, "crowd.xml", _video(tracks))
    with pytest.raises(
        InputFileError, match=rf"<track id=\"{MAX_BOXES_PER_FRAME}\">: frame 0 has 2,001"
    ):
        registry.read(path, registry.BOXES)


def test_the_command_line_prints_one_line_and_no_traceback(tmp_path: Path, capsys) -> None:
    bad = fx.write(tmp_path, "bad.xml", CASES["xbr < xtl"][0])
    detections = fx.write(tmp_path, "det.txt", "1,1,0,0,1,1,1\n")
    assert main(["boxes", str(bad), str(detections)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert str(bad) in err and '<box frame="1"> of track 0' in err


def test_a_label_missing_from_the_map_is_one_line_naming_the_element(tmp_path: Path) -> None:
    path = fx.write(tmp_path, "corridor.xml", fx.VIDEO)
    with pytest.raises(
        InputFileError, match=r"line \d+: <track id=\"1\">: its label 'car'"
    ) as caught:
        registry.read(path, registry.ACTIONS, classes={"person": 4, "road": 1})
    _check_one_line(caught.value, path)
    with pytest.raises(
        InputFileError, match=r"line \d+: <mask> of track 4: its label 'car'"
    ) as caught:
        registry.read(path, registry.LABEL_MAPS, levels={"road": 50})
    _check_one_line(caught.value, path)
