"""``referee boxes`` on MOTChallenge benchmark folders (docs/measures.md §5): the layout,
the ground-truth rules, the IoU rule, and TrackEval's counts on the same folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import trackeval

from referee.core.cli.main import main
from referee.core.formats.project_json import write_project
from referee.core.measures.box_rules import MAP_THEN_THRESHOLD, THRESHOLD_THEN_MAP
from referee.core.measures.boxes import FrameBoxes, evaluate_frame
from referee.core.model.project import DetectorSource, Project

SPLIT = "MOT17-train"
#: Ground-truth rows ``frame,id,x,y,w,h,consider,class,visibility`` per sequence, and each
#: sequence's length. Track ids of the trackers are never reused, so TrackEval's
#: preference for continuing a track never changes its matching.
GROUNDTRUTH: dict[str, tuple[int, list[str]]] = {
    "SEQ-A": (
        5,
        [
            "1,1,0,0,10,10,1,1,1",  # matched by both trackers (IoU 1)
            "1,2,100,0,10,10,1,1,1",  # missed by both
            "2,3,0,0,10,10,0,1,1",  # pedestrian with consider flag 0
            "2,4,50,0,10,10,0,7,1",  # static person: a distractor
            "2,5,200,0,10,10,0,3,1",  # car: not counted, not a distractor
            "3,6,0,0,10,10,1,1,1",  # A's detection at IoU exactly 0.5
            "3,7,100,0,100,100,1,1,1",  # A's detection at IoU 0.49
        ],
    ),
    # Frame 1: ground truth G1 = [50, 150), G2 = [65, 165) (x extents, height 100 alike);
    # A's detections D1 = [45, 145), D2 = [25, 125): IoU(G1,D1) = 95/105 = 0.905,
    # IoU(G1,D2) = 75/125 = 0.6, IoU(G2,D1) = 80/120 = 0.667, IoU(G2,D2) = 60/140 = 0.429.
    # Mapping by IoU: G1-D1 + G2-D2 (1.334 > 1.267), one pair below 0.5; the pairs at or
    # above 0.5 alone: G1-D2 + G2-D1.
    "SEQ-B": (
        4,
        ["1,1,50,0,100,100,1,1,1", "1,2,65,0,100,100,1,1,1", "2,3,0,0,100,100,1,1,1"],
    ),
    # The same boxes, G1 now a distractor (class 8, consider 0): the assignment at IoU >= 0.5
    # is G1-D2 + G2-D1, so D2 is removed and D1 is a true positive of G2.
    "SEQ-C": (3, ["2,1,50,0,100,100,0,8,1", "2,2,65,0,100,100,1,1,1"]),
}
TRACKERS: dict[str, dict[str, list[str]]] = {
    "A": {
        "SEQ-A": [
            "1,1,0,0,10,10",
            "2,2,0,0,10,10",  # on the pedestrian with consider flag 0: a false positive
            "2,3,50,0,10,10",  # on the static person: removed
            "2,4,200,0,10,10",  # on the car: a false positive
            "3,5,0,0,10,5",  # IoU 50/100 = 0.5: a true positive
            "3,6,100,0,100,49",  # IoU 0.49: a false positive and a miss
            "5,7,500,500,5,5",  # nothing there: a false positive
        ],
        "SEQ-B": ["1,1,45,0,100,100", "1,2,25,0,100,100", "2,3,0,0,100,100"],
        "SEQ-C": ["2,1,45,0,100,100", "2,2,25,0,100,100"],
    },
    "B": {
        "SEQ-A": [
            "1,1,0,0,10,10",
            "2,2,52,0,10,10",  # IoU 80/120 with the static person: removed
            "2,3,56,0,10,10",  # IoU 40/160 with it: a false positive
        ],
        "SEQ-B": ["1,1,45,0,100,100", "3,2,0,0,1,1"],
        "SEQ-C": [],
    },
}
MOT17_RULES = ["--gt-min-conf", "0.5", "--mot-classes", "mot17"]
THRESHOLD_FIRST = ["--iou-rule", "threshold-then-map"]


def _write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def _benchmark(root: Path) -> tuple[Path, Path]:
    """TrackEval's layout: ``gt/seqmaps``, ``gt/MOT17-train/<seq>``,
    ``trackers/MOT17-train/<tracker>/data``; the two folders."""
    gt, trackers = root / "gt", root / "trackers"
    _write(gt / "seqmaps" / f"{SPLIT}.txt", ["name", *GROUNDTRUTH])
    for sequence, (length, rows) in GROUNDTRUTH.items():
        folder = gt / SPLIT / sequence
        _write(folder / "gt" / "gt.txt", rows)
        _write(folder / "seqinfo.ini", ["[Sequence]", f"name={sequence}", f"seqLength={length}"])
    for tracker, files in TRACKERS.items():
        for sequence, rows in files.items():
            data = trackers / SPLIT / tracker / "data" / f"{sequence}.txt"
            _write(data, [f"{row},0.9,-1,-1,-1" for row in rows])
    return gt, trackers


def _json(gt: Path, det: Path, out: Path, *options: str) -> dict:
    assert main(["boxes", str(gt), str(det), "--quiet", "--json", str(out), *options]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def _counts(totals: dict) -> tuple[int, int, int]:
    return totals["tp"], totals["fp"], totals["misses"]


def trackeval_results(
    gt: Path, trackers: Path, output: Path, metrics: list, benchmark: str = "MOT17"
) -> dict[str, dict[str, dict]]:
    """TrackEval's ``metrics`` on the folders: tracker → sequence (and COMBINED_SEQ) →
    metric → fields."""
    evaluator = trackeval.Evaluator(
        {
            "USE_PARALLEL": False,
            "PRINT_RESULTS": False,
            "PRINT_CONFIG": False,
            "TIME_PROGRESS": False,
            "OUTPUT_SUMMARY": False,
            "OUTPUT_DETAILED": False,
            "PLOT_CURVES": False,
            "LOG_ON_ERROR": None,
        }
    )
    dataset = trackeval.datasets.MotChallenge2DBox(
        {
            "GT_FOLDER": str(gt),
            "TRACKERS_FOLDER": str(trackers),
            "OUTPUT_FOLDER": str(output),
            "BENCHMARK": benchmark,
            "SPLIT_TO_EVAL": "train",
            "PRINT_CONFIG": False,
        }
    )
    results, _ = evaluator.evaluate([dataset], metrics)
    return {
        tracker: {seq: fields["pedestrian"] for seq, fields in sequences.items()}
        for tracker, sequences in results["MotChallenge2DBox"].items()
    }


def _trackeval(gt: Path, trackers: Path, output: Path) -> dict[str, dict[str, dict]]:
    """TrackEval's CLEAR on the folders: tracker → sequence (and COMBINED_SEQ) → fields."""
    clear = trackeval.metrics.CLEAR({"THRESHOLD": 0.5, "PRINT_CONFIG": False})
    found = trackeval_results(gt, trackers, output, [clear])
    return {
        tracker: {seq: fields["CLEAR"] for seq, fields in sequences.items()}
        for tracker, sequences in found.items()
    }


