"""Small CDnet datasets and annotators' ground truth written for the agreement tests."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

#: Frame size of the synthetic videos (height, width).
SHAPE = (24, 32)


def write_video(
    dataset: Path, category: str, name: str, first: int, last: int, shape: tuple[int, int] = SHAPE
) -> np.ndarray:
    """A CDnet video folder: ``ROI.bmp`` (the first 4 columns outside), ``temporalROI.txt``
    and an all-static ``groundtruth/`` of frames ``first..last``, so that reports read it.
    Returns the ROI, ``True`` inside."""
    folder = dataset / category / name
    (folder / "groundtruth").mkdir(parents=True)
    (folder / "temporalROI.txt").write_text(f"{first} {last}\n")
    roi = np.ones(shape, bool)
    roi[:, :4] = False
    cv2.imwrite(str(folder / "ROI.bmp"), np.where(roi, 255, 0).astype(np.uint8))
    for frame in range(first, last + 1):
        cv2.imwrite(str(folder / "groundtruth" / f"gt{frame:06d}.png"), np.zeros(shape, np.uint8))
    return roi


def write_label(root: Path, category: str, name: str, frame: int, label: np.ndarray) -> Path:
    """One annotator's label map of ``frame``, laid out like the dataset."""
    folder = root / category / name / "groundtruth"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"gt{frame:06d}.png"
    assert cv2.imwrite(str(path), label)
    return path


def read_label(path: Path) -> np.ndarray:
    """A label map as written (grey levels, unchanged)."""
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    assert image is not None, path
    return image


def simulated_labels(
    truth: np.ndarray, sensitivity: float, specificity: float, rng: np.random.Generator
) -> np.ndarray:
    """An annotator who marks a true motion pixel with probability ``sensitivity`` and
    leaves a static one alone with probability ``specificity``: 255 or 0."""
    marked = np.where(
        truth, rng.random(truth.shape) < sensitivity, rng.random(truth.shape) >= specificity
    )
    return np.where(marked, 255, 0).astype(np.uint8)
