"""Per-frame boxes on partly annotated videos: only the recorded annotated frames are
evaluated (docs/measures.md §5, §8).

Every expected value is worked out by hand on the tiny data below, or is the result of an
ordinary evaluation (no record) of a copy of the files that the test restricts itself.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.core.formats.project_json import write_project
from referee.core.measures.boxes import BoxEvaluation, BoxTotals, VideoBoxResult
from referee.core.model.project import DetectorSource, Project, with_annotated
from referee.core.report.compute import ReportResults
from referee.core.report.document import Paragraph
from referee.core.report.sections_detections import boxes_section
from referee.core.workflow.detections import run_boxes
from referee.core.workflow.results import BoxesResult

Box = tuple[int, int, int, int]
#: An action: number, class, and its box on each of its (consecutive) frames.
Action = tuple[int, int, dict[int, Box]]

FRAMES = range(1, 11)
#: lab/room's temporal ROI is 2–9 (8 frames); the record also holds frame 1, outside it.
ROOM_ROI, ROOM_RECORD, ROOM_KEPT = (2, 9), (1, 3, 7), (3, 7)
HALL_ROI = (1, 10)

ROOM_GT: list[Action] = [
    (1, 1, dict.fromkeys(FRAMES, (0, 0, 10, 10))),
    (2, 1, dict.fromkeys(range(5, 9), (50, 50, 10, 10))),
]
ROOM_DET: list[Action] = [
    (1, 1, {f: (0, 0, 10, 10) if f <= 4 else (100, 100, 10, 10) for f in FRAMES}),
    (2, 1, dict.fromkeys(range(6, 10), (50, 50, 10, 5))),  # IoU 0.5 with GT 2: a TP
]
HALL_GT: list[Action] = [(1, 1, dict.fromkeys(FRAMES, (0, 0, 10, 10)))]
HALL_DET: list[Action] = [
    (1, 1, {f: (0, 0, 10, 10) if f <= 5 else (20, 20, 10, 10) for f in FRAMES})
]


def liris(videos: dict[str, list[Action]]) -> str:
    """LIRIS XML of ``videos`` (video name → actions)."""
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<tagset>']
    for name, actions in videos.items():
        parts.append(f"<video><videoName>{name}</videoName>")
        for number, cls, boxes in actions:
            parts.append(f'<action nr="{number}" class="{cls}">')
            parts.extend(
                f'<bbox x="{x}" y="{y}" width="{w}" height="{h}" framenr="{f}"/>'
                for f, (x, y, w, h) in sorted(boxes.items())
            )
            parts.append("</action>")
        parts.append("</video>")
    parts.append("</tagset>\n")
    return "\n".join(parts)


def kept_only(actions: list[Action], frames: tuple[int, ...]) -> list[Action]:
    """The boxes of ``actions`` on ``frames`` only, each as a one-frame action (identities
    play no part in the frame-level measures)."""
    single: list[Action] = []
    for _, cls, boxes in actions:
        for frame in frames:
            if frame in boxes:
                single.append((len(single) + 1, cls, {frame: boxes[frame]}))
    return single


def video_folder(root: Path, first: int, last: int) -> Path:
    """A CDnet video folder for boxes: its temporal ROI is all it needs."""
    root.mkdir(parents=True)
    (root / "temporalROI.txt").write_text(f"{first} {last}")
    return root


def boxes_project(tmp_path: Path, gt: Path, det: Path, dataset: Path | None) -> Project:
    return Project(
        "boxes",
        dataset=dataset,
        boxes_groundtruth=gt,
        detectors=(DetectorSource("det", boxes=det),),
    )


def counts(totals: BoxTotals) -> tuple[int, int, int, int, int, int]:
    return (totals.frames, totals.n_gt, totals.n_det, totals.tp, totals.false_positives,
            totals.misses)  # fmt: skip


def video(evaluation: BoxEvaluation, name: str) -> VideoBoxResult:
    return next(v for v in evaluation.videos if v.name == name)


@pytest.fixture()
def liris_project(tmp_path: Path) -> Project:
    """lab/room and lab/hall; the project records frames 1, 3 and 7 of lab/room only."""
    dataset = tmp_path / "data"
    video_folder(dataset / "lab" / "room", *ROOM_ROI)
    video_folder(dataset / "lab" / "hall", *HALL_ROI)
    gt = tmp_path / "gt.xml"
    gt.write_text(liris({"lab_room": ROOM_GT, "lab_hall": HALL_GT}), encoding="utf-8")
    det = tmp_path / "det.xml"
    det.write_text(liris({"lab_room": ROOM_DET, "lab_hall": HALL_DET}), encoding="utf-8")
    return with_annotated(boxes_project(tmp_path, gt, det, dataset), "lab/room", ROOM_RECORD)


def test_a_partly_annotated_liris_video_counts_its_annotated_frames_only(
    liris_project: Project, tmp_path: Path
) -> None:
    result = run_boxes(liris_project)
    room = video(result.evaluations["det"], "lab_room")
    # By hand, frame 3: GT 1 on det 1 (IoU 1), a TP; frame 7: GT 2 on det 2 (IoU 0.5), a TP,
    # GT 1 unmatched (a miss) and det 1 far away (a FP). Frame 1 is outside the ROI.
    assert counts(room.totals) == (2, 3, 3, 2, 1, 1)
    assert [f.frame for f in room.frames] == list(ROOM_KEPT)
    assert room.totals.moda.value == pytest.approx(1 - 2 / 3)
    # FDA: frame 3 1 / 1 = 1; frame 7 0.5 / 2 (the far pair has IoU 0 and is not mapped).
    assert room.totals.sfda.value == pytest.approx((1 + 0.25) / 2)

    # The same as an ordinary evaluation of files restricted by hand.
    gt, det = tmp_path / "gt-kept.xml", tmp_path / "det-kept.xml"
    gt.write_text(
        liris({"lab_room": kept_only(ROOM_GT, ROOM_KEPT), "lab_hall": HALL_GT}), encoding="utf-8"
    )
    det.write_text(
        liris({"lab_room": kept_only(ROOM_DET, ROOM_KEPT), "lab_hall": HALL_DET}), encoding="utf-8"
    )
    by_hand = run_boxes(boxes_project(tmp_path, gt, det, None)).evaluations["det"]
    ours = result.evaluations["det"]
    assert counts(room.totals) == counts(video(by_hand, "lab_room").totals)
    assert counts(ours.overall) == counts(by_hand.overall)
    assert ours.overall.sfda.value == pytest.approx(by_hand.overall.sfda.value)

    assert set(result.annotated_only) == {"lab_room"}
    frames = result.annotated_only["lab_room"]
    assert (frames.video, tuple(frames.frames), frames.of) == ("lab/room", ROOM_KEPT, 8)


def test_a_video_without_a_record_is_evaluated_on_all_its_frames(
    liris_project: Project, tmp_path: Path
) -> None:
    hall = video(run_boxes(liris_project).evaluations["det"], "lab_hall")
    # By hand: frames 1–5 a TP each; frames 6–10 a miss and a FP each.
    assert counts(hall.totals) == (10, 10, 10, 5, 5, 5)
    unrecorded = run_boxes(dataclasses.replace(liris_project, annotated=()))
    assert unrecorded.annotated_only == {}
    assert counts(video(unrecorded.evaluations["det"], "lab_hall").totals) == counts(hall.totals)
    # Room without a record: all ten frames, as worked out frame by frame.
    room = video(unrecorded.evaluations["det"], "lab_room")
    assert counts(room.totals) == (10, 14, 14, 7, 7, 7)
    # A record covering the whole temporal ROI is no restriction either.
    full = with_annotated(liris_project, "lab/room", range(ROOM_ROI[0], ROOM_ROI[1] + 1))
    assert run_boxes(full).annotated_only == {}
    everything = video(run_boxes(full).evaluations["det"], "lab_room")
    assert counts(everything.totals) == counts(room.totals)


def mot(path: Path, rows: list[tuple[int, int, Box]]) -> Path:
    path.write_text(
        "".join(f"{f},{i},{x},{y},{w},{h},1,-1,-1,-1\n" for f, i, (x, y, w, h) in rows),
        encoding="utf-8",
    )
    return path


MOT_GT = [(f, 1, (0, 0, 10, 10)) for f in range(1, 6)] + [(3, 2, (40, 40, 10, 10))]
MOT_DET = [(f, 7, (0, 0, 10, 10)) for f in (1, 2, 3)] + [(4, 8, (0, 0, 4, 10))]  # IoU 0.4


def test_a_motchallenge_sequence_pairs_with_the_projects_only_video(tmp_path: Path) -> None:
    cam = video_folder(tmp_path / "data" / "cam", 1, 5)
    kept = (2, 4)
    gt, det = mot(tmp_path / "gt.txt", MOT_GT), mot(tmp_path / "det.txt", MOT_DET)
    project = with_annotated(boxes_project(tmp_path, gt, det, cam), "cam", kept)
    result = run_boxes(project)
    [sequence] = result.evaluations["det"].videos
    # By hand, frame 2: a TP; frame 4: the pair's IoU 0.4 is below 0.5, a miss and a FP.
    assert counts(sequence.totals) == (2, 2, 2, 1, 1, 1)
    assert tuple(result.annotated_only["gt"].frames) == kept
    assert result.annotated_only["gt"].of == 5

    gt_kept = mot(tmp_path / "gt-kept.txt", [r for r in MOT_GT if r[0] in kept])
    det_kept = mot(tmp_path / "det-kept.txt", [r for r in MOT_DET if r[0] in kept])
    by_hand = run_boxes(boxes_project(tmp_path, gt_kept, det_kept, None)).evaluations["det"]
    assert counts(sequence.totals) == counts(by_hand.overall)

    # With two videos in the dataset, the file pairs with neither: every frame counts.
    video_folder(tmp_path / "data2" / "cam", 1, 5)
    video_folder(tmp_path / "data2" / "yard", 1, 5)
    two = dataclasses.replace(project, dataset=tmp_path / "data2")
    everything = run_boxes(two)
    assert everything.annotated_only == {}
    # Frames 1–3: 3 TP, frame 3's second GT box a miss; frame 4 a miss and a FP; frame 5 a miss.
    assert counts(everything.evaluations["det"].overall) == (5, 6, 4, 3, 1, 3)


def test_the_command_line_says_which_videos_were_restricted(
    liris_project: Project, tmp_path: Path
) -> None:
    file = write_project(liris_project, tmp_path / "p.referee.json").file
    assert file is not None
    out = tmp_path / "boxes.json"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "referee.core.cli",
            "boxes",
            str(liris_project.boxes_groundtruth),
            str(liris_project.detectors[0].boxes),
            "--project",
            str(file),
            "--json",
            str(out),
            "--quiet",
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    room = next(line for line in lines if line.startswith("lab_room "))
    assert room.split()[1:7] == ["2", "3", "3", "2", "1", "1"]
    assert "lab_room (video lab/room): evaluated on 2 annotated frames of 8" in run.stdout
    assert "lab_hall" in run.stdout and "lab_hall (video" not in run.stdout
    data = json.loads(out.read_text(encoding="utf-8"))
    by_name = {v["name"]: v for v in data["videos"]}
    assert by_name["lab_room"]["annotated_only"] == {
        "video": "lab/room",
        "frames": 2,
        "of": 8,
        "runs": [[3, 3], [7, 7]],
    }
    assert by_name["lab_hall"]["annotated_only"] is None
    assert by_name["lab_room"]["totals"]["tp"] == 2

    # Without --project, every frame counts and nothing is said.
    plain = subprocess.run(
        [
            sys.executable,
            "-m",
            "referee.core.cli",
            "boxes",
            str(liris_project.boxes_groundtruth),
            str(liris_project.detectors[0].boxes),
            "--quiet",
        ],
        capture_output=True,
        text=True,
    )
    assert plain.returncode == 0, plain.stderr
    assert "annotated" not in plain.stdout
    room = next(line for line in plain.stdout.splitlines() if line.startswith("lab_room "))
    assert room.split()[1:7] == ["10", "14", "14", "7", "7", "7"]


def test_the_report_says_which_videos_were_restricted(liris_project: Project) -> None:
    result: BoxesResult = run_boxes(liris_project)
    section = boxes_section(ReportResults(boxes=result))
    assert section is not None
    texts = [block.text for block in section.blocks if isinstance(block, Paragraph)]
    assert any(
        "lab_room (video lab/room) is evaluated on 2 annotated frames of 8" in text
        and "lab_hall" not in text
        for text in texts
    )
    unrecorded = run_boxes(dataclasses.replace(liris_project, annotated=()))
    plain = boxes_section(ReportResults(boxes=unrecorded))
    assert plain is not None
    assert not any("annotated" in b.text for b in plain.blocks if isinstance(b, Paragraph))
