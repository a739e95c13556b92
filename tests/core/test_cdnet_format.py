"""CDnet folders: discovery, temporal ROI, palette ROI, result lookup (docs/measures.md §1, §10)."""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.errors import InputFileError, MissingFrameError
from referee.core.formats.cdnet import (
    RESULT_EXTENSIONS,
    discover_videos,
    find_result_file,
    find_result_folder,
    is_video_folder,
    load_video,
    read_grey,
    read_gt,
    read_roi,
    read_temporal_roi,
    result_extension,
)
from referee.core.model.videos import VideoSpec
from tests.conftest import HIGHWAY


def make_video(
    folder: Path, first: int = 2, last: int = 4, n_frames: int = 5, shape: tuple[int, int] = (6, 8)
) -> Path:
    """A tiny CDnet video folder: GT frames, an all-in ROI and a temporal ROI."""
    (folder / "groundtruth").mkdir(parents=True)
    (folder / "input").mkdir()
    for i in range(1, n_frames + 1):
        cv2.imwrite(str(folder / "groundtruth" / f"gt{i:06d}.png"), np.zeros(shape, np.uint8))
    cv2.imwrite(str(folder / "ROI.bmp"), np.full(shape, 255, np.uint8))
    (folder / "temporalROI.txt").write_text(f"{first} {last}\n")
    return folder


def write_palette_bmp(path: Path, indices: np.ndarray, palette: list[tuple[int, int, int]]) -> None:
    """An 8-bit palette BMP (bottom-up rows padded to 4 bytes), written byte by byte."""
    h, w = indices.shape
    stride = (w + 3) // 4 * 4
    table = bytearray(1024)
    for k, (r, g, b) in enumerate(palette):
        table[4 * k : 4 * k + 4] = bytes((b, g, r, 0))
    rows = b"".join(bytes(indices[y].tolist()) + bytes(stride - w) for y in range(h - 1, -1, -1))
    offset = 14 + 40 + 1024
    header = b"BM" + struct.pack("<IHHI", offset + len(rows), 0, 0, offset)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 8, 0, len(rows), 2835, 2835, 256, 0)
    path.write_bytes(header + info + bytes(table) + rows)


# --- ROI ---------------------------------------------------------------------


def test_palette_roi_whose_index_0_is_white_is_decoded_to_grey(tmp_path: Path) -> None:
    indices = np.ones((10, 12), np.uint8)  # index 1 = black = outside
    indices[3:7, 4:9] = 0  # index 0 = white = inside
    path = tmp_path / "ROI.bmp"
    write_palette_bmp(path, indices, [(255, 255, 255), (0, 0, 0)])
    roi = read_roi(path)
    assert roi.dtype == bool and roi.shape == (10, 12)
    np.testing.assert_array_equal(roi, indices == 0)  # raw indices would give the inverse
    assert roi[5, 6] and not roi[0, 0]


def test_real_highway_roi_is_a_palette_image_and_comes_out_inside() -> None:
    data = (HIGHWAY / "ROI.bmp").read_bytes()
    bits = struct.unpack("<H", data[28:30])[0]
    assert bits == 8 and data[54:57] == b"\xff\xff\xff"  # palette entry 0 is white
    roi = read_roi(HIGHWAY / "ROI.bmp")
    assert roi.shape == (240, 320)
    assert roi[120, 160] and roi[200, 100]  # on the road, inside the region
    assert roi.all()  # highway's ROI is the whole frame


def test_real_highway_gt_is_decoded_to_cdnet_grey_levels() -> None:
    gt = read_gt(HIGHWAY / "groundtruth" / "gt000800.png")
    assert gt.shape == (240, 320) and gt.dtype == np.uint8
    assert set(np.unique(gt).tolist()) <= {0, 50, 85, 170, 255}
    assert (gt == 255).any()


