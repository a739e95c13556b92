"""Bootstrap intervals of trackers' HOTA, MOTA and IDF1 (docs/measures.md §5, "Tracking:
intervals and tests"): frame blocks, the resampling against a separate implementation of
the benchmark's combination, seeds, and ``referee boxes --intervals``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from referee.core.cli.main import main
from referee.core.measures.tracking import TrackingEvaluation, TrackingScores, evaluate_tracking
from referee.core.report.build import build_report
from referee.core.report.document import Paragraph
from referee.core.significance.tracker_bootstrap import (
    TrackingIntervals,
    bootstrap_intervals,
    resample_indices,
)
from referee.core.significance.tracking_units import (
    BLOCKS,
    SEQUENCES,
    TrackingUnits,
    block_spans,
    block_tracking,
    tracking_units,
)
from referee.core.workflow.detections import run_boxes
from referee.core.workflow.options import TrackingIntervalOptions
from referee.core.workflow.projects import project_of_outputs
from referee.core.workflow.tracking_intervals import run_tracking_intervals
from tests.core.test_tracking_clear_identity import _video
from tests.core.tracks_folder import SPLIT, TRACKERS, random_tracks, write_benchmark

# --- a separate implementation of the combination, from each unit's counts -----------------


def _hand_values(units: list[TrackingScores], drawn: np.ndarray) -> dict[str, np.ndarray]:
    """HOTA, MOTA and IDF1 of each row of drawn unit indices, combined as TrackEval combines
    sequences: counts summed; AssA weighted by each unit's true positives, per α."""
    tp = np.array([u.hota.true_positives for u in units], dtype=float)
    fn = np.array([u.hota.false_negatives for u in units], dtype=float)
    fp = np.array([u.hota.false_positives for u in units], dtype=float)
    weighted_ass = np.array([u.hota.ass_a for u in units]) * tp
    tps, fns, fps = tp[drawn].sum(1), fn[drawn].sum(1), fp[drawn].sum(1)
    det_a = tps / np.maximum(1, tps + fns + fps)
    ass_a = weighted_ass[drawn].sum(1) / np.maximum(1, tps)
    clear = np.array([(u.clear.tp, u.clear.fn, u.clear.fp, u.clear.idsw) for u in units])
    c_tp, c_fn, c_fp, idsw = (clear[:, k][drawn].sum(1) for k in range(4))
    ident = np.array([(u.identity.idtp, u.identity.idfn, u.identity.idfp) for u in units])
    idtp, idfn, idfp = (ident[:, k][drawn].sum(1) for k in range(3))
    return {
        "hota": np.sqrt(det_a * ass_a).mean(axis=1),
        "mota": (c_tp - c_fp - idsw) / np.maximum(1, c_tp + c_fn),
        "idf1": idtp / np.maximum(1, idtp + 0.5 * idfn + 0.5 * idfp),
    }


def _evaluations(sequences: int, frames: int, seed: int) -> dict[str, TrackingEvaluation]:
    tracks = random_tracks(sequences, frames, seed)
    truth = [_video(name, rows[""]) for name, rows in tracks.items()]
    return {
        tracker: evaluate_tracking(truth, [_video(n, r[tracker]) for n, r in tracks.items()])
        for tracker in TRACKERS
    }


def _intervals(
    units: TrackingUnits, tracking: dict, resamples: int, seed: int
) -> TrackingIntervals:
    combined = {name: e.combined for name, e in tracking.items()}
    return bootstrap_intervals(units, combined, resamples, seed)


# --- blocks ---------------------------------------------------------------------------------


def test_block_spans_merge_a_short_remainder() -> None:
    assert block_spans(130, 50) == [(1, 50), (51, 100), (101, 130)]  # 30 ≥ 25: kept
    assert block_spans(120, 50) == [(1, 50), (51, 120)]  # 20 < 25: joins the block before
    assert block_spans(10, 50) == [(1, 10)]
    assert block_spans(0, 50) == []
    assert block_spans(4, 1) == [(1, 1), (2, 2), (3, 3), (4, 4)]