def test_counts_and_moda_are_trackevals(tmp_path: Path) -> None:
    gt, trackers = _benchmark(tmp_path)
    ours = _json(gt, trackers, tmp_path / "b.json", *MOT17_RULES, *THRESHOLD_FIRST)
    theirs = _trackeval(gt, trackers, tmp_path / "trackeval")
    assert [t["name"] for t in ours["trackers"]] == ["A", "B"]
    for tracker in ours["trackers"]:
        clear = theirs[tracker["name"]]
        rows = [(v["name"], v["totals"]) for v in tracker["videos"]]
        rows.append(("COMBINED_SEQ", tracker["overall"]))
        for name, totals in rows:
            expected = clear[name]
            assert _counts(totals) == (
                expected["CLR_TP"],
                expected["CLR_FP"],
                expected["CLR_FN"],
            ), (tracker["name"], name)
            assert totals["moda"]["value"] == pytest.approx(expected["MODA"], abs=1e-12)


def test_hand_worked_rules_and_pooling(tmp_path: Path) -> None:
    gt, trackers = _benchmark(tmp_path)
    data = _json(gt, trackers, tmp_path / "b.json", *MOT17_RULES, *THRESHOLD_FIRST)
    a = data["trackers"][0]
    seq_a, seq_b, seq_c = (v["totals"] for v in a["videos"])
    # SEQ-A: pedestrians 1, 2, 6, 7 counted (3 rows set aside); the detection on the static
    # person removed; on the zero-marked pedestrian and on the car: false positives.
    assert (seq_a["gt_boxes"], seq_a["det_boxes"]) == (4, 6)
    assert _counts(seq_a) == (2, 4, 2)
    assert (seq_a["gt_ignored"], seq_a["det_removed"]) == (3, 1)
    # SEQ-B: G1-D2, G2-D1 and frame 2's pair.
    assert _counts(seq_b) == (3, 0, 0)
    # SEQ-C: D2 removed by the distractor's assignment, D1 a true positive.
    assert _counts(seq_c) == (1, 0, 0)
    assert (seq_c["gt_ignored"], seq_c["det_removed"]) == (1, 1)
    # Pooled: counts summed, MODA = 1 - (2 + 4) / 8; SFDA = mean FDA over the 7 frames.
    assert _counts(a["overall"]) == (6, 4, 2) and a["overall"]["gt_boxes"] == 8
    assert a["overall"]["moda"]["value"] == pytest.approx(0.25)
    # FDAs: SEQ-A 1/1.5, 0/1, (0.5 + 0.49)/2, 0/0.5; SEQ-B (0.905 + 0.429)/2 (IoU mapping), 1;
    # SEQ-C 0.667/1 (D2 removed).
    fdas = [2 / 3, 0, 0.495, 0, (95 / 105 + 60 / 140) / 2, 1, 80 / 120]
    assert a["overall"]["sfda"]["value"] == pytest.approx(sum(fdas) / 7)
    b = data["trackers"][1]
    # B, SEQ-A: 52 is removed (IoU 0.667 with the static person), 56 stays (0.25).
    assert _counts(b["videos"][0]["totals"]) == (1, 1, 3)
    assert _counts(b["overall"]) == (2, 2, 6)


