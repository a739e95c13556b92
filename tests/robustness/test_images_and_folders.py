"""The catalogue of bad inputs: images, frames, folders (CDnet layout, masks, temporal ROI,
video files, permissions, named pipes).

Each case copies one demo video (ground truth, ROI, temporal ROI 37-180) and two
methods' masks into a temporary folder, breaks one thing, and runs ``referee``
as a user would. Expected outputs are worked out from the files themselves
(the same masks saved another way must give the same table), never from the
code under test.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.demo.dataset import DemoLayout
from referee.core.errors import InputFileError
from referee.core.formats.cdnet import read_grey
from tests.robustness.conftest import TIMEOUT_SECONDS, Outcome, assert_refused, run_referee

#: A run that reads a few frames takes well under this; more means the run hangs.
HANG_SECONDS = 60
#: Peak memory of a run that refuses a file early (the interpreter, numpy and OpenCV
#: take about 150 MiB); reading a 30000x30000 image takes 1.8 GB.
LOW_MEMORY_MIB = 600


@dataclass(frozen=True)
class Street:
    """A copy of the demo's baseline/street video and of two methods' masks for it."""

    root: Path
    frames: int  # ground-truth and mask files 1..frames, as the demo wrote them

    @property
    def dataset(self) -> Path:
        return self.root / "dataset"

    @property
    def video(self) -> Path:
        return self.dataset / "baseline" / "street"

    def results(self, method: str = "mog2") -> Path:
        return self.root / "results" / method

    @property
    def soft(self) -> Path:
        return self.root / "results-soft" / "running-average"

    def gt(self, i: int) -> Path:
        return self.video / "groundtruth" / f"gt{i:06d}.png"

    def mask(self, i: int, method: str = "mog2") -> Path:
        return self.results(method) / "baseline" / "street" / f"bin{i:06d}.png"

    @property
    def temporal_roi(self) -> Path:
        return self.video / "temporalROI.txt"

    def evaluate(
        self,
        *extra: str,
        timeout: float = TIMEOUT_SECONDS,
        preexec: Callable[[], None] | None = None,
    ) -> Outcome:
        """``referee evaluate`` of the first method's masks."""
        return run_referee(
            "evaluate",
            self.dataset,
            self.results(),
            *extra,
            "--quiet",
            timeout=timeout,
            preexec=preexec,
        )


@pytest.fixture()
def street(tmp_path: Path, demo: DemoLayout) -> Street:
    [written] = [v for v in demo.videos if (v.category, v.name) == ("baseline", "street")]
    copy = Street(tmp_path / "street", written.frame_count)
    source = demo.dataset / "baseline" / "street"
    shutil.copytree(source, copy.video, ignore=shutil.ignore_patterns("input"))
    for method in ("mog2", "knn"):
        shutil.copytree(
            demo.results[method] / "baseline" / "street",
            copy.results(method) / "baseline" / "street",
        )
    shutil.copytree(
        demo.soft_results["running-average"] / "baseline" / "street",
        copy.soft / "baseline" / "street",
    )
    return copy


def _grey(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    assert image is not None and image.ndim == 2, path
    return image


def _assert_same_table(changed: Outcome, original: Outcome) -> None:
    assert changed.status == 0 and original.status == 0, (changed.stderr, original.stderr)
    assert changed.stdout == original.stdout


# --- temporal ROI -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "numbers",
    ["1 2000000000", "1 99999999999999999999999", "37 10000001", "1 -5", "37 18O"],
    ids=["two-billion", "beyond-64-bits", "one-past-the-limit", "negative", "typo"],
)
def test_temporal_roi_out_of_range_or_malformed_is_refused(street: Street, numbers: str) -> None:
    street.temporal_roi.write_text(numbers + "\n", encoding="utf-8")
    outcome = street.evaluate()
    assert_refused(outcome, street.temporal_roi)
    assert outcome.peak_rss_mib < LOW_MEMORY_MIB


def test_temporal_roi_beyond_the_ground_truth_is_refused_before_any_frame(street: Street) -> None:
    """Within the frame limit, but the ground truth has frames 1-180 only."""
    street.temporal_roi.write_text("37 10000000\n", encoding="utf-8")
    outcome = street.evaluate()
    line = assert_refused(outcome, street.gt(10_000_000), street.temporal_roi)
    assert f"frames 1 to {street.frames}" in line
    assert outcome.peak_rss_mib < LOW_MEMORY_MIB