def test_each_block_is_its_frames_evaluated_as_a_sequence() -> None:
    [rows] = random_tracks(1, 130, seed=3).values()
    truth, found = rows[""], [*rows["A"], (140, 999, 5.0, 5.0, 10.0, 10.0)]  # after the GT
    last = max(r[0] for r in truth)
    blocks = block_tracking([_video("s", truth)], [_video("s", found)], 50)
    spans = [(1, 50), (51, 100), (101, last)] if last - 100 >= 25 else [(1, 50), (51, last)]
    spans[-1] = (spans[-1][0], 140)  # the last block holds the tracker's later frames
    labels = [f"s:{first}-{min(stop, last)}" for first, stop in spans]
    assert list(blocks.sequences) == labels
    for label, (first, stop) in zip(labels, spans):

        def cut(side: list[tuple], name: str = label, a: int = first, b: int = stop) -> object:
            return _video(name, [(f - a + 1, *rest) for f, *rest in side if a <= f <= b])

        by_hand = evaluate_tracking([cut(truth)], [cut(found)], {label: stop - first + 1})
        ours, expected = blocks.sequences[label], by_hand.sequences[label]
        assert ours.hota.mean_hota == pytest.approx(expected.hota.mean_hota, abs=1e-12)
        assert ours.clear == expected.clear and ours.identity == expected.identity
    # Every ground-truth and tracker box is in exactly one block.
    totals = [(s.clear.tp + s.clear.fn, s.clear.tp + s.clear.fp) for s in blocks.sequences.values()]
    assert np.sum(totals, axis=0).tolist() == [len(truth), len(found)]


def test_blocks_of_a_partly_annotated_sequence_are_runs_of_its_annotated_frames() -> None:
    [rows] = random_tracks(1, 20, seed=4).values()
    truth, found = [_video("s", rows[""])], [_video("s", rows["A"])]
    annotated = [2, 4, 6, 8, 10, 12, 14]
    blocks = block_tracking(truth, found, 3, only={"s": annotated})
    # 7 frames: 3, 3 and a last 1 (< 1.5), which joins the block before it.
    assert list(blocks.sequences) == ["s:2-6", "s:8-14"]
    for label, frames in (("s:2-6", [2, 4, 6]), ("s:8-14", [8, 10, 12, 14])):
        alone = evaluate_tracking(truth, found, only={"s": frames}).sequences["s"]
        assert blocks.sequences[label].clear == alone.clear
        assert blocks.sequences[label].identity == alone.identity


# --- the bootstrap --------------------------------------------------------------------------


def test_sequence_bootstrap_is_the_benchmark_combination_of_drawn_sequences() -> None:
    tracking = _evaluations(7, 30, seed=5)
    units = tracking_units(tracking, {})
    assert (units.kind, units.count, units.sequences) == (SEQUENCES, 7, 7)
    found = _intervals(units, tracking, resamples=300, seed=11)
    drawn = np.random.default_rng(11).integers(0, 7, size=(300, 7))
    for tracker, evaluation in tracking.items():
        every = list(evaluation.sequences.values())
        point = _hand_values(every, np.arange(7)[np.newaxis, :])
        by_hand = _hand_values(every, drawn)
        result = found.trackers[tracker]
        for measure, values in by_hand.items():
            low, high = np.percentile(values, [2.5, 97.5])
            interval = result.intervals[measure]
            assert interval is not None
            assert (interval.low, interval.high) == pytest.approx((low, high), abs=1e-12)
            assert result.values[measure] == pytest.approx(point[measure][0], abs=1e-12)
            assert interval.low <= result.values[measure] <= interval.high


def test_seeds_reproduce_and_differ() -> None:
    tracking = _evaluations(6, 25, seed=8)
    units = tracking_units(tracking, {})
    first, again, other = (_intervals(units, tracking, 200, s) for s in (4, 4, 5))
    assert resample_indices(6, 200, 4).tolist() == (
        np.random.default_rng(4).integers(0, 6, size=(200, 6)).tolist()
    )
    for tracker in TRACKERS:
        assert first.trackers[tracker].intervals == again.trackers[tracker].intervals
        assert first.trackers[tracker].intervals != other.trackers[tracker].intervals


def test_intervals_shrink_with_more_sequences() -> None:
    """The same sequences four times over: the combined value is the same, its spread about
    half (1/√4) as wide."""
    tracking = _evaluations(6, 30, seed=2)
    units = tracking_units(tracking, {})
    more = TrackingUnits(
        SEQUENCES,
        {
            t: {f"{k}:{s}": v for k in range(4) for s, v in u.items()}
            for t, u in units.scores.items()
        },
        24,
    )
    few, many = _intervals(units, tracking, 2000, 1), _intervals(more, tracking, 2000, 1)
    for tracker in TRACKERS:
        for measure, interval in few.trackers[tracker].intervals.items():
            wide, narrow = interval, many.trackers[tracker].intervals[measure]
            assert wide is not None and narrow is not None
            ratio = (narrow.high - narrow.low) / (wide.high - wide.low)
            assert 0.35 < ratio < 0.7, (tracker, measure, ratio)