def test_iou_rules_on_one_frame() -> None:
    # SEQ-B's first frame (see GROUNDTRUTH).
    gt = FrameBoxes(np.array([[50, 0, 100, 100], [65, 0, 100, 100]]))
    det = FrameBoxes(np.array([[45, 0, 100, 100], [25, 0, 100, 100]]))
    after = evaluate_frame(1, gt, det, 0.5, "hungarian", iou_rule="map-then-threshold")
    assert [p[:2] for p in after.mapped] == [(0, 0), (1, 1)]
    assert [p[:2] for p in after.tp] == [(0, 0)]
    assert (after.misses, after.false_positives) == ((1,), (1,))
    before = evaluate_frame(1, gt, det, 0.5, "hungarian", iou_rule="threshold-then-map")
    assert [p[:2] for p in before.tp] == [(0, 1), (1, 0)]
    assert (before.misses, before.false_positives) == ((), ())
    assert before.fda == after.fda == pytest.approx((95 / 105 + 60 / 140) / 2)
    # Greedy takes G1-D1 first under both rules: one true positive.
    for rule in (MAP_THEN_THRESHOLD, THRESHOLD_THEN_MAP):
        greedy = evaluate_frame(1, gt, det, 0.5, "greedy", iou_rule=rule)
        assert [p[:2] for p in greedy.tp] == [(0, 0)]


def test_each_rule_alone(tmp_path: Path) -> None:
    gt, trackers = _benchmark(tmp_path)
    options = ["--trackers", "A", "--seqmap", SPLIT, "--benchmark", "none"]
    # The consider flag alone: every detection stays; the three flagged rows are set aside.
    flag = _json(gt, trackers, tmp_path / "f.json", "--gt-min-conf", "0.5", *options)
    seq_a = flag["trackers"][0]["videos"][0]["totals"]
    assert _counts(seq_a) == (2, 5, 2)
    assert (seq_a["gt_ignored"], seq_a["det_removed"]) == (3, 0)
    # The classes alone: the zero-marked pedestrian counts (and is found), the car does not.
    classes = _json(gt, trackers, tmp_path / "c.json", "--mot-classes", "mot17", *options)
    seq_a = classes["trackers"][0]["videos"][0]["totals"]
    assert _counts(seq_a) == (3, 3, 2)
    assert (seq_a["gt_ignored"], seq_a["det_removed"]) == (2, 1)
    # Neither: every row counts; frame 2's three detections are true positives.
    plain = _json(gt, trackers, tmp_path / "p.json", *options)
    seq_a = plain["trackers"][0]["videos"][0]["totals"]
    assert _counts(seq_a) == (5, 2, 2) and seq_a["gt_boxes"] == 7


