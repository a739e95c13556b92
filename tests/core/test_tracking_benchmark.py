"""``referee boxes`` on MOTChallenge folders gives the tracking measures TrackEval gives on
the same folders: HOTA, CLEAR MOT, identity and VACE's ATA, per sequence and combined
(docs/measures.md §5)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import trackeval

from tests.core.test_mot_benchmark import MOT17_RULES, _benchmark, _json, trackeval_results


def _trackeval(gt: Path, trackers: Path, output: Path, benchmark: str = "MOT17") -> dict:
    """TrackEval's HOTA, CLEAR, Identity and VACE: tracker → sequence (and COMBINED_SEQ) →
    metric → fields."""
    metrics = [
        trackeval.metrics.HOTA({"PRINT_CONFIG": False}),
        trackeval.metrics.CLEAR({"THRESHOLD": 0.5, "PRINT_CONFIG": False}),
        trackeval.metrics.Identity({"THRESHOLD": 0.5, "PRINT_CONFIG": False}),
        trackeval.metrics.VACE(),
    ]
    return trackeval_results(gt, trackers, output, metrics, benchmark)


#: Referee's JSON key → TrackEval's metric and field (α-averaged where it is per α).
FIELDS = {
    "hota": ("HOTA", "HOTA"),
    "det_a": ("HOTA", "DetA"),
    "det_re": ("HOTA", "DetRe"),
    "det_pr": ("HOTA", "DetPr"),
    "ass_a": ("HOTA", "AssA"),
    "ass_re": ("HOTA", "AssRe"),
    "ass_pr": ("HOTA", "AssPr"),
    "loc_a": ("HOTA", "LocA"),
    "owta": ("HOTA", "OWTA"),
    "hota_0": ("HOTA", "HOTA(0)"),
    "loc_a_0": ("HOTA", "LocA(0)"),
    "mota": ("CLEAR", "MOTA"),
    "motp": ("CLEAR", "MOTP"),
    "moda": ("CLEAR", "MODA"),
    "clr_recall": ("CLEAR", "CLR_Re"),
    "clr_precision": ("CLEAR", "CLR_Pr"),
    "tp": ("CLEAR", "CLR_TP"),
    "fn": ("CLEAR", "CLR_FN"),
    "fp": ("CLEAR", "CLR_FP"),
    "idsw": ("CLEAR", "IDSW"),
    "frag": ("CLEAR", "Frag"),
    "mt": ("CLEAR", "MT"),
    "pt": ("CLEAR", "PT"),
    "ml": ("CLEAR", "ML"),
    "idf1": ("Identity", "IDF1"),
    "idp": ("Identity", "IDP"),
    "idr": ("Identity", "IDR"),
    "idtp": ("Identity", "IDTP"),
    "idfn": ("Identity", "IDFN"),
    "idfp": ("Identity", "IDFP"),
    "ata": ("VACE", "ATA"),
    "stda": ("VACE", "STDA"),
}


def _theirs(fields: dict, key: str) -> float:
    metric, name = FIELDS[key]
    return float(np.mean(fields[metric][name]))


def test_tracking_measures_are_trackevals_per_sequence_and_combined(tmp_path: Path) -> None:
    gt, trackers = _benchmark(tmp_path)  # MOT17 rules asked for, as the benchmark's
    ours = _json(gt, trackers, tmp_path / "out.json", *MOT17_RULES)["tracking"]
    theirs = _trackeval(gt, trackers, tmp_path / "trackeval")
    assert set(ours) == set(theirs) == {"A", "B"}
    for tracker, results in theirs.items():
        mine = ours[tracker]
        assert set(mine["sequences"]) | {"COMBINED_SEQ"} == set(results)
        for sequence, fields in results.items():
            values = mine["combined"] if sequence == "COMBINED_SEQ" else mine["sequences"][sequence]
            for key in FIELDS:
                expected = _theirs(fields, key)
                assert values[key] == pytest.approx(expected, abs=1e-9), (tracker, sequence, key)


def test_the_terminal_says_the_tracking_measures(tmp_path: Path, capsys) -> None:
    gt, trackers = _benchmark(tmp_path)
    ours = _json(gt, trackers, tmp_path / "out.json", *MOT17_RULES)["tracking"]
    printed = capsys.readouterr().out
    assert "Tracking (docs/measures.md §5" in printed
    table = printed[printed.index("Tracking (docs/measures.md §5") :]
    row = next(line for line in table.splitlines() if line.startswith("A "))
    assert f"{ours['A']['combined']['hota']:.4f}" in row
    assert f"{ours['A']['combined']['idf1']:.4f}" in row


def test_a_benchmark_folder_gets_its_benchmarks_rules_unasked(tmp_path: Path, capsys) -> None:
    """MOT17 in the seqmap's name: the default run is the benchmark's (TrackEval's CLEAR
    counts and MOTA), and says which rules it applied and how to turn them off."""
    gt, trackers = _benchmark(tmp_path)
    unasked = _json(gt, trackers, tmp_path / "u.json")
    printed = capsys.readouterr().out
    assert "Benchmark rules MOT17 (inferred from MOT17-train; --benchmark none" in printed
    theirs = _trackeval(gt, trackers, tmp_path / "trackeval")
    for tracker, results in theirs.items():
        combined = unasked["tracking"][tracker]["combined"]
        clear = results["COMBINED_SEQ"]["CLEAR"]
        assert (combined["tp"], combined["fp"], combined["fn"]) == (
            clear["CLR_TP"],
            clear["CLR_FP"],
            clear["CLR_FN"],
        )
        assert combined["mota"] == pytest.approx(clear["MOTA"], abs=1e-12)
    assert unasked["parameters"]["benchmark"] == "MOT17"
    assert unasked["parameters"]["iou_rule"] == "keep-matches"
    plain = _json(gt, trackers, tmp_path / "p.json", "--benchmark", "none")
    assert plain["parameters"]["benchmark"] is None
    assert plain["tracking"]["A"]["combined"]["tp"] != unasked["tracking"]["A"]["combined"]["tp"]


def _renamed(root: Path, old: str, new: str) -> None:
    for path in sorted(root.rglob(f"*{old}*"), key=lambda p: -len(p.parts)):
        path.rename(path.with_name(path.name.replace(old, new)))


def test_mot15_counts_every_class_but_not_zero_marked_rows(tmp_path: Path) -> None:
    gt, trackers = _benchmark(tmp_path)
    _renamed(tmp_path, "MOT17", "MOT15")
    ours = _json(gt, trackers, tmp_path / "out.json")
    assert ours["parameters"]["benchmark"] == "MOT15"
    assert ours["parameters"]["mot_classes"] is None and ours["parameters"]["gt_zero_marked"]
    theirs = _trackeval(gt, trackers, tmp_path / "trackeval", benchmark="MOT15")
    for tracker, results in theirs.items():
        for sequence, fields in results.items():
            mine = ours["tracking"][tracker]
            values = mine["combined"] if sequence == "COMBINED_SEQ" else mine["sequences"][sequence]
            for key in FIELDS:
                assert values[key] == pytest.approx(_theirs(fields, key), abs=1e-9), (
                    tracker,
                    sequence,
                    key,
                )


def test_the_report_shows_the_tracking_measures_and_the_rules(tmp_path: Path) -> None:
    """One sequence's files (the benchmark's name in their path): the report's tracking
    table holds TrackEval's values for that sequence, and names the benchmark's rules."""
    from referee.core.report.build import build_report
    from referee.core.workflow.projects import project_of_outputs

    gt, trackers = _benchmark(tmp_path)
    truth = gt / "MOT17-train" / "SEQ-B" / "gt" / "gt.txt"
    tracker = trackers / "MOT17-train" / "A" / "data" / "SEQ-B.txt"
    report = build_report(project_of_outputs("boxes", [tracker], groundtruth=truth))
    table = report.table("tracking")
    theirs = _trackeval(gt, trackers, tmp_path / "trackeval")["A"]["SEQ-B"]
    # The detector is named after its file, the sequence after the ground truth's.
    assert [row[:2] for row in table.rows] == [("SEQ-B", "gt"), ("SEQ-B", "all sequences")]
    for row in table.rows:
        for title, key in (("HOTA", "hota"), ("AssA", "ass_a"), ("MOTA", "mota"), ("IDF1", "idf1")):
            value = row[table.columns.index(title)]
            assert value == pytest.approx(_theirs(theirs, key), abs=1e-9), (row[1], key)
    section = next(s for s in report.sections if s.key == "boxes")
    said = " ".join(getattr(block, "text", "") for block in section.blocks)
    assert "Benchmark rules MOT17 (inferred from" in said
