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

Layout under ``root``::

    referee-demo.json                       marker: generator, format, seed
    dataset/<category>/<video>/input/in%06d.jpg
    dataset/<category>/<video>/groundtruth/gt%06d.png
    dataset/<category>/<video>/ROI.bmp
    dataset/<category>/<video>/temporalROI.txt
    results/<method>/<category>/<video>/bin%06d.png        0/255 masks
    results-soft/<method>/<category>/<video>/bin%06d.png   0-255 scores

Everything is a function of ``seed`` and the OpenCV version: two runs with the
same seed write byte-identical files.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Optional

import cv2
import numpy as np

from .errors import CancelledError, InputFileError, InvalidOptionError, RefereeError
from .progress import CancelToken, ProgressCallback, check, report

MARKER_NAME = "referee-demo.json"
DEMO_FORMAT = 1
WIDTH, HEIGHT = 160, 120

#: Methods whose 0/255 masks are written under ``results/``.
BINARY_METHODS: tuple[str, ...] = ("mog2", "knn", "mog", "cnt", "running-average")
#: Methods whose 0-255 score maps are written under ``results-soft/``.
SOFT_METHODS: tuple[str, ...] = ("running-average",)

_GENERATOR = "referee.core.demo"
_OWN_ENTRIES = ("dataset", "results", "results-soft")

# CDnet ground-truth grey levels (SPEC §1).
GT_STATIC, GT_SHADOW, GT_OUTSIDE_ROI, GT_UNKNOWN, GT_MOTION = 0, 50, 85, 170, 255


@dataclass(frozen=True)
class DemoVideo:
    """One demo video: where it is, how many frames, which frames are evaluated."""

    category: str
    name: str
    path: Path
    frame_count: int
    temporal_roi: tuple[int, int]  # (first, last), 1-based, inclusive


@dataclass(frozen=True)
class DemoLayout:
    """Where :func:`write_demo` put everything.

    ``results`` and ``soft_results`` map a method name to its folder, which
    holds ``<category>/<video>/bin%06d.png``.
    """

    root: Path
    dataset: Path
    results: dict[str, Path]
    soft_results: dict[str, Path]
    videos: tuple[DemoVideo, ...]
    seed: int

    @property
    def categories(self) -> tuple[str, ...]:
        """Category names in the order they were written."""
        return tuple(dict.fromkeys(video.category for video in self.videos))

    @property
    def marker(self) -> Path:
        return self.root / MARKER_NAME


def write_demo(root: Path, progress: Optional[ProgressCallback] = None,
               cancel: Optional[CancelToken] = None, seed: int = 0) -> DemoLayout:
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
    try:
        for index, (scene, video) in enumerate(zip(scenes, layout.videos)):
            rng = np.random.default_rng([seed, index])
            for _ in _write_video(scene, video, layout, rng, cancel):
                done += 1
                report(progress, done, total)
    except CancelledError:
        _remove_own_entries(root)
        (root / MARKER_NAME).unlink(missing_ok=True)
        raise
    _write_marker(root, seed, complete=True)
    return layout


def ensure_demo(root: Path, progress: Optional[ProgressCallback] = None,
                cancel: Optional[CancelToken] = None) -> DemoLayout:
    """The demo in ``root``: reused if complete and current, else written by :func:`write_demo`.

    A demo is reused when its marker says it was completed by this generator,
    in this format and with this OpenCV version; an interrupted or older
    demo is rewritten. Same errors as :func:`write_demo`.
    """
    root = Path(root)
    marker = _read_marker(root)
    if (marker is not None and marker.get("complete") is True
            and marker.get("format") == DEMO_FORMAT and marker.get("opencv") == cv2.__version__
            and isinstance(marker.get("seed"), int)):
        return _layout(root, [factory() for factory in _SCENES], marker["seed"])
    return write_demo(root, progress, cancel)


