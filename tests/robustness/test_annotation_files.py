"""The catalogue of bad inputs: annotation and result text files (LIRIS XML, MOTChallenge
CSV, counts CSV, project JSON, confusion-matrix CSV, stats.txt, weights, per-case scores)
and the box and action matching they feed.

Each case writes or copies (from the demo) a small valid file, breaks one thing and runs
``referee`` as a user would. Expected values are worked out by hand in the comments.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path

import pytest

from referee.core.demo.dataset import DemoLayout
from referee.core.limits import MAX_BOXES_PER_FRAME, MAX_FRAME_NUMBER, MAX_XML_FILE_BYTES
from tests.robustness.conftest import Outcome, assert_refused, run_referee

#: Peak memory of a run that refuses a file early or reads a few boxes (the interpreter,
#: numpy and OpenCV take about 150 MiB); a run over every frame number up to 2**31 took GBs.
LOW_MEMORY_MIB = 600
#: A run that reads a few hundred lines takes well under this; more means it hangs.
HANG_SECONDS = 60
BIG_FRAME = 2**31 - 1


def liris(*videos: tuple[str, list[tuple[int, int, list[tuple[int, ...]]]]]) -> str:
    """A LIRIS document: videos of ``(nr, class, [(x, y, w, h, frame), ...])`` actions, one
    element per line (so that line numbers in messages can be checked)."""
    lines = ["<tagset>"]
    for name, actions in videos:
        lines += ["<video>", f"<videoName>{name}</videoName>"]
        for nr, action_class, boxes in actions:
            lines.append(f'<action nr="{nr}" class="{action_class}">')
            lines += [
                f'<bbox x="{x}" y="{y}" width="{w}" height="{h}" framenr="{f}"/>'
                for x, y, w, h, f in boxes
            ]
            lines.append("</action>")
        lines.append("</video>")
    return "\n".join([*lines, "</tagset>"]) + "\n"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def succeeded(outcome: Outcome) -> Outcome:
    assert not outcome.timed_out, "hung"
    assert outcome.status == 0 and "Traceback" not in outcome.stderr, outcome.stderr
    return outcome


def csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


# --------------------------------------------------------------------------- frame numbers


def test_a_liris_frame_number_of_2_31_is_refused_by_rank_without_using_memory(
    tmp_path: Path,
) -> None:
    # The reported file: valid by the schema; `rank` used to score every frame from 1 to
    # 2**31 - 1 and grew to 22 GB. The box is on line 5 of the document.
    far = write(tmp_path / "far.xml", liris(("v", [(1, 3, [(1, 1, 5, 5, BIG_FRAME)])])))
    near = write(tmp_path / "near.xml", liris(("v", [(1, 3, [(1, 1, 5, 5, 1)])])))
    outcome = run_referee("rank", near, far, "--quiet", timeout=HANG_SECONDS)
    assert_refused(outcome, far, "line 5", "video 'v'", "action 1", "2,147,483,647")
    assert "MAX_FRAME_NUMBER" in outcome.stderr
    assert outcome.peak_rss_mib < LOW_MEMORY_MIB


@pytest.mark.parametrize("command", ["actions", "boxes"])
def test_a_liris_frame_number_beyond_the_limit_is_refused_by_every_command(
    tmp_path: Path, command: str
) -> None:
    over = write(
        tmp_path / "over.xml", liris(("v", [(1, 3, [(1, 1, 5, 5, MAX_FRAME_NUMBER + 1)])]))
    )
    ok = write(tmp_path / "ok.xml", liris(("v", [(1, 3, [(1, 1, 5, 5, 1)])])))
    assert_refused(run_referee(command, ok, over, "--quiet"), over, "line 5", "framenr")


def test_rank_scores_the_frames_with_boxes_not_the_span_between_them(tmp_path: Path) -> None:
    # A has the box (0, 0, 10, 10) on frames 1 and MAX_FRAME_NUMBER, B (5, 0, 10, 10) on
    # frame 1. Frame 1: IoU = 50 / 150 = 1/3, FDA = (1/3) / ((1 + 1) / 2), score 1 - 1/3.
    # Frame MAX_FRAME_NUMBER: only A has a box, FDA 0, score 1. Frames in between have no
    # box on either side: they are not scored (they would score 0).
    a = write(tmp_path / "a.csv", f"1,1,0,0,10,10,1\n{MAX_FRAME_NUMBER},1,0,0,10,10,1\n")
    b = write(tmp_path / "b.csv", "1,7,5,0,10,10,1\n")
    listing = tmp_path / "rank.csv"
    outcome = succeeded(
        run_referee("rank", a, b, "--csv", listing, "--quiet", timeout=HANG_SECONDS)
    )
    assert outcome.peak_rss_mib < LOW_MEMORY_MIB
    rows = csv_rows(listing)
    assert [(int(r["rank"]), int(r["frame"])) for r in rows] == [(1, MAX_FRAME_NUMBER), (2, 1)]
    assert [float(r["score"]) for r in rows] == pytest.approx([1.0, 2 / 3])
    assert "2 frames scored" in outcome.stdout


def test_rank_by_classes_scores_the_frames_covered_by_actions(tmp_path: Path) -> None:
    # A: class 3 on frames 1-2 and class 5 on frame MAX_FRAME_NUMBER; B: class 3 on frame 1.
    # Frame 1: {3} and {3}, score 1 - 1/1 = 0; frame 2: {3} and {}, score 1; frame
    # MAX_FRAME_NUMBER: {5} and {}, score 1. Ties by frame number: 2 first.
    a = write(
        tmp_path / "a.xml",
        liris(
            (
                "v",
                [
                    (1, 3, [(0, 0, 9, 9, 1), (0, 0, 9, 9, 2)]),
                    (2, 5, [(0, 0, 9, 9, MAX_FRAME_NUMBER)]),
                ],
            )
        ),
    )
    b = write(tmp_path / "b.xml", liris(("v", [(1, 3, [(0, 0, 9, 9, 1)])])))
    listing = tmp_path / "rank.csv"
    outcome = run_referee(
        "rank", a, b, "--criterion", "classes", "--gap", "0", "--csv", listing, "--quiet"
    )
    assert succeeded(outcome).peak_rss_mib < LOW_MEMORY_MIB
    rows = csv_rows(listing)
    assert [int(r["frame"]) for r in rows] == [2, MAX_FRAME_NUMBER, 1]
    assert [float(r["score"]) for r in rows] == [1.0, 1.0, 0.0]


@pytest.mark.parametrize(
    ("kind", "cell"),
    [
        ("mot", "2e9"),
        ("mot", "1e300"),
        ("mot", "99999999999999999999999"),
        ("counts", "2000000000"),
        ("counts", "99999999999999999999999"),
    ],
)
def test_frame_numbers_beyond_the_limit_or_64_bits_are_refused(
    tmp_path: Path, demo: DemoLayout, kind: str, cell: str
) -> None:
    if kind == "mot":
        good = write(tmp_path / "good.csv", "1,1,0,0,10,10,1\n")
        bad = write(tmp_path / "bad.csv", f"1,1,0,0,10,10,1\n{cell},1,0,0,10,10,1\n")
        outcome = run_referee("boxes", good, bad, "--quiet")
    else:
        good = shutil.copy(demo.counts["baseline_street"]["groundtruth"], tmp_path / "gt.csv")
        bad = write(tmp_path / "bad.csv", f"frame,count\n{cell},0\n")
        outcome = run_referee("counts", good, bad, "--quiet")
    assert_refused(outcome, bad, "line 2", cell, "MAX_FRAME_NUMBER")


def test_a_count_beyond_64_bits_is_refused(tmp_path: Path, demo: DemoLayout) -> None:
    source = demo.counts["baseline_street"]["groundtruth"]
    lines = source.read_text(encoding="utf-8").splitlines()
    frame = lines[3].split(",")[0]
    lines[3] = f"{frame},{10**30}"
    bad = write(tmp_path / "est.csv", "\n".join(lines) + "\n")
    outcome = run_referee("counts", source, bad, "--quiet")
    assert_refused(outcome, bad, "line 4", "MAX_COUNT")


# --------------------------------------------------------------------------- MOTChallenge


def test_an_empty_detection_file_is_a_detector_that_found_nothing(tmp_path: Path) -> None:
    # Ground truth: one box on each of frames 1 and 2. No detection: 2 misses, no TP,
    # MODA = 1 - (2 + 0) / 2 = 0, SFDA = mean of FDA 0 and 0 = 0, N-MODP undefined.
    gt = write(tmp_path / "gt.csv", "1,1,0,0,10,10,1\n2,1,0,0,10,10,1\n")
    empty = write(tmp_path / "det.csv", "")
    out = tmp_path / "boxes.json"
    outcome = succeeded(run_referee("boxes", gt, empty, "--json", out, "--quiet"))
    (warning,) = outcome.stderr_lines
    assert warning.startswith("referee: warning: ") and str(empty) in warning
    overall = json.loads(out.read_text(encoding="utf-8"))["overall"]
    assert (overall["gt_boxes"], overall["det_boxes"], overall["tp"], overall["misses"]) == (
        2,
        0,
        0,
        2,
    )
    assert overall["moda"]["value"] == 0.0 and overall["sfda"]["value"] == 0.0
    assert overall["n_modp"]["value"] is None


def test_an_empty_ground_truth_file_leaves_moda_undefined(tmp_path: Path) -> None:
    # No ground-truth box: MODA divides by 0 and is undefined; the detection is an FP.
    header_only = write(tmp_path / "gt.csv", "frame,id,x,y,w,h,conf\n")
    det = write(tmp_path / "det.csv", "1,1,0,0,10,10,1\n")
    out = tmp_path / "boxes.json"
    outcome = succeeded(run_referee("boxes", header_only, det, "--json", out, "--quiet"))
    assert str(header_only) in outcome.stderr
    overall = json.loads(out.read_text(encoding="utf-8"))["overall"]
    assert (overall["fp"], overall["moda"]["value"]) == (1, None)


@pytest.mark.parametrize("cell", ["nan", "1_0", "١"])
def test_mot_numbers_are_plain_decimals(tmp_path: Path, cell: str) -> None:
    good = write(tmp_path / "good.csv", "1,1,0,0,10,10,1\n")
    bad = write(tmp_path / "bad.csv", f"1,1,0,0,10,10,1\n2,1,{cell},0,10,10,1\n")
    assert_refused(run_referee("boxes", good, bad, "--quiet"), bad, "line 2", "x is")


def test_a_mot_coordinate_beyond_the_limit_is_refused(tmp_path: Path) -> None:
    good = write(tmp_path / "good.csv", "1,1,0,0,10,10,1\n")
    bad = write(tmp_path / "bad.csv", "1,1,0,0,1e300,10,1\n")
    outcome = run_referee("rank", good, bad, "--quiet")
    assert_refused(outcome, bad, "line 1", "w is", "MAX_COORDINATE")


def test_a_repeated_id_on_a_frame_is_read_with_a_warning(tmp_path: Path) -> None:
    # Both rows are boxes: two GT boxes, one detection equal to the first: TP 1, miss 1.
    gt = write(tmp_path / "gt.csv", "1,4,0,0,10,10,1\n1,4,50,50,10,10,1\n")
    det = write(tmp_path / "det.csv", "1,1,0,0,10,10,1\n")
    out = tmp_path / "boxes.json"
    outcome = succeeded(run_referee("boxes", gt, det, "--json", out, "--quiet"))
    warning, tracking = outcome.stderr_lines
    assert str(gt) in warning and "line 2" in warning and "id 4" in warning
    assert "no tracking measures" in tracking and "identity 4" in tracking
    overall = json.loads(out.read_text(encoding="utf-8"))["overall"]
    assert (overall["gt_boxes"], overall["tp"], overall["misses"]) == (2, 1, 1)


def test_a_byte_order_mark_and_crlf_line_ends_read_as_the_plain_file(tmp_path: Path) -> None:
    text = "1,1,0,0,10,10,1\n2,1,0,0,10,10,1\n3,1,5,0,10,10,1\n"
    det = write(tmp_path / "det.csv", "1,1,0,0,10,10,1\n3,1,0,0,10,10,1\n")
    (tmp_path / "plain").mkdir()
    (tmp_path / "windows").mkdir()
    plain = write(tmp_path / "plain" / "gt.csv", text)
    windows = tmp_path / "windows" / "gt.csv"
    windows.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    first = succeeded(run_referee("boxes", plain, det, "--quiet")).stdout
    assert first == succeeded(run_referee("boxes", windows, det, "--quiet")).stdout
    # Frame 1: IoU 1, a TP; frame 2: a miss, FDA 0; frame 3: (5, 0, 10, 10) against
    # (0, 0, 10, 10), IoU 50/150 = 1/3 < 0.5: a miss and an FP, FDA 1/3. SFDA = (1 + 0 +
    # 1/3) / 3 = 0.4444, MODA = 1 - (2 + 1) / 3 = 0, N-MODP = 1 (the one TP).
    assert "0.4444  0.0000  1.0000" in first


# --------------------------------------------------------------------------- boxes per frame


@pytest.mark.parametrize("kind", ["mot", "liris"])
def test_more_boxes_on_one_frame_than_the_limit_are_refused(tmp_path: Path, kind: str) -> None:
    count = MAX_BOXES_PER_FRAME + 1
    if kind == "mot":
        bad = write(
            tmp_path / "crowd.csv",
            "".join(f"7,{k},{k % 100},{k // 100},5,5,1\n" for k in range(count)),
        )
        good = write(tmp_path / "one.csv", "7,1,0,0,5,5,1\n")
        where = f"line {count}"
    else:
        actions = [(k + 1, 3, [(k % 100, k // 100, 5, 5, 7)]) for k in range(count)]
        bad = write(tmp_path / "crowd.xml", liris(("v", actions)))
        good = write(tmp_path / "one.xml", liris(("v", [(1, 3, [(0, 0, 5, 5, 7)])])))
        where = f"action {count}"
    outcome = run_referee("boxes", good, bad, "--quiet")
    assert_refused(outcome, bad, "frame 7", f"{MAX_BOXES_PER_FRAME:,}", where)
    assert outcome.peak_rss_mib < LOW_MEMORY_MIB


def test_as_many_boxes_on_one_frame_as_the_limit_are_evaluated(tmp_path: Path) -> None:
    # MAX_BOXES_PER_FRAME disjoint 5x5 boxes on both sides, the same: every IoU on the
    # diagonal is 1, every other 0: all TP, SFDA = MODA = 1.
    rows = "".join(
        f"7,{k},{10 * (k % 100)},{10 * (k // 100)},5,5,1\n" for k in range(MAX_BOXES_PER_FRAME)
    )
    gt, det = write(tmp_path / "gt.csv", rows), write(tmp_path / "det.csv", rows)
    out = tmp_path / "boxes.json"
    outcome = succeeded(run_referee("boxes", gt, det, "--json", out, "--quiet"))
    overall = json.loads(out.read_text(encoding="utf-8"))["overall"]
    assert overall["tp"] == MAX_BOXES_PER_FRAME and overall["moda"]["value"] == 1.0
    assert outcome.peak_rss_mib < 2 * LOW_MEMORY_MIB


def test_thousands_of_actions_on_different_frames_are_matched_pair_by_pair(
    tmp_path: Path,
) -> None:
    # 20000 actions per side in one video, action k alone on frame k: the pairs that meet
    # are the 20000 (k, k), not 20000² (which took 6 GB). Each: GT (10, 10, 40, 80), DET
    # (15, 10, 40, 80), same class: ∩ = 35·80 = 2800 of 3200, all accepted at ε: R = P = 1;
    # I_sr: 0.875 > t for 9 of the 11 grid values, mean F = 9/11.
    n = 20_000
    gt = write(
        tmp_path / "gt.xml", liris(("v", [(k, 3, [(10, 10, 40, 80, k)]) for k in range(1, n + 1)]))
    )
    det = write(
        tmp_path / "det.xml", liris(("v", [(k, 3, [(15, 10, 40, 80, k)]) for k in range(1, n + 1)]))
    )
    out = tmp_path / "actions.json"
    outcome = succeeded(run_referee("actions", gt, det, "--json", out, "--quiet"))
    assert outcome.peak_rss_mib < LOW_MEMORY_MIB
    overall = json.loads(out.read_text(encoding="utf-8"))["overall"]
    assert overall["accepted"] == n and overall["at_epsilon"]["recall"]["value"] == 1
    assert overall["integrals"]["sr"]["value"] == pytest.approx(9 / 11)


def test_too_many_meeting_action_pairs_are_refused_naming_the_video(tmp_path: Path) -> None:
    # 2000 GT actions on frames 1-5 and 1000 one-frame detections on each of those frames:
    # 2000 · 5000 = 10,000,000 pairs share a frame, more than MAX_ACTION_PAIRS (2000²).
    gt = write(
        tmp_path / "gt.xml",
        liris(("v", [(k, 3, [(0, 0, 5, 5, f) for f in range(1, 6)]) for k in range(1, 2001)])),
    )
    det = write(
        tmp_path / "det.xml",
        liris(("v", [(k, 3, [(0, 0, 5, 5, 1 + (k - 1) // 1000)]) for k in range(1, 5001)])),
    )
    outcome = run_referee("actions", gt, det, "--quiet")
    assert_refused(outcome, "video 'v'", "10,000,000", "MAX_ACTION_PAIRS")
    assert outcome.peak_rss_mib < LOW_MEMORY_MIB


# --------------------------------------------------------------------------- coordinates


def test_large_coordinates_give_exact_overlaps(tmp_path: Path) -> None:
    # Video "far": GT (0, 0, 500000, 500000), DET (500000, 500000, 500000, 500000) on
    # frames 1-2: they only touch at a corner (half-open), no overlap: a miss and a false
    # alarm (in 32-bit arithmetic the areas 2.5e11 overflowed). Video "half": GT (0, 0,
    # 1e6, 1e6), DET (500000, 0, 500000, 1e6) on frames 1-3: ∩ = 3 · 5e11 = 1.5e12,
    # Area(g) = 3e12, Area(d) = 1.5e12: Dice = 3e12 / 4.5e12 = 2/3, spatial recall 0.5,
    # spatial precision 1, temporal recall and precision 1.
    m, h = 1_000_000, 500_000
    gt = write(
        tmp_path / "gt.xml",
        liris(
            ("far", [(1, 3, [(0, 0, h, h, f) for f in (1, 2)])]),
            ("half", [(1, 3, [(0, 0, m, m, f) for f in (1, 2, 3)])]),
        ),
    )
    det = write(
        tmp_path / "det.xml",
        liris(
            ("far", [(1, 3, [(h, h, h, h, f) for f in (1, 2)])]),
            ("half", [(1, 3, [(h, 0, h, m, f) for f in (1, 2, 3)])]),
        ),
    )
    table = tmp_path / "pairs.csv"
    succeeded(run_referee("actions", gt, det, "--csv", table, "--quiet"))
    rows = csv_rows(table)
    assert sorted((r["video"], r["outcome"]) for r in rows) == [
        ("far", "false alarm"),
        ("far", "miss"),
        ("half", "accepted"),
    ]
    (half,) = [r for r in rows if r["video"] == "half"]
    assert float(half["dice"]) == pytest.approx(2 / 3)
    ratios = ("spatial_recall", "spatial_precision", "temporal_recall", "temporal_precision")
    assert [float(half[k]) for k in ratios] == [0.5, 1.0, 1.0, 1.0]


def test_a_liris_coordinate_beyond_the_limit_is_refused_with_its_line(tmp_path: Path) -> None:
    ok = write(tmp_path / "ok.xml", liris(("v", [(1, 3, [(0, 0, 5, 5, 1)])])))
    bad = write(
        tmp_path / "bad.xml",
        liris(("v", [(2, 3, [(0, 0, 5, 5, 1), (2**31 - 1, 0, 5, 5, 2)])])),
    )
    outcome = run_referee("actions", ok, bad, "--quiet")
    assert_refused(outcome, bad, "line 6", "action 2", "x is 2,147,483,647", "MAX_COORDINATE")


# --------------------------------------------------------------------------- file size, pipes


def test_a_liris_file_over_the_size_limit_is_refused_before_it_is_read(
    tmp_path: Path, demo: DemoLayout
) -> None:
    big = tmp_path / "big.xml"
    with big.open("wb") as handle:  # sparse: the size is checked before anything is read
        handle.truncate(MAX_XML_FILE_BYTES + 1)
    outcome = run_referee("actions", demo.actions_gt, big, "--quiet", timeout=HANG_SECONDS)
    assert_refused(outcome, big, "MAX_XML_FILE_BYTES")
    assert outcome.peak_rss_mib < LOW_MEMORY_MIB


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_given_as_liris_is_refused_without_blocking(
    tmp_path: Path, demo: DemoLayout
) -> None:
    pipe = tmp_path / "det.xml"
    os.mkfifo(pipe)
    outcome = run_referee("actions", demo.actions_gt, pipe, "--quiet", timeout=HANG_SECONDS)
    assert_refused(outcome, pipe, "not a regular file")


# --------------------------------------------------------------------------- counting


def test_a_window_as_wide_as_the_video_does_not_hang(tmp_path: Path) -> None:
    # 100001 counts: GT goes 0 → 1 at change 0, the estimate at change 99999, the last.
    # With w = 100000 every window holds every change: the GT change is found exactly
    # (e = 0, paired with m = 99999), every other GT instant finds a zero change: CCR 1/1.
    n = 100_000
    gt = write(
        tmp_path / "gt.csv", "frame,count\n0,0\n" + "".join(f"{f},1\n" for f in range(1, n + 1))
    )
    est = write(
        tmp_path / "est.csv", "frame,count\n" + "".join(f"{f},0\n" for f in range(n)) + f"{n},1\n"
    )
    out = tmp_path / "counts.json"
    succeeded(
        run_referee("counts", gt, est, "-w", str(n), "--json", out, "--quiet", timeout=HANG_SECONDS)
    )
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["ccr_wcc"]["value"] == 1.0
    assert result["instants"]["numerator"] == [0]
    assert result["offsets"][0] == n - 1


def test_a_count_column_given_twice_is_refused(tmp_path: Path, demo: DemoLayout) -> None:
    source = demo.counts["baseline_street"]["groundtruth"]
    text = source.read_text(encoding="utf-8").replace("frame,count", "frame,count,Count", 1)
    bad = write(tmp_path / "est.csv", text)
    assert_refused(run_referee("counts", source, bad, "--quiet"), bad, "line 1", "'Count'")


# --------------------------------------------------------------------------- project files


def _project(folder: Path, demo: DemoLayout) -> dict[str, object]:
    return {
        "format": "referee-project",
        "version": 1,
        "name": "p",
        "actions_groundtruth": str(demo.actions_gt),
        "detectors": [{"name": name, "actions": str(path)} for name, path in demo.actions.items()],
    }


@pytest.mark.parametrize("levels", [33, 100_000])
def test_a_deeply_nested_project_file_is_refused(
    tmp_path: Path, demo: DemoLayout, levels: int
) -> None:
    project = write(tmp_path / "deep.referee.json", "[" * levels + "]" * levels)
    outcome = run_referee("report", project, "--json", tmp_path / "out.json", "--quiet")
    assert_refused(outcome, project, "nested deeper than 32", "MAX_JSON_DEPTH")


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda text: text[:-1] + ', "name": "q"}', ("'name' is given twice",)),
        (lambda text: text.replace('"version": 1', '"version": ' + "9" * 5000), ("5,000 digits",)),
        (lambda text: text.replace('"name": "p"', '"name": "\\ud800"'), ("'name'", "surrogate")),
        (lambda text: text.replace('"name": "p"', '"name": "p\\u0000"'), ("'name'", "U+0000")),
        (
            lambda text: text.replace('"name": "p"', '"name": "p", "counts": "' + "a" * 300 + '"'),
            ("'counts'", "300 bytes"),
        ),
    ],
    ids=["duplicate key", "huge number", "lone surrogate", "NUL", "long name"],
)
def test_a_surprising_project_file_is_refused_naming_it(
    tmp_path: Path, demo: DemoLayout, change, words: tuple[str, ...]
) -> None:
    project = write(tmp_path / "p.referee.json", change(json.dumps(_project(tmp_path, demo))))
    outcome = run_referee("report", project, "--json", tmp_path / "out.json", "--quiet")
    assert_refused(outcome, project, *words)


# --------------------------------------------------------------------------- summaries, scores


@pytest.mark.parametrize("name", ["cm.csv", "stats.txt"])
def test_a_confusion_count_beyond_2_53_is_refused(tmp_path: Path, name: str) -> None:
    big = "1" + "0" * 400
    if name == "cm.csv":
        text = f"category,video,TP,FP,FN,TN\nbaseline,highway,{big},1,1,1\n"
    else:
        text = f"#stats\ncm video baseline highway {big} 1 1 1 0\n"
    bad = write(tmp_path / name, text)
    assert_refused(run_referee("summarize", bad), bad, "line 2", "TP is", "MAX_COUNT")


def test_a_video_weighted_twice_is_refused(tmp_path: Path) -> None:
    cm = write(
        tmp_path / "cm.csv",
        "category,video,TP,FP,FN,TN\nbaseline,highway,100,10,20,1000\nbaseline,office,50,5,10,900\n",
    )
    weights = write(
        tmp_path / "w.csv",
        "category,video,weight\nbaseline,highway,1\nbaseline,office,1\nbaseline,highway,2\n",
    )
    outcome = run_referee("summarize", cm, "--weights-csv", weights)
    assert_refused(outcome, weights, "line 4", "baseline/highway", "first on line 2")


@pytest.mark.parametrize(
    ("rows", "words"),
    [
        ("1,0.1,0.2\n1,0.3,0.1\n3,0.5,0.4\n", ("line 3", "case '1' is given twice")),
        ("1,1e308,-1e308\n2,0.3,0.1\n3,0.5,0.4\n", ("line 2", "1e308")),
        ("1,nan,0.2\n2,0.3,0.1\n3,0.5,0.4\n", ("line 2", "'nan'")),
    ],
    ids=["repeated case", "huge score", "nan"],
)
def test_a_surprising_scores_file_is_refused(
    tmp_path: Path, rows: str, words: tuple[str, ...]
) -> None:
    scores = write(tmp_path / "scores.csv", "case,A,B\n" + rows)
    assert_refused(run_referee("significance", "--scores", scores), scores, *words)
