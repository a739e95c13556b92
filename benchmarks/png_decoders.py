"""Decode-only speed of PNG decoders on masks and ground truth, and whether each is exact.

The candidates for Referee's grey PNG reading, each on the same files read into
memory first (decoding only, no file access), against what the reader gave
before: ``cv2.imdecode(..., IMREAD_GRAYSCALE)`` (libpng on zlib):

* ``png_decode.decode_grey_png``: Referee's decoder (zlib-ng, numpy);
* ``pyspng.load`` and ``imagecodecs.spng_decode`` (libspng), ``imagecodecs.png_decode``
  (libpng), each reduced to one channel as a reader would have to (a palette PNG
  comes out as RGB), when the package is installed (``pip install pyspng
  imagecodecs``; they are not Referee's dependencies).

Three sets of files: the highway video's ground truth (CDnet: 8-bit grey palette)
and MOG2 masks (OpenCV: 8-bit grey, Sub filter) over its temporal ROI, and every
PNG of the demo (``referee demo-data``, written once into a cache). For each
decoder and set it prints the median of ``--rounds`` alternating rounds, the speed-up
over OpenCV, and whether every array is identical to OpenCV's (dtype, shape, values).

Usage: python benchmarks/png_decoders.py [--rounds N] [--cache DIR]
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
from highway_detectors import DEFAULT_CACHE, HIGHWAY, highway_results

from referee.core.demo.dataset import write_demo
from referee.core.formats.cdnet import load_video
from referee.core.formats.png_decode import decode_grey_png

Decoder = Callable[[bytes], np.ndarray | None]


def opencv(data: bytes) -> np.ndarray | None:
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)


def _one_channel(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else np.ascontiguousarray(image[:, :, 0])


def candidates() -> tuple[dict[str, Decoder], list[str]]:
    """Every decoder whose package is installed, and a line for each one that is not."""
    found: dict[str, Decoder] = {
        "cv2.imdecode (before)": opencv,
        "png_decode (Referee)": decode_grey_png,
    }
    missing = []
    for label, module, function in (
        ("pyspng.load", "pyspng", "load"),
        ("imagecodecs.spng_decode", "imagecodecs", "spng_decode"),
        ("imagecodecs.png_decode", "imagecodecs", "png_decode"),
    ):
        try:
            decode = getattr(importlib.import_module(module), function)
        except (ImportError, AttributeError):
            missing.append(f"{label}: not installed (pip install {module})")
            continue
        found[label] = lambda data, decode=decode: _one_channel(decode(data))
    return found, missing


def file_sets(cache: Path) -> dict[str, list[Path]]:
    video = load_video(HIGHWAY)
    mog2 = highway_results(cache, ("mog2",))["mog2"]
    demo = cache.parent / "demo"
    if not (demo / "dataset").is_dir():
        write_demo(demo)
    return {
        "highway ground truth (8-bit palette)": [video.gt_path(i) for i in video.frames],
        "highway MOG2 masks (8-bit grey)": [mog2 / f"bin{i:06d}.png" for i in video.frames],
        "demo PNGs (8-bit grey)": sorted(demo.rglob("*.png")),
    }


def identical(decode: Decoder, datas: list[bytes], expected: list[np.ndarray]) -> bool:
    for data, reference in zip(datas, expected):
        image = decode(data)
        if image is None or image.dtype != reference.dtype or image.shape != reference.shape:
            return False
        if not np.array_equal(image, reference):
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds; medians")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="detectors' masks")
    args = parser.parse_args()
    decoders, missing = candidates()
    print("\n".join(missing))
    for name, files in file_sets(args.cache).items():
        datas = [path.read_bytes() for path in files]
        expected = [opencv(data) for data in datas]
        assert all(image is not None for image in expected)
        times: dict[str, list[float]] = {label: [] for label in decoders}
        for r in range(args.rounds):
            order = list(decoders.items())
            order = order[r % len(order) :] + order[: r % len(order)]
            for label, decode in order:
                start = time.perf_counter()
                for data in datas:
                    decode(data)
                times[label].append(time.perf_counter() - start)
        base = statistics.median(times["cv2.imdecode (before)"])
        print(f"\n{name}: {len(datas)} files, median of {args.rounds} rounds")
        for label, decode in decoders.items():
            median = statistics.median(times[label])
            same = "identical" if identical(decode, datas, expected) else "DIFFERENT"
            print(
                f"  {label:<26} {median * 1e3:8.1f} ms  {median / len(datas) * 1e6:6.1f} us/file"
                f"  x{base / median:5.2f}  {same}"
            )


if __name__ == "__main__":
    main()