def test_the_two_iou_rules_are_named_and_differ(tmp_path: Path, capsys) -> None:
    gt, trackers = _benchmark(tmp_path)
    csv = tmp_path / "b.csv"
    unruled = ["--benchmark", "none"]
    assert main(["boxes", str(gt), str(trackers), "--quiet", "--csv", str(csv), *unruled]) == 0
    text = capsys.readouterr().out
    assert "IoU rule map-then-threshold" in text
    assert "Tracker A:" in text and "Tracker B:" in text
    assert "All sequences pooled, trackers side by side:" in text
    lines = csv.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("tracker,video,frames,") and lines[0].endswith(",iou_rule")
    seq_b = next(line.split(",") for line in lines if line.startswith("A,SEQ-B,"))
    # G1-D1 a true positive, G2-D2 (0.429) a miss and a false positive.
    assert seq_b[5:8] == ["2", "1", "1"] and seq_b[-1] == "map-then-threshold"
    data = _json(gt, trackers, tmp_path / "t.json", *THRESHOLD_FIRST)
    assert data["format"] == "referee-boxes-benchmark"
    assert data["parameters"]["iou_rule"] == "threshold-then-map"
    assert _counts(data["trackers"][0]["videos"][1]["totals"]) == (3, 0, 0)
    assert data["benchmark"]["sequences"] == list(GROUNDTRUTH)


def test_layout_variants_read_alike(tmp_path: Path) -> None:
    gt, trackers = _benchmark(tmp_path / "trackeval")
    reference = _json(gt, trackers, tmp_path / "r.json", *MOT17_RULES)
    # No split level, seqmap beside; a tracker's files without data/; one tracker's folder.
    flat = tmp_path / "flat"
    shutil.copytree(gt / SPLIT, flat / "bench")
    shutil.copytree(gt / "seqmaps", flat / "bench" / "seqmaps")
    shutil.copytree(trackers / SPLIT / "A" / "data", flat / "A")
    one = _json(flat / "bench", flat / "A", tmp_path / "one.json", *MOT17_RULES)
    assert [t["name"] for t in one["trackers"]] == ["A"]
    assert one["trackers"][0]["videos"] == reference["trackers"][0]["videos"]
    # The split folder given as GT: its seqmap is ../seqmaps/<split>.txt.
    split = _json(gt / SPLIT, trackers / SPLIT, tmp_path / "s.json", *MOT17_RULES)
    assert split["trackers"] == reference["trackers"]
    # --trackers chooses and orders.
    chosen = _json(gt, trackers, tmp_path / "c.json", "--trackers", "B", "A", *MOT17_RULES)
    assert [t["name"] for t in chosen["trackers"]] == ["B", "A"]


