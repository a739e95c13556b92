"""The demo dataset: written once, reused afterwards."""

from __future__ import annotations

import json
import os
import shutil
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.core.demo.scenes import (
    _SCENES,
    CLASS_PERSON,
    CLASS_STOPPING,
    CLASS_VEHICLE,
    HEIGHT,
    WIDTH,
    Box,
    _Mover,
    _Renderer,
    _Scene,
)
from referee.core.demo.subtractors import _make_subtractors, _RunningAverage
from referee.core.demo.tracking import TrackerParams, track_masks
from referee.core.errors import CancelledError, InputFileError, InvalidOptionError, RefereeError
from referee.core.formats.counts_csv import write_counts_csv
from referee.core.formats.liris_xml_writer import write_liris
from referee.core.formats.text_files import write_bytes, write_text
from referee.core.model.annotations import Action, AnnotationSet, VideoAnnotation
from referee.core.model.project import GROUND_TRUTH
from referee.core.model.videos import video_file_stem
from referee.core.progress import CancelToken, ProgressCallback, check, report

MARKER_NAME = "referee-demo.json"
DEMO_FORMAT = 2

#: Methods whose 0/255 masks are written under ``results/``.
BINARY_METHODS: tuple[str, ...] = ("mog2", "knn", "mog", "cnt", "running-average")
#: Methods whose 0-255 score maps are written under ``results-soft/``.
SOFT_METHODS: tuple[str, ...] = ("running-average",)
#: Methods whose masks are tracked into actions and counts (a subset of BINARY_METHODS).
TRACKED_METHODS: tuple[str, ...] = ("mog2", "knn", "cnt")

#: The tracker behind the demo's detected actions.
TRACKER_PARAMS = TrackerParams(
    still_class=CLASS_STOPPING, person_class=CLASS_PERSON, vehicle_class=CLASS_VEHICLE
)

_GENERATOR = "referee.core.demo"
_OWN_ENTRIES = ("dataset", "results", "results-soft", "actions", "counts")

# CDnet ground-truth grey levels (docs/measures.md §1).
GT_STATIC, GT_SHADOW, GT_OUTSIDE_ROI, GT_UNKNOWN, GT_MOTION = 0, 50, 85, 170, 255


@dataclass(frozen=True)
class DemoVideo:
    """One demo video: where it is, how many frames, which frames are evaluated."""

    category: str
    name: str
    path: Path
    frame_count: int
    temporal_roi: tuple[int, int]  # (first, last), 1-based, inclusive
    #: Counting region ``(x, y, w, h)`` in pixels, half-open (docs/measures.md §6).
    count_region: tuple[int, int, int, int] = (0, 0, WIDTH, HEIGHT)

    @property
    def key(self) -> str:
        """``<category>_<video>``: the LIRIS ``videoName`` and the folder under ``counts``."""
        return video_file_stem(self.category, self.name)


@dataclass(frozen=True)
class DemoLayout:
    """Where :func:`write_demo` put everything.

    ``results`` and ``soft_results`` map a method name to its folder, which
    holds ``<category>/<video>/bin%06d.png``. ``actions_gt`` and
    ``actions[method]`` are LIRIS XML files holding every video;
    ``counts[video key][name]`` is a ``frame,count`` CSV, where ``name`` is
    ``"groundtruth"`` or a method of :data:`TRACKED_METHODS`.
    """

    root: Path
    dataset: Path
    results: dict[str, Path]
    soft_results: dict[str, Path]
    videos: tuple[DemoVideo, ...]
    seed: int
    actions_gt: Path
    actions: dict[str, Path]
    counts: dict[str, dict[str, Path]]

    @property
    def categories(self) -> tuple[str, ...]:
        """Category names in the order they were written."""
        return tuple(dict.fromkeys(video.category for video in self.videos))

    @property
    def marker(self) -> Path:
        return self.root / MARKER_NAME


