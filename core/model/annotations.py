"""Action annotations: videos → actions → one box per frame (docs/measures.md §4, §10).

The same model holds ground truth and detections. An action is a class
(1–10, LIRIS HARL) and one box ``(x, y, w, h)`` per frame over consecutive
frames; each box is flagged as a keyframe or as interpolated. Boxes use
half-open pixel ranges ``[x, x+w) × [y, y+h)``; ``w·h`` is the area.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.limits import MAX_COORDINATE, MAX_FRAME_NUMBER

#: LIRIS HARL classes: number → (code, description) (docs/measures.md §10).
ACTION_CLASSES: dict[int, tuple[str, str]] = {
    1: ("DI", "discussion"),
    2: ("GI", "give object"),
    3: ("BO", "put/take into/from box or desk"),
    4: ("EN", "enter/leave room"),
    5: ("ET", "try to enter"),
    6: ("LO", "unlock and enter"),
    7: ("UB", "leave baggage unattended"),
    8: ("HS", "handshaking"),
    9: ("KB", "typing on keyboard"),
    10: ("TE", "telephone"),
}


_ALL_KEYFRAMES: np.ndarray = np.zeros(0, dtype=bool)
"""Default of :attr:`Action.interpolated`, told apart by identity: every box is a keyframe."""


class FrameSpan:
    """An item boxed on increasing ``frames``: its first and last frame, and its length."""

    frames: np.ndarray

    @property
    def first(self) -> int:
        return int(self.frames[0])

    @property
    def last(self) -> int:
        return int(self.frames[-1])

    def __len__(self) -> int:
        return len(self.frames)


@dataclass(frozen=True, eq=False)
class Action(FrameSpan):
    """One action: a class and one box per consecutive frame.

    Attributes
    ----------
    number
        The action's ``nr`` in its file (unique within a video).
    action_class
        LIRIS class, 1–10.
    frames
        ``int64`` frame numbers, strictly consecutive (``frames[k] = first + k``),
        from 0 to :data:`~referee.core.limits.MAX_FRAME_NUMBER`.
    boxes
        ``int64`` array ``(n, 4)`` of ``x, y, w, h`` in pixels, row k for ``frames[k]``,
        from 0 to :data:`~referee.core.limits.MAX_COORDINATE`.
    interpolated
        ``bool`` array ``(n,)``: True where the box was interpolated, False for keyframes.
        Omitted (or ``None``): every box is a keyframe.
    """

    number: int
    action_class: int
    frames: np.ndarray
    boxes: np.ndarray
    interpolated: np.ndarray = field(default_factory=lambda: _ALL_KEYFRAMES)

    def __post_init__(self) -> None:
        frames = np.asarray(self.frames, dtype=np.int64).reshape(-1)
        boxes = np.asarray(self.boxes, dtype=np.int64).reshape(-1, 4)
        flags = (
            np.zeros(len(frames), dtype=bool)
            if self.interpolated is None or self.interpolated is _ALL_KEYFRAMES
            else np.asarray(self.interpolated, dtype=bool).reshape(-1)
        )
        what = f"action {self.number}"
        if len(frames) == 0:
            raise InvalidOptionError(f"{what} has no box")
        if len(boxes) != len(frames) or len(flags) != len(frames):
            raise InvalidOptionError(
                f"{what}: {len(frames)} frames but {len(boxes)} boxes and "
                f"{len(flags)} keyframe flags"
            )
        if np.any(np.diff(frames) != 1):
            raise InvalidOptionError(f"{what}: frames must be consecutive and unique")
        if np.any(boxes < 0):
            raise InvalidOptionError(f"{what}: box coordinates and sizes cannot be negative")
        if np.any(boxes > MAX_COORDINATE):
            raise InvalidOptionError(
                f"{what}: box coordinates and sizes are at most {MAX_COORDINATE:,} pixels"
            )
        if frames[0] < 0 or frames[-1] > MAX_FRAME_NUMBER:
            raise InvalidOptionError(
                f"{what}: frame numbers run from 0 to {MAX_FRAME_NUMBER:,}, not "
                f"{frames[0]}–{frames[-1]}"
            )
        if self.action_class not in ACTION_CLASSES:
            raise InvalidOptionError(
                f"{what}: class {self.action_class} is not a LIRIS class (1–{max(ACTION_CLASSES)})"
            )
        for name, value in (("frames", frames), ("boxes", boxes), ("interpolated", flags)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    def box_at(self, frame: int) -> tuple[int, int, int, int] | None:
        """``(x, y, w, h)`` on ``frame``, or ``None`` outside the action."""
        if not self.first <= frame <= self.last:
            return None
        x, y, w, h = (int(v) for v in self.boxes[frame - self.first])
        return (x, y, w, h)

    def same_as(self, other: Action) -> bool:
        """Equal number, class, frames, boxes and keyframe flags."""
        return (
            self.number == other.number
            and self.action_class == other.action_class
            and np.array_equal(self.frames, other.frames)
            and np.array_equal(self.boxes, other.boxes)
            and np.array_equal(self.interpolated, other.interpolated)
        )

    @classmethod
    def from_boxes(
        cls,
        number: int,
        action_class: int,
        boxes: Mapping[int, Sequence[int]],
        interpolated: Iterable[int] = (),
    ) -> Action:
        """Build from ``{frame: (x, y, w, h)}``; ``interpolated`` lists interpolated frames."""
        frames = sorted(boxes)
        flagged = set(interpolated)
        return cls(
            number,
            action_class,
            np.array(frames, dtype=np.int64),
            np.array([boxes[f] for f in frames], dtype=np.int64).reshape(-1, 4),
            np.array([f in flagged for f in frames], dtype=bool),
        )


@dataclass(frozen=True, eq=False)
class VideoAnnotation:
    """The actions of one video, identified by its ``videoName``."""

    name: str
    actions: tuple[Action, ...] = ()

    def action(self, number: int) -> Action:
        """The action with ``nr == number``."""
        for a in self.actions:
            if a.number == number:
                return a
        raise InvalidOptionError(f"video {self.name!r} has no action {number}")

    def same_as(self, other: VideoAnnotation) -> bool:
        """Equal name and actions in the same order, each :meth:`Action.same_as`."""
        return (
            self.name == other.name
            and len(self.actions) == len(other.actions)
            and all(a.same_as(b) for a, b in zip(self.actions, other.actions))
        )


@dataclass(frozen=True, eq=False)
class AnnotationSet:
    """Videos by name, in file order (ground truth or one method's detections)."""

    videos: dict[str, VideoAnnotation]

    def __iter__(self) -> Iterator[VideoAnnotation]:
        return iter(self.videos.values())

    def __len__(self) -> int:
        return len(self.videos)

    @classmethod
    def from_videos(cls, videos: Iterable[VideoAnnotation]) -> AnnotationSet:
        """Build from videos, keeping their order; names must be unique."""
        by_name: dict[str, VideoAnnotation] = {}
        for video in videos:
            if video.name in by_name:
                raise InvalidOptionError(
                    f"video {video.name!r} is given twice; video names must be unique"
                )
            by_name[video.name] = video
        return cls(by_name)

    def same_as(self, other: AnnotationSet) -> bool:
        """Same video names in the same order, each :meth:`VideoAnnotation.same_as`."""
        return list(self.videos) == list(other.videos) and all(
            v.same_as(other.videos[name]) for name, v in self.videos.items()
        )


def whole_pixels(values: np.ndarray | Sequence[float]) -> np.ndarray:
    """``values`` rounded to whole pixels, halves up: ``floor(v + 0.5)``, exactly (2.5 → 3,
    −2.5 → −2), as ``float64`` (docs/measures.md §10)."""
    values = np.asarray(values, dtype=np.float64)
    whole = np.floor(values)
    rounded: np.ndarray = whole + (values - whole >= 0.5)  # ``values − whole`` is exact
    return rounded


def interpolate_action(
    number: int, action_class: int, keyframes: Mapping[int, Sequence[int]]
) -> Action:
    """An action whose boxes go linearly from keyframe to keyframe (docs/measures.md §4).

    Between consecutive keyframes ``f0 < f1`` each of ``x, y, w, h`` is
    ``v0 + (v1 - v0)·(f - f0)/(f1 - f0)``, computed exactly and rounded to the
    nearest pixel, halves rounded up (away from zero, all values being ≥ 0):
    2.5 → 3. Boxes at keyframes are kept as given and flagged keyframes; the
    frames in between are flagged interpolated.

    Parameters
    ----------
    number, action_class
        The action's ``nr`` and LIRIS class (1–10).
    keyframes
        ``{frame: (x, y, w, h)}`` in pixels, at least one, any order.

    Raises
    ------
    InvalidOptionError
        No keyframe, a box that is not four values, or what :class:`Action` refuses.
    """
    if not keyframes:
        raise InvalidOptionError(f"action {number} has no keyframe; give at least one box")
    frames = sorted(int(f) for f in keyframes)
    if frames[0] < 0 or frames[-1] > MAX_FRAME_NUMBER:  # before filling in every frame
        raise InvalidOptionError(
            f"action {number}: keyframes run from 0 to {MAX_FRAME_NUMBER:,}, not "
            f"{frames[0]}–{frames[-1]}"
        )
    key_boxes = [_four_values(number, f, keyframes[f]) for f in frames]
    boxes: dict[int, tuple[int, ...]] = {frames[0]: key_boxes[0]}
    for (f0, b0), (f1, b1) in zip(zip(frames, key_boxes), zip(frames[1:], key_boxes[1:])):
        for f in range(f0 + 1, f1):
            boxes[f] = tuple(_between(v0, v1, f - f0, f1 - f0) for v0, v1 in zip(b0, b1))
        boxes[f1] = b1
    filled = [f for f in boxes if f not in keyframes]
    return Action.from_boxes(number, action_class, boxes, interpolated=filled)


def _four_values(number: int, frame: int, box: Sequence[int]) -> tuple[int, ...]:
    values = tuple(int(v) for v in box)
    if len(values) != 4:
        raise InvalidOptionError(
            f"action {number}, frame {frame}: a box is (x, y, w, h), got {len(values)} values"
        )
    return values


def _between(start: int, end: int, step: int, steps: int) -> int:
    """``start + (end - start)·step/steps`` rounded to the nearest integer, halves up."""
    return (2 * (start * steps + (end - start) * step) + steps) // (2 * steps)