def test_read_grey_errors(tmp_path: Path) -> None:
    with pytest.raises(MissingFrameError, match=r"gt000007\.png.*frame 7"):
        read_gt(tmp_path / "gt000007.png", 7)
    with pytest.raises(InputFileError, match=r"ROI\.bmp"):
        read_roi(tmp_path / "ROI.bmp")
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"this is not an image")
    with pytest.raises(InputFileError, match=r"broken\.png.*cannot decode") as info:
        read_grey(broken, "result", 3)
    assert info.value.path == broken
    assert not isinstance(info.value, MissingFrameError)


def test_colour_image_is_read_as_grey(tmp_path: Path) -> None:
    path = tmp_path / "c.png"
    cv2.imwrite(str(path), np.full((3, 4, 3), 255, np.uint8))
    image = read_grey(path)
    assert image.shape == (3, 4) and (image == 255).all()


# --- temporal ROI ------------------------------------------------------------


@pytest.mark.parametrize("text", ["470 1700", "470 1700\n", "470\t1700\r\n", "\ufeff470 1700"])
def test_temporal_roi_reads(tmp_path: Path, text: str) -> None:
    path = tmp_path / "temporalROI.txt"
    path.write_text(text, encoding="utf-8")
    assert read_temporal_roi(path) == (470, 1700)


def test_real_temporal_roi() -> None:
    assert read_temporal_roi(HIGHWAY / "temporalROI.txt") == (470, 1700)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "two whole numbers"),
        ("470", "two whole numbers"),
        ("470 1700 3", "two whole numbers"),
        ("a b", "two whole numbers"),
        ("4.5 9", "two whole numbers"),
        ("0 10", "numbered from 1"),
        ("20 10", "empty"),
    ],
)
def test_temporal_roi_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "temporalROI.txt"
    path.write_text(text)
    with pytest.raises(InputFileError, match=message) as info:
        read_temporal_roi(path)
    assert info.value.path == path


def test_missing_temporal_roi(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match=r"temporalROI\.txt.*missing"):
        read_temporal_roi(tmp_path / "temporalROI.txt")


def test_single_frame_temporal_roi_is_not_empty(tmp_path: Path) -> None:
    path = tmp_path / "temporalROI.txt"
    path.write_text("5 5")
    assert read_temporal_roi(path) == (5, 5)


# --- discovery -----------------------------------------------------------------


def test_video_spec_paths(tmp_path: Path) -> None:
    spec = load_video(make_video(tmp_path / "highway"), category="baseline")
    assert spec == VideoSpec("baseline", "highway", tmp_path / "highway", 2, 4)
    assert spec.key == ("baseline", "highway")
    assert list(spec.frames) == [2, 3, 4] and spec.n_frames == 3
    assert spec.gt_path(3) == tmp_path / "highway" / "groundtruth" / "gt000003.png"
    assert spec.input_path(12) == tmp_path / "highway" / "input" / "in000012.jpg"
    assert spec.roi_path == tmp_path / "highway" / "ROI.bmp"
    with pytest.raises(AttributeError):
        spec.first = 1  # type: ignore[misc]


def test_discover_categories_and_uncategorized_videos(tmp_path: Path) -> None:
    make_video(tmp_path / "baseline" / "pedestrians")
    make_video(tmp_path / "baseline" / "highway")
    make_video(tmp_path / "shadow" / "cubicle")
    make_video(tmp_path / "loose")  # a video directly under the root
    (tmp_path / "notes").mkdir()  # neither video nor category: ignored
    videos = discover_videos(tmp_path)
    assert [v.key for v in videos] == [
        ("baseline", "highway"),
        ("baseline", "pedestrians"),
        ("loose", "loose"),
        ("shadow", "cubicle"),
    ]
    assert videos[0].folder == tmp_path / "baseline" / "highway"


def test_root_that_is_a_video_is_its_own_category(tmp_path: Path) -> None:
    folder = make_video(tmp_path / "highway")
    assert is_video_folder(folder)
    [video] = discover_videos(folder)
    assert video.key == ("highway", "highway") and video.folder == folder


