"""Saving the ground truth under edit: what differs from the files, and nothing else
(docs/measures.md §8, §10).

:func:`plan_save` compares the document with what was last saved or loaded and
says what a save writes: the label maps of accepted frames and hand edits of
saved ground truth (never a draft), the annotated record, where each accepted
frame came from, and the actions, tracks and counts that differ. :func:`save`
writes that atomically, the project file last, and only when its content
changes; a file that changed on disk since it was read is not replaced unless
the caller says so (:class:`~referee.core.errors.ChangedOnDiskError`).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path

from referee.core.annotation.document import GroundTruthDocument, MaskKey
from referee.core.annotation.review import FrameStatus
from referee.core.annotation.tracks import updated_tracks
from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats.counts_csv import updated_counts_csv
from referee.core.formats.gt_png import encode_ground_truth_png
from referee.core.formats.liris_xml_writer import updated_liris
from referee.core.formats.project_json import project_document, write_project
from referee.core.formats.text_files import remove_stale_temporaries, write_bytes
from referee.core.model.frame_set import FrameSet
from referee.core.model.origins import PAINTED, Origin, now_utc, replace_origins
from referee.core.model.project import Project, with_annotated, with_origins

#: The names of ground-truth files, as a regular expression (for stale temporaries).
_GT_NAMES = r"gt[0-9]{6}\.png"


@dataclass
class SavePlan:
    """What a save writes.

    Attributes
    ----------
    masks
        The frames whose label map is written.
    records
        The new annotated record of each video whose record changes.
    origins
        The origin and acceptance time of each frame that becomes ground truth, by video.
    cleared
        Frames whose decisions are saved without writing their label map (taken out of
        the record, or accepted on a frame whose file already holds the map).
    actions, tracks
        Whether the actions, the tracks are written.
    counts
        The counts folders whose file is written.
    drafts
        The frames left unsaved because they wait to be accepted.
    """

    masks: list[MaskKey] = field(default_factory=list)
    records: dict[str, FrameSet] = field(default_factory=dict)
    origins: dict[str, dict[int, tuple[Origin, str]]] = field(default_factory=dict)
    cleared: list[MaskKey] = field(default_factory=list)
    actions: bool = False
    tracks: bool = False
    counts: list[str] = field(default_factory=list)
    drafts: list[MaskKey] = field(default_factory=list)


@dataclass(frozen=True)
class SaveOutcome:
    """What a save did: the project as saved, the files written, the label maps written,
    and the frames left unsaved because they are drafts."""

    project: Project
    files: tuple[Path, ...]
    frames: int
    drafts: int


def plan_save(document: GroundTruthDocument, now: str | None = None) -> SavePlan:
    """What :func:`save` would write now; ``now`` stamps frames accepted by painting."""
    when = now or now_utc()
    plan = SavePlan()
    added: dict[str, set[int]] = {}
    removed: dict[str, set[int]] = {}
    for key in sorted(set(document.reviews()) | set(document.edited_masks())):
        label, frame = key
        if label not in document.videos:
            continue
        status, review = document.status(label, frame), document.review(label, frame)
        saved = frame in document.saved_annotated[label]
        edited = document.map_edited(key)
        if status is FrameStatus.DRAFT:
            plan.drafts.append(key)
        elif status is FrameStatus.UNMARKED:
            if saved:
                removed.setdefault(label, set()).add(frame)
            if not edited:
                plan.cleared.append(key)
        elif status is FrameStatus.ACCEPTED:
            if edited or not os.path.lexists(document.videos[label].gt_path(frame)):
                plan.masks.append(key)
            else:
                plan.cleared.append(key)
            added.setdefault(label, set()).add(frame)
            origin = (review.origin or PAINTED, review.accepted or when)
            plan.origins.setdefault(label, {})[frame] = origin
        elif edited:  # hand edits of saved ground truth
            plan.masks.append(key)
    for label in sorted(set(added) | set(removed)):
        before = document.saved_annotated[label]
        after = before.difference(FrameSet.of(removed.get(label, ()))).union(
            FrameSet.of(added.get(label, ()))
        )
        if after != before:
            plan.records[label] = after
    plan.actions = document.actions_modified()
    plan.tracks = document.tracks_modified()
    plan.counts = list(document.modified_counts())
    return plan


def files_to_write(document: GroundTruthDocument, plan: SavePlan) -> list[Path]:
    """Every file a save of ``plan`` writes, the project file last (if it changes)."""
    paths = [document.videos[label].gt_path(frame) for label, frame in plan.masks]
    if plan.actions:
        paths.append(document.actions_file())
    if plan.tracks:
        paths.append(document.tracks_file())
    paths += [document.counts_file(folder) for folder in plan.counts]
    if _project_changes(document, _project_after(document, plan)):
        paths.append(document.project_file())
    return paths


def save(
    document: GroundTruthDocument, replace_changed: bool = False, now: str | None = None
) -> SaveOutcome:
    """Write what differs from the files, then the project file if it changes.

    Each file is written atomically; the temporaries of an earlier save that was
    stopped are removed first. Drafts are not written (:attr:`SaveOutcome.drafts`).

    Raises
    ------
    ChangedOnDiskError
        If a file to write changed on disk since it was read (unless
        ``replace_changed``); nothing is written then.
    InputFileError
        If a file cannot be written; the files already written stay, and what is
        not saved stays modified. If a label map to write is a LASIESTA sequence's;
        nothing is written then.
    UnavailableError
        If there is something to write and the project has never been saved to a file.
    """
    plan = plan_save(document, now)
    for label, frame in plan.masks:
        if document.videos[label].layout is not None:
            raise InputFileError(
                document.videos[label].gt_path(frame),
                "not saved: Referee reads LASIESTA's colour ground truth but does not write it "
                "(docs/measures.md §1)",
            )
    targets = files_to_write(document, plan)
    if not replace_changed:
        document.stamps.check_unchanged(targets)
    _remove_stale_temporaries(document, plan, targets)
    for key in plan.masks:
        path = document.videos[key[0]].gt_path(key[1])
        path.parent.mkdir(exist_ok=True)
        try:
            data = encode_ground_truth_png(document.label_map(*key))
        except InvalidOptionError as error:
            raise InputFileError(path, f"not saved: {error}") from None
        _write(document, path, data)
        if key[1] not in plan.origins.get(key[0], {}):  # hand edits of saved ground truth
            document.mark_saved(key)
    _write_boxes_and_counts(document, plan)
    project = _project_after(document, plan)
    if _project_changes(document, project):
        project = write_project(project, document.project_file())
    document.project_saved(project)
    for label, frames in plan.records.items():
        document.set_saved_record(label, frames)
    for label, accepted in plan.origins.items():
        for frame in accepted:
            document.mark_saved((label, frame))
    for key in plan.cleared:
        document.mark_saved(key)
    return SaveOutcome(project, tuple(targets), len(plan.masks), len(plan.drafts))


def _write_boxes_and_counts(document: GroundTruthDocument, plan: SavePlan) -> None:
    """Write the actions, tracks and counts of ``plan``."""
    if plan.actions:
        path = document.actions_file()
        _write(document, path, updated_liris(document.originals.get(path), document.actions, path))
        document.actions_saved()
    if plan.tracks:
        path = document.tracks_file()
        _write(document, path, updated_tracks(document.originals.get(path), document.tracks, path))
        document.tracks_saved()
    for folder in plan.counts:
        path = document.counts_file(folder)
        series = document.counts_of(folder)
        _write(document, path, updated_counts_csv(document.originals.get(path), series, path))
        document.counts_saved(folder)


def _project_after(document: GroundTruthDocument, plan: SavePlan) -> Project:
    """The project once ``plan`` is saved: the files written, the annotated record and
    the origins of the frames that became ground truth (those taken out lose theirs)."""
    project = document.project
    if plan.actions:
        project = dataclasses.replace(project, actions_groundtruth=document.actions_file())
    if plan.tracks:
        project = dataclasses.replace(project, boxes_groundtruth=document.tracks_file())
    if plan.counts:
        project = dataclasses.replace(project, counts=document.counts_root())
    for label in sorted(set(plan.records) | set(plan.origins)):
        recorded = plan.records.get(label, document.saved_annotated[label])
        gone = document.saved_annotated[label].difference(recorded)
        runs = replace_origins(project.origins_of(label), gone, plan.origins.get(label, {}))
        project = with_origins(with_annotated(project, label, recorded), label, runs)
    return project


def _project_changes(document: GroundTruthDocument, project: Project) -> bool:
    """Whether the project file must be written to hold ``project``."""
    file = document.project.file
    if file is None:
        return project != document.project
    return not os.path.lexists(file) or project_document(project, file.parent) != project_document(
        document.project, file.parent
    )


def _write(document: GroundTruthDocument, path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically; it is what the document last read there."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(path, data)
    document.stamps.record(path, data)
    document.originals[path] = data


def _remove_stale_temporaries(
    document: GroundTruthDocument, plan: SavePlan, targets: list[Path]
) -> None:
    folders = {document.videos[label].gt_path(frame).parent for label, frame in plan.masks}
    for folder in folders:
        remove_stale_temporaries(folder, _GT_NAMES)
    for path in targets:
        if path.parent not in folders:
            remove_stale_temporaries(path.parent, path.name.replace(".", r"\."))
