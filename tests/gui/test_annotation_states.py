"""The annotation document against a small model of what must be on disk (Hypothesis).

Random sequences of paint, draft, accept, mark, unmark, count changes, box edits, undo,
redo, save, autosave, kill-and-recover and reopen go through the window's real editor
(its ``QUndoStack`` and undo commands, the core document, saving and autosave). The
model below states the rules of docs/measures.md §8 and §10 in a few lines of its own:

* a frame painted by hand is ground truth once saved; a draft (from a detector or the
  consensus) or a frame marked without an edit is saved only after it is accepted;
* a save writes a label map only where it differs from the file (or an accepted frame
  has none) and records the accepted frames; a frame taken out leaves the record;
* undo and redo put back the label map, the frame's decisions, the counts and the boxes;
* the document is modified exactly when it differs from the files;
* a kill loses nothing since the last autosave; reopening without it loses the rest.

After every step the files, the annotated record, the recorded origins, the counts, the
boxes and the ``modified`` flag must equal the model's.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from referee.core.annotation.label_maps import MaskPatch, flood_fill
from referee.core.formats.counts_csv import CountSeries, read_counts_csv
from referee.core.formats.mot_csv import read_mot_csv
from referee.core.formats.project_json import read_project, write_project
from referee.core.model.origins import CONSENSUS, Origin, Source
from referee.core.model.project import Project
from referee.core.model.tracks import Track
from referee.core.workflow.projects import project_videos
from referee.gui.annotation.commands import (
    CountsCommand,
    LabelMapCommand,
    MaskPatchCommand,
    ReviewCommand,
    TracksCommand,
)
from referee.gui.annotation.editor import AnnotationEditor

VIDEO, FRAMES, SHAPE = "cam", range(1, 7), (6, 8)
LEVELS = (0, 50, 85, 170, 255)
SOURCES = {"consensus": CONSENSUS, "detector:mog2": Origin(Source.DETECTOR, "mog2")}
Boxes = dict[int, dict[int, tuple[int, int, int, int]]]  # track → frame → (x, y, w, h)
Change = tuple[str, int, object, object]  # (part, frame, before, after) of one edit


def _blank() -> np.ndarray:
    """The label map of a frame without ground truth: static, outside-ROI in column 0."""
    blank = np.zeros(SHAPE, np.uint8)
    blank[:, 0] = 85
    return blank


@dataclass
class Review:
    """The model's unsaved decisions on a frame: draft source, accepted, taken out."""

    origin: str | None = None
    accepted: bool = False
    unmarked: bool = False