def write_demo(
    root: Path,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    seed: int = 0,
) -> DemoLayout:
    """Write the demo dataset and the results of five background subtractors.

    Parameters
    ----------
    root
        Folder to write into. It must be missing, empty, or a previous demo
        (recognised by its ``referee-demo.json`` marker), whose ``dataset``,
        ``results`` and ``results-soft`` folders are then replaced; other
        files in it are left alone.
    progress
        Called with ``(frames done, total frames)`` over all videos.
    cancel
        Checked before each frame. On cancellation the partial output is
        removed and :class:`~referee.core.errors.CancelledError` is raised.
    seed
        Seeds the textures, some object colours and the sensor noise. Object
        paths, and so the ground truth, are the same for every seed.

    Returns
    -------
    DemoLayout
        Paths of the dataset, of each method's results and of each video.

    Raises
    ------
    RefereeError
        If ``root`` is a file or a non-empty folder that is not a demo, or
        ``seed`` is negative.
    """
    if not isinstance(seed, int) or seed < 0:
        raise InvalidOptionError(f"demo seed must be a whole number >= 0, not {seed!r}")
    root = Path(root)
    try:
        return _write_demo(root, progress, cancel, seed)
    except OSError as error:  # a file in the way, a read-only or full disk
        raise InputFileError(
            error.filename or root,
            f"cannot write the demo ({error.strerror}); choose a folder you can write to",
        ) from None


def _write_demo(
    root: Path, progress: ProgressCallback | None, cancel: CancelToken | None, seed: int
) -> DemoLayout:
    _prepare_root(root)
    _write_marker(root, seed, complete=False)
    scenes = [scene_factory() for scene_factory in _SCENES]
    total = sum(scene.frame_count for scene in scenes)
    layout = _layout(root, scenes, seed)
    done = 0
    report(progress, done, total)
    annotations: dict[str, dict[str, VideoAnnotation]] = {
        name: {} for name in (GROUND_TRUTH, *TRACKED_METHODS)
    }
    try:
        for index, (scene, video) in enumerate(zip(scenes, layout.videos)):
            rng = np.random.default_rng([seed, index])
            record = _VideoRecord(scene.movers)
            for _ in _write_video(scene, video, layout, rng, cancel, record):
                done += 1
                report(progress, done, total)
            check(cancel)
            found = {GROUND_TRUTH: _ground_truth_actions(scene.movers, record.object_boxes)}
            for method in TRACKED_METHODS:
                found[method] = track_masks(
                    enumerate(record.masks[method], start=1), TRACKER_PARAMS
                )
            for name, actions in found.items():
                annotations[name][video.key] = VideoAnnotation(video.key, tuple(actions))
                counts = count_inside(actions, video.count_region, video.frame_count)
                path = layout.counts[video.key][name]
                path.parent.mkdir(parents=True, exist_ok=True)
                write_counts_csv(path, 1, counts)
        check(cancel)
        _write_actions(layout, annotations)
    except CancelledError:
        _remove_own_entries(root)
        (root / MARKER_NAME).unlink(missing_ok=True)
        raise
    _write_marker(root, seed, complete=True)
    return layout


def ensure_demo(
    root: Path, progress: ProgressCallback | None = None, cancel: CancelToken | None = None
) -> DemoLayout:
    """The demo in ``root``: reused if complete and current, else written by :func:`write_demo`.

    A demo is reused when its marker says it was completed by this generator,
    in this format and with this OpenCV version; an interrupted or older
    demo is rewritten. Same errors as :func:`write_demo`.
    """
    root = Path(root)
    seed = current_seed(root)
    if seed is not None:
        return _layout(root, [factory() for factory in _SCENES], seed)
    return write_demo(root, progress, cancel)


def current_seed(root: Path) -> int | None:
    """The seed of the demo in ``root`` if it is complete and current (see
    :func:`ensure_demo`), else ``None``: it would be written again."""
    marker = _read_marker(root)
    seed = None if marker is None else marker.get("seed")
    if (
        marker is not None
        and marker.get("complete") is True
        and marker.get("format") == DEMO_FORMAT
        and marker.get("opencv") == cv2.__version__
        and isinstance(seed, int)
    ):
        return seed
    return None


def _layout(root: Path, scenes: list[_Scene], seed: int) -> DemoLayout:
    videos = tuple(
        DemoVideo(
            scene.category,
            scene.name,
            root / "dataset" / scene.category / scene.name,
            scene.frame_count,
            scene.temporal_roi,
            scene.count_region,
        )
        for scene in scenes
    )
    return DemoLayout(
        root=root,
        dataset=root / "dataset",
        results={method: root / "results" / method for method in BINARY_METHODS},
        soft_results={method: root / "results-soft" / method for method in SOFT_METHODS},
        videos=videos,
        seed=seed,
        actions_gt=root / "actions" / f"{GROUND_TRUTH}.xml",
        actions={method: root / "actions" / f"{method}.xml" for method in TRACKED_METHODS},
        counts={
            video.key: {
                name: root / "counts" / video.key / f"{name}.csv"
                for name in (GROUND_TRUTH, *TRACKED_METHODS)
            }
            for video in videos
        },
    )


