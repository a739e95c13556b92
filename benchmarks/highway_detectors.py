"""Real OpenCV detectors run on the CDnet highway video, cached.

Four background subtractors (MOG2, KNN, bgsegm MOG, bgsegm CNT) and, on
request, frame differencing (``framediff``: the absolute difference of
consecutive grey frames, thresholded) and more: MOG2 without shadow detection
or with other variance thresholds and histories, bgsegm GSOC, LSBP and GMG, a
running median background, frame differencing at another threshold. Benchmarks
share these masks: each detector's are computed once into its own folder of a
cache outside the repository (``<tmp>/referee-bench/highway/<name>``) and reused.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

HIGHWAY = Path(__file__).resolve().parents[1].parent / "shared/data/cdnet2014/baseline/highway"
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "referee-bench" / "highway"


class Detector(Protocol):
    """What a detector does: one BGR frame in, one mask out (255 = foreground)."""

    def apply(self, image: np.ndarray) -> np.ndarray: ...


class FrameDifference:
    """Foreground where the grey level changed by more than ``threshold`` since the last frame.

    Frames are smoothed (5×5 Gaussian) before the difference; the first frame
    has no predecessor and detects nothing.
    """

    def __init__(self, threshold: int = 25) -> None:
        self.threshold = threshold
        self._previous: np.ndarray | None = None

    def apply(self, image: np.ndarray) -> np.ndarray:
        grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (5, 5), 0)
        previous, self._previous = self._previous, grey
        if previous is None:
            return np.zeros_like(grey)
        _, mask = cv2.threshold(cv2.absdiff(grey, previous), self.threshold, 255, cv2.THRESH_BINARY)
        return mask


class MedianBackground:
    """Foreground where the grey level is more than ``threshold`` from a background that is
    the per-pixel median of the last ``frames`` frames kept, one every ``every`` frames."""

    def __init__(self, threshold: int = 30, frames: int = 15, every: int = 10) -> None:
        self.threshold, self.frames, self.every = threshold, frames, every
        self._kept: list[np.ndarray] = []
        self._seen = 0

    def apply(self, image: np.ndarray) -> np.ndarray:
        grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (5, 5), 0)
        if self._seen % self.every == 0:
            self._kept = [*self._kept, grey][-self.frames :]
        self._seen += 1
        background = np.median(np.stack(self._kept), axis=0).astype(np.uint8)
        _, mask = cv2.threshold(
            cv2.absdiff(grey, background), self.threshold, 255, cv2.THRESH_BINARY
        )
        return mask


DETECTORS: dict[str, Callable[[], Detector]] = {
    "mog2": lambda: cv2.createBackgroundSubtractorMOG2(detectShadows=True),
    "knn": lambda: cv2.createBackgroundSubtractorKNN(detectShadows=True),
    "mog": lambda: cv2.bgsegm.createBackgroundSubtractorMOG(),
    "cnt": lambda: cv2.bgsegm.createBackgroundSubtractorCNT(isParallel=False),
    "framediff": FrameDifference,
    "framediff15": lambda: FrameDifference(threshold=15),
    "mog2-noshadow": lambda: cv2.createBackgroundSubtractorMOG2(detectShadows=False),
    "mog2-var25": lambda: cv2.createBackgroundSubtractorMOG2(varThreshold=25),
    "mog2-var36": lambda: cv2.createBackgroundSubtractorMOG2(varThreshold=36),
    "mog2-hist100": lambda: cv2.createBackgroundSubtractorMOG2(history=100),
    "gsoc": lambda: cv2.bgsegm.createBackgroundSubtractorGSOC(),
    "lsbp": lambda: cv2.bgsegm.createBackgroundSubtractorLSBP(),
    "gmg": lambda: cv2.bgsegm.createBackgroundSubtractorGMG(),
    "median": MedianBackground,
}

#: The four background subtractors most benchmarks use.
SUBTRACTORS: tuple[str, ...] = ("mog2", "knn", "mog", "cnt")


def highway_results(
    cache: Path = DEFAULT_CACHE, names: Sequence[str] = SUBTRACTORS
) -> dict[str, Path]:
    """Each named detector's result folder (``bin%06d.png``, 0/255) for every highway frame."""
    folders = {}
    for name in names:
        out = cache / name
        folders[name] = out
        if (out / ".complete").exists():
            continue
        out.mkdir(parents=True, exist_ok=True)
        detector = DETECTORS[name]()
        for path in sorted((HIGHWAY / "input").glob("in*.jpg")):
            image = cv2.imread(str(path))
            if image is None:
                raise SystemExit(f"{path}: cannot be read as an image")
            mask = detector.apply(image)
            mask[mask != 255] = 0  # shadows (127) are background
            cv2.imwrite(str(out / f"bin{path.stem[2:]}.png"), mask)
        (out / ".complete").touch()
    return folders
