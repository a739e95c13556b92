"""Builds the official CDnet C++ comparator, and a decode-only C++ program, for benchmarks.

The comparator is the one changedetection.net published with its 2014
utilities (their ``c++ code`` folder: ``mainComparator.cpp``, ``Comparator.cpp``,
``Comparator.h``, ``VideoFolder.cpp``, ``VideoFolder.h``, ``types.h``). Its
source is public but is not part of this repository: the benchmark is given a
folder holding it. It was written for OpenCV 2.3 on Windows; :data:`ADAPTATIONS`
lists the changes needed to build it with OpenCV 4 on Linux. They are applied
to a copy in the build cache, never to the given folder, and none of them
changes what the comparator computes: they only name the headers where
OpenCV 4 declares what it uses.

Both programs are built with ``g++ -O3`` (``$CXX`` if set) against OpenCV,
found with ``pkg-config opencv4`` or, without it, in ``/usr/include/opencv4``
or ``/usr/local/include/opencv4``. A build is kept in the cache under a name
derived from its sources, flags and compiler, and reused.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

#: The comparator's files, as named in CDnet's utilities; the first holds ``main``.
COMPARATOR_FILES: tuple[str, ...] = (
    "mainComparator.cpp",
    "Comparator.cpp",
    "VideoFolder.cpp",
    "Comparator.h",
    "VideoFolder.h",
    "types.h",
)
COMPARATOR_SOURCES: tuple[str, ...] = COMPARATOR_FILES[:3]
OPENCV_LIBRARIES: tuple[str, ...] = ("-lopencv_core", "-lopencv_imgcodecs", "-lopencv_imgproc")
OPENCV_INCLUDE_DIRS: tuple[Path, ...] = (
    Path("/usr/include/opencv4"),
    Path("/usr/local/include/opencv4"),
)
#: The comparator's own makefile builds with -O3 -std=c++0x (C++11's draft name).
CXX_FLAGS: tuple[str, ...] = ("-O3", "-std=c++11")


@dataclass(frozen=True)
class Adaptation:
    """One textual change to the comparator's source, and why it is needed."""

    files: tuple[str, ...]
    old: str
    new: str
    reason: str


ADAPTATIONS: tuple[Adaptation, ...] = (
    Adaptation(
        ("types.h", "Comparator.h"),
        "#include <cv.h>",
        "#include <opencv2/core.hpp>",
        "cv.h, OpenCV 1/2's umbrella header of the old C API, was removed in OpenCV 4; "
        "cv::Mat_, its iterators and the rest the comparator uses are declared in "
        "opencv2/core.hpp",
    ),
    Adaptation(
        ("Comparator.h",),
        "#include <cxcore.h>",
        "#include <opencv2/core.hpp>",
        "cxcore.h, the old C API's name of the core module, was removed too",
    ),
    Adaptation(
        ("types.h", "Comparator.h"),
        "#include <highgui.h>",
        "#include <opencv2/imgcodecs.hpp>",
        "highgui.h was removed; cv::imread, the only thing the comparator took from it, "
        "moved to imgcodecs in OpenCV 3 (the comparator opens no window, and highgui's "
        "headers are often not installed)",
    ),
    Adaptation(
        ("types.h",),
        "#include <string>",
        "#include <sstream>\n#include <string>",
        "types.h's lexical_cast uses std::istringstream, which the old cv.h included "
        "for it; OpenCV 4's headers do not promise to",
    ),
)

DECODE_CPP = r"""// Decodes the PNGs an evaluation of one video reads, and nothing else.
// Usage: decode FIRST LAST GT_FOLDER [RESULT_FOLDER...]: for each frame i of
// FIRST..LAST, GT_FOLDER/gt%06d.png and each RESULT_FOLDER/bin%06d.png, as grey.
// Prints the number of pixels decoded, so that a wrong path cannot go unseen.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s FIRST LAST GT_FOLDER [RESULT_FOLDER...]\n", argv[0]);
        return 2;
    }
    const int first = std::atoi(argv[1]);
    const int last = std::atoi(argv[2]);
    unsigned long long pixels = 0;
    char number[16];
    for (int i = first; i <= last; ++i) {
        std::snprintf(number, sizeof number, "%06d.png", i);
        pixels += cv::imread(std::string(argv[3]) + "/gt" + number, cv::IMREAD_GRAYSCALE).total();
        for (int k = 4; k < argc; ++k) {
            pixels += cv::imread(std::string(argv[k]) + "/bin" + number, cv::IMREAD_GRAYSCALE).total();
        }
    }
    std::printf("%llu\n", pixels);
    return 0;
}
"""


@dataclass(frozen=True)
class Toolchain:
    """A C++ compiler and the flags that compile and link against OpenCV."""

    compiler: str
    opencv_flags: tuple[str, ...]
    opencv_version: str


