"""``referee rank`` (docs/measures.md §8) through its argument parser."""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.cli import rank as cli_rank
from referee.core.cli.common import run_command
from referee.core.demo.dataset import DemoLayout
from referee.core.errors import RefereeError
from referee.core.exports.ranking_csv import read_ranking_csv
from referee.core.formats.liris_xml import read_liris
from referee.core.measures.boxes import boxes_from_annotations, evaluate_boxes


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="referee")
    cli_rank.add_commands(parser.add_subparsers())
    args = parser.parse_args(["rank", *argv])
    return run_command(args)


def _results(demo: DemoLayout) -> list[str]:
    return [str(path) for path in demo.results.values()]


def _table_rows(text: str) -> list[list[str]]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["rank", "video"])
    return [line.split() for line in lines[start + 1 :]]


def test_fully_annotated_demo_says_so_and_ranks_nothing(
    demo: DemoLayout, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "rank.csv"
    assert _run([str(demo.dataset), *_results(demo), "--quiet", "--csv", str(out)]) == 0
    text = capsys.readouterr().out
    assert "all 392 frames already have ground truth; use --include-annotated" in text
    assert read_ranking_csv(out) == []


def test_vote_entropy_on_the_demo(demo: DemoLayout, tmp_path: Path, capsys) -> None:
    out = tmp_path / "rank.csv"
    argv = [str(demo.dataset), *_results(demo), "--include-annotated", "--quiet", "--csv", str(out)]
    assert _run(argv) == 0
    text = capsys.readouterr().out
    assert "vote-entropy (mog2, knn, mog, cnt, running-average)" in text
    assert "392 of them already have ground truth and are ranked too" in text
    ranking = read_ranking_csv(out)
    rows = _table_rows(text)
    assert len(rows) == len(ranking) > 20
    assert [(r[1], int(r[2])) for r in rows] == [(e.video, e.frame) for e in ranking]
    assert [e.rank for e in ranking] == list(range(1, len(ranking) + 1))
    assert all(e.criterion == "vote-entropy" for e in ranking)
    scores = [e.score for e in ranking]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0
    for video in {e.video for e in ranking}:  # the ±10 rule, within each video
        frames = sorted(e.frame for e in ranking if e.video == video)
        assert min(np.diff(frames)) > 10
    # The top frame's score, recomputed here from the files with plain numpy.
    top = ranking[0]
    category, name = top.video.split("/")
    roi = cv2.imread(str(demo.dataset / category / name / "ROI.bmp"), cv2.IMREAD_GRAYSCALE) > 0
    votes = sum(
        (
            cv2.imread(
                str(root / category / name / f"bin{top.frame:06d}.png"), cv2.IMREAD_GRAYSCALE
            )
            == 255
        ).astype(int)
        for root in demo.results.values()
    )
    p = votes[roi] / len(demo.results)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.nan_to_num(-(p * np.log2(p) + (1 - p) * np.log2(1 - p)))
    assert top.score == pytest.approx(h.mean(), abs=1e-12)
    with pytest.raises(RefereeError, match="already exists"):
        _run(argv)


def test_pair_criteria_on_the_demo(demo: DemoLayout, tmp_path: Path, capsys) -> None:
    out = tmp_path / "pair.csv"
    assert (
        _run(
            [
                str(demo.dataset),
                *_results(demo),
                "--include-annotated",
                "--quiet",
                "--criterion",
                "pairwise",
                "--a",
                "knn",
                "--b",
                "cnt",
                "--top",
                "3",
                "--gap",
                "0",
                "--csv",
                str(out),
            ]
        )
        == 0
    )
    ranking = read_ranking_csv(out)
    assert len(ranking) == 3 and len(_table_rows(capsys.readouterr().out)) == 3
    assert {e.criterion for e in ranking} == {"pairwise-dice: knn vs cnt"}
    assert (
        _run(
            [
                str(demo.dataset),
                *_results(demo),
                "--include-annotated",
                "--quiet",
                "--criterion",
                "pseudo-gap",
                "--top",
                "2",
                "--csv",
                str(out),
                "--force",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "committee mog2, knn, mog, cnt, running-average + all-ones + all-zeros" in text
    assert {e.criterion for e in read_ranking_csv(out)} == {"pseudo-gap: mog2 vs knn"}


def _write_small_dataset(root: Path, gt_frames: set[int]) -> tuple[Path, list[Path]]:
    """One 4x4 video of 30 frames; detector b disagrees with a on frames 5 and 20 only."""
    video = root / "data" / "cat" / "vid"
    (video / "groundtruth").mkdir(parents=True)
    (video / "temporalROI.txt").write_text("1 30\n")
    cv2.imwrite(str(video / "ROI.bmp"), np.full((4, 4), 255, np.uint8))
    for i in gt_frames:
        cv2.imwrite(str(video / "groundtruth" / f"gt{i:06d}.png"), np.zeros((4, 4), np.uint8))
    roots = []
    for method in ("a", "b"):
        folder = root / method / "cat" / "vid"
        folder.mkdir(parents=True)
        for i in range(1, 31):
            mask = np.zeros((4, 4), np.uint8)
            mask[: 2 if method == "b" and i in (5, 20) else 1] = 255
            cv2.imwrite(str(folder / f"bin{i:06d}.png"), mask)
        roots.append(root / method)
    return root / "data", roots


def test_frames_with_ground_truth_are_skipped(tmp_path: Path, capsys) -> None:
    dataset, roots = _write_small_dataset(tmp_path, {5, 6})
    out = tmp_path / "rank.csv"
    assert _run([str(dataset), *map(str, roots), "--quiet", "--csv", str(out)]) == 0
    text = capsys.readouterr().out
    assert "30 frames scored in 1 video" in text
    assert "2 of them already have ground truth and are skipped" in text
    ranking = read_ranking_csv(out)
    # Frames 5 and 20: 4 of 16 pixels have one vote in two (1 bit each) -> 0.25.
    # Frame 5 has ground truth: 20 comes first, then the zeros; 1 is the only frame
    # more than 10 away from 20 (every frame from 10 to 30 is within ±10 of it).
    assert [(e.frame, e.score) for e in ranking] == [(20, 0.25), (1, 0.0)]
    assert (
        _run(
            [
                str(dataset),
                *map(str, roots),
                "--quiet",
                "--csv",
                str(out),
                "--force",
                "--include-annotated",
            ]
        )
        == 0
    )
    assert [(e.frame, e.score) for e in read_ranking_csv(out)] == [(5, 0.25), (20, 0.25)]


def test_boxes_and_classes_from_liris_files(demo: DemoLayout, tmp_path: Path, capsys) -> None:
    files = [str(demo.actions[m]) for m in ("mog2", "knn", "cnt")]
    out = tmp_path / "boxes.csv"
    assert _run([*files, "--quiet", "--top", "5", "--csv", str(out)]) == 0
    text = capsys.readouterr().out
    assert "pairwise-fda (mog2 vs knn)" in text and "no frame is skipped" in text
    ranking = read_ranking_csv(out)
    assert len(ranking) == 5 and {e.criterion for e in ranking} == {"pairwise-fda: mog2 vs knn"}
    evaluation = evaluate_boxes(
        boxes_from_annotations(read_liris(demo.actions["mog2"])),
        boxes_from_annotations(read_liris(demo.actions["knn"])),
    )
    by_name = {v.name: v for v in evaluation.videos}
    for entry in ranking:
        frame = by_name[entry.video].frame(entry.frame)
        assert entry.score == pytest.approx(1 - frame.fda)
    assert (
        _run(
            [
                *files,
                "--quiet",
                "--criterion",
                "classes",
                "--top",
                "4",
                "--gap",
                "3",
                "--csv",
                str(out),
                "--force",
            ]
        )
        == 0
    )
    assert "classes (mog2, knn, cnt)" in capsys.readouterr().out
    ranking = read_ranking_csv(out)
    assert len(ranking) == 4 and {e.criterion for e in ranking} == {"classes"}
    assert all(0 < e.score <= 1 for e in ranking)


def test_user_errors(demo: DemoLayout, tmp_path: Path) -> None:
    dataset, results = str(demo.dataset), _results(demo)
    xml = str(demo.actions["mog2"])
    cases = [
        ([dataset, results[0], xml], "mixed"),
        ([dataset, *results, "--criterion", "classes"], "LIRIS action"),
        ([xml, str(demo.actions["knn"]), "--criterion", "vote-entropy"], "is for masks"),
        ([dataset, *results, "--a", "knn"], "both --a and --b"),
        ([dataset, *results, "--a", "knn", "--b", "mog"], "uses every method"),
        (
            [dataset, *results, "--criterion", "pairwise", "--a", "knn", "--b", "zzz"],
            "no method named 'zzz'",
        ),
        ([xml], "at least two detection files"),
        ([dataset, results[0]], "at least two RESULTS"),
        ([str(tmp_path / "missing"), *results], "no such file"),
    ]
    for argv, message in cases:
        with pytest.raises(RefereeError, match=message):
            _run([*argv, "--quiet"])


def test_help_mentions_every_criterion(capsys) -> None:
    with pytest.raises(SystemExit):
        _run(["--help"])
    text = capsys.readouterr().out
    for word in ("vote-entropy", "pairwise", "pseudo-gap", "classes", "--include-annotated"):
        assert word in text


def test_the_json_holds_the_list_its_counts_and_hand_worked_scores(tmp_path: Path) -> None:
    import json

    from referee.core.cli.main import main

    dataset, roots = _write_small_dataset(tmp_path, {5, 6})
    out = tmp_path / "rank.json"
    assert main(["rank", str(dataset), *map(str, roots), "--quiet", "--json", str(out)]) == 0
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["format"] == "referee-ranking"
    assert (document["criterion"], document["methods"]) == ("vote-entropy", ["a", "b"])
    assert (document["considered"], document["annotated"], document["all_annotated"]) == (
        30,
        2,
        False,
    )
    # As the CSV test works out: frame 20 (0.25), then frame 1 (0), frame 5 skipped.
    assert [(f["rank"], f["video"], f["frame"], f["score"]) for f in document["frames"]] == [
        (1, "cat/vid", 20, 0.25),
        (2, "cat/vid", 1, 0.0),
    ]
