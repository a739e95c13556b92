"""Errors first: a path that does not exist is said at once, before any heavy import.

Each command given a missing input ends with status 2 and one line naming it, without
importing NumPy, OpenCV, SciPy, Qt... (the probe records what the process imported);
and the line is the one the command gave before it checked its inputs first, when it
found the path missing only while computing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.core.cli import common, input_checks
from referee.core.cli import main as cli
from referee.core.demo.dataset import DemoLayout
from referee.core.errors import InputFileError
from referee.core.formats.annotators import check_annotator_root
from referee.core.formats.cdnet import discover_videos, find_result_folder
from tests.core.cli_probe import run_probe

#: Libraries a refused input must not wait for (see tests/core/test_startup.py).
HEAVY = ("numpy", "scipy", "matplotlib", "PySide6", "pyqtgraph", "cv2", "lxml", "av")

#: Each command with one missing input ({missing}); the other inputs exist (the demo's).
CASES = {
    "evaluate-dataset": "evaluate {missing} {mog2}",
    "evaluate-results": "evaluate {dataset} {mog2} {missing}",
    "evaluate-project": "evaluate {missing}.referee.json",
    "evaluate-weights": "evaluate {dataset} {mog2} --weights-csv {missing}.csv",
    "summarize": "summarize {missing}.csv",
    "curves-dataset": "curves {missing} {soft}",
    "curves-results": "curves {dataset} {missing}",
    "actions-gt": "actions {missing}.xml {actions}",
    "actions-det": "actions {actions_gt} {missing}.xml",
    "boxes-gt": "boxes {missing}.xml {actions}",
    "boxes-det": "boxes {actions_gt} {missing}.xml",
    "boxes-project": "boxes {actions_gt} {actions} --project {missing}.referee.json",
    "counts-gt": "counts {missing}.csv {counts}",
    "counts-estimate": "counts {counts_gt} {missing}.csv",
    "convert": "convert {missing}.xml {out}.json --to coco",
    "pseudo": "pseudo {dataset} {mog2} {missing}",
    "rank-results": "rank {dataset} {mog2} {missing}",
    "rank-project": "rank {missing}.referee.json",
    "significance-dataset": "significance {missing} {mog2} {knn}",
    "significance-results": "significance {dataset} {missing} {knn}",
    "significance-scores": "significance --scores {missing}.csv",
    "significance-boxes": "significance --boxes {actions_gt} {actions} {missing}.xml",
    "significance-actions": "significance --actions {missing}.xml {actions} {actions_knn}",
    "significance-tracking": "significance --tracking {actions_gt} {missing}.txt {actions_knn}",
    "estimate": "estimate {dataset} {missing} {knn} --labels 3 --simulate",
    "agreement-dataset": "agreement {missing}",
    "agreement-annotator": "agreement {dataset} {mog2} {missing}",
    "report": "report {missing} --html {out}.html",
    "report-no-output": "report {missing}",
    "gui": "gui {missing} --screenshot {out}.png",
}
#: Commands with no input that must exist (what they read they make, or --no-check allows).
NO_INPUT = {"demo", "demo-data", "project"}
#: Cases whose command, without the early check, would first say something else (another
#: mistake, which the missing path now precedes) or start the desktop application.
NOT_COMPARED = {"report-no-output", "gui"}


def arguments(case: str, demo: DemoLayout, folder: Path) -> list[str]:
    paths = {
        "missing": folder / "MISSING",
        "out": folder / "out",
        "dataset": demo.dataset,
        "mog2": demo.results["mog2"],
        "knn": demo.results["knn"],
        "soft": demo.soft_results["running-average"],
        "actions_gt": demo.actions_gt,
        "actions": demo.actions["mog2"],
        "actions_knn": demo.actions["knn"],
        "counts_gt": demo.counts[demo.videos[0].key]["groundtruth"],
        "counts": demo.counts[demo.videos[0].key]["mog2"],
    }
    return CASES[case].format(**paths).split()


def test_every_command_is_checked_or_reads_nothing_that_must_exist() -> None:
    parser = cli.build_parser()
    cli.add_command_plugins(cli.subcommands(parser))
    checked = {CASES[case].split()[0] for case in CASES}
    assert checked | NO_INPUT == set(cli.subcommands(parser).choices)
    assert not checked & NO_INPUT


@pytest.mark.parametrize("case", list(CASES))
def test_a_missing_input_is_one_line_before_any_heavy_import(
    case: str, demo: DemoLayout, tmp_path: Path
) -> None:
    status, stderr, modules = run_probe(arguments(case, demo, tmp_path), tmp_path)
    assert status == cli.EXIT_USER_ERROR
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("referee: error: ") and str(tmp_path / "MISSING") in lines[0]
    assert [name for name in HEAVY if name in modules] == []


@pytest.mark.parametrize("case", sorted(set(CASES) - NOT_COMPARED))
def test_the_early_message_is_the_one_the_command_gave_later(
    case: str,
    demo: DemoLayout,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = arguments(case, demo, tmp_path)
    _, early, _ = run_probe(args, tmp_path)
    monkeypatch.setattr(common, "check_inputs", lambda args: None)
    monkeypatch.chdir(tmp_path)
    assert cli.main(args) == cli.EXIT_USER_ERROR
    assert capsys.readouterr().err == early


def test_the_check_does_not_hide_what_it_does_not_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Guard against a comparison that cannot fail: without the check, the command finds
    the missing path itself, later; ``report demo`` is not a path."""
    calls: list[object] = []
    monkeypatch.setattr(common, "check_inputs", calls.append)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["counts", "MISSING.csv", "other.csv"]) == cli.EXIT_USER_ERROR
    assert len(calls) == 1 and "MISSING.csv: cannot read the file" in capsys.readouterr().err
    assert input_checks.absent(Path("demo"))
    input_checks.check_inputs(cli.build_parser(["report"]).parse_args(["report", "demo"]))


def test_the_messages_written_twice_are_the_same(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(InputFileError) as dataset:
        discover_videos(missing)
    with pytest.raises(InputFileError) as early:
        input_checks.dataset([missing], 0)
    assert str(early.value) == str(dataset.value)
    with pytest.raises(InputFileError) as results:
        find_result_folder(missing, discover_videos(_one_video(tmp_path))[0])
    with pytest.raises(InputFileError) as early:
        input_checks.results([missing], 0)
    assert str(early.value) == str(results.value)


def test_an_annotator_folder_is_named_as_the_agreement_names_it(tmp_path: Path) -> None:
    from referee.core.cli.agreement import _missing_annotator

    missing = tmp_path / "ann"
    with pytest.raises(InputFileError) as later:
        check_annotator_root("ann", missing)
    with pytest.raises(InputFileError) as early:
        _missing_annotator([missing], 0)
    assert str(early.value) == str(later.value)


def _one_video(folder: Path) -> Path:
    """A minimal CDnet video folder: one input frame, its ground truth, ROI and temporal ROI."""
    import cv2
    import numpy as np

    video = folder / "video"
    (video / "input").mkdir(parents=True)
    (video / "groundtruth").mkdir()
    image = np.zeros((4, 4), np.uint8)
    cv2.imwrite(str(video / "input" / "in000001.jpg"), image)
    cv2.imwrite(str(video / "groundtruth" / "gt000001.png"), image)
    cv2.imwrite(str(video / "ROI.bmp"), image + 255)
    (video / "temporalROI.txt").write_text("1 1\n", encoding="utf-8")
    return video