def test_blocks_with_few_sequences_through_the_workflow(tmp_path: Path) -> None:
    tracks = random_tracks(2, 160, seed=9)
    gt, trackers = write_benchmark(tmp_path, tracks, 160)
    project = project_of_outputs("boxes", [trackers / SPLIT / t for t in TRACKERS], groundtruth=gt)
    boxes = run_boxes(project)
    found = run_tracking_intervals(project, TrackingIntervalOptions(300, 2), boxes=boxes)
    # 160 frames: 1–50, 51–100, 101–160 (a last 10 frames join the block before).
    assert (found.unit, found.units, found.sequences, found.block_length) == (BLOCKS, 6, 2, 50)
    drawn = np.random.default_rng(2).integers(0, 6, size=(300, 6))
    for tracker in TRACKERS:
        blocks = list(boxes.tracking_blocks[tracker].sequences.values())
        assert list(boxes.tracking_blocks[tracker].sequences)[:3] == [
            "SEQ-0:1-50",
            "SEQ-0:51-100",
            "SEQ-0:101-160",
        ]
        over_blocks = _hand_values(blocks, np.arange(6)[np.newaxis, :])
        by_hand = _hand_values(blocks, drawn)
        result = found.trackers[tracker]
        for measure, values in by_hand.items():
            assert result.unit_values[measure] == pytest.approx(over_blocks[measure][0])
            shift = result.values[measure] - over_blocks[measure][0]
            low, high = np.percentile(values + shift, [2.5, 97.5])
            interval = result.intervals[measure]
            assert interval is not None
            assert (interval.low, interval.high) == pytest.approx((low, high), abs=1e-12)
            assert interval.low <= result.values[measure] <= interval.high


def test_one_unit_has_no_interval() -> None:
    tracking = _evaluations(1, 20, seed=1)
    blocks = {t: block_tracking(*_one_sequence(20, seed=1, tracker=t), 50) for t in TRACKERS}
    units = tracking_units(tracking, blocks)
    assert (units.kind, units.count) == (BLOCKS, 1)
    found = bootstrap_intervals(units, {t: e.combined for t, e in tracking.items()}, 100, 0, 50)
    assert all(v is None for r in found.trackers.values() for v in r.intervals.values())


def _one_sequence(frames: int, seed: int, tracker: str) -> tuple[list, list]:
    [(name, rows)] = random_tracks(1, frames, seed).items()
    return [_video(name, rows[""])], [_video(name, rows[tracker])]


# --- referee boxes --intervals ------------------------------------------------------------


