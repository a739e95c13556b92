"""The ``referee`` command line, run as a user would: a real process, real files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.cli.main import EXIT_USER_ERROR, main


def run_referee(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "referee.core.cli", *map(str, args)], capture_output=True, text=True
    )


def independent_counts(video_folder: Path, result_folder: Path) -> tuple[int, int, int, int]:
    """TP, FP, FN, TN of one video by the plain docs/measures.md §1 rules, written out separately."""
    first, last = map(int, (video_folder / "temporalROI.txt").read_text().split())
    roi = cv2.imread(str(video_folder / "ROI.bmp"), cv2.IMREAD_GRAYSCALE) > 0
    tp = fp = fn = tn = 0
    for i in range(first, last + 1):
        gt = cv2.imread(str(video_folder / "groundtruth" / f"gt{i:06d}.png"), cv2.IMREAD_GRAYSCALE)
        det = cv2.imread(str(result_folder / f"bin{i:06d}.png"), cv2.IMREAD_GRAYSCALE) == 255
        evaluated = roi & np.isin(gt, (0, 50, 255))
        positive = gt == 255
        tp += int(np.sum(evaluated & positive & det))
        fn += int(np.sum(evaluated & positive & ~det))
        fp += int(np.sum(evaluated & ~positive & det))
        tn += int(np.sum(evaluated & ~positive & ~det))
    return tp, fp, fn, tn


def test_evaluate_writes_outputs_whose_counts_match_an_independent_count(demo, tmp_path):
    results = [demo.results["mog2"], demo.results["cnt"]]
    out = tmp_path / "out"
    out.mkdir()
    completed = run_referee(
        "evaluate",
        demo.dataset,
        *results,
        "--quiet",
        "--json",
        out / "r.json",
        "--csv",
        out / "r.csv",
        "--stats-txt",
        out / "stats",
    )
    assert completed.returncode == 0, completed.stderr
    assert "Summary over videos" in completed.stdout and "CDnet procedure" in completed.stdout
    assert "Kendall tau" in completed.stdout

    data = json.loads((out / "r.json").read_text())
    mog2 = next(m for m in data["methods"] if m["method"] == "mog2")
    video = demo.videos[2]
    row = next(
        v for v in mog2["videos"] if (v["category"], v["video"]) == (video.category, video.name)
    )
    expected = independent_counts(video.path, demo.results["mog2"] / video.category / video.name)
    assert tuple(row["counts"][k] for k in ("tp", "fp", "fn", "tn")) == expected
    assert (out / "stats" / "mog2" / "stats.txt").read_text().startswith("#This is")
    assert (out / "r.csv").read_text().count("\nmog2,video,") == len(demo.videos)


def test_stats_txt_written_by_evaluate_summarizes_to_the_same_numbers(demo, tmp_path):
    stats = tmp_path / "stats.txt"
    first = run_referee(
        "evaluate",
        demo.dataset,
        demo.results["knn"],
        "--quiet",
        "--stats-txt",
        stats,
        "--json",
        tmp_path / "a.json",
    )
    assert first.returncode == 0, first.stderr
    second = run_referee("summarize", stats, "--json", tmp_path / "b.json")
    assert second.returncode == 0, second.stderr
    a = json.loads((tmp_path / "a.json").read_text())["methods"][0]
    b = json.loads((tmp_path / "b.json").read_text())["methods"][0]
    assert a["summary"] == b["summary"]


def test_missing_dataset_is_one_line_naming_it_and_exit_2(tmp_path, demo):
    missing = tmp_path / "no-such-dataset"
    completed = run_referee("evaluate", missing, demo.results["mog2"])
    assert completed.returncode == EXIT_USER_ERROR
    assert str(missing) in completed.stderr
    assert "Traceback" not in completed.stderr
    assert len(completed.stderr.strip().splitlines()) == 1


def test_missing_result_frame_names_the_file(demo, tmp_path):
    import shutil

    broken = tmp_path / "broken"
    shutil.copytree(demo.results["mog"], broken)
    video = demo.videos[0]
    victim = broken / video.category / video.name / f"bin{video.temporal_roi[0] + 3:06d}.png"
    victim.unlink()
    completed = run_referee("evaluate", demo.dataset, broken, "--quiet")
    assert completed.returncode == EXIT_USER_ERROR
    assert victim.name in completed.stderr and "Traceback" not in completed.stderr


def test_outputs_are_not_overwritten_without_force(demo, tmp_path, capsys):
    target = tmp_path / "precious.csv"
    target.write_text("my own work\n")
    status = main(
        ["evaluate", str(demo.dataset), str(demo.results["mog2"]), "--quiet", "--csv", str(target)]
    )
    assert status == EXIT_USER_ERROR
    assert target.read_text() == "my own work\n"
    assert "--force" in capsys.readouterr().err
    assert (
        main(
            [
                "evaluate",
                str(demo.dataset),
                str(demo.results["mog2"]),
                "--quiet",
                "--csv",
                str(target),
                "--force",
            ]
        )
        == 0
    )
    assert target.read_text().startswith("method,")


def test_summarize_csv_with_video_weights(tmp_path, capsys):
    cm = tmp_path / "method-a.csv"
    cm.write_text("category,video,TP,FP,FN,TN\nc1,v1,10,0,10,80\nc2,v2,90,10,0,0\n")
    assert main(["summarize", str(cm), "--weights", "video"]) == 0
    out = capsys.readouterr().out
    # Blend with 1/2 each: tp = (0.1 + 0.9)/2 = 0.5, fp = 0.05, fn = 0.05 -> F1 = 1/1.1.
    assert f"{1 / 1.1:.4f}" in out


def test_curves_on_soft_demo_output(demo, tmp_path):
    _method, root = next(iter(demo.soft_results.items()))
    completed = run_referee("curves", demo.dataset, root, "--quiet", "--csv", tmp_path / "c.csv")
    assert completed.returncode == 0, completed.stderr
    lines = (tmp_path / "c.csv").read_text().splitlines()
    assert len(lines) == 1 + 257 * (len(demo.videos) + 1)  # thresholds 0..255 and the end 256
    threshold_zero = [line for line in lines[1:] if line.split(",")[4] == "0"]
    assert all(line.split(",")[10] == "1" for line in threshold_zero), "TPR at T=0 must be 1"
    ends = [line.split(",") for line in lines[1:] if line.split(",")[4] == "256"]
    assert all(cells[10:] == ["0", "", "nothing detected"] for cells in ends), "TPR 0 at T=256"


def test_demo_command_generates_once_then_reuses(tmp_path):
    first = run_referee("demo", "--dir", tmp_path / "d", "--quiet")
    assert first.returncode == 0, first.stderr
    assert "knn" in first.stdout and (tmp_path / "d" / "evaluation" / "results.json").is_file()
    marker = tmp_path / "d" / "referee-demo.json"
    stamp = marker.stat().st_mtime_ns
    results = tmp_path / "d" / "evaluation" / "results.json"
    again = run_referee("demo", "--dir", tmp_path / "d", "--quiet")  # keeps the evaluation
    assert again.returncode == EXIT_USER_ERROR and "--force" in again.stderr
    assert str(results) in again.stderr
    second = run_referee("demo", "--dir", tmp_path / "d", "--quiet", "--force")
    assert second.returncode == 0, second.stderr
    assert marker.stat().st_mtime_ns == stamp


@pytest.mark.parametrize("command", ["evaluate", "summarize", "curves", "demo", "demo-data"])
def test_every_command_has_help(command):
    completed = run_referee(command, "--help")
    assert completed.returncode == 0 and "usage: referee" in completed.stdout


def test_one_video_with_a_pattern_folder_and_a_mask_video_give_the_cdnet_counts(demo, tmp_path):
    """The same masks as renamed files and as a lossless video evaluate to the same counts."""
    video = demo.videos[1]
    cdnet_folder = demo.results["knn"] / video.category / video.name
    renamed = tmp_path / "knn-renamed"
    renamed.mkdir()
    movie = tmp_path / "knn.mkv"
    writer = cv2.VideoWriter(str(movie), cv2.VideoWriter_fourcc(*"FFV1"), 25.0, (160, 120))
    assert writer.isOpened()
    for i in range(1, video.frame_count + 1):
        mask = cv2.imread(str(cdnet_folder / f"bin{i:06d}.png"), cv2.IMREAD_GRAYSCALE)
        cv2.imwrite(str(renamed / f"mask_{i - 1:04d}.png"), mask)
        writer.write(cv2.cvtColor(mask, cv2.COLOR_GRAY2BGR))
    writer.release()

    expected = independent_counts(video.path, cdnet_folder)
    outputs = {}
    for name, extra in (
        ("pattern", [renamed, "--pattern", "mask_%04d.png", "--offset", "-1"]),
        ("movie", [movie]),
    ):
        out = tmp_path / f"{name}.json"
        completed = run_referee("evaluate", video.path, *extra, "--quiet", "--json", out)
        assert completed.returncode == 0, completed.stderr
        row = json.loads(out.read_text())["methods"][0]["videos"][0]
        outputs[name] = tuple(row["counts"][k] for k in ("tp", "fp", "fn", "tn"))
    assert outputs == {"pattern": expected, "movie": expected}


def test_a_mask_video_for_a_dataset_of_several_videos_is_refused(demo, tmp_path):
    movie = tmp_path / "m.avi"
    movie.write_bytes(b"not really a video")
    completed = run_referee("evaluate", demo.dataset, movie, "--quiet")
    assert completed.returncode == EXIT_USER_ERROR
    assert "one video's results" in completed.stderr and "Traceback" not in completed.stderr
