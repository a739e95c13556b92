"""CVAT polygons and masks as CDnet label maps (docs/measures.md §1, §10): which pixels,
which levels, in which order; the rule stated against OpenCV's fillPoly."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats import registry
from referee.core.formats.cvat_label_maps import cvat_label_maps, mask_pixels
from referee.core.formats.cvat_xml import parse_cvat
from tests.core import cvat_fixtures as fx


def _maps(path: Path, **options):
    found, name = registry.read(path, registry.LABEL_MAPS, **options)
    assert len(found) == 1
    return name, next(iter(found.items()))


def _pixels(label: np.ndarray, level: int) -> set[tuple[int, int]]:
    ys, xs = np.nonzero(label == level)
    return set(zip(xs.tolist(), ys.tolist()))


def test_video_maps_paint_polygons_and_masks_on_their_frames(tmp_path: Path) -> None:
    path = fx.write(tmp_path, "corridor.xml", fx.VIDEO)
    name, (video, maps) = _maps(path, levels={"road": 50, "car": 255})
    assert (name, video) == ("cvat-video", "corridor")
    assert list(maps) == list(range(1, 9)) and len(maps) == 8  # every frame of the task
    first = maps[1]
    assert first.shape == (30, 40) and first.dtype == np.uint8
    # The triangle (0,0), (6,0), (0,6): centres (x + .5, y + .5) with x + y + 1 <= 6.
    assert _pixels(first, 50) == {(x, y) for y in range(6) for x in range(6) if x + y <= 5}
    assert len(_pixels(first, 50)) == 21 and set(np.unique(first)) == {0, 50}
    assert not maps[2].any()  # the road is outside from CVAT frame 1 on
    # rle 6, 2, 3, 3, 6 over 5×4 at (30, 20): row 1 columns 1–2, row 2 columns 1–3.
    mask = {(31, 21), (32, 21), (31, 22), (32, 22), (33, 22)}
    assert _pixels(maps[3], 255) == mask and len(_pixels(maps[3], 0)) == 40 * 30 - 5
    assert _pixels(maps[4], 255) == mask  # held until it leaves on CVAT frame 4
    assert all(not maps[f].any() for f in (5, 6, 7, 8))
    with pytest.raises(KeyError):
        maps[9]


def test_image_maps_follow_z_order_and_leave_boxes_out(tmp_path: Path) -> None:
    path = fx.write(tmp_path, "crossing.xml", fx.IMAGES)
    with pytest.warns(UserWarning):
        name, (video, maps) = _maps(path, levels={"car": 255, "sky": 170}, background=85)
    assert (name, video, list(maps)) == ("cvat-images", "crossing", [1, 2, 3])
    sky = {(x, y) for y in range(3) for x in range(12)}
    assert _pixels(maps[1], 170) == sky and len(_pixels(maps[1], 85)) == 120 - 36
    assert set(np.unique(maps[2])) == {85}
    # The sky rectangle (4,5)–(9,9), z 1, is painted first; the car mask, z 2, over it.
    car = {(5, 6), (6, 6), (5, 7), (6, 7), (7, 7)}
    assert _pixels(maps[3], 255) == car
    assert _pixels(maps[3], 170) == {(x, y) for y in range(5, 9) for x in range(4, 9)} - car


def test_labels_and_levels_must_be_in_the_map(tmp_path: Path) -> None:
    path = fx.write(tmp_path, "corridor.xml", fx.VIDEO)
    with pytest.raises(InputFileError, match=r"line \d+: <polygon> of track 2: its label 'road'"):
        registry.read(path, registry.LABEL_MAPS, levels={"car": 255})
    with pytest.raises(InvalidOptionError, match="'car' has level 100"):
        registry.read(path, registry.LABEL_MAPS, levels={"car": 100, "road": 50})
    no_size = fx.write(tmp_path, "plain.xml", fx.ROUND_TRIP)
    with pytest.raises(InputFileError, match="no <original_size>; give the frames' size"):
        registry.read(no_size, registry.LABEL_MAPS, levels={})
    _, (_, maps) = _maps(no_size, levels={}, size=(50, 70))
    assert maps[1].shape == (70, 50) and not maps[1].any()  # boxes are not painted


def test_the_spec_mask_example_adds_up_and_sets_149_pixels() -> None:
    # CVAT's own example: rle over 13 × 15, background first; the set runs add up to 149.
    rle = "3, 5, 7, 7, 5, 9, 3, 11, 2, 11, 2, 12, 1, 12, 1, 26, 1, 12, 1, 12, 2, 11, 3, 9, 5, 7, 7, 5, 3"
    body = (
        '  <image id="0" name="a.png" width="800" height="1000">\n'
        f'    <mask label="car" source="manual" occluded="0" rle="{rle}" left="707" top="888" '
        'width="13" height="15" z_order="0"/>\n  </image>\n'
    )
    document = parse_cvat(
        fx.document(fx.meta("t", 1, ["car"], mode="annotation"), body).encode(), "x.xml", "images"
    )
    shape = document.images[0].shapes[0]
    pixels = mask_pixels(shape)
    assert pixels.shape == (15, 13) and int(pixels.sum()) == 149
    assert pixels[0].tolist() == [False] * 3 + [True] * 5 + [False] * 5
    assert shape.box == (707.0, 888.0, 13.0, 15.0)  # the middle rows are full


def _polygon_map(points: list[tuple[float, float]], shape: tuple[int, int]) -> np.ndarray:
    text = ";".join(f"{x},{y}" for x, y in points)
    body = (
        f'  <image id="0" width="{shape[1]}" height="{shape[0]}">\n'
        f'    <polygon label="a" points="{text}"/>\n  </image>\n'
    )
    document = parse_cvat(
        fx.document(fx.meta("t", 1, ["a"], mode="annotation"), body).encode(), "x.xml", "images"
    )
    return cvat_label_maps(document, {"a": 255})[1]


def test_polygons_are_fillpoly_less_its_outline_for_vertices_on_pixel_centres() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        corners = rng.integers(0, 30, (int(rng.integers(3, 9)), 2))
        ours = _polygon_map([(x + 0.5, y + 0.5) for x, y in corners.tolist()], (32, 32)) > 0
        opencv = np.zeros((32, 32), np.uint8)
        cv2.fillPoly(opencv, [corners.astype(np.int32)], 1)
        outline = np.zeros((32, 32), np.uint8)
        cv2.polylines(outline, [corners.astype(np.int32)], True, 1, lineType=cv2.LINE_8)
        assert np.array_equal(ours | (outline > 0), opencv > 0)
        assert not (ours & (opencv == 0)).any()


def test_an_upright_rectangle_on_pixel_corners_is_thinner_than_fillpoly() -> None:
    ours = _polygon_map([(2, 3), (7, 3), (7, 9), (2, 9)], (12, 12))
    assert _pixels(ours, 255) == {(x, y) for y in range(3, 9) for x in range(2, 7)}  # 5 × 6
    opencv = np.zeros((12, 12), np.uint8)  # the same corners less half a pixel, 1 bit of fraction
    cv2.fillPoly(opencv, [np.array([(3, 5), (13, 5), (13, 17), (3, 17)], np.int32)], 1, shift=1)
    assert int(opencv.sum()) == 6 * 7
    centred = _polygon_map([(2.5, 3.5), (6.5, 3.5), (6.5, 8.5), (2.5, 8.5)], (12, 12))
    same = np.zeros((12, 12), np.uint8)
    cv2.fillPoly(same, [np.array([(2, 3), (6, 3), (6, 8), (2, 8)], np.int32)], 1)
    assert np.array_equal(centred > 0, same > 0)