@pytest.mark.parametrize("command", ["pseudo", "rank"])
def test_temporal_roi_beyond_the_masks_stops_at_the_first_missing_mask(
    street: Street, command: str
) -> None:
    """Without reading ground truth, the frames that exist are read, then the first missing one
    is named; nothing is sized by the ten million frames declared."""
    street.temporal_roi.write_text("37 10000000\n", encoding="utf-8")
    shutil.rmtree(street.video / "groundtruth")  # no ground truth: pseudo values only
    outcome = run_referee(
        command, street.dataset, street.results("mog2"), street.results("knn"), "--quiet"
    )
    assert_refused(outcome, street.mask(street.frames + 1), f"frame {street.frames + 1} is missing")
    assert outcome.peak_rss_mib < LOW_MEMORY_MIB


# --- image size, depth, colour, completeness ---------------------------------------------------


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _black_png(width: int, height: int, rows_per_block: int = 1000) -> bytes:
    """A valid 8-bit grey PNG of zeros, made without holding its pixels (30000² is 856 KB).

    One compressed block of ``rows_per_block`` rows, flushed so it stands alone,
    is repeated; the Adler-32 of ``n`` zero bytes is ``(n mod 65521) << 16 | 1``.
    """
    assert height % rows_per_block == 0
    compressor = zlib.compressobj(9)
    block = compressor.compress(bytes((width + 1) * rows_per_block))
    block += compressor.flush(zlib.Z_FULL_FLUSH)
    size = (width + 1) * height
    stream = block[:2] + block[2:] * (height // rows_per_block)
    stream += b"\x03\x00" + struct.pack(">I", (size % 65521) << 16 | 1)  # final empty block
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", stream)
        + _png_chunk(b"IEND", b"")
    )


def test_the_huge_png_helper_makes_a_valid_image() -> None:
    image = cv2.imdecode(np.frombuffer(_black_png(300, 2000), np.uint8), cv2.IMREAD_UNCHANGED)
    assert image.shape == (2000, 300) and not image.any()


@pytest.mark.parametrize("which", ["result", "ground truth", "ROI"])
def test_an_image_of_30000_by_30000_pixels_is_refused_from_its_header(
    street: Street, which: str
) -> None:
    target = {
        "result": street.mask(40),
        "ground truth": street.gt(40),
        "ROI": street.video / "ROI.bmp",
    }[which]
    target.write_bytes(_black_png(30000, 30000))
    outcome = street.evaluate()
    line = assert_refused(outcome, target, "MAX_IMAGE_PIXELS")
    assert "30000x30000" in line
    assert outcome.peak_rss_mib < LOW_MEMORY_MIB


def test_a_16_bit_ground_truth_is_refused(street: Street) -> None:
    """Its levels 0..255 stored in 16 bits used to read as 0: no true positive at all."""
    gt = _grey(street.gt(50))
    assert (gt == 255).any()
    cv2.imwrite(str(street.gt(50)), gt.astype(np.uint16))
    assert cv2.imread(str(street.gt(50)), cv2.IMREAD_UNCHANGED).dtype == np.uint16
    assert_refused(street.evaluate(), street.gt(50), "16 bits per sample")


def test_a_red_on_black_mask_is_refused(street: Street) -> None:
    """Its grey conversion (76 for red) used to count every detection as negative."""
    mask = _grey(street.mask(50))
    assert (mask == 255).any()
    red = np.zeros((*mask.shape, 3), np.uint8)
    red[:, :, 2] = mask  # OpenCV stores blue, green, red
    cv2.imwrite(str(street.mask(50)), red)
    line = assert_refused(street.evaluate(), street.mask(50), "is a colour image")
    assert "red 255, green 0, blue 0" in line


def _as_rgb(grey: np.ndarray) -> np.ndarray:
    return cv2.merge([grey, grey, grey])


def _as_opaque_rgba(grey: np.ndarray) -> np.ndarray:
    return cv2.merge([grey, grey, grey, np.full_like(grey, 255)])


@pytest.mark.parametrize("convert", [_as_rgb, _as_opaque_rgba], ids=["rgb", "opaque-rgba"])
def test_grey_masks_saved_in_colour_read_exactly(
    street: Street, convert: Callable[[np.ndarray], np.ndarray]
) -> None:
    original = street.evaluate()
    for i in (40, 90, 150):
        cv2.imwrite(str(street.mask(i)), convert(_grey(street.mask(i))))
        cv2.imwrite(str(street.gt(i)), convert(_grey(street.gt(i))))
    _assert_same_table(street.evaluate(), original)


def test_a_mask_with_transparent_pixels_is_refused(street: Street) -> None:
    mask = _grey(street.mask(60))
    cv2.imwrite(str(street.mask(60)), cv2.merge([mask, mask, mask, mask]))  # alpha = mask
    assert_refused(street.evaluate(), street.mask(60), "has transparent pixels")


