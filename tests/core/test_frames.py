"""Frame sources: CDnet result folders, pattern folders and mask videos (DESIGN "Frames")."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.core.errors import InputFileError, InvalidOptionError, MissingFrameError
from referee.core.frames import sources as frames_module
from referee.core.frames.sources import (
    CdnetResultSource,
    FrameSource,
    MaskVideoSource,
    PatternFolderSource,
)
from referee.core.measures.pixel import detection_mask
from referee.core.model.videos import VideoSpec

SHAPE = (48, 64)  # rows, columns: 3 x 4 blocks of 16 x 16 pixels
N_BITS = 12


def numbered_frame(n: int) -> np.ndarray:
    """A mask whose 16x16 block k is white iff bit k of ``n`` is set."""
    image = np.zeros(SHAPE, np.uint8)
    for k in range(N_BITS):
        if n >> k & 1:
            r, c = divmod(k, 4)
            image[16 * r : 16 * r + 16, 16 * c : 16 * c + 16] = 255
    return image


def frame_number(mask: np.ndarray) -> int:
    """Inverse of :func:`numbered_frame` for a binary mask (block majority)."""
    n = 0
    for k in range(N_BITS):
        r, c = divmod(k, 4)
        if mask[16 * r : 16 * r + 16, 16 * c : 16 * c + 16].mean() > 127:
            n |= 1 << k
    return n


def write_images(folder: Path, names_and_numbers: dict[str, int]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, n in names_and_numbers.items():
        image = numbered_frame(n)
        if name.endswith(".ppm"):
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        assert cv2.imwrite(str(folder / name), image)


# --- CDnet result folders ------------------------------------------------------


def test_cdnet_source_reads_frames_by_number(tmp_path: Path) -> None:
    write_images(tmp_path, {f"bin{i:06d}.png": i for i in range(1, 6)})
    source = CdnetResultSource(tmp_path, first=2)
    assert isinstance(source, FrameSource)
    assert source.extension == ".png"
    assert source.path_of(3) == tmp_path / "bin000003.png"
    frame = source.read(3)
    assert frame.dtype == np.uint8 and frame.shape == SHAPE
    assert frame_number(frame) == 3
    got = [(i, frame_number(f)) for i, f in source.iter_frames([2, 4, 5])]
    assert got == [(2, 2), (4, 4), (5, 5)]


def test_cdnet_source_probes_other_extensions_per_frame(tmp_path: Path) -> None:
    write_images(
        tmp_path, {"bin000001.jpg": 1, "bin000002.bmp": 2, "bin000003.ppm": 3, "bin000004.jpg": 4}
    )
    source = CdnetResultSource(tmp_path, first=1)
    assert source.extension == ".jpg"
    assert [frame_number(source.read(i)) for i in (1, 2, 3, 4)] == [1, 2, 3, 4]


def test_cdnet_source_for_video(tmp_path: Path) -> None:
    video = VideoSpec("baseline", "highway", tmp_path / "data", 2, 3)
    write_images(tmp_path / "res" / "highway", {"bin000002.bmp": 2, "bin000003.bmp": 3})
    source = CdnetResultSource.for_video(tmp_path / "res", video)
    assert source.folder == tmp_path / "res" / "highway" and source.extension == ".bmp"


def test_cdnet_source_missing_frame_names_file_and_frame(tmp_path: Path) -> None:
    write_images(tmp_path, {"bin000001.png": 1, "bin000003.png": 3})
    source = CdnetResultSource(tmp_path, first=1)
    with pytest.raises(MissingFrameError, match=r"bin000002\.png.*frame 2") as info:
        source.read(2)
    assert info.value.path == tmp_path / "bin000002.png"


def test_cdnet_source_unreadable_frame(tmp_path: Path) -> None:
    write_images(tmp_path, {"bin000001.png": 1})
    (tmp_path / "bin000002.png").write_bytes(b"\x89PNG but truncated")
    source = CdnetResultSource(tmp_path, first=1)
    with pytest.raises(InputFileError, match=r"bin000002\.png.*cannot decode") as info:
        source.read(2)
    assert not isinstance(info.value, MissingFrameError)


def test_cdnet_source_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("no frames here")
    with pytest.raises(InputFileError, match=r"no frame at all.*bin%06d\.png \(or \.jpg") as info:
        CdnetResultSource(tmp_path, first=1)
    assert info.value.path == tmp_path
    with pytest.raises(InputFileError, match="does not exist"):
        CdnetResultSource(tmp_path / "absent")


def test_cdnet_source_pickles(tmp_path: Path) -> None:
    write_images(tmp_path, {"bin000001.bmp": 1})
    copy = pickle.loads(pickle.dumps(CdnetResultSource(tmp_path)))
    assert copy.extension == ".bmp" and frame_number(copy.read(1)) == 1


# --- pattern folders ------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern, offset, names",
    [
        ("mask_%04d.png", 0, {"mask_0001.png": 1, "mask_0002.png": 2, "mask_0003.png": 3}),
        ("{:05d}.png", 0, {"00001.png": 1, "00002.png": 2, "00003.png": 3}),
        ("f%d.bmp", -1, {"f0.bmp": 1, "f1.bmp": 2, "f2.bmp": 3}),
        ("out[{}].png", 10, {"out[11].png": 1, "out[12].png": 2, "out[13].png": 3}),
    ],
)
def test_pattern_source(tmp_path: Path, pattern: str, offset: int, names: dict[str, int]) -> None:
    write_images(tmp_path, names)
    source = PatternFolderSource(tmp_path, pattern, offset)
    assert isinstance(source, FrameSource)
    assert [frame_number(f) for _, f in source.iter_frames(range(1, 4))] == [1, 2, 3]
    assert source.path_of(2).name == next(n for n, v in names.items() if v == 2)
    with pytest.raises(MissingFrameError, match="frame 4"):
        source.read(4)


def test_pattern_source_errors(tmp_path: Path) -> None:
    for bad in ("mask.png", "mask_%s.png", "{name}.png", "{}_{}.png"):
        with pytest.raises(InvalidOptionError, match="pattern"):
            PatternFolderSource(tmp_path, bad)
    with pytest.raises(InputFileError, match="does not exist"):
        PatternFolderSource(tmp_path / "absent", "%06d.png")
    write_images(tmp_path, {"other_0001.png": 1})
    with pytest.raises(InputFileError, match=r"no frame matching 'mask_%04d\.png'") as info:
        PatternFolderSource(tmp_path, "mask_%04d.png").read(1)
    assert info.value.path == tmp_path


def test_iter_frames_requires_increasing_numbers(tmp_path: Path) -> None:
    write_images(tmp_path, {f"bin{i:06d}.png": i for i in range(1, 4)})
    with pytest.raises(InvalidOptionError, match="increasing"):
        list(CdnetResultSource(tmp_path).iter_frames([2, 1]))


# --- mask videos ----------------------------------------------------------------


def write_video(path: Path, fourcc: str, n_frames: int) -> Path:
    writer = cv2.VideoWriter(
        str(path), cv2.VideoWriter_fourcc(*fourcc), 25.0, (SHAPE[1], SHAPE[0]), True
    )
    assert writer.isOpened(), f"OpenCV cannot write {fourcc} here"
    for i in range(1, n_frames + 1):
        writer.write(cv2.cvtColor(numbered_frame(i), cv2.COLOR_GRAY2BGR))
    writer.release()
    return path


class NoSeekCapture:
    """A VideoCapture that fails the test if anyone positions it."""

    def __init__(self, *args: Any) -> None:
        self._capture = REAL_CAPTURE(*args)

    def set(self, *args: Any) -> bool:
        raise AssertionError(f"VideoCapture.set{args} called: sources must decode forward")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._capture, name)


REAL_CAPTURE = cv2.VideoCapture


@pytest.fixture()
def no_seek(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(frames_module.cv2, "VideoCapture", NoSeekCapture)


@pytest.mark.parametrize("fourcc, suffix", [("MJPG", ".avi"), ("FFV1", ".mkv")])
def test_mask_video_frames_land_exactly(
    tmp_path: Path, no_seek: None, fourcc: str, suffix: str
) -> None:
    n = 40
    source = MaskVideoSource(write_video(tmp_path / f"masks{suffix}", fourcc, n))
    assert isinstance(source, FrameSource)
    wanted = [3, 4, 9, 10, 17, 33, 40]
    got = [(i, frame_number(detection_mask(f, 128))) for i, f in source.iter_frames(wanted)]
    assert got == [(i, i) for i in wanted]
    # Going back reopens the file and decodes forward again.
    assert frame_number(detection_mask(source.read(2), 128)) == 2
    assert frame_number(detection_mask(source.read(1), 128)) == 1
    frame = source.read(5)
    assert frame.dtype == np.uint8 and frame.shape == SHAPE
    if fourcc == "FFV1":  # lossless: exact mask values
        np.testing.assert_array_equal(frame, numbered_frame(5))
    with pytest.raises(MissingFrameError, match=f"frame {n + 1}.*only {n} frames"):
        source.read(n + 1)
    assert "frame 7" in source.path_of(7)


def test_mask_video_pickles_without_its_decoder(tmp_path: Path) -> None:
    source = MaskVideoSource(write_video(tmp_path / "m.avi", "MJPG", 6))
    source.read(4)
    copy = pickle.loads(pickle.dumps(source))
    assert frame_number(detection_mask(copy.read(6), 128)) == 6
    assert frame_number(detection_mask(source.read(5), 128)) == 5


def test_mask_video_errors(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="missing"):
        MaskVideoSource(tmp_path / "absent.avi")
    junk = tmp_path / "junk.avi"
    junk.write_bytes(b"not a video at all" * 10)
    with pytest.raises(InputFileError, match="cannot open"):
        MaskVideoSource(junk)
    source = MaskVideoSource(write_video(tmp_path / "m.avi", "MJPG", 3))
    with pytest.raises(InvalidOptionError):
        source.read(0)