def _error(capsys, *argv: str) -> str:
    assert main(["boxes", *argv, "--quiet"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_missing_files_are_named(tmp_path: Path, capsys) -> None:
    gt, trackers = _benchmark(tmp_path)
    (trackers / SPLIT / "B" / "data" / "SEQ-B.txt").unlink()
    missing = trackers / SPLIT / "B" / "data" / "SEQ-B.txt"
    assert _error(capsys, str(gt), str(trackers)).startswith(f"referee: error: {missing}: no such")
    (gt / SPLIT / "SEQ-C" / "gt" / "gt.txt").unlink()
    message = _error(capsys, str(gt), str(trackers), "--trackers", "A")
    assert message.startswith(f"referee: error: {gt / SPLIT / 'SEQ-C' / 'gt' / 'gt.txt'}: ")
    assert "'SEQ-C'" in message
    (gt / "seqmaps" / f"{SPLIT}.txt").unlink()
    message = _error(capsys, str(gt), str(trackers))
    assert message.startswith(f"referee: error: {gt / 'seqmaps'}: no seqmap")
    message = _error(capsys, str(gt), str(trackers), "--seqmap", "MOT17-test")
    assert message.startswith(f"referee: error: {gt / 'seqmaps' / 'MOT17-test.txt'}: ")


def test_malformed_benchmark_files_are_named(tmp_path: Path, capsys) -> None:
    gt, trackers = _benchmark(tmp_path)
    seqmap = gt / "seqmaps" / f"{SPLIT}.txt"
    _write(seqmap, ["SEQ-A", "SEQ-B"])
    assert "line 1: 'SEQ-A' where the header 'name'" in _error(capsys, str(gt), str(trackers))
    _write(seqmap, ["name", "SEQ-A"])
    _write(gt / "seqmaps" / "MOT17-all.txt", ["name", "SEQ-A"])
    assert "holds several seqmaps (MOT17-all, MOT17-train)" in _error(
        capsys, str(gt), str(trackers)
    )
    # A frame beyond seqLength (5), and a class that MOTChallenge does not define.
    _write(trackers / SPLIT / "A" / "data" / "SEQ-A.txt", ["6,1,0,0,10,10,0.9,-1,-1,-1"])
    message = _error(capsys, str(gt), str(trackers), "--seqmap", SPLIT, "--trackers", "A")
    assert "SEQ-A.txt: line 1: frame 6 is beyond the 5 frames" in message
    _write(gt / SPLIT / "SEQ-A" / "gt" / "gt.txt", ["1,1,0,0,10,10,1,14,1"])
    message = _error(capsys, str(gt), str(trackers), "--seqmap", SPLIT, "--mot-classes", "mot17")
    assert "gt.txt: line 1: class is '14', not a MOTChallenge class (1 to 13)" in message
    message = _error(capsys, str(gt), str(trackers), "--seqmap", SPLIT, "--trackers", "C")
    assert message.endswith(f"{trackers / SPLIT / 'C'}: no such tracker folder")


def test_rules_on_one_motchallenge_file(tmp_path: Path, capsys) -> None:
    # The rules apply to a single gt.txt too; the classes need its 8th column.
    _, rows = GROUNDTRUTH["SEQ-A"]
    gt = _write(tmp_path / "gt.txt", rows)
    det = _write(tmp_path / "a.txt", [f"{r},0.9" for r in TRACKERS["A"]["SEQ-A"]])
    data = _json(gt, det, tmp_path / "b.json", *MOT17_RULES)
    assert data["format"] == "referee-boxes"
    assert _counts(data["overall"]) == (2, 4, 2)
    assert (data["overall"]["gt_ignored"], data["overall"]["det_removed"]) == (3, 1)
    short = _write(tmp_path / "short.txt", ["1,1,0,0,10,10,1"])
    message = _error(capsys, str(short), str(det), "--mot-classes", "mot17")
    assert "short.txt: line 1: 7 columns, but the MOTChallenge class rules read the class" in (
        message
    )
    assert "--trackers chooses among" in _error(capsys, str(gt), str(det), "--trackers", "A")


def test_the_report_of_a_benchmark_project_ranks_the_trackers_files(tmp_path: Path) -> None:
    from tests.core.tracks_folder import SPLIT as TRACKS_SPLIT
    from tests.core.tracks_folder import TRACKERS as TRACK_NAMES
    from tests.core.tracks_folder import random_tracks, write_benchmark

    gt, trackers = write_benchmark(tmp_path, random_tracks(2, 40, 5), 40)
    detectors = tuple(
        DetectorSource(name, boxes=trackers / TRACKS_SPLIT / name / "data") for name in TRACK_NAMES
    )
    project = tmp_path / "mot.referee.json"
    write_project(Project("mot", boxes_groundtruth=gt, detectors=detectors), project)
    out = tmp_path / "report.json"
    # The trackers' data folders hold .txt files: read alone they would be taken for YOLO.
    assert main(["report", str(project), "--json", str(out)]) == 0
    sections = {s["key"]: s for s in json.loads(out.read_text(encoding="utf-8"))["sections"]}
    [table] = [b for b in sections["annotate"]["blocks"] if b.get("table") == "annotate-next"]
    ranked = {(video, frame) for _rank, video, frame, _score in table["rows"]}
    assert {video for video, _frame in ranked} == {"SEQ-0", "SEQ-1"}
    assert all(1 <= frame <= 40 for _video, frame in ranked)
