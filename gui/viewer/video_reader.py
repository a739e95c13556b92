"""The viewer's reader of one video, built off the GUI thread: building it lists the video's
frames and each detector's results (a CDnet video), or indexes a video file."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from referee.core.errors import RefereeError
from referee.core.frames.sources import CdnetResultSource, FrameReader
from referee.core.frames.video_files import VideoFileSource
from referee.core.model.project import Project
from referee.core.model.videos import VideoSpec
from referee.core.workflow.agreement import labelled_videos
from referee.core.workflow.frame_layers import CdnetInputSource, FrameLayerReader, FrameLayers


@dataclass(frozen=True)
class VideoReader:
    """Frames with layers of one video, its last frame, its frame rate and the frame shown
    first; ``problems``: why a detector's results are left out (they cannot be read)."""

    reader: FrameReader[FrameLayers]
    last: int
    fps: float
    first_shown: int
    problems: tuple[str, ...] = ()


#: A job's function that builds a reader; a problem with the video itself is returned.
ReaderBuild = Callable[[object, object], "VideoReader | RefereeError"]


def cdnet_reader_build(
    video: VideoSpec, detectors: Mapping[str, Path], project: Project | None, single: bool
) -> ReaderBuild:
    """Build the reader of a CDnet ``video`` with the masks of ``detectors`` (name → results
    root) and the project's annotators' ground truth; ``single``: the dataset's only video."""

    def build() -> VideoReader:
        inputs = CdnetInputSource(video)
        sources, problems = {}, []
        for name, root in detectors.items():
            try:
                sources[name] = CdnetResultSource.for_video(root, video, single)
            except RefereeError as error:
                problems.append(str(error))
        annotators = {} if project is None else labelled_videos(project, video, single)
        # The consensus layer is the share of detectors that see motion, without the trivial
        # voters of docs/measures.md §7: 0 where none does, drawn transparent.
        reader = FrameLayerReader(
            inputs,
            inputs.frame_count,
            video,
            sources,
            include_trivial=False,
            annotators=annotators,
        )
        return VideoReader(reader, inputs.frame_count, 25.0, video.first, tuple(problems))

    return _returning_errors(build)


def file_reader_build(path: Path) -> ReaderBuild:
    """Build the reader of the video file at ``path`` (opening it indexes its frames)."""

    def build() -> VideoReader:
        source = VideoFileSource(path)
        reader = FrameLayerReader(source, source.frame_count)
        return VideoReader(reader, source.frame_count, source.fps, 1)

    return _returning_errors(build)


def _returning_errors(build: Callable[[], VideoReader]) -> ReaderBuild:
    """``build`` as a job's function that returns the problem it raises."""

    def run(progress: object, cancel: object) -> VideoReader | RefereeError:
        try:
            return build()
        except RefereeError as error:
            return error

    return run