@dataclass(frozen=True)
class Build:
    """A built program: where it is, the command that built it, and what was adapted."""

    binary: Path
    command: tuple[str, ...]
    adaptations: tuple[str, ...]
    reused: bool


def find_toolchain() -> Toolchain | str:
    """The compiler and OpenCV flags, or one line saying which of the two is missing."""
    name = os.environ.get("CXX", "g++")
    compiler = shutil.which(name)
    if compiler is None:
        return f"no C++ compiler ({name} is not on PATH; set CXX to use another one)"
    include_dir = _pkg_config_include_dir() or next(
        (d for d in OPENCV_INCLUDE_DIRS if (d / "opencv2" / "imgcodecs.hpp").is_file()), None
    )
    if include_dir is None:
        searched = ", ".join(str(d / "opencv2/imgcodecs.hpp") for d in OPENCV_INCLUDE_DIRS)
        return f"no OpenCV headers (pkg-config knows no opencv4, and none of {searched} exists)"
    flags = [f"-I{include_dir}"]
    if include_dir.parent.parent != Path("/usr"):
        flags.append(f"-L{include_dir.parent.parent / 'lib'}")
    return Toolchain(compiler, (*flags, *OPENCV_LIBRARIES), _opencv_version(include_dir))


def _pkg_config_include_dir() -> Path | None:
    if shutil.which("pkg-config") is None:
        return None
    found = subprocess.run(
        ["pkg-config", "--cflags-only-I", "opencv4"], capture_output=True, text=True
    )
    for flag in found.stdout.split() if found.returncode == 0 else []:
        folder = Path(flag.removeprefix("-I"))
        if (folder / "opencv2" / "imgcodecs.hpp").is_file():
            return folder
    return None


def _opencv_version(include_dir: Path) -> str:
    header = include_dir / "opencv2" / "core" / "version.hpp"
    text = header.read_text(errors="replace") if header.is_file() else ""
    parts = [
        re.search(rf"#define\s+CV_VERSION_{part}\s+(\d+)", text)
        for part in ("MAJOR", "MINOR", "REVISION")
    ]
    return ".".join(m.group(1) for m in parts if m) or "unknown version"


def build_comparator(source: Path, toolchain: Toolchain, build_cache: Path) -> Build | str:
    """Build the CDnet comparator from the public source in ``source``, adapted (reused when
    built before), or one line saying what is missing or why the build failed."""
    missing = [name for name in COMPARATOR_FILES if not (source / name).is_file()]
    if missing:
        return f"no comparator source in {source} (missing {', '.join(missing)})"
    texts = {name: (source / name).read_bytes().decode("latin-1") for name in COMPARATOR_FILES}
    applied = []
    for adaptation in ADAPTATIONS:
        changed = [name for name in adaptation.files if adaptation.old in texts[name]]
        for name in changed:
            texts[name] = texts[name].replace(adaptation.old, adaptation.new)
        if changed:
            new = adaptation.new.replace("\n", " + ")
            applied.append(f"{', '.join(changed)}: {adaptation.old} -> {new}: {adaptation.reason}")
    return _compile(toolchain, build_cache, "comparator", texts, COMPARATOR_SOURCES, applied)


def build_decoder(toolchain: Toolchain, build_cache: Path) -> Build | str:
    """Build the decode-only C++ program (:data:`DECODE_CPP`), or say why it failed."""
    return _compile(toolchain, build_cache, "decode", {"decode.cpp": DECODE_CPP}, ("decode.cpp",))


def _compile(
    toolchain: Toolchain,
    build_cache: Path,
    name: str,
    texts: dict[str, str],
    sources: tuple[str, ...],
    adaptations: list[str] | None = None,
) -> Build | str:
    command = _compile_command(toolchain, name, sources)
    digest = hashlib.sha256(repr((sorted(texts.items()), command)).encode()).hexdigest()[:12]
    folder = build_cache / f"{name}-{digest}"
    binary = folder / name
    done = Build(binary, command, tuple(adaptations or ()), reused=binary.is_file())
    if done.reused:
        return done
    folder.mkdir(parents=True, exist_ok=True)
    for file_name, text in texts.items():
        (folder / file_name).write_bytes(text.encode("latin-1"))
    # Build under a temporary name so that an interrupted build is never reused.
    partial = _compile_command(toolchain, f"{name}.part", sources)
    compiled = subprocess.run(partial, cwd=folder, capture_output=True, text=True)
    if compiled.returncode != 0:
        errors = [line for line in compiled.stderr.splitlines() if "error" in line]
        first = (errors or compiled.stderr.splitlines() or ["no message"])[0]
        return f"the {name} build failed in {folder}: {first}"
    (folder / f"{name}.part").replace(binary)
    return done


def _compile_command(
    toolchain: Toolchain, output: str, sources: tuple[str, ...]
) -> tuple[str, ...]:
    return (toolchain.compiler, *CXX_FLAGS, "-o", output, *sources, *toolchain.opencv_flags)
