"""The ground truth being edited for one project, and saving it (docs/measures.md §8, §10).

A :class:`GroundTruthDocument` holds what an annotator changes: CDnet label maps
(one per video and frame), which frames are annotated, the LIRIS actions, the
MOTChallenge tracks and the count series. It is plain data, edited by the
desktop application's undo commands; nothing here knows about Qt.

Saving writes every changed file atomically (:mod:`referee.core.formats.text_files`)
and then the project file, which records the annotated frames. A file that
changed on disk since it was read is not replaced unless the caller says so
(:class:`~referee.core.errors.ChangedOnDiskError`).
"""

from __future__ import annotations

import dataclasses
import os
from collections import OrderedDict
from pathlib import Path

import numpy as np

from referee.core.annotation.count_changes import empty_counts
from referee.core.annotation.file_stamps import FileStamps
from referee.core.annotation.label_maps import blank_label_map
from referee.core.annotation.tracks import Track, rows_of_tracks, tracks_from_rows
from referee.core.errors import InputFileError, InvalidOptionError, UnavailableError
from referee.core.formats.annotated import frames_with_ground_truth
from referee.core.formats.cdnet import read_gt, read_roi
from referee.core.formats.counts_csv import CountSeries, format_counts_csv, parse_counts_csv
from referee.core.formats.gt_png import encode_ground_truth_png
from referee.core.formats.liris_xml import parse_liris_bytes
from referee.core.formats.liris_xml_writer import format_liris
from referee.core.formats.mot_csv import format_mot_csv, parse_mot_csv
from referee.core.formats.project_json import write_project
from referee.core.formats.registry import BOXES, MOT_CSV, detect
from referee.core.formats.text_files import read_text, write_bytes
from referee.core.model.annotations import AnnotationSet, VideoAnnotation
from referee.core.model.project import GROUND_TRUTH, Project, with_annotated
from referee.core.model.videos import VideoSpec

#: Label maps kept in memory that have no unsaved change (the changed ones are all kept).
CLEAN_MAPS_KEPT = 32
#: Where new ground truth goes, relative to the project file's folder.
NEW_ACTIONS_FILE = Path("annotations") / "actions.xml"
NEW_TRACKS_FILE = Path("annotations") / "boxes.txt"
NEW_COUNTS_FOLDER = Path("annotations") / "counts"

MaskKey = tuple[str, int]  # (video label, frame)


