"""Four real OpenCV background subtractors run on the CDnet highway video, cached.

Benchmarks share these masks: they are computed once into a cache folder
outside the repository (``<tmp>/referee-bench/highway``) and reused.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import cv2

HIGHWAY = Path(__file__).resolve().parents[1].parent / "shared/data/cdnet2014/baseline/highway"
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "referee-bench" / "highway"

SUBTRACTORS: dict[str, Callable[[], cv2.BackgroundSubtractor]] = {
    "mog2": lambda: cv2.createBackgroundSubtractorMOG2(detectShadows=True),
    "knn": lambda: cv2.createBackgroundSubtractorKNN(detectShadows=True),
    "mog": lambda: cv2.bgsegm.createBackgroundSubtractorMOG(),
    "cnt": lambda: cv2.bgsegm.createBackgroundSubtractorCNT(isParallel=False),
}


def highway_results(cache: Path = DEFAULT_CACHE) -> dict[str, Path]:
    """Each method's result folder (``bin%06d.png``, 0/255) for every highway frame."""
    folders = {}
    for name, make in SUBTRACTORS.items():
        out = cache / name
        folders[name] = out
        if (out / ".complete").exists():
            continue
        out.mkdir(parents=True, exist_ok=True)
        subtractor = make()
        for path in sorted((HIGHWAY / "input").glob("in*.jpg")):
            mask = subtractor.apply(cv2.imread(str(path)))
            mask[mask != 255] = 0  # shadows (127) are background
            cv2.imwrite(str(out / f"bin{path.stem[2:]}.png"), mask)
        (out / ".complete").touch()
    return folders
