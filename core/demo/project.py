"""The demo as a project."""

from __future__ import annotations

import os
from pathlib import Path

from referee.core.demo.dataset import BINARY_METHODS, DemoLayout, ensure_demo
from referee.core.formats import project_json
from referee.core.formats.cdnet import discover_videos
from referee.core.model.project import PROJECT_SUFFIX, DetectorSource, Project, with_annotated
from referee.core.progress import CancelToken, ProgressCallback

#: File name of the demo's project, in the demo's root folder.
DEMO_PROJECT_NAME = "demo" + PROJECT_SUFFIX
#: The demo video left partly annotated, so that a newcomer meets the annotate-next loop,
#: and every how many frames of its temporal ROI keeps its ground truth.
PARTLY_ANNOTATED_VIDEO, ANNOTATED_EVERY = "shadow/corridor", 8


# --------------------------------------------------------------------------- demo


def demo_project(layout: DemoLayout) -> Project:
    """The built-in demo as a project (see :mod:`referee.core.demo`).

    Its detectors are the demo's :data:`~referee.core.demo.dataset.BINARY_METHODS`
    with their masks, soft scores and tracked actions where the demo has them;
    its file is ``demo.referee.json`` in the demo's root.
    """
    detectors = tuple(
        DetectorSource(
            method,
            masks=layout.results[method],
            scores=layout.soft_results.get(method),
            actions=layout.actions.get(method),
        )
        for method in BINARY_METHODS
    )
    return Project(
        name="Referee demo",
        dataset=layout.dataset,
        actions_groundtruth=layout.actions_gt,
        counts=layout.root / "counts",
        detectors=detectors,
        file=layout.root / DEMO_PROJECT_NAME,
    )


def ensure_demo_project(
    root: str | Path, progress: ProgressCallback | None = None, cancel: CancelToken | None = None
) -> Project:
    """The demo's project in ``root``, writing the demo and its project file when needed.

    The demo is reused or written by :func:`~referee.core.demo.dataset.ensure_demo`
    (``progress`` and ``cancel`` go there). The project file is written only
    if it does not exist yet, so a project the user edited is kept; the
    project is then read from it.

    Raises
    ------
    RefereeError
        See :func:`~referee.core.demo.dataset.ensure_demo` and
        :func:`~referee.core.formats.project_json.read_project`.
    """
    layout = ensure_demo(Path(os.path.abspath(root)), progress, cancel)
    file = layout.root / DEMO_PROJECT_NAME
    if not file.exists():
        project_json.write_project(partly_annotated(demo_project(layout)), file)
    return project_json.read_project(file)


def partly_annotated(project: Project) -> Project:
    """``project`` with :data:`PARTLY_ANNOTATED_VIDEO` annotated on every
    :data:`ANNOTATED_EVERY`-th frame of its temporal ROI only: the ground truth of
    its other frames there is removed, and the project records the frames kept
    (docs/measures.md §8)."""
    if project.dataset is None:
        return project
    for video in discover_videos(project.dataset):
        if video.label != PARTLY_ANNOTATED_VIDEO:
            continue
        kept = set(video.frames[::ANNOTATED_EVERY])
        for frame in video.frames:
            if frame not in kept:
                video.gt_path(frame).unlink(missing_ok=True)
        return with_annotated(project, video.label, kept)
    return project


def default_demo_dir() -> Path:
    """Where ``referee demo`` keeps its demo: ``<user data dir>/referee/demo``."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("referee", appauthor=False)) / "demo"