@dataclass
class Model:
    """What the document holds and what must be on disk."""

    disk: dict[int, np.ndarray]
    record: set[int]
    boxes_on_disk: Boxes
    maps: dict[int, np.ndarray] = field(default_factory=dict)
    reviews: dict[int, Review] = field(default_factory=dict)
    origins: dict[int, str] = field(default_factory=dict)
    counts_on_disk: tuple[int, ...] = (0,) * len(FRAMES)
    counts: tuple[int, ...] = (0,) * len(FRAMES)
    boxes: Boxes = field(default_factory=dict)

    def base(self, frame: int) -> np.ndarray:
        return self.disk[frame] if frame in self.disk else _blank()

    def current(self, frame: int) -> np.ndarray:
        return self.maps.get(frame, self.base(frame))

    def review(self, frame: int) -> Review:
        return self.reviews.get(frame, Review())

    def edited(self, frame: int) -> bool:
        return not np.array_equal(self.current(frame), self.base(frame))

    def status(self, frame: int) -> str:
        review, saved = self.review(frame), frame in self.record
        if review.unmarked:
            return "unmarked"
        if review.origin is not None:
            return "accepted" if review.accepted else "draft"
        if self.edited(frame) and not saved:
            return "accepted"
        return "ground truth" if saved else "no ground truth"

    @property
    def modified(self) -> bool:
        return (
            any(self.edited(f) for f in FRAMES)
            or any(r != Review() for r in self.reviews.values())
            or self.counts != self.counts_on_disk
            or self.boxes != self.boxes_on_disk
        )

    def accepted(self, frame: int) -> Review:
        review = self.review(frame)
        if self.status(frame) in ("ground truth", "accepted"):
            return review
        origin = review.origin
        if origin is None and not self.edited(frame):
            origin = "blank"
        return Review(origin, True) if origin is not None else Review()

    def marked(self, frame: int, annotated: bool) -> Review:
        review, saved, edited = self.review(frame), frame in self.record, self.edited(frame)
        if annotated:
            if review.unmarked:
                return Review(review.origin)
            return review if review.origin or saved or edited else Review("blank")
        keeps = saved or edited or review.origin not in (None, "blank")
        return Review(review.origin, False, True) if keeps else Review()

    def save(self) -> None:
        for frame in FRAMES:
            status, review = self.status(frame), self.review(frame)
            if status == "accepted":
                self.disk[frame] = self.current(frame).copy()
                self.record.add(frame)
                self.origins[frame] = review.origin or "painted"
                self.reviews.pop(frame, None)
            elif status == "ground truth" and self.edited(frame):
                self.disk[frame] = self.current(frame).copy()
            elif status == "unmarked":
                self.record.discard(frame)
                self.origins.pop(frame, None)
                if not self.edited(frame):
                    self.reviews.pop(frame, None)
        self.counts_on_disk = self.counts
        self.boxes_on_disk = _copy(self.boxes)

    def unsaved(self) -> tuple[object, ...]:
        """What an autosave keeps: the label maps, the decisions, counts and boxes."""
        return (
            {f: self.current(f).copy() for f in FRAMES},
            {f: Review(r.origin, r.accepted, r.unmarked) for f, r in self.reviews.items()},
            self.counts,
            _copy(self.boxes),
        )

    def apply(self, changes: list[Change], forward: bool) -> None:
        """Put the parts ``changes`` name as they were after (or before) the edit."""
        for part, frame, old, new in changes:
            value = new if forward else old
            if part == "map":
                self.maps[frame] = value.copy()  # type: ignore[attr-defined]
            elif part == "review":
                self.reviews[frame] = value  # type: ignore[assignment]
            elif part == "counts":
                self.counts = value  # type: ignore[assignment]
            else:
                self.boxes = _copy(value)  # type: ignore[arg-type]

    def restore(self, unsaved: tuple[object, ...] | None) -> None:
        if unsaved is None:
            self.maps, self.reviews = {}, {}
            self.counts, self.boxes = self.counts_on_disk, _copy(self.boxes_on_disk)
            return
        maps, reviews, counts, boxes = unsaved
        self.maps = {f: m.copy() for f, m in maps.items()}  # type: ignore[attr-defined]
        self.reviews = dict(reviews)  # type: ignore[call-overload]
        self.counts, self.boxes = counts, _copy(boxes)  # type: ignore[assignment, arg-type]


def _changes(before: tuple[object, ...], after: tuple[object, ...]) -> list[Change]:
    """What an edit changed, part by part: undo puts back only those parts."""
    (maps, reviews, counts, boxes), (maps2, reviews2, counts2, boxes2) = before, after
    changes: list[Change] = [
        ("map", f, maps[f], maps2[f])  # type: ignore[index]
        for f in FRAMES
        if not np.array_equal(maps[f], maps2[f])  # type: ignore[index]
    ]
    changes += [
        ("review", f, reviews.get(f, Review()), reviews2.get(f, Review()))  # type: ignore[attr-defined]
        for f in FRAMES
        if reviews.get(f, Review()) != reviews2.get(f, Review())  # type: ignore[attr-defined]
    ]
    if counts != counts2:
        changes.append(("counts", 0, counts, counts2))
    if boxes != boxes2:
        changes.append(("boxes", 0, boxes, boxes2))
    return changes


def _counts_changed(counts: tuple[int, ...], frame: int, delta: int) -> tuple[int, ...] | None:
    """``delta`` added from ``frame`` on, or ``None`` if a count would go below 0."""
    changed = tuple(c + (delta if f >= frame else 0) for f, c in zip(FRAMES, counts))
    return None if min(changed) < 0 else changed


def _copy(boxes: Boxes) -> Boxes:
    return {track: dict(frames) for track, frames in boxes.items()}