def test_discover_real_dataset() -> None:
    videos = discover_videos(HIGHWAY.parents[1])
    highway = [v for v in videos if v.key == ("baseline", "highway")]
    assert highway == [VideoSpec("baseline", "highway", HIGHWAY, 470, 1700)]


def test_discovery_errors(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="does not exist"):
        discover_videos(tmp_path / "nowhere")
    (tmp_path / "empty" / "category").mkdir(parents=True)
    with pytest.raises(InputFileError, match="no CDnet video"):
        discover_videos(tmp_path / "empty")
    folder = make_video(tmp_path / "noroi")
    (folder / "ROI.bmp").unlink()
    with pytest.raises(InputFileError, match=r"ROI\.bmp"):
        load_video(folder)
    folder = make_video(tmp_path / "bad_troi")
    (folder / "temporalROI.txt").write_text("9 3")
    with pytest.raises(InputFileError, match="empty"):
        discover_videos(folder)


# --- results -------------------------------------------------------------------


@pytest.fixture()
def highway_spec(tmp_path: Path) -> VideoSpec:
    return load_video(make_video(tmp_path / "data" / "baseline" / "highway"), "baseline")


def test_result_folder_with_category_level(tmp_path: Path, highway_spec: VideoSpec) -> None:
    folder = tmp_path / "res" / "baseline" / "highway"
    folder.mkdir(parents=True)
    (tmp_path / "res" / "highway").mkdir()
    assert find_result_folder(tmp_path / "res", highway_spec) == folder


def test_result_folder_without_category_level(tmp_path: Path, highway_spec: VideoSpec) -> None:
    folder = tmp_path / "res" / "highway"
    folder.mkdir(parents=True)
    assert find_result_folder(tmp_path / "res", highway_spec) == folder


def test_result_root_that_is_the_video_folder(tmp_path: Path, highway_spec: VideoSpec) -> None:
    root = tmp_path / "res"
    root.mkdir()
    assert find_result_folder(root, highway_spec, single_video=True) == root
    with pytest.raises(InputFileError, match="baseline/highway"):
        find_result_folder(root, highway_spec, single_video=False)


def test_missing_results_root(tmp_path: Path, highway_spec: VideoSpec) -> None:
    with pytest.raises(InputFileError, match="does not exist"):
        find_result_folder(tmp_path / "nothing", highway_spec)


def _touch(folder: Path, *names: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        assert cv2.imwrite(str(folder / name), np.zeros((2, 2, 3), np.uint8))


def test_extension_probing_order(tmp_path: Path) -> None:
    assert RESULT_EXTENSIONS == (".png", ".jpg", ".jpeg", ".bmp", ".ppm")
    cases = [
        (("bin000002.ppm", "bin000002.bmp", "bin000002.jpg", "bin000002.png"), ".png"),
        (("bin000002.ppm", "bin000002.bmp", "bin000002.jpeg", "bin000002.jpg"), ".jpg"),
        (("bin000002.ppm", "bin000002.bmp", "bin000002.jpeg"), ".jpeg"),
        (("bin000002.ppm", "bin000002.bmp"), ".bmp"),
        (("bin000002.ppm",), ".ppm"),
    ]
    for k, (names, expected) in enumerate(cases):
        folder = tmp_path / str(k)
        _touch(folder, *names)
        assert result_extension(folder, 2) == expected
        found = find_result_file(folder, 2)
        assert found is not None and found.name == f"bin000002{expected}"
        assert find_result_file(folder, 3) is None


def test_extension_decided_from_any_frame_when_first_is_absent(tmp_path: Path) -> None:
    _touch(tmp_path, "bin000007.bmp", "bin000009.bmp")
    assert result_extension(tmp_path, 2) == ".bmp"


def test_result_folder_without_frames(tmp_path: Path) -> None:
    _touch(tmp_path, "other.png", "bin7.png")
    with pytest.raises(InputFileError, match=r"no frame at all.*bin%06d\.png") as info:
        result_extension(tmp_path, 1)
    assert info.value.path == tmp_path
