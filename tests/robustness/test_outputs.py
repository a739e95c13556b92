"""The catalogue of faults around what Referee writes: modes, clobbering, clashing or
unwritable outputs, spreadsheet formulas, the demo's own outputs."""

from __future__ import annotations

import csv
import functools
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.core.demo.dataset import DemoLayout
from referee.core.errors import InputFileError
from referee.core.exports.ranking_csv import read_ranking_csv, write_ranking_csv
from referee.core.formats.text_files import keeping_existing, write_text
from referee.core.ranking.order import RankedFrame
from tests.robustness.conftest import TIMEOUT_SECONDS, assert_refused, run_referee

HYPERLINK = '=HYPERLINK("x")'


def _evaluate(demo: DemoLayout, *outputs: str | Path) -> list[str | Path]:
    return ["evaluate", demo.dataset, demo.results["mog2"], "--quiet", *outputs]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _no_temporary_files(folder: Path) -> bool:
    return not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


# --- modes -------------------------------------------------------------------------------


@pytest.mark.parametrize(("umask", "expected"), [(0o022, 0o644), (0o077, 0o600)])
def test_new_outputs_get_the_mode_the_umask_allows(demo, tmp_path, umask, expected):
    outputs = [tmp_path / "r.json", tmp_path / "r.csv", tmp_path / "stats.txt"]
    command = [sys.executable, "-m", "referee.core.cli"]
    args = _evaluate(demo, "--json", outputs[0], "--csv", outputs[1], "--stats-txt", outputs[2])
    done = subprocess.run(
        [*command, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        preexec_fn=functools.partial(os.umask, umask),
    )
    assert done.returncode == 0, done.stderr
    assert {path.name: oct(_mode(path)) for path in outputs} == {
        path.name: oct(expected) for path in outputs
    }


def test_a_replaced_output_keeps_its_mode(demo, tmp_path):
    target = tmp_path / "r.json"
    target.write_text("old\n")
    target.chmod(0o640)
    outcome = run_referee(*_evaluate(demo, "--json", target, "--force"))
    assert outcome.status == 0, outcome.stderr
    assert json.loads(target.read_text())  # replaced
    assert _mode(target) == 0o640


# --- never replaced without --force ----------------------------------------------------------


def test_a_file_that_appears_while_writing_is_not_replaced(tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    real_fsync = os.fsync

    def someone_else_writes_first(fd: int) -> None:  # after every check made at the start
        target.write_text("someone else's\n")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", someone_else_writes_first)
    with keeping_existing(), pytest.raises(InputFileError, match="already exists") as error:
        write_text(target, "ours\n")
    assert error.value.path == target
    assert target.read_text() == "someone else's\n"
    assert _no_temporary_files(tmp_path)


def test_an_existing_file_is_not_replaced_when_writing(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("mine\n")
    with keeping_existing(), pytest.raises(InputFileError, match="already exists"):
        write_text(target, "ours\n")
    assert target.read_text() == "mine\n"
    write_text(target, "ours\n")  # outside keeping_existing(): replaced
    assert target.read_text() == "ours\n"
    assert _no_temporary_files(tmp_path)


def test_two_runs_writing_the_same_json_one_wins_the_other_is_refused(demo, tmp_path):
    target = tmp_path / "same.json"
    command = [sys.executable, "-m", "referee.core.cli"]
    args = [*command, *map(str, _evaluate(demo, "--json", target))]
    runs = [
        subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    errors = [run.communicate(timeout=TIMEOUT_SECONDS)[1] for run in runs]
    results = [(run.returncode, err) for run, err in zip(runs, errors)]
    assert sorted(status for status, _ in results) == [0, 2], results
    refused = next(err for status, err in results if status == 2)
    assert str(target) in refused and "already exists" in refused and "--force" in refused
    assert "Traceback" not in refused
    assert json.loads(target.read_text())


# --- outputs checked before any work -----------------------------------------------------


def test_the_same_file_for_two_outputs_is_refused(demo, tmp_path):
    target = tmp_path / "x.out"
    outcome = run_referee(*_evaluate(demo, "--json", target, "--csv", target))
    assert_refused(outcome, target, "--json", "--csv")
    assert not target.exists()


def test_report_with_one_file_for_html_and_json_is_refused(demo, tmp_path):
    (tmp_path / "sub").mkdir()
    target = tmp_path / "r.out"
    spelled_otherwise = tmp_path / "sub" / ".." / "r.out"
    outcome = run_referee("report", demo.dataset, "--html", target, "--json", spelled_otherwise)
    assert_refused(outcome, "--html", "--json", "r.out")
    assert not target.exists()


def test_an_output_over_an_input_is_refused_even_with_force(tmp_path):
    cm = tmp_path / "method.csv"
    text = "category,video,TP,FP,FN,TN\nc,v,10,0,10,80\n"
    cm.write_text(text)
    assert_refused(run_referee("summarize", cm, "--csv", cm, "--force"), cm, "input")
    assert cm.read_text() == text


def test_a_missing_output_folder_is_refused_before_computing(demo, tmp_path):
    # The results lack a frame: computing would fail on it. The output's missing
    # folder is named instead, so it was checked first.
    results = tmp_path / "mog2"
    shutil.copytree(demo.results["mog2"], results)
    video = demo.videos[0]
    first = video.temporal_roi[0]
    (results / video.category / video.name / f"bin{first:06d}.png").unlink()
    target = tmp_path / "missing" / "r.json"
    outcome = run_referee("evaluate", demo.dataset, results, "--quiet", "--json", target)
    assert_refused(outcome, target, "missing", "not an existing folder")


def test_a_folder_given_as_an_output_file_is_refused(demo, tmp_path):
    assert_refused(run_referee(*_evaluate(demo, "--json", tmp_path)), tmp_path, "is a folder")


def test_a_named_pipe_given_as_an_output_is_refused_and_left_alone(demo, tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    outcome = run_referee(*_evaluate(demo, "--json", pipe, "--force"))
    assert_refused(outcome, pipe, "not a regular file")
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)


# --- spreadsheet formulas ----------------------------------------------------------------


def _csv_rows(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_a_method_named_like_a_formula_is_text_in_the_csv(demo, tmp_path):
    results = tmp_path / HYPERLINK
    shutil.copytree(demo.results["mog2"], results)
    target = tmp_path / "r.csv"
    outcome = run_referee("evaluate", demo.dataset, results, "--quiet", "--csv", target)
    assert outcome.status == 0, outcome.stderr
    rows = _csv_rows(target)[1:]
    assert rows and {row[0] for row in rows} == {"'" + HYPERLINK}
    assert not [cell for row in rows for cell in row if cell.startswith(("=", "+", "@"))]


def test_a_video_named_like_a_formula_is_text_and_a_negative_number_stays_a_number(tmp_path):
    # One ground-truth box, three detections far from it: 1 miss and 3 false positives,
    # so MODA = 1 - (1 + 3) / 1 = -3 (docs/measures.md §5).
    gt = tmp_path / f"{HYPERLINK}.txt"
    gt.write_text("1,1,10,10,20,20,1,-1,-1,-1\n")
    det = tmp_path / "det.txt"
    det.write_text("".join(f"1,{k},{100 * k},{100 * k},20,20,1,-1,-1,-1\n" for k in (1, 2, 3)))
    target = tmp_path / "boxes.csv"
    outcome = run_referee("boxes", gt, det, "--quiet", "--csv", target)
    assert outcome.status == 0, outcome.stderr
    header, video_row, _all = _csv_rows(target)
    assert video_row[0] == "'" + HYPERLINK
    assert float(video_row[header.index("moda")]) == -3
    assert video_row[header.index("moda")].startswith("-")


def test_formula_like_text_reads_back_exactly_from_a_ranking_csv(tmp_path):
    ranking = [
        RankedFrame(1, HYPERLINK, 3, 0.5, "'=already quoted"),
        RankedFrame(2, "-video", 7, 0.25, "\tcriterion"),
        RankedFrame(3, "@video", 9, 0.125, "plain"),
    ]
    target = tmp_path / "rank.csv"
    write_ranking_csv(target, ranking)
    cells = [row[1] for row in _csv_rows(target)[1:]] + [row[4] for row in _csv_rows(target)[1:]]
    assert cells == [
        "'" + HYPERLINK,
        "'-video",
        "'@video",
        "''=already quoted",
        "'\tcriterion",
        "plain",
    ]
    assert read_ranking_csv(target) == ranking


# --- the demo's outputs ----------------------------------------------------------------


def test_demo_keeps_an_earlier_evaluation_and_its_folder_opens_as_a_project(tmp_path):
    folder = tmp_path / "demo"
    assert run_referee("demo", "--dir", folder, "--quiet").status == 0
    results = folder / "evaluation" / "results.json"
    before = results.read_bytes()
    assert_refused(run_referee("demo", "--dir", folder, "--quiet"), results, "--force")
    assert results.read_bytes() == before
    report = tmp_path / "report.html"
    outcome = run_referee("report", folder, "--html", report, "--quiet")
    assert outcome.status == 0, outcome.stderr
    assert "Referee demo" in report.read_text(encoding="utf-8")  # the demo project's name
    time.sleep(0.01)  # a later modification time if it is rewritten
    assert run_referee("demo", "--dir", folder, "--quiet", "--force").status == 0
    assert results.stat().st_mtime_ns > report.stat().st_mtime_ns


# --- options the help advertises --------------------------------------------------------


@pytest.mark.parametrize(("window", "expected"), [("0", 0.0), ("1", 1.0)])
def test_counts_short_window_option(tmp_path, window, expected):
    # GT 0,1,1,1 changes at 1→2, the estimate 0,0,1,1 at 2→3 (docs/measures.md §6): only a
    # window of ±1 frame matches them, CCR_WCC 1/1; with 0 it is 0/2 (the GT change, and
    # the estimate's unmatched change during a GT no-change).
    gt = tmp_path / "gt.csv"
    gt.write_text("frame,count\n1,0\n2,1\n3,1\n4,1\n")
    estimate = tmp_path / "est.csv"
    estimate.write_text("frame,count\n1,0\n2,0\n3,1\n4,1\n")
    target = tmp_path / "c.json"
    outcome = run_referee("counts", gt, estimate, "-w", window, "--json", target, "--quiet")
    assert outcome.status == 0, outcome.stderr
    assert json.loads(target.read_text())["ccr_wcc"]["value"] == expected


def test_a_closed_pipe_ends_the_command_quietly(demo, tmp_path: Path) -> None:
    """``referee … | head``: the reader went away; no traceback, the status a shell expects."""
    process = subprocess.Popen(
        [sys.executable, "-m", "referee.core.cli", "evaluate", demo.dataset, demo.results["mog2"]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    process.stdout.close()  # the reader ends before anything is written
    _, stderr = process.communicate(timeout=120)
    assert "Traceback" not in stderr.decode() and "BrokenPipe" not in stderr.decode()
    assert process.returncode == 141


def test_a_demo_folder_under_a_file_is_refused_naming_it(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")
    outcome = run_referee("demo", "--dir", tmp_path / "file" / "demo", "--quiet")
    assert_refused(outcome, str(tmp_path / "file"), "cannot write the demo")


def test_a_file_given_as_the_dataset_is_called_a_file(demo, tmp_path: Path) -> None:
    (tmp_path / "dataset.txt").write_text("x", encoding="utf-8")
    outcome = run_referee("evaluate", tmp_path / "dataset.txt", demo.results["mog2"])
    assert_refused(outcome, str(tmp_path / "dataset.txt"), "is a file, not a folder")
