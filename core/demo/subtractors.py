"""The background subtractors run on the demo videos."""

from __future__ import annotations

import cv2
import numpy as np

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