def _tracks(boxes: Boxes) -> tuple[Track, ...]:
    return tuple(
        Track(i, sorted(frames), [frames[f] for f in sorted(frames)])
        for i, frames in sorted(boxes.items())
    )


def _filled(label_map: np.ndarray, x: int, y: int, level: int) -> np.ndarray:
    """``label_map`` with the 4-connected region of ``(x, y)``'s level painted ``level``."""
    filled, old = label_map.copy(), label_map[y, x]
    todo, seen = [(x, y)], {(x, y)}
    while todo:
        cx, cy = todo.pop()
        filled[cy, cx] = level
        for nx, ny in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
            inside = 0 <= nx < SHAPE[1] and 0 <= ny < SHAPE[0]
            if inside and (nx, ny) not in seen and label_map[ny, nx] == old:
                seen.add((nx, ny))
                todo.append((nx, ny))
    return filled


class AnnotationStates(RuleBasedStateMachine):
    """Edits through the real editor, checked against :class:`Model` after every step."""

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="referee-states-"))
        video = self.folder / "data" / VIDEO
        (video / "groundtruth").mkdir(parents=True)
        roi = np.full(SHAPE, 255, np.uint8)
        roi[:, 0] = 0
        cv2.imwrite(str(video / "ROI.bmp"), roi)
        (video / "temporalROI.txt").write_text("1 6")
        disk = {}
        for frame in (1, 2):  # partly annotated: frames 3 to 6 have no ground truth yet
            disk[frame] = np.full(SHAPE, 255 if frame == 1 else 0, np.uint8)
            cv2.imwrite(str(video / "groundtruth" / f"gt{frame:06d}.png"), disk[frame])
        boxes: Boxes = {1: {1: (0, 0, 2, 2)}, 2: {3: (4, 1, 2, 3)}}
        (self.folder / "boxes.txt").write_text(
            "".join(
                f"{f},{i},{x},{y},{w},{h},1\n"
                for i, frames in boxes.items()
                for f, (x, y, w, h) in frames.items()
            )
        )
        self.project = write_project(
            Project(
                "states", dataset=self.folder / "data", boxes_groundtruth=self.folder / "boxes.txt"
            ),
            self.folder / "states.referee.json",
        )
        self.model = Model(disk, {1, 2}, _copy(boxes), boxes=_copy(boxes))
        self.done: list[list[Change]] = []  # the model's own undo stack: what each edit changed
        self.undone: list[list[Change]] = []
        self.autosaved: tuple[object, ...] | None = None
        self.editor = AnnotationEditor()
        self._open()

    def teardown(self) -> None:
        self.editor.deleteLater()
        shutil.rmtree(self.folder, ignore_errors=True)

    # --- helpers --------------------------------------------------------------------------

    def _open(self) -> Path | None:
        project = read_project(self.project.file)  # type: ignore[arg-type]
        self.editor.set_autosave_interval(0)
        return self.editor.open(project, project_videos(project))

    @property
    def document(self):  # type: ignore[no-untyped-def]
        return self.editor.document_or_raise()

    def _state(self) -> tuple[object, ...]:
        return self.model.unsaved()

    def _push(self, command: object, before: tuple[object, ...]) -> None:
        self.editor.push(command)  # type: ignore[arg-type]
        self.done.append(_changes(before, self._state()))
        self.undone.clear()

    # --- rules ----------------------------------------------------------------------------

    @rule(
        frame=st.sampled_from(FRAMES),
        x=st.integers(0, SHAPE[1] - 1),
        y=st.integers(0, SHAPE[0] - 1),
        size=st.integers(1, 3),
        level=st.sampled_from(LEVELS),
    )
    def paint(self, frame: int, x: int, y: int, size: int, level: int) -> None:
        label_map = self.document.label_map(VIDEO, frame)
        rect = (x, y, min(x + size, SHAPE[1]), min(y + size, SHAPE[0]))
        before = label_map[rect[1] : rect[3], rect[0] : rect[2]].copy()
        label_map[rect[1] : rect[3], rect[0] : rect[2]] = level  # as the painter does
        patch = MaskPatch(rect, before, label_map[rect[1] : rect[3], rect[0] : rect[2]].copy())
        state = self._state()
        expected = self.model.current(frame).copy()
        expected[rect[1] : rect[3], rect[0] : rect[2]] = level
        self.model.maps[frame] = expected
        review = self.model.review(frame)
        self.model.reviews[frame] = Review(review.origin, review.accepted, False)
        self._push(MaskPatchCommand(self.editor, VIDEO, frame, patch, "paint"), state)

    @rule(
        frame=st.sampled_from(FRAMES),
        x=st.integers(0, SHAPE[1] - 1),
        y=st.integers(0, SHAPE[0] - 1),
        level=st.sampled_from(LEVELS),
    )
    def fill(self, frame: int, x: int, y: int, level: int) -> None:
        expected = _filled(self.model.current(frame), x, y, level)
        patch = flood_fill(self.document.label_map(VIDEO, frame), (x, y), level)
        if patch is None:
            assert np.array_equal(expected, self.model.current(frame))
            return
        state = self._state()
        self.model.maps[frame] = expected
        review = self.model.review(frame)
        self.model.reviews[frame] = Review(review.origin, review.accepted, False)
        self._push(MaskPatchCommand(self.editor, VIDEO, frame, patch, "fill"), state)

    @rule(
        frame=st.sampled_from(FRAMES), seed=st.integers(0, 3), source=st.sampled_from(list(SOURCES))
    )
    def draft(self, frame: int, seed: int, source: str) -> None:
        draft = np.random.default_rng(seed).choice(LEVELS, size=SHAPE).astype(np.uint8)
        state = self._state()
        self.model.maps[frame] = draft.copy()
        self.model.reviews[frame] = Review(source)
        command = LabelMapCommand(self.editor, VIDEO, frame, draft, SOURCES[source], "draft")
        self._push(command, state)

    def _decide(self, frame: int, review: object, expected: Review, text: str) -> None:
        decided = Review(
            None if review.origin is None else str(review.origin),  # type: ignore[attr-defined]
            review.accepted is not None,  # type: ignore[attr-defined]
            review.unmarked,  # type: ignore[attr-defined]
        )
        assert decided == expected
        if expected != self.model.review(frame):
            state = self._state()
            self.model.reviews[frame] = expected
            self._push(ReviewCommand(self.editor, VIDEO, frame, review, text), state)  # type: ignore[arg-type]

    @rule(frame=st.sampled_from(FRAMES))
    def accept(self, frame: int) -> None:
        review = self.document.accepted(VIDEO, frame, "2026-11-26T12:00:00Z")
        self._decide(frame, review, self.model.accepted(frame), "accept")

    @rule(frame=st.sampled_from(FRAMES), annotated=st.booleans())
    def mark(self, frame: int, annotated: bool) -> None:
        review = self.document.marked(VIDEO, frame, annotated)
        self._decide(frame, review, self.model.marked(frame, annotated), "mark")

    @rule(frame=st.sampled_from(FRAMES), delta=st.sampled_from((-1, 1)))
    def count(self, frame: int, delta: int) -> None:
        changed = _counts_changed(self.model.counts, frame, delta)
        if changed is None:
            return
        video = self.document.videos[VIDEO]
        before = self.document.counts(video)
        after = CountSeries(1, np.array(changed, np.int64))
        state = self._state()
        self.model.counts = changed
        self._push(CountsCommand(self.editor, video.file_stem, before, after, "count"), state)

    @rule(
        track=st.integers(1, 3),
        frame=st.sampled_from(FRAMES),
        x=st.integers(0, 5),
        y=st.integers(0, 3),
        edit=st.sampled_from(("draw", "keyframe", "delete")),
    )
    def box(self, track: int, frame: int, x: int, y: int, edit: str) -> None:
        """Draw (or move) ``track`` as one box, add a keyframe after its last, or delete it."""
        boxes = _copy(self.model.boxes)
        if edit == "delete":
            boxes.pop(track, None)
        elif edit == "keyframe" and track in boxes:
            last = max(boxes[track])
            if last < FRAMES[-1]:
                boxes[track][last + 1] = (x, y, 2, 2)
        else:
            boxes[track] = {frame: (x, y, 2, 2)}
        if boxes == self.model.boxes:
            return
        state = self._state()
        before = self.document.tracks
        self.model.boxes = boxes
        self._push(TracksCommand(self.editor, before, _tracks(boxes), edit), state)

    @precondition(lambda self: bool(self.done))
    @rule()
    def undo(self) -> None:
        changes = self.done.pop()
        self.editor.stack.undo()
        self.model.apply(changes, forward=False)
        self.undone.append(changes)

    @precondition(lambda self: bool(self.undone))
    @rule()
    def redo(self) -> None:
        changes = self.undone.pop()
        self.editor.stack.redo()
        self.model.apply(changes, forward=True)
        self.done.append(changes)

    @rule()
    def save(self) -> None:
        self.editor.save()
        self.model.save()
        self.autosaved = self.model.unsaved() if self.model.modified else None

    @rule()
    def autosave(self) -> None:
        self.editor.autosave()
        self.autosaved = self.model.unsaved() if self.model.modified else None

    @rule()
    def kill_and_recover(self) -> None:
        """The process dies: a new editor opens the project and recovers the autosave."""
        self.editor.deleteLater()
        self.editor = AnnotationEditor()
        sidecar = self._open()
        assert (sidecar is not None) == (self.autosaved is not None)
        if sidecar is not None:
            self.editor.recover(self.editor.read_recovery(sidecar))
        self.model.restore(self.autosaved)
        self.done.clear()
        self.undone.clear()

    @rule()
    def reopen_discarding(self) -> None:
        """Close without saving (Discard), then open the project again."""
        self.editor.discard_recovery()
        self._open()
        self.autosaved = None
        self.model.restore(None)
        self.done.clear()
        self.undone.clear()

    # --- what must hold -------------------------------------------------------------------

    @invariant()
    def files_equal_the_model(self) -> None:
        folder = self.folder / "data" / VIDEO / "groundtruth"
        on_disk = {int(p.name[2:8]): p for p in folder.glob("gt*.png")}
        assert set(on_disk) == set(self.model.disk)
        for frame, path in on_disk.items():
            assert np.array_equal(
                cv2.imread(str(path), cv2.IMREAD_UNCHANGED), self.model.disk[frame]
            )
        assert not list(folder.glob(".*.tmp"))

    @invariant()
    def record_and_origins_equal_the_model(self) -> None:
        project = read_project(self.project.file)  # type: ignore[arg-type]
        recorded = project.annotated_frames(VIDEO)
        files = {
            int(p.name[2:8]) for p in (self.folder / "data" / VIDEO / "groundtruth").glob("gt*.png")
        }
        assert set(recorded if recorded is not None else files) == self.model.record
        origins = {
            f: str(run.origin)
            for run in project.origins_of(VIDEO)
            for f in range(run.first, run.last + 1)
        }
        assert origins == self.model.origins

    @invariant()
    def counts_and_boxes_equal_the_model(self) -> None:
        counts = self.folder / "annotations" / "counts" / VIDEO / "groundtruth.csv"
        if counts.exists():
            assert tuple(read_counts_csv(counts).counts) == self.model.counts_on_disk
        else:
            assert not any(self.model.counts_on_disk)
        rows = read_mot_csv(self.folder / "boxes.txt")
        on_disk: Boxes = {}
        for f, i, box in zip(rows.frames, rows.ids, rows.boxes):
            on_disk.setdefault(int(i), {})[int(f)] = tuple(int(v) for v in box)  # type: ignore[assignment]
        assert on_disk == self.model.boxes_on_disk

    @invariant()
    def modified_and_statuses_equal_the_model(self) -> None:
        assert self.editor.modified == self.model.modified
        for frame in FRAMES:
            assert self.document.status(VIDEO, frame).value == self.model.status(frame)
            assert np.array_equal(self.document.label_map(VIDEO, frame), self.model.current(frame))


AnnotationStates.TestCase.settings = settings(
    max_examples=150,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.mark.usefixtures("qapp")
@pytest.mark.filterwarnings("ignore:.*holds no box")
class TestAnnotationStates(AnnotationStates.TestCase):  # type: ignore[name-defined, misc]
    """Run by pytest; ``qapp`` gives the editor's Qt objects an application."""
