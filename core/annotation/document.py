"""The ground truth being edited for one project (docs/measures.md §8, §10).

A :class:`GroundTruthDocument` holds what an annotator changes: CDnet label maps
(one per video and frame), the :class:`~referee.core.annotation.review.Review`
of each frame not saved yet (drafts, accepted frames, frames taken out of the
record), the LIRIS actions, the MOTChallenge tracks and the count series. It is
plain data, edited by the desktop application's undo commands; nothing here
knows about Qt.

The document also keeps what was last saved or loaded: a digest of each label
map read, the annotated record, the actions, tracks and counts as read. What is
*modified*, and what a save writes (:mod:`referee.core.annotation.saving`), is
the difference between the two, never a log of touched items: undoing back to
the saved state leaves nothing to write.
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import numpy as np

from referee.core.annotation.count_changes import empty_counts
from referee.core.annotation.file_stamps import FileStamps
from referee.core.annotation.label_maps import blank_label_map
from referee.core.annotation.review import UNTOUCHED, FrameStatus, Review, status_of
from referee.core.annotation.tracks import parse_tracks
from referee.core.errors import UnavailableError
from referee.core.formats.annotated import frames_with_ground_truth
from referee.core.formats.counts_csv import CountSeries, parse_counts_csv
from referee.core.formats.datasets import read_truth, read_video_roi
from referee.core.formats.liris_xml import parse_liris_bytes
from referee.core.formats.registry import BOXES, MOT_CSV, detect
from referee.core.formats.text_files import decode_text, read_file_bytes
from referee.core.limits import MAX_TEXT_FILE_BYTES, MAX_XML_FILE_BYTES
from referee.core.model.annotations import AnnotationSet, VideoAnnotation
from referee.core.model.frame_set import FrameSet
from referee.core.model.origins import BLANK
from referee.core.model.project import GROUND_TRUTH, Project
from referee.core.model.tracks import Track
from referee.core.model.videos import VideoSpec

#: Label maps kept in memory that have no unsaved change (the changed ones are all kept).
CLEAN_MAPS_KEPT = 32
#: Where new ground truth goes, relative to the project file's folder.
NEW_ACTIONS_FILE = Path("annotations") / "actions.xml"
NEW_TRACKS_FILE = Path("annotations") / "boxes.txt"
NEW_COUNTS_FOLDER = Path("annotations") / "counts"

MaskKey = tuple[str, int]  # (video label, frame)


def map_digest(label_map: np.ndarray) -> bytes:
    """A digest of a label map's shape and bytes: equal digests, equal maps."""
    digest = hashlib.blake2b(str(label_map.shape).encode(), digest_size=20)
    digest.update(np.ascontiguousarray(label_map).data)
    return digest.digest()


