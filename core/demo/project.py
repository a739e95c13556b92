"""The demo as a project."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from referee.core.demo.dataset import BINARY_METHODS, DemoLayout, current_seed, ensure_demo
from referee.core.formats import project_json
from referee.core.formats.cdnet import discover_videos
from referee.core.model.project import PROJECT_SUFFIX, DetectorSource, Project, with_annotated
from referee.core.parallel import run_in_process
from referee.core.progress import CancelToken, ProgressCallback, check, report

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
    project is then read from it. If :func:`prepare_in_background` is preparing
    ``root``, this waits for it instead (its progress goes to ``progress``, and
    ``cancel`` stops it).

    Raises
    ------
    RefereeError
        See :func:`~referee.core.demo.dataset.ensure_demo` and
        :func:`~referee.core.formats.project_json.read_project`.
    """
    root = Path(os.path.abspath(root))
    preparation = _PREPARATIONS.pop(root, None)
    if preparation is not None:
        return preparation.wait(progress, cancel)
    return _ensure_demo_project(root, progress, cancel)


def _ensure_demo_project(
    root: Path, progress: ProgressCallback | None, cancel: CancelToken | None
) -> Project:
    layout = ensure_demo(root, progress, cancel)
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


# --------------------------------------------------------------------------- in the background

#: How often :meth:`_Preparation.wait` passes progress on and looks for cancellation (s).
_POLL_SECONDS = 0.05


class _Preparation:
    """The demo project in ``root`` being prepared in the background: a thread waits for
    the process that prepares it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cancel = CancelToken()
        self.progress: tuple[int, int] | None = None
        self.project: Project | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="referee-demo", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        # In a process of its own: a thread would share the interpreter lock with the
        # application loading its libraries meanwhile, which slows both down many times.
        from concurrent.futures.process import BrokenProcessPool

        try:
            try:
                self.project = run_in_process(
                    _ensure_demo_project, self.root, progress=self._progressed, cancel=self.cancel
                )
            except (OSError, ImportError, BrokenProcessPool):  # no process could do it
                self.project = _ensure_demo_project(self.root, self._progressed, self.cancel)
        except BaseException as error:  # raised again in the thread that waits for it
            self.error = error

    def _progressed(self, done: int, total: int) -> None:
        self.progress = (done, total)

    def wait(self, progress: ProgressCallback | None, cancel: CancelToken | None) -> Project:
        """The project, once prepared; its progress meanwhile goes to ``progress``, and
        ``cancel`` stops the preparation (whose partial files are removed)."""
        passed_on = None
        while self.thread.is_alive():
            if cancel is not None and cancel.cancelled:
                self.cancel.cancel()
                self.thread.join()
                check(cancel)
            if self.progress is not None and self.progress != passed_on:
                passed_on = self.progress
                report(progress, *passed_on)
            self.thread.join(_POLL_SECONDS)
        if self.progress is not None and self.progress != passed_on:
            report(progress, *self.progress)
        if self.error is not None:
            raise self.error
        assert self.project is not None
        return self.project


#: The demo projects being prepared in the background, by root folder.
_PREPARATIONS: dict[Path, _Preparation] = {}


def prepare_in_background(root: str | Path) -> None:
    """Start preparing the demo project in ``root`` in the background, unless it is ready;
    the next :func:`ensure_demo_project` of ``root`` waits for it (with its progress)
    instead of starting over. The desktop application starts it before loading its own
    libraries, so that on a first start the demo is written meanwhile, in a process of
    its own (:func:`~referee.core.parallel.run_in_process`)."""
    root = Path(os.path.abspath(root))
    ready = current_seed(root) is not None and (root / DEMO_PROJECT_NAME).exists()
    if not ready and root not in _PREPARATIONS:  # a demo to write, not just to read
        _PREPARATIONS[root] = _Preparation(root)
