"""The demo's synthetic scenes: backgrounds, moving objects, shadows and noise."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

WIDTH, HEIGHT = 160, 120
#: Synthetic LIRIS classes of the ground-truth objects (see the module docstring).
CLASS_STOPPING, CLASS_PERSON, CLASS_VEHICLE = 7, 4, 5
#: An object whose path stands still for at least this many frames is "stopping".
STOP_FRAMES = 10
Box = tuple[int, int, int, int]  # x, y, w, h in pixels


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
        pad_left = math.ceil((widen - 1) * mover.width / 2) + 2
        pad_right = pad_left + math.ceil(mover.height * self.SHADOW_SHEAR)
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
        shadow: np.ndarray = np.zeros_like(mask)
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
        image = np.asarray(cv2.GaussianBlur(image, (3, 3), 0.7), dtype=np.float32)
        image *= scene.gain(number)
        image += self.rng.normal(0.0, self.NOISE_SIGMA, image.shape).astype(np.float32)
        return np.clip(np.rint(image), 0, 255).astype(np.uint8), motion, shadow

    def object_boxes(self, number: int) -> list[Box | None]:
        """Per mover, the ``(x, y, w, h)`` box of its own pixels inside the frame, or ``None``."""
        boxes: list[Box | None] = []
        for mover, sprite in zip(self.scene.movers, self.sprites):
            offset = _offset(mover, sprite, number)
            regions = None if offset is None else _clip(*offset, sprite.mask.shape)
            if regions is None:
                boxes.append(None)
                continue
            frame_region, local_region = regions
            local = sprite.mask[local_region]
            if not local.any():
                boxes.append(None)
                continue
            x, y, w, h = cv2.boundingRect(local.astype(np.uint8))
            boxes.append((frame_region[1].start + x, frame_region[0].start + y, w, h))
        return boxes


def _offset(mover: _Mover, sprite: _Sprite, number: int) -> tuple[int, int] | None:
    """Where the sprite's canvas goes on frame ``number`` (its top-left), or ``None`` if absent."""
    centre = mover.centre(number)
    if centre is None:
        return None
    return round(centre[0]) - sprite.anchor[0], round(centre[1]) - sprite.anchor[1]


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
    image: npt.NDArray[np.float32] = _textured(rng, HEIGHT, WIDTH, (140, 150, 160), 20)
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
