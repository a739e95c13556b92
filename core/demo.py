"""A small, deterministic CDnet-style demo: synthetic videos, ground truth and real results.

:func:`write_demo` renders three short synthetic scenes (160x120 pixels) in the
CDnet 2014 layout (SPEC §1 and §10), with ground truth that uses all five grey
levels, a palette ``ROI.bmp`` and a ``temporalROI.txt`` that leaves the first
fifth of each video for background learning. It then runs real OpenCV
background subtractors on the JPEG frames it wrote, so the results show the
mistakes such methods really make: salt noise, ghosts, cast shadows detected
as motion, a stopped car absorbed into the background, false alarms during an
illumination change. One method also writes a soft score map (SPEC §3) so
ROC and PR curves have something to show.

The demo also holds actions (SPEC §4) and counts (SPEC §6). The ground-truth
actions are the scene objects themselves: one action per object and per
stretch of frames where any of it is inside the image (all frames, not only
the temporal ROI), one box per frame bounding the object's own pixels (not
its shadow; occlusion by another object is ignored). The classes are
synthetic, a plausible reading of each object's role:

* 7 UB "leave baggage unattended": an object that stands still for
  :data:`STOP_FRAMES` frames or more (the car that parks in the street);
* 4 EN "enter/leave room": any other person (drawn as an upright ellipse);
* 5 ET "try to enter": any other vehicle (drawn as a rectangle: the cars,
  the cyclist).

The detected actions of the methods in :data:`TRACKED_METHODS` come from
:func:`~referee.core.tracking.track_masks` run on that method's masks inside
the ROI, which gives the same three classes by a rule on the boxes (still,
else tall, else wide). So the detections split, merge, miss, invent and
misclassify objects as a real detector does. Each video has a counting
region, a rectangle; the count of a frame is the number of boxes
(ground-truth objects or tracker boxes) whose centre is inside it.

Layout under ``root``::

    referee-demo.json                       marker: generator, format, seed
    dataset/<category>/<video>/input/in%06d.jpg
    dataset/<category>/<video>/groundtruth/gt%06d.png
    dataset/<category>/<video>/ROI.bmp
    dataset/<category>/<video>/temporalROI.txt
    results/<method>/<category>/<video>/bin%06d.png        0/255 masks
    results-soft/<method>/<category>/<video>/bin%06d.png   0-255 scores
    actions/groundtruth.xml                 LIRIS XML, all videos, videoName <category>_<video>
    actions/<method>.xml                    the tracker's actions on that method's masks
    counts/<category>_<video>/groundtruth.csv   frame,count for frames 1..N
    counts/<category>_<video>/<method>.csv

Everything is a function of ``seed`` and the OpenCV version: two runs with the
same seed write byte-identical files.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import struct
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .annotations import Action, AnnotationSet, VideoAnnotation
from .errors import CancelledError, InputFileError, InvalidOptionError, RefereeError
from .formats.counts_csv import write_counts_csv
from .formats.liris_xml import write_liris
from .progress import CancelToken, ProgressCallback, check, report
from .tracking import TrackerParams, track_masks

MARKER_NAME = "referee-demo.json"
DEMO_FORMAT = 2
WIDTH, HEIGHT = 160, 120

#: Methods whose 0/255 masks are written under ``results/``.
BINARY_METHODS: tuple[str, ...] = ("mog2", "knn", "mog", "cnt", "running-average")
#: Methods whose 0-255 score maps are written under ``results-soft/``.
SOFT_METHODS: tuple[str, ...] = ("running-average",)
#: Methods whose masks are tracked into actions and counts (a subset of BINARY_METHODS).
TRACKED_METHODS: tuple[str, ...] = ("mog2", "knn", "cnt")
#: Name of the ground truth among the action and count files.
GROUND_TRUTH = "groundtruth"

#: Synthetic LIRIS classes of the ground-truth objects (see the module docstring).
CLASS_STOPPING, CLASS_PERSON, CLASS_VEHICLE = 7, 4, 5
#: An object whose path stands still for at least this many frames is "stopping".
STOP_FRAMES = 10
#: The tracker behind the demo's detected actions.
TRACKER_PARAMS = TrackerParams(
    still_class=CLASS_STOPPING, person_class=CLASS_PERSON, vehicle_class=CLASS_VEHICLE
)

_GENERATOR = "referee.core.demo"
_OWN_ENTRIES = ("dataset", "results", "results-soft", "actions", "counts")

# CDnet ground-truth grey levels (SPEC §1).
GT_STATIC, GT_SHADOW, GT_OUTSIDE_ROI, GT_UNKNOWN, GT_MOTION = 0, 50, 85, 170, 255

_Box = tuple[int, int, int, int]  # x, y, w, h in pixels


@dataclass(frozen=True)
class DemoVideo:
    """One demo video: where it is, how many frames, which frames are evaluated."""

    category: str
    name: str
    path: Path
    frame_count: int
    temporal_roi: tuple[int, int]  # (first, last), 1-based, inclusive
    #: Counting region ``(x, y, w, h)`` in pixels, half-open (SPEC §6).
    count_region: tuple[int, int, int, int] = (0, 0, WIDTH, HEIGHT)

    @property
    def key(self) -> str:
        """``<category>_<video>``: the LIRIS ``videoName`` and the folder under ``counts``."""
        return f"{self.category}_{self.name}"


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
    marker = _read_marker(root)
    if (
        marker is not None
        and marker.get("complete") is True
        and marker.get("format") == DEMO_FORMAT
        and marker.get("opencv") == cv2.__version__
        and isinstance(marker.get("seed"), int)
    ):
        return _layout(root, [factory() for factory in _SCENES], marker["seed"])
    return write_demo(root, progress, cancel)


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


def _read_marker(root: Path) -> dict | None:
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
        self.object_boxes: list[dict[int, _Box]] = [{} for _ in movers]
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
    (video.path / "temporalROI.txt").write_text(f"{first} {last}\n", encoding="ascii")
    roi = scene.roi()
    (video.path / "ROI.bmp").write_bytes(_palette_bmp(roi))

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
    movers: tuple[_Mover, ...], object_boxes: list[dict[int, _Box]]
) -> list[Action]:
    """One action per mover and per run of consecutive frames in which it is visible."""
    actions: list[Action] = []
    for mover, boxes in zip(movers, object_boxes):
        run: dict[int, _Box] = {}
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
    (SPEC §6 counts).
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
    that takes raw indices instead of colours inverts the ROI (SPEC §1).
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


# --------------------------------------------------------------------------- methods


def _make_subtractors() -> dict[str, cv2.BackgroundSubtractor]:
    """Fixed parameters. Only KNN draws random numbers, from OpenCV's RNG (reseeded per frame)."""
    return {
        "mog2": cv2.createBackgroundSubtractorMOG2(
            history=200, varThreshold=16, detectShadows=True
        ),
        "knn": cv2.createBackgroundSubtractorKNN(
            history=200, dist2Threshold=400.0, detectShadows=True
        ),
        "mog": cv2.bgsegm.createBackgroundSubtractorMOG(
            history=200, nmixtures=5, backgroundRatio=0.7, noiseSigma=0
        ),
        "cnt": cv2.bgsegm.createBackgroundSubtractorCNT(
            minPixelStability=15, useHistory=True, maxPixelStability=15 * 60, isParallel=False
        ),
    }