@pytest.mark.parametrize("which", ["result", "ground truth"])
def test_a_png_cut_short_is_refused(street: Street, which: str) -> None:
    target = street.mask(70) if which == "result" else street.gt(70)
    data = target.read_bytes()
    target.write_bytes(data[: len(data) - 12])  # without its IEND chunk
    assert_refused(street.evaluate(), target, "PNG file is incomplete")


@pytest.mark.parametrize("which", ["result", "ground truth"])
def test_a_png_whose_compressed_rows_are_damaged_is_refused(street: Street, which: str) -> None:
    """Complete, every CRC right, but its deflate data cannot be inflated: the fast decoder
    leaves it to OpenCV, which refuses it."""
    target = street.mask(75) if which == "result" else street.gt(75)
    data = target.read_bytes()
    start = data.index(b"IDAT") - 4
    (length,) = struct.unpack_from(">I", data, start)
    rows = data[start + 8 : start + 8 + length]
    rows = rows[:2] + bytes([rows[2] | 0b110]) + rows[3:]  # a block of the reserved type 3
    after = data[start + 12 + length :]
    target.write_bytes(data[:start] + _png_chunk(b"IDAT", rows) + after)
    assert_refused(street.evaluate(), target, "(frame 75)", "the file is corrupt")


def test_a_jpeg_mask_cut_short_is_refused(street: Street) -> None:
    """A cut JPEG used to decode partly (grey below the cut) without a word."""
    png = street.mask(80)
    jpeg = png.with_suffix(".jpg")
    assert cv2.imwrite(str(jpeg), _grey(png), [cv2.IMWRITE_JPEG_QUALITY, 100])
    png.unlink()  # frame 80 is then read from its .jpg
    complete = street.evaluate("--threshold", "128")
    assert complete.status == 0, complete.stderr
    data = jpeg.read_bytes()
    jpeg.write_bytes(data[: len(data) // 2])
    assert_refused(street.evaluate("--threshold", "128"), jpeg, "JPEG file is incomplete")


def test_a_text_file_named_png_is_refused(street: Street) -> None:
    street.mask(90).write_text("this is not an image\n", encoding="utf-8")
    assert_refused(street.evaluate(), street.mask(90), "not a PNG, JPEG, BMP or PPM/PGM file")


def test_ground_truth_with_other_grey_levels_is_read_as_specified_with_a_warning(
    street: Street,
) -> None:
    """docs/measures.md §1: a pixel is evaluated iff its ground truth is 0, 50 or 255, so a
    level such as 254 is not evaluated, exactly like 85; a warning names the file."""
    gt = _grey(street.gt(100))
    motion = gt == 255
    assert motion.sum() > 50
    lossy, outside = gt.copy(), gt.copy()
    lossy[motion] = 254
    outside[motion] = 85
    cv2.imwrite(str(street.gt(100)), outside)
    reference = street.evaluate()
    cv2.imwrite(str(street.gt(100)), lossy)
    outcome = street.evaluate()
    _assert_same_table(outcome, reference)
    [warning] = outcome.stderr_lines
    assert warning.startswith("referee: warning: ") and str(street.gt(100)) in warning
    assert f"{int(motion.sum()):,} pixels" in warning


# --- every format Referee reads, in this process ------------------------------------------------


_LEVELS = np.array([[0, 50, 85, 170, 255, 0], [255, 255, 0, 50, 170, 85]], np.uint8)


@pytest.mark.parametrize(
    ("suffix", "convert"),
    [
        (".png", lambda g: g),
        (".bmp", lambda g: g),
        (".bmp", _as_rgb),
        (".pgm", lambda g: g),
        (".ppm", _as_rgb),
        (".png", _as_opaque_rgba),
    ],
    ids=["png", "bmp-palette", "bmp-24-bit", "pgm", "ppm", "png-rgba"],
)
def test_grey_levels_read_exactly_from_every_format(
    tmp_path: Path, suffix: str, convert: Callable[[np.ndarray], np.ndarray]
) -> None:
    path = tmp_path / f"mask{suffix}"
    assert cv2.imwrite(str(path), convert(_LEVELS))
    np.testing.assert_array_equal(read_grey(path, "result", 1), _LEVELS)


@pytest.mark.parametrize(
    ("suffix", "image", "problem"),
    [
        (".bmp", np.dstack([_LEVELS, _LEVELS, _LEVELS // 2]), "is a colour image"),
        (".ppm", np.dstack([_LEVELS, _LEVELS // 2, _LEVELS]), "is a colour image"),
        (".jpg", np.dstack([_LEVELS, _LEVELS, 255 - _LEVELS]), "is a colour image"),
        (".pgm", _LEVELS.astype(np.uint16) * 257, "16 bits per sample"),
    ],
    ids=["bmp-colour", "ppm-colour", "jpeg-colour", "pgm-16-bit"],
)
def test_colour_and_16_bit_images_are_refused_in_every_format(
    tmp_path: Path, suffix: str, image: np.ndarray, problem: str
) -> None:
    path = tmp_path / f"mask{suffix}"
    assert cv2.imwrite(str(path), image)
    with pytest.raises(InputFileError, match=problem):
        read_grey(path, "result", 1)


@pytest.mark.parametrize("suffix", [".bmp", ".pgm", ".jpg"])
def test_files_cut_short_are_refused_in_every_format(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"mask{suffix}"
    assert cv2.imwrite(str(path), np.tile(_LEVELS, (20, 20)))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])
    with pytest.raises(InputFileError, match="file is incomplete"):
        read_grey(path, "result", 1)


def test_a_jpeg_header_of_30000_by_30000_pixels_is_refused(tmp_path: Path) -> None:
    """The start of a JPEG with only its frame header: 30000 rows of 30000 grey pixels."""
    frame = struct.pack(">HBHHB", 11, 8, 30000, 30000, 1) + b"\x01\x11\x00"
    path = tmp_path / "huge.jpg"
    path.write_bytes(b"\xff\xd8\xff\xc0" + frame + b"\xff\xd9")
    with pytest.raises(InputFileError, match="30000x30000 = 900,000,000 pixels"):
        read_grey(path, "result", 1)


# --- named pipes and folders where files belong --------------------------------------------------


_NEEDS_FIFO = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


@_NEEDS_FIFO
@pytest.mark.parametrize(
    "which",
    ["result", "ground truth", "first result", "first ground truth", "temporal ROI", "ROI"],
)
def test_a_named_pipe_in_place_of_a_file_is_refused_at_once(street: Street, which: str) -> None:
    """The first frames too: they are read once before the others, to choose how the
    frames are spread over the workers."""
    target = {
        "result": street.mask(45),
        "ground truth": street.gt(45),
        "first result": street.mask(37),
        "first ground truth": street.gt(37),
        "temporal ROI": street.temporal_roi,
        "ROI": street.video / "ROI.bmp",
    }[which]
    target.unlink()
    os.mkfifo(target)
    assert_refused(street.evaluate(timeout=HANG_SECONDS), target, "not a regular file")


@_NEEDS_FIFO
def test_a_named_pipe_given_as_a_mask_video_is_refused_at_once(street: Street) -> None:
    pipe = street.root / "masks.mp4"
    os.mkfifo(pipe)
    outcome = run_referee("evaluate", street.video, pipe, "--quiet", timeout=HANG_SECONDS)
    assert_refused(outcome, pipe, "not a regular file")


def test_a_folder_in_place_of_a_mask_is_refused(street: Street) -> None:
    street.mask(55).unlink()
    street.mask(55).mkdir()
    assert_refused(street.evaluate(), street.mask(55), "is a folder, not an image file")


# --- video files --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [b"these masks are text, not a video\n", bytes(range(256)) * 400],
    ids=["text", "corrupt"],
)
def test_a_file_named_mp4_that_is_no_video_is_refused(street: Street, content: bytes) -> None:
    fake = street.root / "masks.mp4"
    fake.write_bytes(content)
    outcome = run_referee("evaluate", street.video, fake, "--quiet")
    assert_refused(outcome, fake, "cannot open this file as a video")


# --- a ground-truth frame missing in the middle --------------------------------------------------


def test_a_frame_without_ground_truth_in_the_middle_is_left_out_and_said(street: Street) -> None:
    """A partly annotated video (docs/measures.md §8): evaluated on its other frames."""
    street.gt(100).unlink()
    outcome = street.evaluate()
    assert outcome.status == 0 and not outcome.stderr_lines, outcome.stderr
    frames = street.frames - 36  # the temporal ROI is 37..180
    assert f"baseline/street: evaluated on {frames - 1} annotated frames of {frames}" in (
        outcome.stdout
    )


def test_rank_lists_a_frame_without_ground_truth_as_one_to_annotate(street: Street) -> None:
    """A frame without ground truth is exactly what ``rank`` looks for: every other frame of
    the temporal ROI is annotated and skipped, so frame 100 is the whole list."""
    street.gt(100).unlink()
    outcome = run_referee(
        "rank", street.dataset, street.results("mog2"), street.results("knn"), "--quiet"
    )
    assert outcome.status == 0 and not outcome.stderr_lines, outcome.stderr
    rows = [line.split() for line in outcome.stdout.splitlines() if line[:5].strip().isdigit()]
    assert [(row[1], row[2]) for row in rows] == [("baseline/street", "100")]


def test_pseudo_keeps_its_values_and_compares_the_frames_with_ground_truth(
    street: Street,
) -> None:
    """Pseudo values need no ground truth: they are those of the same video without any;
    their comparison with the truth counts the frames that have it, and says so."""
    arguments = ("pseudo", street.dataset, street.results("mog2"), street.results("knn"))
    groundtruth, hidden = street.video / "groundtruth", street.root / "hidden"
    groundtruth.rename(hidden)
    without_truth = run_referee(*arguments, "--quiet", "--json", street.root / "without.json")
    hidden.rename(groundtruth)
    street.gt(100).unlink()
    outcome = run_referee(*arguments, "--quiet", "--json", street.root / "with.json")
    assert without_truth.status == 0 and not without_truth.stderr_lines, without_truth.stderr
    assert outcome.status == 0 and not outcome.stderr_lines, outcome.stderr
    assert _pseudo_counts(street.root / "with.json") == _pseudo_counts(street.root / "without.json")
    frames = street.frames - 36  # the temporal ROI is 37..180
    assert f"evaluated on {frames - 1} annotated frames of {frames}" in outcome.stdout


def _pseudo_counts(path: Path) -> list[tuple[str, list[dict[str, float]]]]:
    """Each method's pseudo confusion counts per video, from a ``--json`` output."""
    methods = json.loads(path.read_text(encoding="utf-8"))["methods"]
    return [(m["method"], [v["pseudo_counts"] for v in m["videos"]]) for m in methods]


# --- folders without read permission --------------------------------------------------------------


_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2


def _without_permission_override() -> None:  # runs in the child before exec
    """Make permissions bind even for root: drop the two capabilities that bypass them.

    Dropped from the bounding set, they are not given back when root runs the
    interpreter, so a folder of mode 000 cannot be read. A user other than
    root needs nothing.
    """
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@contextmanager
def _unreadable(folder: Path) -> Iterator[None]:
    mode = folder.stat().st_mode & 0o7777
    folder.chmod(0)
    try:
        yield
    finally:
        folder.chmod(mode)


@pytest.fixture(scope="module")
def permissions_bind(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Check that a child run as ``run_referee`` runs it is really denied a folder of mode 000
    (so that the permission cases cannot pass without testing anything)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the permission cases use Linux capabilities")
    folder = tmp_path_factory.mktemp("locked")
    (folder / "file").write_text("x", encoding="utf-8")
    with _unreadable(folder):
        try:
            probe = subprocess.run(
                ["cat", str(folder / "file")],
                preexec_fn=_without_permission_override,
                capture_output=True,
                check=False,
            )
        except subprocess.SubprocessError as error:
            pytest.fail(f"cannot drop the capabilities that bypass permissions: {error}")
    assert probe.returncode != 0, "this user reads folders of mode 000 even without capabilities"


_COMMANDS = {
    "evaluate": lambda s: ("evaluate", s.dataset, s.results("mog2")),
    "curves": lambda s: ("curves", s.dataset, s.soft),
    "pseudo": lambda s: ("pseudo", s.dataset, s.results("mog2"), s.results("knn")),
    "rank": lambda s: ("rank", s.dataset, s.results("mog2"), s.results("knn")),
    "significance": lambda s: ("significance", s.dataset, s.results("mog2"), s.results("knn")),
}


@pytest.mark.usefixtures("permissions_bind")
@pytest.mark.parametrize("command", list(_COMMANDS))
@pytest.mark.parametrize("which", ["results", "video"])
def test_a_folder_without_read_permission_is_named(
    street: Street, command: str, which: str
) -> None:
    if which == "results":
        locked = street.soft if command == "curves" else street.results("mog2")
    else:
        locked = street.video
    with _unreadable(locked):
        outcome = run_referee(
            *_COMMANDS[command](street), "--quiet", preexec=_without_permission_override
        )
    assert_refused(outcome, locked, "permission denied")


@pytest.mark.usefixtures("permissions_bind")
def test_an_unreadable_ground_truth_file_is_named(street: Street) -> None:
    street.gt(120).chmod(0)
    outcome = street.evaluate(preexec=_without_permission_override)
    assert_refused(outcome, street.gt(120), "permission denied")