# --------------------------------------------------------------------------- root folder


def _prepare_root(root: Path) -> None:
    if root.exists() and not root.is_dir():
        raise InputFileError(root, "is a file; choose a new or empty folder for the demo")
    if root.is_dir() and any(root.iterdir()):
        if _read_marker(root) is None:
            raise RefereeError(
                f"{root}: folder is not empty and is not a Referee demo (no valid {MARKER_NAME}); "
                "choose a new or empty folder so that no file of yours is overwritten"
            )
        _remove_own_entries(root)
    root.mkdir(parents=True, exist_ok=True)


def _read_marker(root: Path) -> dict[str, object] | None:
    try:
        marker = json.loads((root / MARKER_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return marker if isinstance(marker, dict) and marker.get("generator") == _GENERATOR else None


def _remove_own_entries(root: Path) -> None:
    for name in _OWN_ENTRIES:
        entry = root / name
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        elif entry.exists() or entry.is_symlink():
            entry.unlink()


def _write_marker(root: Path, seed: int, complete: bool) -> None:
    content = {
        "generator": _GENERATOR,
        "format": DEMO_FORMAT,
        "seed": seed,
        "opencv": cv2.__version__,
        "complete": complete,
    }
    temporary = root / (MARKER_NAME + ".tmp")
    temporary.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, root / MARKER_NAME)


# --------------------------------------------------------------------------- writing a video


class _VideoRecord:
    """What a video leaves for its actions and counts, filled frame by frame."""

    def __init__(self, movers: tuple[_Mover, ...]) -> None:
        # Per mover: frame -> box of its own pixels, for the frames where it is visible.
        self.object_boxes: list[dict[int, Box]] = [{} for _ in movers]
        # Per tracked method: the masks of frames 1..N, with the ROI applied.
        self.masks: dict[str, list[np.ndarray]] = {method: [] for method in TRACKED_METHODS}


def _write_video(
    scene: _Scene,
    video: DemoVideo,
    layout: DemoLayout,
    rng: np.random.Generator,
    cancel: CancelToken | None,
    record: _VideoRecord,
) -> Iterator[int]:
    """Render, write and segment every frame of ``scene``, filling ``record``; yield per frame."""
    input_dir = video.path / "input"
    gt_dir = video.path / "groundtruth"
    input_dir.mkdir(parents=True)
    gt_dir.mkdir(parents=True)
    first, last = video.temporal_roi
    write_text(video.path / "temporalROI.txt", f"{first} {last}\n")
    roi = scene.roi()
    write_bytes(video.path / "ROI.bmp", _palette_bmp(roi))

    relative = Path(video.category) / video.name
    binary_dirs = {m: layout.results[m] / relative for m in BINARY_METHODS}
    soft_dirs = {m: layout.soft_results[m] / relative for m in SOFT_METHODS}
    for folder in (*binary_dirs.values(), *soft_dirs.values()):
        folder.mkdir(parents=True)

    renderer = _Renderer(scene, rng)
    subtractors = _make_subtractors()
    running_average = _RunningAverage()
    for number in range(1, video.frame_count + 1):
        check(cancel)
        # The frames and masks are many small files: written directly (plain open(), so
        # with the umask's mode), not one by one flushed to disk by write_bytes; the demo's
        # marker says whether the whole demo was completed.
        image, motion, shadow = renderer.frame(number)
        for boxes, box in zip(record.object_boxes, renderer.object_boxes(number)):
            if box is not None:
                boxes[number] = box
        jpeg = _encode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        (input_dir / f"in{number:06d}.jpg").write_bytes(jpeg)
        (gt_dir / f"gt{number:06d}.png").write_bytes(
            _encode(".png", _ground_truth(motion, shadow, roi))
        )

        # Methods see the frame exactly as stored, JPEG artefacts included.
        decoded = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        if decoded is None:
            raise RuntimeError("OpenCV could not decode the JPEG image it has just encoded")
        for method, subtractor in subtractors.items():
            # KNN draws from OpenCV's per-thread RNG: reseed it so that the masks do not
            # depend on whatever else ran on this thread before.
            cv2.setRNGSeed((layout.seed * 1_000_003 + number) % 2**31)
            raw = subtractor.apply(decoded)
            mask = np.where(raw == 255, 255, 0).astype(np.uint8)  # shadow (127) is background
            (binary_dirs[method] / f"bin{number:06d}.png").write_bytes(_encode(".png", mask))
            if method in record.masks:
                record.masks[method].append(mask & roi)
        score = running_average.apply(decoded)
        (binary_dirs["running-average"] / f"bin{number:06d}.png").write_bytes(
            _encode(".png", np.where(score >= _RunningAverage.THRESHOLD, 255, 0).astype(np.uint8))
        )
        (soft_dirs["running-average"] / f"bin{number:06d}.png").write_bytes(_encode(".png", score))
        yield number


def _ground_truth_actions(
    movers: tuple[_Mover, ...], object_boxes: list[dict[int, Box]]
) -> list[Action]:
    """One action per mover and per run of consecutive frames in which it is visible."""
    actions: list[Action] = []
    for mover, boxes in zip(movers, object_boxes):
        run: dict[int, Box] = {}
        for frame in sorted(boxes):
            if run and frame - 1 not in run:
                actions.append(Action.from_boxes(len(actions) + 1, mover.action_class, run))
                run = {}
            run[frame] = boxes[frame]
        if run:
            actions.append(Action.from_boxes(len(actions) + 1, mover.action_class, run))
    return actions


def count_inside(
    actions: Iterable[Action], region: tuple[int, int, int, int], frame_count: int
) -> np.ndarray:
    """Per frame 1..``frame_count``, how many boxes of ``actions`` have their centre in ``region``.

    ``region`` is ``(x, y, w, h)`` in pixels, half-open; a box ``(x, y, w, h)``
    has its centre at ``(x + w/2, y + h/2)``. Element ``k`` is frame ``k + 1``
    (docs/measures.md §6 counts).
    """
    rx, ry, rw, rh = region
    counts = np.zeros(frame_count, np.int64)
    for action in actions:
        centres = action.boxes[:, :2] + action.boxes[:, 2:] / 2.0
        inside = (
            (rx <= centres[:, 0])
            & (centres[:, 0] < rx + rw)
            & (ry <= centres[:, 1])
            & (centres[:, 1] < ry + rh)
        )
        frames = action.frames[inside & (action.frames >= 1) & (action.frames <= frame_count)]
        np.add.at(counts, frames - 1, 1)
    return counts


def _write_actions(layout: DemoLayout, annotations: dict[str, dict[str, VideoAnnotation]]) -> None:
    layout.actions_gt.parent.mkdir(parents=True, exist_ok=True)
    for name, videos in annotations.items():
        path = layout.actions_gt if name == GROUND_TRUTH else layout.actions[name]
        write_liris(path, AnnotationSet(videos))


def _encode(extension: str, image: np.ndarray, params: list[int] | None = None) -> bytes:
    # imencode + write_bytes rather than imwrite: imwrite fails on non-ASCII paths on Windows.
    ok, buffer = cv2.imencode(extension, image, params or [])
    if not ok:
        raise RuntimeError(f"OpenCV could not encode a {extension} image")
    return buffer.tobytes()


def _ground_truth(motion: np.ndarray, shadow: np.ndarray, roi: np.ndarray) -> np.ndarray:
    """CDnet labels: shadow 50, motion 255, a 2-pixel unknown band (170) on motion
    boundaries, 85 outside the ROI."""
    kernel = np.ones((3, 3), np.uint8)
    motion8 = motion.astype(np.uint8)
    band = cv2.dilate(motion8, kernel) != cv2.erode(motion8, kernel)
    gt = np.full(motion.shape, GT_STATIC, np.uint8)
    gt[shadow] = GT_SHADOW
    gt[motion] = GT_MOTION
    gt[band] = GT_UNKNOWN
    gt[roi == 0] = GT_OUTSIDE_ROI
    return gt


def _palette_bmp(grey: np.ndarray) -> bytes:
    """An 8-bit indexed BMP of a 0/255 image whose palette entry 0 is white.

    CDnet's ``ROI.bmp`` files are palette images like this one, so a reader
    that takes raw indices instead of colours inverts the ROI (docs/measures.md §1).
    """
    height, width = grey.shape
    palette = bytearray()
    for index in range(256):
        level = {0: 255, 1: 0}.get(index, index)
        palette += bytes((level, level, level, 0))
    indices = np.where(grey > 0, 0, 1).astype(np.uint8)
    stride = (width + 3) // 4 * 4
    rows = np.zeros((height, stride), np.uint8)
    rows[:, :width] = indices
    pixels = rows[::-1].tobytes()  # BMP rows go bottom-up
    offset = 14 + 40 + len(palette)
    header = struct.pack("<2sIHHI", b"BM", offset + len(pixels), 0, 0, offset)
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 8, 0, len(pixels), 2835, 2835, 256, 0)
    return header + info + bytes(palette) + pixels