class _RunningAverage:
    """Grey running-average background; the score is the scaled absolute difference."""

    ALPHA = 0.03
    FULL_SCALE = 48.0  # a grey difference of 48 levels scores 255
    THRESHOLD = 128  # binary mask: score >= 128, i.e. a difference of about 24 levels

    def __init__(self) -> None:
        self._background: np.ndarray | None = None

    def apply(self, image: np.ndarray) -> np.ndarray:
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
        if self._background is None:
            self._background = grey.copy()
        difference = np.abs(grey - self._background)
        self._background += self.ALPHA * (grey - self._background)
        return np.clip(np.rint(difference * (255.0 / self.FULL_SCALE)), 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------- scenes


@dataclass(frozen=True)
class _Mover:
    """A moving textured shape; visible between its first and last keyframe.

    ``path`` holds ``(frame, x, y)`` keyframes of the shape's centre; the
    position is interpolated linearly in between (equal positions = stopped).
    """

    shape: str  # "rect" or "ellipse"
    width: int
    height: int
    colour: tuple[int, int, int]  # BGR
    path: tuple[tuple[int, float, float], ...]

    def centre(self, frame: int) -> tuple[float, float] | None:
        frames = [key[0] for key in self.path]
        if frame < frames[0] or frame > frames[-1]:
            return None
        x = float(np.interp(frame, frames, [key[1] for key in self.path]))
        y = float(np.interp(frame, frames, [key[2] for key in self.path]))
        return x, y

    @property
    def action_class(self) -> int:
        """Synthetic LIRIS class: stopping object, person (ellipse) or vehicle (rectangle)."""
        for (f0, x0, y0), (f1, x1, y1) in zip(self.path, self.path[1:]):
            if (x0, y0) == (x1, y1) and f1 - f0 >= STOP_FRAMES:
                return CLASS_STOPPING
        return CLASS_PERSON if self.shape == "ellipse" else CLASS_VEHICLE


@dataclass(frozen=True)
class _Scene:
    category: str
    name: str
    frame_count: int
    background: Callable[[np.random.Generator], np.ndarray]
    movers: tuple[_Mover, ...]
    roi_polygon: tuple[tuple[int, int], ...]  # the excluded region
    count_region: tuple[int, int, int, int]  # x, y, w, h: objects centred inside are counted
    gain: Callable[[int], float] = lambda frame: 1.0
    casts_shadows: bool = False
    # Animates the background outside the ROI (waving trees, a flickering light).
    animate: Callable[[np.ndarray, int], np.ndarray] | None = None

    @property
    def temporal_roi(self) -> tuple[int, int]:
        # As in CDnet, the first fifth is left for the methods to learn the background.
        return self.frame_count // 5 + 1, self.frame_count

    def roi(self) -> np.ndarray:
        roi = np.full((HEIGHT, WIDTH), 255, np.uint8)
        cv2.fillPoly(roi, [np.array(self.roi_polygon, np.int32)], 0)
        return roi


@dataclass(frozen=True)
class _Sprite:
    """A mover drawn once on a local canvas; ``anchor`` is its centre in canvas pixels."""

    mask: np.ndarray  # bool, the object
    texture: np.ndarray  # float32 BGR
    shadow: np.ndarray  # bool, its cast shadow (may overlap the object)
    anchor: tuple[int, int]


class _Renderer:
    """Draws frames of a scene: background, cast shadows, objects, blur, gain, noise."""

    NOISE_SIGMA = 3.0
    SHADOW_DARKENING = 0.5
    SHADOW_SHEAR = 0.9  # horizontal shift per pixel of height above the feet
    SHADOW_SQUASH = 0.5  # shadow height / object height
    SHADOW_WIDEN = 1.6  # shadow width / object width

    def __init__(self, scene: _Scene, rng: np.random.Generator) -> None:
        self.scene = scene
        self.rng = rng
        self.background = scene.background(rng)
        self.sprites = [self._sprite(mover) for mover in scene.movers]

    def _sprite(self, mover: _Mover) -> _Sprite:
        """Object mask, texture and shadow mask on a local canvas, with the centre's offset."""
        widen = self.SHADOW_WIDEN if self.scene.casts_shadows else 1.0
        pad_left = int(math.ceil((widen - 1) * mover.width / 2)) + 2
        pad_right = pad_left + int(math.ceil(mover.height * self.SHADOW_SHEAR))
        canvas_h, canvas_w = mover.height + 4, pad_left + mover.width + pad_right
        left, top = pad_left, 2
        mask = np.zeros((canvas_h, canvas_w), np.uint8)
        if mover.shape == "rect":
            cv2.rectangle(
                mask, (left, top), (left + mover.width - 1, top + mover.height - 1), 1, -1
            )
        else:
            centre = (left + mover.width // 2, top + mover.height // 2)
            cv2.ellipse(mask, centre, (mover.width // 2, mover.height // 2), 0, 0, 360, 1, -1)
        texture = self._object_texture(mover, canvas_h, canvas_w, left, top)
        shadow = np.zeros_like(mask)
        if self.scene.casts_shadows:
            feet, middle = top + mover.height - 1, left + mover.width / 2
            shear, squash = self.SHADOW_SHEAR, self.SHADOW_SQUASH
            # Widen, shear to the right and squash towards the feet: a shadow on the floor.
            affine = np.array(
                [
                    [widen, -shear, (1 - widen) * middle + shear * feet],
                    [0.0, squash, (1 - squash) * feet],
                ]
            )
            shadow = cv2.warpAffine(mask, affine, (canvas_w, canvas_h), flags=cv2.INTER_NEAREST)
        return _Sprite(
            mask.astype(bool),
            texture,
            shadow.astype(bool),
            (left + mover.width // 2, top + mover.height // 2),
        )

    def _object_texture(
        self, mover: _Mover, height: int, width: int, left: int, top: int
    ) -> np.ndarray:
        base = np.array(mover.colour, np.float32)
        pattern = _smooth_noise(self.rng, height, width, 4) - 0.5
        texture = base + 60.0 * pattern[..., None]
        if mover.shape == "rect":  # a car: darker windows band, lighter roof line
            texture[
                top + mover.height // 4 : top + mover.height // 2, left + 4 : left + mover.width - 4
            ] *= 0.45
            texture[top : top + 2, left : left + mover.width] += 40
        else:  # a person: a head of another colour on top, darker legs
            head = max(3, mover.height // 5)
            texture[top : top + head] = self.rng.uniform(60, 200, 3).astype(np.float32)
            texture[top + mover.height * 2 // 3 :] *= 0.6
        return np.clip(texture, 0, 255)

    def frame(self, number: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return (BGR uint8 image, motion mask, shadow mask) of 1-based frame ``number``."""
        scene = self.scene
        image = self.background.copy()
        if scene.animate is not None:
            image = scene.animate(image, number)
        motion = np.zeros((HEIGHT, WIDTH), bool)
        shadow = np.zeros((HEIGHT, WIDTH), bool)
        placed = []
        for mover, sprite in zip(scene.movers, self.sprites):
            offset = _offset(mover, sprite, number)
            if offset is None:
                continue
            ox, oy = offset
            placed.append((sprite, ox, oy))
            if scene.casts_shadows:
                _stamp(shadow, sprite.shadow, ox, oy)
        # Shadows fall on the background only; objects are drawn over them.
        image[shadow] *= self.SHADOW_DARKENING
        for sprite, ox, oy in placed:
            regions = _clip(ox, oy, sprite.mask.shape)
            if regions is None:
                continue
            frame_region, local_region = regions
            local_mask = sprite.mask[local_region]
            image[frame_region][local_mask] = sprite.texture[local_region][local_mask]
            motion[frame_region] |= local_mask
        shadow &= ~motion
        image = cv2.GaussianBlur(image, (3, 3), 0.7)
        image *= scene.gain(number)
        image += self.rng.normal(0.0, self.NOISE_SIGMA, image.shape).astype(np.float32)
        return np.clip(np.rint(image), 0, 255).astype(np.uint8), motion, shadow

    def object_boxes(self, number: int) -> list[_Box | None]:
        """Per mover, the ``(x, y, w, h)`` box of its own pixels inside the frame, or ``None``."""
        boxes: list[_Box | None] = []
        for mover, sprite in zip(self.scene.movers, self.sprites):
            offset = _offset(mover, sprite, number)
            regions = None if offset is None else _clip(*offset, sprite.mask.shape)
            local = None if regions is None else sprite.mask[regions[1]]
            if local is None or not local.any():
                boxes.append(None)
                continue
            x, y, w, h = cv2.boundingRect(local.astype(np.uint8))
            boxes.append((regions[0][1].start + x, regions[0][0].start + y, w, h))
        return boxes


def _offset(mover: _Mover, sprite: _Sprite, number: int) -> tuple[int, int] | None:
    """Where the sprite's canvas goes on frame ``number`` (its top-left), or ``None`` if absent."""
    centre = mover.centre(number)
    if centre is None:
        return None
    return int(round(centre[0])) - sprite.anchor[0], int(round(centre[1])) - sprite.anchor[1]


def _clip(
    ox: int, oy: int, shape: tuple[int, ...]
) -> tuple[tuple[slice, slice], tuple[slice, slice]] | None:
    """Frame and local slices where a canvas placed at (ox, oy) overlaps the frame."""
    h, w = shape[:2]
    x0, y0, x1, y1 = max(ox, 0), max(oy, 0), min(ox + w, WIDTH), min(oy + h, HEIGHT)
    if x0 >= x1 or y0 >= y1:
        return None
    return ((slice(y0, y1), slice(x0, x1)), (slice(y0 - oy, y1 - oy), slice(x0 - ox, x1 - ox)))


def _stamp(target: np.ndarray, local: np.ndarray, ox: int, oy: int) -> None:
    regions = _clip(ox, oy, local.shape)
    if regions is not None:
        target[regions[0]] |= local[regions[1]]


def _smooth_noise(rng: np.random.Generator, height: int, width: int, cell: int) -> np.ndarray:
    """Values in [0, 1] that vary smoothly over about ``cell`` pixels."""
    coarse = rng.random((height // cell + 2, width // cell + 2)).astype(np.float32)
    return np.clip(cv2.resize(coarse, (width, height), interpolation=cv2.INTER_CUBIC), 0, 1)


def _textured(
    rng: np.random.Generator,
    height: int,
    width: int,
    colour: tuple[int, int, int],
    amplitude: float,
) -> np.ndarray:
    """A BGR float32 patch of ``colour`` with coarse and fine texture."""
    texture = (
        0.6 * _smooth_noise(rng, height, width, 8)
        + 0.4 * _smooth_noise(rng, height, width, 2)
        - 0.5
    )
    return np.array(colour, np.float32) + amplitude * texture[..., None]


# Street: a facade, a sidewalk and a two-lane road; trees wave above the ROI.


def _street_background(rng: np.random.Generator) -> np.ndarray:
    image = np.zeros((HEIGHT, WIDTH, 3), np.float32)
    image[:30] = _textured(rng, 30, WIDTH, (70, 120, 80), 90)  # trees
    image[30:60] = _textured(rng, 30, WIDTH, (150, 175, 195), 30)  # facade
    for x in range(8, WIDTH - 12, 22):
        image[36:50, x : x + 12] = (90, 80, 70)  # windows
        image[37:49, x + 1 : x + 11] += 25 * (_smooth_noise(rng, 12, 10, 3)[..., None] - 0.5)
    image[60:76] = _textured(rng, 16, WIDTH, (175, 175, 170), 25)  # sidewalk
    image[60:76, ::16] -= 35  # paving joints
    image[76:] = _textured(rng, HEIGHT - 76, WIDTH, (85, 85, 88), 35)  # asphalt
    image[97:99, [x for s in range(0, WIDTH, 20) for x in range(s, s + 10)]] = (220, 220, 220)
    return np.clip(image, 0, 255)


def _street_animate(image: np.ndarray, frame: int) -> np.ndarray:
    ys, xs = np.mgrid[0:30, 0:WIDTH].astype(np.float32)
    map_x = xs + 1.8 * np.sin(0.45 * frame + 0.25 * ys + 0.05 * xs)
    image[:30] = cv2.remap(image[:30], map_x, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    return image


def _street() -> _Scene:
    n = 180
    movers = (
        _Mover("ellipse", 8, 18, (60, 60, 150), ((1, 20.0, 65.0), (n, 110.0, 65.0))),  # slow walker
        _Mover("rect", 34, 16, (40, 40, 170), ((40, -20.0, 108.0), (125, 180.0, 108.0))),
        _Mover("rect", 28, 14, (160, 120, 40), ((60, 180.0, 86.0), (170, -20.0, 86.0))),
        # Enters, stops for 40 frames, leaves: methods absorb it into the background.
        _Mover(
            "rect",
            30,
            15,
            (200, 200, 210),
            ((95, -18.0, 88.0), (120, 60.0, 88.0), (160, 60.0, 88.0), (n, 100.0, 88.0)),
        ),
        _Mover("ellipse", 9, 19, (150, 70, 60), ((110, 175.0, 62.0), (n, 120.0, 68.0))),
    )
    return _Scene(
        "baseline",
        "street",
        n,
        _street_background,
        movers,
        roi_polygon=((0, 0), (WIDTH, 0), (WIDTH, 32), (0, 24)),
        count_region=(50, 50, 60, 70),
        animate=_street_animate,
    )


# Plaza: paving stones; pedestrians and a cyclist cross in all directions while a
# cloud passes (global illumination change). A fountain corner is outside the ROI.


def _plaza_background(rng: np.random.Generator) -> np.ndarray:
    image = _textured(rng, HEIGHT, WIDTH, (140, 150, 160), 20)
    for y in range(0, HEIGHT, 12):
        for x in range(-(y // 12 % 2) * 9, WIDTH, 18):
            image[y : y + 12, max(x, 0) : x + 18] += float(rng.uniform(-18, 18))
        image[y] -= 30  # joints between rows of stones
    cv2.circle(image, (18, 12), 30, (170, 140, 90), -1)  # fountain basin
    cv2.circle(image, (18, 12), 22, (200, 160, 110), -1)
    return np.clip(image, 0, 255)


def _plaza_gain(frame: int) -> float:
    # A cloud darkens the scene to 70 % between frames 60 and 140 (smooth bump).
    if not 60 <= frame <= 140:
        return 1.0
    return 1.0 - 0.3 * math.sin(math.pi * (frame - 60) / 80) ** 2


def _plaza() -> _Scene:
    n = 150
    movers = (
        _Mover("ellipse", 10, 20, (50, 160, 200), ((25, -8.0, 80.0), (110, 170.0, 60.0))),
        _Mover("ellipse", 9, 19, (120, 40, 40), ((35, 140.0, 130.0), (n, 95.0, 20.0))),
        _Mover("ellipse", 10, 21, (40, 40, 40), ((50, 170.0, 95.0), (135, -10.0, 100.0))),
        _Mover("rect", 22, 11, (30, 140, 30), ((70, -15.0, 40.0), (115, 175.0, 50.0))),  # cyclist
        _Mover("ellipse", 11, 20, (200, 200, 230), ((90, 60.0, 130.0), (n, 75.0, 70.0))),
        _Mover("ellipse", 9, 18, (90, 60, 160), ((100, 10.0, -12.0), (n, 40.0, 45.0))),
    )
    return _Scene(
        "baseline",
        "plaza",
        n,
        _plaza_background,
        movers,
        roi_polygon=((0, 0), (62, 0), (0, 46)),
        count_region=(40, 35, 80, 60),
        gain=_plaza_gain,
    )


# Corridor: a bright tiled floor under a low light; people cast hard shadows.
# A flickering door window on the right is outside the ROI.


def _corridor_background(rng: np.random.Generator) -> np.ndarray:
    image = np.zeros((HEIGHT, WIDTH, 3), np.float32)
    image[:42] = _textured(rng, 42, WIDTH, (170, 200, 215), 20)  # wall
    image[38:42] = (110, 120, 130)  # skirting board
    image[42:] = _textured(rng, HEIGHT - 42, WIDTH, (205, 210, 215), 22)  # floor tiles
    image[42::14] -= 25
    image[42:, ::20] -= 25
    image[4:40, 138:158] = (120, 100, 80)  # door
    return np.clip(image, 0, 255)


def _corridor_animate(image: np.ndarray, frame: int) -> np.ndarray:
    flicker = 0.75 + 0.25 * math.sin(1.3 * frame) * math.cos(0.37 * frame)
    image[8:22, 142:154] = (230 * flicker, 235 * flicker, 240 * flicker)  # door window
    return image


def _corridor() -> _Scene:
    n = 160
    movers = (
        _Mover("ellipse", 12, 34, (90, 50, 40), ((35, -10.0, 70.0), (120, 170.0, 74.0))),
        _Mover("ellipse", 11, 32, (40, 90, 140), ((45, 170.0, 95.0), (150, -10.0, 92.0))),
        _Mover("ellipse", 12, 30, (60, 60, 60), ((70, 40.0, 140.0), (n, 70.0, 60.0))),
        _Mover("ellipse", 10, 30, (150, 150, 60), ((110, -8.0, 55.0), (n, 95.0, 55.0))),
    )
    return _Scene(
        "shadow",
        "corridor",
        n,
        _corridor_background,
        movers,
        roi_polygon=((138, 0), (WIDTH, 0), (WIDTH, HEIGHT), (138, HEIGHT)),
        count_region=(40, 40, 70, 70),
        casts_shadows=True,
        animate=_corridor_animate,
    )


_SCENES: tuple[Callable[[], _Scene], ...] = (_street, _plaza, _corridor)