class GroundTruthDocument:
    """Ground truth under edit for ``project``, and what was last saved or loaded."""

    def __init__(
        self,
        project: Project,
        videos: tuple[VideoSpec, ...] = (),
        annotated: Mapping[str, FrameSet] | None = None,
    ) -> None:
        """``annotated``: the frames of each of ``videos`` (by label) that have ground truth,
        when already listed (else they are listed here)."""
        self.project = project
        self.videos = {video.label: video for video in videos}
        self.stamps = FileStamps()
        self._maps: OrderedDict[MaskKey, np.ndarray] = OrderedDict()
        self._saved_digests: dict[MaskKey, bytes] = {}
        self._edited: dict[MaskKey, bool] = {}  # whether a map differs, until it changes again
        self._rois: dict[str, np.ndarray] = {}
        self.saved_annotated = {
            label: annotated[label] if annotated is not None else frames_with_ground_truth(v)
            for label, v in self.videos.items()
        }
        self._reviews: dict[MaskKey, Review] = {}
        self._actions: AnnotationSet | None = None  # read when first needed
        self.saved_actions: AnnotationSet | None = None
        self._tracks: tuple[Track, ...] | None = None
        self.saved_tracks: tuple[Track, ...] | None = None
        self._counts: dict[str, CountSeries] = {}
        self.saved_counts: dict[str, CountSeries] = {}
        #: The bytes of each ground-truth file as read, for writing back what was not edited.
        self.originals: dict[Path, bytes] = {}
        if project.file is not None:
            self.stamps.record(project.file)

    # --- state -----------------------------------------------------------------------------

    @property
    def modified(self) -> bool:
        """Whether anything differs from the files as last saved or loaded: a label map, a
        frame's review (drafts included), the actions, the tracks or the counts."""
        return bool(
            self._reviews
            or self.edited_masks()
            or self.actions_modified()
            or self.tracks_modified()
            or self.modified_counts()
        )

    def status(self, label: str, frame: int) -> FrameStatus:
        """What the frame's ground truth is now (docs/measures.md §8)."""
        key = (label, frame)
        saved = frame in self.saved_annotated.get(label, FrameSet())
        return status_of(self.review(label, frame), saved, self.map_edited(key))

    def is_annotated(self, label: str, frame: int) -> bool:
        """Whether the frame counts as annotated once the document is saved."""
        return self.status(label, frame).is_annotated

    def frames_with_status(self, label: str) -> dict[int, FrameStatus]:
        """The frames of ``label`` whose status differs from the saved record's."""
        keys = {key for key in self._reviews if key[0] == label}
        keys |= {key for key in self.edited_masks() if key[0] == label}
        return {frame: self.status(label, frame) for _, frame in sorted(keys)}

    def annotated_count(self) -> tuple[int, int]:
        """``(annotated, total)`` frames of the temporal ROIs of every video, counting the
        frames as they will be once the document is saved."""
        done = 0
        for label, video in self.videos.items():
            done += self.saved_annotated[label].count_within(video.first, video.last)
            for frame, status in self.frames_with_status(label).items():
                if video.first <= frame <= video.last:
                    saved = frame in self.saved_annotated[label]
                    done += int(status.is_annotated) - int(saved)
        return done, sum(v.n_frames for v in self.videos.values())

    def drafts(self) -> list[MaskKey]:
        """The frames waiting to be accepted, in order."""
        return [key for key in sorted(self._reviews) if self.status(*key) is FrameStatus.DRAFT]

    # --- masks -----------------------------------------------------------------------------

    def label_map(self, label: str, frame: int) -> np.ndarray:
        """The label map of a frame, edited in place by the caller (then :meth:`mask_changed`).

        Read from ``groundtruth/gt%06d.png`` when it exists, else all static with
        "outside ROI" where the ROI is 0 (docs/measures.md §1).

        Raises
        ------
        InputFileError
            If the ground-truth file or the ROI cannot be read as CDnet ground truth.
        """
        key = (label, frame)
        if key in self._maps:
            self._maps.move_to_end(key)
            return self._maps[key]
        label_map = self._saved_map(label, frame)
        self._maps[key] = label_map
        self._saved_digests[key] = map_digest(label_map)
        self._edited[key] = False
        self._forget_clean_maps()
        return label_map

    def _saved_map(self, label: str, frame: int) -> np.ndarray:
        path = self.videos[label].gt_path(frame)
        self.stamps.record(path)
        if os.path.lexists(path):
            return read_truth(self.videos[label], frame).copy()
        return blank_label_map(self.roi(label).shape, self.roi(label))

    def roi(self, label: str) -> np.ndarray:
        """The spatial ROI of the video ``label`` (``ROI.bmp``, 0 outside), read once."""
        if label not in self._rois:
            self._rois[label] = read_video_roi(self.videos[label])
        return self._rois[label]

    def label_map_is_new(self, label: str, frame: int) -> bool:
        """Whether a frame has neither a ground-truth file nor unsaved changes."""
        return (
            (label, frame) not in self._reviews
            and not self.map_edited((label, frame))
            and not os.path.lexists(self.videos[label].gt_path(frame))
        )

    def mask_changed(self, label: str, frame: int) -> None:
        """Note that the label map of ``(label, frame)`` was edited in place."""
        self._edited.pop((label, frame), None)

    def map_edited(self, key: MaskKey) -> bool:
        """Whether the label map of ``key`` differs from the saved one (or the blank one)."""
        if key not in self._maps:
            return False
        if key not in self._edited:
            self._edited[key] = map_digest(self._maps[key]) != self._saved_digests[key]
        return self._edited[key]

    def edited_masks(self) -> list[MaskKey]:
        """The frames whose label map differs from the saved one, in order."""
        return sorted(key for key in self._maps if self.map_edited(key))

    def replace_label_map(self, label: str, frame: int, label_map: np.ndarray) -> np.ndarray:
        """Put ``label_map`` in place of a frame's; returns the one it replaces."""
        before = self.label_map(label, frame)
        self._maps[(label, frame)] = label_map
        self.mask_changed(label, frame)
        return before

    def map_shape(self, label: str) -> tuple[int, int]:
        """The height and width of the video's label maps (its ROI's)."""
        height, width = self.roi(label).shape[:2]
        return height, width

    def _forget_clean_maps(self) -> None:
        clean = [key for key in self._maps if key not in self._reviews and not self.map_edited(key)]
        for key in clean[: max(0, len(clean) - CLEAN_MAPS_KEPT)]:
            del self._maps[key], self._saved_digests[key], self._edited[key]

    # --- reviews ---------------------------------------------------------------------------

    def review(self, label: str, frame: int) -> Review:
        """The unsaved decisions on a frame (:data:`UNTOUCHED` when there are none)."""
        return self._reviews.get((label, frame), UNTOUCHED)

    def reviews(self) -> dict[MaskKey, Review]:
        """Every frame with unsaved decisions."""
        return dict(self._reviews)

    def set_review(self, label: str, frame: int, review: Review) -> None:
        """Replace a frame's unsaved decisions (the undo commands' way back and forth)."""
        key = (label, frame)
        self.label_map(label, frame)  # a reviewed frame's map stays in memory
        if review == UNTOUCHED:
            self._reviews.pop(key, None)
        else:
            self._reviews[key] = review

    def accepted(self, label: str, frame: int, when: str) -> Review:
        """The review of the frame once accepted at ``when``: its draft, or the frame as
        it is (blank when nothing was painted), becomes ground truth at the next save."""
        review = self.review(label, frame)
        status = self.status(label, frame)
        if status in (FrameStatus.GROUND_TRUTH, FrameStatus.ACCEPTED):
            return review
        origin = review.origin
        if origin is None and not self.map_edited((label, frame)):
            origin = BLANK
        return Review(origin, when, False) if origin is not None else UNTOUCHED

    def marked(self, label: str, frame: int, annotated: bool) -> Review:
        """The review of the frame once marked annotated (a blank draft, to accept) or
        taken out of the annotated record (its edits kept, not saved)."""
        review, key = self.review(label, frame), (label, frame)
        saved = frame in self.saved_annotated.get(label, FrameSet())
        if annotated:
            if not review.unmarked:
                return review if review.origin or saved or self.map_edited(key) else Review(BLANK)
            return Review(review.origin)
        keeps = saved or self.map_edited(key) or (review.origin not in (None, BLANK))
        return Review(review.origin, None, True) if keeps else UNTOUCHED

    # --- actions, tracks, counts -------------------------------------------------------------

    @property
    def actions(self) -> AnnotationSet:
        """The ground-truth actions, read from the project's LIRIS file when first needed."""
        if self._actions is None:
            self._actions = self.saved_actions = self._read_actions()
        return self._actions

    @actions.setter
    def actions(self, actions: AnnotationSet) -> None:
        self.actions  # noqa: B018 - the saved actions are read first
        self._actions = actions

    def actions_modified(self) -> bool:
        """Whether the actions differ from the file's."""
        return (
            self._actions is not None
            and self.saved_actions is not None
            and not self._actions.same_as(self.saved_actions)
        )

    @property
    def tracks(self) -> tuple[Track, ...]:
        """The ground-truth MOTChallenge tracks, read when first needed."""
        if self._tracks is None:
            self._tracks = self.saved_tracks = self._read_tracks()
        return self._tracks

    def tracks_modified(self) -> bool:
        """Whether the tracks differ from the file's."""
        if self._tracks is None or self.saved_tracks is None:
            return False
        return len(self._tracks) != len(self.saved_tracks) or not all(
            a is b or a.same_as(b) for a, b in zip(self._tracks, self.saved_tracks)
        )

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
        return before

    def set_tracks(self, tracks: tuple[Track, ...]) -> tuple[Track, ...]:
        """Replace every track; returns the tracks replaced."""
        before, self._tracks = self.tracks, tracks
        return before

    def counts(self, video: VideoSpec) -> CountSeries:
        """The ground-truth counts of ``video``: its file's, else zeros over its temporal ROI."""
        folder = video.file_stem
        if folder not in self._counts:
            series = self._read_counts(folder, video)
            self._counts[folder] = self.saved_counts[folder] = series
        return self._counts[folder]

    def set_counts(self, folder: str, series: CountSeries) -> None:
        """Replace the counts of the video whose counts folder is ``folder``
        (:attr:`VideoSpec.file_stem`)."""
        video = next((v for v in self.videos.values() if v.file_stem == folder), None)
        if folder not in self.saved_counts and video is not None:
            self.counts(video)
        self._counts[folder] = series

    def counts_of(self, folder: str) -> CountSeries:
        """The counts under edit of the counts folder ``folder`` (read or set before)."""
        return self._counts[folder]

    def modified_counts(self) -> dict[str, CountSeries]:
        """The count series that differ from their files', by counts folder."""
        changed = {}
        for folder in sorted(self._counts):
            now, saved = self._counts[folder], self.saved_counts.get(folder)
            if (
                saved is None
                or now.first_frame != saved.first_frame
                or not np.array_equal(now.counts, saved.counts)
            ):
                changed[folder] = now
        return changed

    def modified_label_maps(self) -> dict[MaskKey, np.ndarray]:
        """The label maps that differ from the saved ones or have unsaved decisions."""
        keys = sorted(set(self.edited_masks()) | set(self._reviews))
        return {key: self.label_map(*key) for key in keys}

    # --- after a save --------------------------------------------------------------------

    def mark_saved(self, key: MaskKey) -> None:
        """The frame's label map is on disk as it is now, and its decisions are saved."""
        if key in self._maps:
            self._saved_digests[key] = map_digest(self._maps[key])
            self._edited[key] = False
        self._reviews.pop(key, None)

    def set_saved_record(self, label: str, frames: FrameSet) -> None:
        """The annotated record of ``label`` as it now is on disk."""
        self.saved_annotated[label] = frames

    def actions_saved(self) -> None:
        """The actions are on disk as they are now."""
        self.saved_actions = self._actions

    def tracks_saved(self) -> None:
        """The tracks are on disk as they are now."""
        self.saved_tracks = self._tracks

    def counts_saved(self, folder: str) -> None:
        """The counts of ``folder`` are on disk as they are now."""
        self.saved_counts[folder] = self._counts[folder]

    def project_saved(self, project: Project) -> None:
        """The project file holds ``project`` now (it was written by Referee)."""
        self.project = project
        if project.file is not None:
            self.stamps.record(project.file)

    # --- where things are ------------------------------------------------------------------

    def project_file(self) -> Path:
        """The project file.

        Raises
        ------
        UnavailableError
            If the project has never been saved to a file.
        """
        if self.project.file is None:
            raise UnavailableError(
                "the project has no file yet; save it as a project file first, so that its "
                "annotated frames can be recorded"
            )
        return self.project.file

    def actions_file(self) -> Path:
        """Where the actions are saved."""
        return self.project.actions_groundtruth or self.project_file().parent / NEW_ACTIONS_FILE

    def tracks_file(self) -> Path:
        """Where the tracks are saved."""
        return self.project.boxes_groundtruth or self.project_file().parent / NEW_TRACKS_FILE

    def counts_root(self) -> Path:
        """The folder of the count files (the project's, or one beside its file)."""
        return self.project.counts or self.project_file().parent / NEW_COUNTS_FOLDER

    def counts_file(self, folder: str) -> Path:
        """Where the ground-truth counts of ``folder`` are saved."""
        return self.counts_root() / folder / f"{GROUND_TRUTH}.csv"

    def with_file(self, file: Path) -> None:
        """The project has a file now (saved as, meanwhile)."""
        if self.project.file != file:
            self.project_saved(replace(self.project, file=file))

    # --- reading ---------------------------------------------------------------------------

    def _read_bytes(self, path: Path) -> bytes:
        data = read_file_bytes(
            path, MAX_XML_FILE_BYTES if path.suffix == ".xml" else MAX_TEXT_FILE_BYTES
        )
        self.stamps.record(path, data)
        self.originals[path] = data
        return data

    def _read_actions(self) -> AnnotationSet:
        path = self.project.actions_groundtruth
        if path is None or not path.is_file():
            return AnnotationSet({})
        return parse_liris_bytes(self._read_bytes(path), path)

    def _read_tracks(self) -> tuple[Track, ...]:
        path = self.project.boxes_groundtruth
        if path is None or not path.is_file() or detect(path, BOXES).name != MOT_CSV:
            return ()
        return parse_tracks(self._read_bytes(path), path)

    def _read_counts(self, folder: str, video: VideoSpec) -> CountSeries:
        if self.project.counts is None and self.project.file is None:
            return empty_counts(video.first, video.last)
        path = self.counts_file(folder)
        if not path.exists():
            self.stamps.record(path)
            return empty_counts(video.first, video.last)
        return parse_counts_csv(decode_text(self._read_bytes(path), path), path)
