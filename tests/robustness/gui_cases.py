"""Bad inputs for the desktop application, made from copies of the demo.

Each builder writes one bad input into ``folder`` and returns the path to open
with what the error must name: the file at fault and words of the problem.
Shared by the in-process GUI tests and the ``--screenshot`` tests; no Qt here.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.core.demo.dataset import DemoLayout
from referee.core.formats.project_json import write_project
from referee.core.model.project import DetectorSource, Project

#: A builder: (demo, folder) → (path to open, what the error names).
Builder = Callable[[DemoLayout, Path], tuple[Path, tuple[str, ...]]]


def one_video(demo: DemoLayout, folder: Path) -> Path:
    """A copy of one demo video folder (no detectors next to it: it opens in a moment)."""
    return Path(shutil.copytree(demo.dataset / "baseline" / "plaza", folder / "plaza"))


def project_file(folder: Path, name: str, **fields) -> Path:
    return write_project(Project(name=name, **fields), folder / f"{name}.referee.json").file


def _missing_path(demo: DemoLayout, folder: Path) -> tuple[Path, tuple[str, ...]]:
    return folder / "nowhere.referee.json", ("nowhere.referee.json", "does not exist")


def _invalid_json(demo: DemoLayout, folder: Path) -> tuple[Path, tuple[str, ...]]:
    path = folder / "broken.referee.json"
    path.write_text('{"format": "referee-project", "version": ', encoding="utf-8")
    return path, (path.name, "JSON")


def _empty_project(demo: DemoLayout, folder: Path) -> tuple[Path, tuple[str, ...]]:
    path = project_file(folder, "empty")
    return path, (path.name, "empty")


def _newer_version(demo: DemoLayout, folder: Path) -> tuple[Path, tuple[str, ...]]:
    path = project_file(folder, "newer", dataset=one_video(demo, folder))
    document = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**document, "version": 99}), encoding="utf-8")
    return path, (path.name, "version 99")


def _dataset_missing(demo: DemoLayout, folder: Path) -> tuple[Path, tuple[str, ...]]:
    path = project_file(folder, "lost", dataset=folder / "gone")
    return path, (path.name, "gone", "does not exist")


def _dataset_is_a_file(demo: DemoLayout, folder: Path) -> tuple[Path, tuple[str, ...]]:
    (folder / "notes.txt").write_text("not a dataset", encoding="utf-8")
    path = project_file(folder, "filed", dataset=folder / "notes.txt")
    return path, (path.name, "notes.txt")


def _dataset_without_video(demo: DemoLayout, folder: Path) -> tuple[Path, tuple[str, ...]]:
    (folder / "hollow").mkdir()
    path = project_file(folder, "hollow", dataset=folder / "hollow")
    return path, (path.name, "hollow", "no CDnet video")


def _folder_without_video(demo: DemoLayout, folder: Path) -> tuple[Path, tuple[str, ...]]:
    (folder / "holiday").mkdir()
    (folder / "holiday" / "beach.txt").write_text("sand", encoding="utf-8")
    return folder / "holiday", ("holiday", "no CDnet video")


def masks_folder_missing(demo: DemoLayout, folder: Path) -> tuple[Path, tuple[str, ...]]:
    detectors = (DetectorSource("ghost", masks=folder / "ghost-masks"),)
    path = project_file(folder, "ghost", dataset=one_video(demo, folder), detectors=detectors)
    return path, ("ghost-masks", "does not exist")


def records_beyond_the_video(demo: DemoLayout, folder: Path) -> tuple[Path, tuple[str, ...]]:
    """A project of a kilobyte claiming ten million annotated frames of a 150-frame video."""
    path = project_file(folder, "claims", dataset=one_video(demo, folder))
    document = json.loads(path.read_text(encoding="utf-8"))
    document["annotated"] = {"plaza": [[1, 10_000_000]]}
    path.write_text(json.dumps(document), encoding="utf-8")
    return path, (path.name, "frame 10,000,000", "end at 150")


def _text_video(demo: DemoLayout, folder: Path) -> tuple[Path, tuple[str, ...]]:
    path = folder / "holiday.mp4"
    path.write_text("this is not a video\n" * 50, encoding="utf-8")
    return path, (path.name, "video")


def _corrupt_video(demo: DemoLayout, folder: Path) -> tuple[Path, tuple[str, ...]]:
    path = folder / "cut.mp4"
    path.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 40)
    return path, (path.name, "video")


def _corrupt_first_frame(demo: DemoLayout, folder: Path) -> tuple[Path, tuple[str, ...]]:
    video = one_video(demo, folder)
    first = int((video / "temporalROI.txt").read_text(encoding="utf-8").split()[0])
    frame = video / "input" / f"in{first:06d}.jpg"  # the frame shown first
    frame.write_bytes(b"these bytes are not a JPEG image")
    return video, (frame.name, "decode")


BAD_INPUTS: dict[str, Builder] = {
    "missing path": _missing_path,
    "invalid JSON": _invalid_json,
    "empty project": _empty_project,
    "project of a newer version": _newer_version,
    "dataset folder missing": _dataset_missing,
    "dataset is a file": _dataset_is_a_file,
    "dataset holds no video": _dataset_without_video,
    "folder holding no video": _folder_without_video,
    "masks folder missing": masks_folder_missing,
    "annotated frames beyond the video": records_beyond_the_video,
    "text as a video": _text_video,
    "corrupt video": _corrupt_video,
    "corrupt frame image": _corrupt_first_frame,
}


def with_corrupt_mask(demo: DemoLayout, folder: Path) -> tuple[Path, Path]:
    """The demo's dataset and two detectors, one mask of the first video shown unreadable."""
    dataset = Path(shutil.copytree(demo.dataset, folder / "dataset"))
    for method in ("mog2", "knn"):
        shutil.copytree(demo.results[method], folder / "results" / method)
    video = next(v for v in demo.videos if v.name == "plaza")
    mask = (
        folder / "results" / "mog2" / "baseline" / "plaza" / f"bin{video.temporal_roi[0]:06d}.png"
    )
    assert mask.is_file()
    mask.write_bytes(b"these bytes are not a PNG image")
    return dataset, mask


def without_display(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run children as on a machine without a display (nor a chosen Qt platform)."""
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "XDG_SESSION_TYPE"):
        monkeypatch.delenv(name, raising=False)