class GroundTruthDocument:
    """Ground truth under edit for ``project`` and what changed since it was last saved."""

    def __init__(self, project: Project, videos: tuple[VideoSpec, ...] = ()) -> None:
        self.project = project
        self.videos = {video.label: video for video in videos}
        self.stamps = FileStamps()
        self._maps: OrderedDict[MaskKey, np.ndarray] = OrderedDict()
        self._rois: dict[str, np.ndarray] = {}
        self.changed_masks: set[MaskKey] = set()
        self.annotated = {label: frames_with_ground_truth(v) for label, v in self.videos.items()}
        self.changed_annotated: set[str] = set()
        self._actions: AnnotationSet | None = None  # read when first needed
        self.actions_changed = False
        self._tracks: tuple[Track, ...] | None = None
        self.tracks_changed = False
        self._counts: dict[str, CountSeries] = {}
        self.changed_counts: set[str] = set()
        if project.file is not None:
            self.stamps.record(project.file)

    # --- state -----------------------------------------------------------------------------

    @property
    def has_changes(self) -> bool:
        """Whether anything differs from the files (edited, even if edited back)."""
        return bool(
            self.changed_masks
            or self.changed_annotated
            or self.actions_changed
            or self.tracks_changed
            or self.changed_counts
        )

    def annotated_count(self) -> tuple[int, int]:
        """``(annotated, total)`` frames of the temporal ROIs of every video."""
        done = sum(
            sum(1 for f in self.annotated[label] if v.first <= f <= v.last)
            for label, v in self.videos.items()
        )
        return done, sum(v.n_frames for v in self.videos.values())

    # --- masks -----------------------------------------------------------------------------

    def label_map(self, label: str, frame: int) -> np.ndarray:
        """The label map of a frame, edited in place by the caller (then :meth:`mask_changed`).

        Read from ``groundtruth/gt%06d.png`` when it exists, else all static with
        "outside ROI" where the ROI is 0 (docs/measures.md §1).
        """
        key = (label, frame)
        if key in self._maps:
            self._maps.move_to_end(key)
            return self._maps[key]
        path = self.videos[label].gt_path(frame)
        self.stamps.record(path)
        label_map = (
            read_gt(path, frame).copy()
            if path.exists()
            else blank_label_map(self.roi(label).shape, self.roi(label))
        )
        self._maps[key] = label_map
        self._forget_clean_maps()
        return label_map

    def roi(self, label: str) -> np.ndarray:
        """The spatial ROI of the video ``label`` (``ROI.bmp``, 0 outside), read once."""
        if label not in self._rois:
            self._rois[label] = read_roi(self.videos[label].roi_path)
        return self._rois[label]

    def label_map_is_new(self, label: str, frame: int) -> bool:
        """Whether a frame has neither a ground-truth file nor unsaved edits."""
        return (label, frame) not in self.changed_masks and not os.path.lexists(
            self.videos[label].gt_path(frame)
        )

    def mask_changed(self, label: str, frame: int) -> None:
        """Note that the label map of ``(label, frame)`` was edited."""
        self.changed_masks.add((label, frame))

    def replace_label_map(self, label: str, frame: int, label_map: np.ndarray) -> np.ndarray:
        """Put ``label_map`` in place of a frame's (a draft); returns the one it replaces."""
        before = self.label_map(label, frame)
        self._maps[(label, frame)] = label_map
        self.mask_changed(label, frame)
        return before

    def set_annotated(self, label: str, frame: int, annotated: bool) -> None:
        """Mark a frame as annotated or not (recorded in the project file when saved)."""
        frames = self.annotated.setdefault(label, set())
        if (frame in frames) != annotated:
            (frames.add if annotated else frames.discard)(frame)
            self.changed_annotated.add(label)

    def _forget_clean_maps(self) -> None:
        clean = [key for key in self._maps if key not in self.changed_masks]
        for key in clean[: max(0, len(clean) - CLEAN_MAPS_KEPT)]:
            del self._maps[key]

    # --- actions, tracks, counts -------------------------------------------------------------

    @property
    def actions(self) -> AnnotationSet:
        """The ground-truth actions, read from the project's LIRIS file when first needed."""
        if self._actions is None:
            self._actions = self._read_actions()
        return self._actions

    @actions.setter
    def actions(self, actions: AnnotationSet) -> None:
        self._actions = actions

    @property
    def tracks(self) -> tuple[Track, ...]:
        """The ground-truth MOTChallenge tracks, read when first needed."""
        if self._tracks is None:
            self._tracks = self._read_tracks()
        return self._tracks

    def boxes_are_tracks(self) -> bool:
        """Whether the project's ground-truth boxes are a MOTChallenge file (else the boxes
        edited are the LIRIS actions')."""
        path = self.project.boxes_groundtruth
        return path is not None and path.is_file() and detect(path, BOXES).name == MOT_CSV

    def set_video_actions(self, video: VideoAnnotation) -> VideoAnnotation | None:
        """Replace (or add) the actions of one video; returns the ones replaced."""
        videos = dict(self.actions.videos)
        before = videos.get(video.name)
        videos[video.name] = video
        self.actions = AnnotationSet(videos)
        self.actions_changed = True
        return before

    def set_tracks(self, tracks: tuple[Track, ...]) -> tuple[Track, ...]:
        """Replace every track; returns the tracks replaced."""
        before, self._tracks = self.tracks, tracks
        self.tracks_changed = True
        return before

    def counts(self, video: VideoSpec) -> CountSeries:
        """The ground-truth counts of ``video``: its file's, else zeros over its temporal ROI."""
        folder = video.file_stem
        if folder not in self._counts:
            path = self._counts_file(folder) if self._has_counts_place() else None
            if path is not None:
                self.stamps.record(path)
            self._counts[folder] = (
                parse_counts_csv(read_text(path), path)
                if path is not None and path.exists()
                else empty_counts(video.first, video.last)
            )
        return self._counts[folder]

    def set_counts(self, folder: str, series: CountSeries) -> None:
        """Replace the counts of the video whose counts folder is ``folder``
        (:attr:`VideoSpec.file_stem`)."""
        self._counts[folder] = series
        self.changed_counts.add(folder)

    def changed_counts_series(self) -> dict[str, CountSeries]:
        """The changed count series, by counts folder."""
        return {folder: self._counts[folder] for folder in sorted(self.changed_counts)}

    def changed_label_maps(self) -> dict[MaskKey, np.ndarray]:
        """The changed label maps, by (video label, frame)."""
        return {key: self._maps[key] for key in sorted(self.changed_masks)}

    # --- saving ------------------------------------------------------------------------------

    def files_to_write(self) -> list[Path]:
        """Every file :meth:`save` would write, the project file last."""
        paths = [self.videos[label].gt_path(frame) for label, frame in sorted(self.changed_masks)]
        if self.actions_changed:
            paths.append(self._actions_file())
        if self.tracks_changed:
            paths.append(self._tracks_file())
        paths += [self._counts_file(folder) for folder in sorted(self.changed_counts)]
        return [*paths, self._project_file()]

    def save(self, replace_changed: bool = False) -> Project:
        """Write every change, then the project file; returns the project as saved.

        Saving a label map marks its frame annotated. Each file is written
        atomically; the project file, which records the annotated frames, comes last.

        Raises
        ------
        ChangedOnDiskError
            If a file to write changed on disk since it was read (unless
            ``replace_changed``); nothing is written then.
        InputFileError
            If a file cannot be written; the files already written stay, and what
            is not saved stays changed.
        UnavailableError
            If the project has never been saved to a file.
        """
        self._give_marked_frames_a_file()
        targets = self.files_to_write()
        if not replace_changed:
            self.stamps.check_unchanged(targets)
        for label, frame in sorted(self.changed_masks):
            path = self.videos[label].gt_path(frame)
            path.parent.mkdir(exist_ok=True)
            try:
                data = encode_ground_truth_png(self._maps[(label, frame)])
            except InvalidOptionError as error:
                raise InputFileError(path, f"not saved: {error}") from None
            self._write(path, data)
            self.set_annotated(label, frame, True)
            self.changed_masks.discard((label, frame))
        if self.actions_changed:
            self._write(self._actions_file(), format_liris(self.actions))
            self.project = dataclasses.replace(
                self.project, actions_groundtruth=self._actions_file()
            )
            self.actions_changed = False
        if self.tracks_changed:
            self._write(self._tracks_file(), format_mot_csv(rows_of_tracks(self.tracks)).encode())
            self.project = dataclasses.replace(self.project, boxes_groundtruth=self._tracks_file())
            self.tracks_changed = False
        for folder in sorted(self.changed_counts):
            series = self._counts[folder]
            self._write(
                self._counts_file(folder),
                format_counts_csv(series.first_frame, series.counts).encode(),
            )
            self.project = dataclasses.replace(self.project, counts=self._counts_root())
            self.changed_counts.discard(folder)
        self._save_project()
        return self.project

    def _give_marked_frames_a_file(self) -> None:
        """A frame marked annotated without a ground-truth file gets the label map shown
        for it (all static, outside-ROI where the ROI is 0, unless edited)."""
        for label in self.changed_annotated:
            video = self.videos.get(label)
            if video is None:
                continue
            for frame in sorted(self.annotated[label]):
                if self.label_map_is_new(label, frame):
                    self.label_map(label, frame)
                    self.mask_changed(label, frame)

    def _save_project(self) -> None:
        project = self.project
        for label in sorted(self.changed_annotated):
            project = with_annotated(project, label, self.annotated[label])
        file = self._project_file()
        self.project = write_project(project, file)
        self.stamps.record(file)
        self.changed_annotated.clear()

    def _write(self, path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(path, data)
        self.stamps.record(path, data)

    # --- where things are ------------------------------------------------------------------

    def _project_file(self) -> Path:
        if self.project.file is None:
            raise UnavailableError(
                "the project has no file yet; save it as a project file first, so that its "
                "annotated frames can be recorded"
            )
        return self.project.file

    def _folder(self) -> Path:
        return self._project_file().parent

    def _actions_file(self) -> Path:
        return self.project.actions_groundtruth or self._folder() / NEW_ACTIONS_FILE

    def _tracks_file(self) -> Path:
        return self.project.boxes_groundtruth or self._folder() / NEW_TRACKS_FILE

    def _has_counts_place(self) -> bool:
        """Whether counts have a folder yet (the project's, or one beside its file)."""
        return self.project.counts is not None or self.project.file is not None

    def _counts_root(self) -> Path:
        return self.project.counts or self._folder() / NEW_COUNTS_FOLDER

    def _counts_file(self, folder: str) -> Path:
        return self._counts_root() / folder / f"{GROUND_TRUTH}.csv"

    def _read_actions(self) -> AnnotationSet:
        path = self.project.actions_groundtruth
        if path is None or not path.is_file():
            return AnnotationSet({})
        data = path.read_bytes()
        self.stamps.record(path, data)
        return parse_liris_bytes(data, path)

    def _read_tracks(self) -> tuple[Track, ...]:
        path = self.project.boxes_groundtruth
        if path is None or not path.is_file() or detect(path, BOXES).name != MOT_CSV:
            return ()
        self.stamps.record(path)
        return tracks_from_rows(parse_mot_csv(read_text(path), path))
