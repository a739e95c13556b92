"""Heatmaps (consensus, entropy; docs/measures.md §7) as PNG images.

Two variants of one float map whose values lie in ``[vmin, vmax]``:

* **colour** (:func:`write_heatmap_png`): 8-bit, 3 channels, values scaled
  to 0..255 then colour-mapped with OpenCV (``viridis`` by default); NaN
  pixels (outside the ROI) are black, a colour none of the maps uses.
* **grey16** (:func:`write_heatmap_grey16_png`): one 16-bit channel holding
  the values themselves, ``round((v − vmin) / (vmax − vmin) · 65535)``; NaN
  becomes 0. :func:`read_heatmap_grey16_png` undoes the scaling (to within
  ``(vmax − vmin) / 131070``).

Values outside ``[vmin, vmax]`` are clipped. Files are written atomically.
Rendering only: no measure is computed here.
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats.text_files import write_bytes

COLORMAPS: dict[str, int] = {
    "viridis": cv2.COLORMAP_VIRIDIS,
    "inferno": cv2.COLORMAP_INFERNO,
    "magma": cv2.COLORMAP_MAGMA,
    "plasma": cv2.COLORMAP_PLASMA,
    "turbo": cv2.COLORMAP_TURBO,
    "jet": cv2.COLORMAP_JET,
}
"""Colour maps by name."""

GREY16_MAX = 65535
NAN_COLOUR = (0, 0, 0)  # BGR


def _check(values: np.ndarray, vmin: float, vmax: float) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 2 or v.size == 0:
        raise InvalidOptionError(f"a heatmap must be a non-empty 2-D array, got shape {v.shape}")
    if not (np.isfinite(vmin) and np.isfinite(vmax) and vmax > vmin):
        raise InvalidOptionError(f"heatmap range must have vmin < vmax, got {vmin:g}..{vmax:g}")
    return v


def _scaled(
    values: np.ndarray, vmin: float, vmax: float, top: int
) -> tuple[np.ndarray, np.ndarray]:
    """Values mapped to 0..top (rounded), and where they are NaN."""
    missing = np.isnan(values)
    unit = np.clip((np.where(missing, vmin, values) - vmin) / (vmax - vmin), 0.0, 1.0)
    return np.rint(unit * top), missing


def heatmap_colour_image(
    values: np.ndarray, vmin: float = 0.0, vmax: float = 1.0, colormap: str = "viridis"
) -> np.ndarray:
    """Colour image (``uint8`` BGR, ``(h, w, 3)``) of a float map; NaN is black."""
    v = _check(values, vmin, vmax)
    if colormap not in COLORMAPS:
        raise InvalidOptionError(
            f"unknown colour map {colormap!r}; choose one of {', '.join(COLORMAPS)}"
        )
    levels, missing = _scaled(v, vmin, vmax, 255)
    image = cv2.applyColorMap(levels.astype(np.uint8), COLORMAPS[colormap])
    image[missing] = NAN_COLOUR
    return image


def heatmap_grey16_image(values: np.ndarray, vmin: float = 0.0, vmax: float = 1.0) -> np.ndarray:
    """16-bit grey image (``uint16``, ``(h, w)``) holding the scaled values; NaN is 0."""
    levels, missing = _scaled(_check(values, vmin, vmax), vmin, vmax, GREY16_MAX)
    levels[missing] = 0
    return levels.astype(np.uint16)


def _write_png(path: str | Path, image: np.ndarray) -> None:
    target = Path(path)
    ok, encoded = cv2.imencode(".png", image)
    if not ok:  # pragma: no cover - OpenCV always encodes these types
        raise InputFileError(target, "cannot encode the heatmap as PNG")
    write_bytes(target, encoded.tobytes())


def write_heatmap_png(
    path: str | Path,
    values: np.ndarray,
    vmin: float = 0.0,
    vmax: float = 1.0,
    colormap: str = "viridis",
) -> None:
    """Write the colour variant of a heatmap (see the module docstring)."""
    _write_png(path, heatmap_colour_image(values, vmin, vmax, colormap))


def write_heatmap_grey16_png(
    path: str | Path, values: np.ndarray, vmin: float = 0.0, vmax: float = 1.0
) -> None:
    """Write the 16-bit grey variant of a heatmap (see the module docstring)."""
    _write_png(path, heatmap_grey16_image(values, vmin, vmax))


def read_heatmap_grey16_png(path: str | Path, vmin: float = 0.0, vmax: float = 1.0) -> np.ndarray:
    """Values of a 16-bit grey heatmap, ``float64`` (0 cannot be told from NaN).

    Raises
    ------
    InputFileError
        If the file is missing or not a 16-bit grey PNG.
    """
    image = cv2.imread(os.fspath(path), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise InputFileError(path, "cannot read this heatmap: missing or not an image")
    if image.dtype != np.uint16 or image.ndim != 2:
        raise InputFileError(path, "not a 16-bit grey heatmap (expected one 16-bit channel)")
    return vmin + image.astype(np.float64) / GREY16_MAX * (vmax - vmin)