def _boxes(tmp_path: Path, *argv: str) -> dict:
    out = tmp_path / "out.json"
    assert main(["boxes", *argv, "--quiet", "--json", str(out), "--force"]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def test_cli_intervals_over_sequences_are_recomputed_from_the_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gt, trackers = write_benchmark(tmp_path, random_tracks(6, 30, seed=4), 30)
    data = _boxes(
        tmp_path, str(gt), str(trackers), "--intervals", "--resamples", "400", "--seed", "7"
    )
    text = " ".join(capsys.readouterr().out.split())  # the note is wrapped
    assert "Tracking intervals: 95% percentile bootstrap intervals" in text
    assert "400 resamples with replacement of the 6 sequences" in text
    intervals = data["tracking_intervals"]
    assert {k: intervals[k] for k in ("unit", "units", "resamples", "seed", "level")} == {
        "unit": "sequences",
        "units": 6,
        "resamples": 400,
        "seed": 7,
        "level": 0.95,
    }
    drawn = np.random.default_rng(7).integers(0, 6, size=(400, 6))
    for tracker in TRACKERS:
        sequences = data["tracking"][tracker]["sequences"].values()
        c = np.array(
            [[s[k] for k in ("tp", "fn", "fp", "idsw", "idtp", "idfn", "idfp")] for s in sequences]
        )
        tp, fn, fp, idsw, idtp, idfn, idfp = (c[:, k][drawn].sum(1) for k in range(7))
        by_hand = {
            "mota": (tp - fp - idsw) / np.maximum(1, tp + fn),
            "idf1": idtp / np.maximum(1, idtp + 0.5 * idfn + 0.5 * idfp),
        }
        for measure, values in by_hand.items():
            mine = intervals["trackers"][tracker][measure]
            assert mine["value"] == pytest.approx(data["tracking"][tracker]["combined"][measure])
            low, high = np.percentile(values, [2.5, 97.5])
            assert (mine["low"], mine["high"]) == pytest.approx((low, high), abs=1e-12)


def test_cli_intervals_over_blocks_name_their_length(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gt, trackers = write_benchmark(tmp_path, random_tracks(2, 90, seed=6), 90)
    data = _boxes(tmp_path, str(gt), str(trackers), "--intervals", "--block-length", "30")
    text = " ".join(capsys.readouterr().out.split())  # the note is wrapped
    assert (
        "1,000 resamples with replacement of 6 blocks of 30 frames cut from the 2 sequences" in text
    )
    assert "Tracks are cut at block borders" in text
    found = data["tracking_intervals"]
    assert (found["unit"], found["units"], found["block_length"], found["seed"]) == (
        "blocks",
        6,
        30,
        0,
    )
    assert "tracking_intervals" not in _boxes(tmp_path, str(gt), str(trackers))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--intervals", "--resamples", "0"], "the number of resamples must be at least 1, not 0"),
        (["--intervals", "--seed", "-1"], "the seed must be 0 or more, not -1"),
        (
            ["--intervals", "--block-length", "0"],
            "the block length must be at least 1 frame, not 0",
        ),
        (["--resamples", "10"], "--resamples applies only with --intervals"),
        (["--seed", "1", "--block-length", "9"], "--seed and --block-length apply only with"),
    ],
)
def test_cli_bad_interval_options_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    gt, trackers = write_benchmark(tmp_path, random_tracks(2, 20, seed=1), 20)
    assert main(["boxes", str(gt), str(trackers), "--quiet", *options]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert lines == [f"referee: error: {lines[0].removeprefix('referee: error: ')}"]
    assert message in lines[0] and not captured.out


def test_cli_intervals_need_tracks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gt = tmp_path / "gt.txt"
    gt.write_text("1,1,0,0,10,10,1,1,1\n1,1,20,0,10,10,1,1,1\n", encoding="utf-8")  # id twice
    det = tmp_path / "det.txt"
    det.write_text("1,1,0,0,10,10,0.9,-1,-1,-1\n", encoding="utf-8")
    assert main(["boxes", str(gt), str(det), "--quiet", "--intervals"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1].startswith("referee: error: no detector has tracking measures")


def test_the_report_puts_intervals_beside_the_combined_values(tmp_path: Path) -> None:
    [rows] = random_tracks(1, 120, seed=12).values()
    write = {"gt": rows[""], "a": rows["A"], "b": rows["B"]}
    files = {}
    for name, side in write.items():
        files[name] = tmp_path / f"{name}.txt"
        tail = "1,1,1" if name == "gt" else "0.9,-1,-1,-1"
        files[name].write_text(
            "".join(
                f"{f},{i},{x:.3f},{y:.3f},{w:.3f},{h:.3f},{tail}\n" for f, i, x, y, w, h in side
            ),
            encoding="utf-8",
        )
    project = project_of_outputs("boxes", [files["a"], files["b"]], groundtruth=files["gt"])
    report = build_report(project)
    [table] = [b for s in report.sections for b in s.blocks if getattr(b, "key", "") == "tracking"]
    headings = list(table.columns)
    for heading in ("HOTA", "MOTA", "IDF1"):
        assert headings[headings.index(heading) + 1] == f"{heading} 95% interval"
    expected = run_tracking_intervals(project)  # the report's defaults
    for row in table.rows:
        tracker, sequence = row[0], row[1]
        for measure, heading in (("hota", "HOTA"), ("mota", "MOTA"), ("idf1", "IDF1")):
            cell = row[headings.index(heading) + 1]
            if sequence != "all sequences":
                assert cell is None
                continue
            interval = expected.trackers[str(tracker)].intervals[measure]
            assert interval is not None
            assert cell == f"[{interval.low:.4f}, {interval.high:.4f}]"
    notes = [b.text for s in report.sections for b in s.blocks if isinstance(b, Paragraph)]
    assert any("blocks of 50 frames cut from the sequence" in text for text in notes)