def _layout(root: Path, scenes: list["_Scene"], seed: int) -> DemoLayout:
    return DemoLayout(
        root=root,
        dataset=root / "dataset",
        results={method: root / "results" / method for method in BINARY_METHODS},
        soft_results={method: root / "results-soft" / method for method in SOFT_METHODS},
        videos=tuple(
            DemoVideo(scene.category, scene.name, root / "dataset" / scene.category / scene.name,
                      scene.frame_count, scene.temporal_roi)
            for scene in scenes
        ),
        seed=seed,
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


def _read_marker(root: Path) -> Optional[dict]:
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


def _write_video(scene: _Scene, video: DemoVideo, layout: DemoLayout,
                 rng: np.random.Generator, cancel: Optional[CancelToken]) -> Iterator[int]:
    """Render, write and segment every frame of ``scene``; yield once per frame."""
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
        jpeg = _encode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        (input_dir / f"in{number:06d}.jpg").write_bytes(jpeg)
        (gt_dir / f"gt{number:06d}.png").write_bytes(
            _encode(".png", _ground_truth(motion, shadow, roi)))

        # Methods see the frame exactly as stored, JPEG artefacts included.
        decoded = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        for method, subtractor in subtractors.items():
            # KNN draws from OpenCV's per-thread RNG: reseed it so that the masks do not
            # depend on whatever else ran on this thread before.
            cv2.setRNGSeed((layout.seed * 1_000_003 + number) % 2**31)
            raw = subtractor.apply(decoded)
            mask = np.where(raw == 255, 255, 0).astype(np.uint8)  # shadow (127) is background
            (binary_dirs[method] / f"bin{number:06d}.png").write_bytes(_encode(".png", mask))
        score = running_average.apply(decoded)
        (binary_dirs["running-average"] / f"bin{number:06d}.png").write_bytes(
            _encode(".png", np.where(score >= _RunningAverage.THRESHOLD, 255, 0).astype(np.uint8)))
        (soft_dirs["running-average"] / f"bin{number:06d}.png").write_bytes(
            _encode(".png", score))
        yield number


def _encode(extension: str, image: np.ndarray, params: Optional[list[int]] = None) -> bytes:
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
        "mog2": cv2.createBackgroundSubtractorMOG2(history=200, varThreshold=16,
                                                   detectShadows=True),
        "knn": cv2.createBackgroundSubtractorKNN(history=200, dist2Threshold=400.0,
                                                 detectShadows=True),
        "mog": cv2.bgsegm.createBackgroundSubtractorMOG(history=200, nmixtures=5,
                                                        backgroundRatio=0.7, noiseSigma=0),
        "cnt": cv2.bgsegm.createBackgroundSubtractorCNT(minPixelStability=15, useHistory=True,
                                                        maxPixelStability=15 * 60,
                                                        isParallel=False),
    }


class _RunningAverage:
    """Grey running-average background; the score is the scaled absolute difference."""

    ALPHA = 0.03
    FULL_SCALE = 48.0  # a grey difference of 48 levels scores 255
    THRESHOLD = 128  # binary mask: score >= 128, i.e. a difference of about 24 levels

    def __init__(self) -> None:
        self._background: Optional[np.ndarray] = None

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

    def centre(self, frame: int) -> Optional[tuple[float, float]]:
        frames = [key[0] for key in self.path]
        if frame < frames[0] or frame > frames[-1]:
            return None
        x = float(np.interp(frame, frames, [key[1] for key in self.path]))
        y = float(np.interp(frame, frames, [key[2] for key in self.path]))
        return x, y


