"""The versions behind a result, recorded in every JSON output and report so that a
number can be reproduced."""

from __future__ import annotations

import platform

from referee.core import __version__


def library_versions() -> dict[str, str]:
    """The versions of Referee, Python, NumPy, SciPy and OpenCV, by name."""
    import cv2
    import numpy

    return {
        "referee": __version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": _distribution_version("scipy"),
        "opencv": cv2.__version__,
    }


def _distribution_version(name: str) -> str:
    from importlib import metadata  # here: reading installed packages' metadata is slow to import

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"