@dataclass(frozen=True)
class _Scene:
    category: str
    name: str
    frame_count: int
    background: Callable[[np.random.Generator], np.ndarray]
    movers: tuple[_Mover, ...]
    roi_polygon: tuple[tuple[int, int], ...]  # the excluded region
    gain: Callable[[int], float] = lambda frame: 1.0
    casts_shadows: bool = False
    # Animates the background outside the ROI (waving trees, a flickering light).
    animate: Optional[Callable[[np.ndarray, int], np.ndarray]] = None

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
            cv2.rectangle(mask, (left, top), (left + mover.width - 1, top + mover.height - 1), 1, -1)
        else:
            centre = (left + mover.width // 2, top + mover.height // 2)
            cv2.ellipse(mask, centre, (mover.width // 2, mover.height // 2), 0, 0, 360, 1, -1)
        texture = self._object_texture(mover, canvas_h, canvas_w, left, top)
        shadow = np.zeros_like(mask)
        if self.scene.casts_shadows:
            feet, middle = top + mover.height - 1, left + mover.width / 2
            shear, squash = self.SHADOW_SHEAR, self.SHADOW_SQUASH
            # Widen, shear to the right and squash towards the feet: a shadow on the floor.
            affine = np.array([[widen, -shear, (1 - widen) * middle + shear * feet],
                               [0.0, squash, (1 - squash) * feet]])
            shadow = cv2.warpAffine(mask, affine, (canvas_w, canvas_h), flags=cv2.INTER_NEAREST)
        return _Sprite(mask.astype(bool), texture, shadow.astype(bool),
                       (left + mover.width // 2, top + mover.height // 2))

    def _object_texture(self, mover: _Mover, height: int, width: int,
                        left: int, top: int) -> np.ndarray:
        base = np.array(mover.colour, np.float32)
        pattern = _smooth_noise(self.rng, height, width, 4) - 0.5
        texture = base + 60.0 * pattern[..., None]
        if mover.shape == "rect":  # a car: darker windows band, lighter roof line
            texture[top + mover.height // 4: top + mover.height // 2,
                    left + 4: left + mover.width - 4] *= 0.45
            texture[top: top + 2, left: left + mover.width] += 40
        else:  # a person: a head of another colour on top, darker legs
            head = max(3, mover.height // 5)
            texture[top: top + head] = self.rng.uniform(60, 200, 3).astype(np.float32)
            texture[top + mover.height * 2 // 3:] *= 0.6
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
            centre = mover.centre(number)
            if centre is None:
                continue
            ox = int(round(centre[0])) - sprite.anchor[0]
            oy = int(round(centre[1])) - sprite.anchor[1]
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


def _clip(ox: int, oy: int, shape: tuple[int, ...]
          ) -> Optional[tuple[tuple[slice, slice], tuple[slice, slice]]]:
    """Frame and local slices where a canvas placed at (ox, oy) overlaps the frame."""
    h, w = shape[:2]
    x0, y0, x1, y1 = max(ox, 0), max(oy, 0), min(ox + w, WIDTH), min(oy + h, HEIGHT)
    if x0 >= x1 or y0 >= y1:
        return None
    return ((slice(y0, y1), slice(x0, x1)),
            (slice(y0 - oy, y1 - oy), slice(x0 - ox, x1 - ox)))


def _stamp(target: np.ndarray, local: np.ndarray, ox: int, oy: int) -> None:
    regions = _clip(ox, oy, local.shape)
    if regions is not None:
        target[regions[0]] |= local[regions[1]]


def _smooth_noise(rng: np.random.Generator, height: int, width: int, cell: int) -> np.ndarray:
    """Values in [0, 1] that vary smoothly over about ``cell`` pixels."""
    coarse = rng.random((height // cell + 2, width // cell + 2)).astype(np.float32)
    return np.clip(cv2.resize(coarse, (width, height), interpolation=cv2.INTER_CUBIC), 0, 1)


def _textured(rng: np.random.Generator, height: int, width: int, colour: tuple[int, int, int],
              amplitude: float) -> np.ndarray:
    """A BGR float32 patch of ``colour`` with coarse and fine texture."""
    texture = (0.6 * _smooth_noise(rng, height, width, 8) + 0.4 * _smooth_noise(rng, height, width, 2)
               - 0.5)
    return np.array(colour, np.float32) + amplitude * texture[..., None]


# Street: a facade, a sidewalk and a two-lane road; trees wave above the ROI.

def _street_background(rng: np.random.Generator) -> np.ndarray:
    image = np.zeros((HEIGHT, WIDTH, 3), np.float32)
    image[:30] = _textured(rng, 30, WIDTH, (70, 120, 80), 90)  # trees
    image[30:60] = _textured(rng, 30, WIDTH, (150, 175, 195), 30)  # facade
    for x in range(8, WIDTH - 12, 22):
        image[36:50, x:x + 12] = (90, 80, 70)  # windows
        image[37:49, x + 1:x + 11] += 25 * (_smooth_noise(rng, 12, 10, 3)[..., None] - 0.5)
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
        _Mover("rect", 30, 15, (200, 200, 210), ((95, -18.0, 88.0), (120, 60.0, 88.0),
                                                 (160, 60.0, 88.0), (n, 100.0, 88.0))),
        _Mover("ellipse", 9, 19, (150, 70, 60), ((110, 175.0, 62.0), (n, 120.0, 68.0))),
    )
    return _Scene("baseline", "street", n, _street_background, movers,
                  roi_polygon=((0, 0), (WIDTH, 0), (WIDTH, 32), (0, 24)),
                  animate=_street_animate)


# Plaza: paving stones; pedestrians and a cyclist cross in all directions while a
# cloud passes (global illumination change). A fountain corner is outside the ROI.

def _plaza_background(rng: np.random.Generator) -> np.ndarray:
    image = _textured(rng, HEIGHT, WIDTH, (140, 150, 160), 20)
    for y in range(0, HEIGHT, 12):
        for x in range(-(y // 12 % 2) * 9, WIDTH, 18):
            image[y:y + 12, max(x, 0):x + 18] += float(rng.uniform(-18, 18))
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
    return _Scene("baseline", "plaza", n, _plaza_background, movers,
                  roi_polygon=((0, 0), (62, 0), (0, 46)), gain=_plaza_gain)


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
    return _Scene("shadow", "corridor", n, _corridor_background, movers,
                  roi_polygon=((138, 0), (WIDTH, 0), (WIDTH, HEIGHT), (138, HEIGHT)),
                  casts_shadows=True, animate=_corridor_animate)


_SCENES: tuple[Callable[[], _Scene], ...] = (_street, _plaza, _corridor)
