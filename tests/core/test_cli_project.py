"""``referee project new`` and project files in place of DATASET RESULTS..., run as a user
runs them: a real process, real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.core.cli.main import EXIT_USER_ERROR
from referee.core.demo.dataset import DemoLayout
from referee.core.formats.project_json import read_project
from tests.core.test_cli import run_referee

#: Few frames, so that each command runs twice in a few seconds.
FRAMES = ("--frames", "40:80")


def _one_error_line(completed, *parts: str) -> str:
    """The single stderr line of a refused command, which names each of ``parts``."""
    assert completed.returncode == EXIT_USER_ERROR, completed.stdout
    assert "Traceback" not in completed.stderr
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1, completed.stderr
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def project_file(demo: DemoLayout, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``study.referee.json`` of the demo's masks, scores, actions and counts."""
    file = tmp_path_factory.mktemp("project") / "study.referee.json"
    completed = run_referee(
        "project",
        "new",
        file,
        "--dataset",
        demo.dataset,
        "--results",
        demo.results["mog2"],
        demo.results["knn"],
        demo.results["running-average"],
        "--scores",
        demo.soft_results["running-average"],
        "--actions",
        demo.actions_gt,
        demo.actions["mog2"],
        demo.actions["knn"],
        "--counts",
        demo.root / "counts",
    )
    assert completed.returncode == 0, completed.stderr
    return file


def test_project_new_writes_the_file_and_lists_every_source(
    project_file: Path, demo: DemoLayout, tmp_path: Path
) -> None:
    project = read_project(project_file)
    assert project.name == "study"
    assert project.dataset == demo.dataset
    assert project.actions_groundtruth == demo.actions_gt
    assert project.counts == demo.root / "counts"
    assert [d.name for d in project.detectors] == ["mog2", "knn", "running-average"]
    mog2, knn, average = project.detectors
    assert (mog2.masks, mog2.actions, mog2.scores) == (
        demo.results["mog2"],
        demo.actions["mog2"],
        None,
    )
    assert knn.actions == demo.actions["knn"]
    assert average.scores == demo.soft_results["running-average"]  # one detector of one name
    stored = json.loads(project_file.read_text(encoding="utf-8"))
    assert not Path(stored["dataset"]).is_absolute()  # relative to the file's folder
    # The listing: one line per source, each read.
    again = tmp_path / "again.referee.json"
    completed = run_referee(
        "project", "new", again, "--dataset", demo.dataset, "--results", demo.results["cnt"]
    )
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.strip().splitlines()
    assert lines[0].startswith("loaded") and "dataset" in lines[0] and str(demo.dataset) in lines[0]
    assert lines[1].startswith("loaded") and "cnt masks" in lines[1]
    assert lines[2] == f"wrote {again} (1 detector)"


def test_evaluate_of_the_project_gives_the_numbers_of_its_folders(
    project_file: Path, demo: DemoLayout, tmp_path: Path
) -> None:
    results = [demo.results[name] for name in ("mog2", "knn", "running-average")]
    of_project = run_referee(
        "evaluate", project_file, "--quiet", "--json", tmp_path / "p.json", *FRAMES
    )
    of_folders = run_referee(
        "evaluate", demo.dataset, *results, "--quiet", "--json", tmp_path / "f.json", *FRAMES
    )
    assert of_project.returncode == 0, of_project.stderr
    assert of_folders.returncode == 0, of_folders.stderr
    assert "mog2" in of_project.stdout and "running-average" in of_project.stdout
    assert of_project.stdout == of_folders.stdout
    by_project = json.loads((tmp_path / "p.json").read_text())
    by_folders = json.loads((tmp_path / "f.json").read_text())
    assert by_project["methods"] == by_folders["methods"]
    assert by_project["parameters"]["project"] == str(project_file)
    assert "project" not in by_folders["parameters"]


@pytest.mark.parametrize(
    "command, kind",
    [
        (["curves"], "scores"),
        (["pseudo"], "masks"),
        (["rank", "--include-annotated", "--top", "5"], "masks"),
        (["significance", "--a", "mog2", "--b", "knn"], "masks"),
        (["estimate"], "masks"),
    ],
    ids=lambda value: value[0] if isinstance(value, list) else value,
)
def test_every_command_on_masks_or_scores_reads_a_project(
    project_file: Path, demo: DemoLayout, command: list[str], kind: str
) -> None:
    roots = demo.soft_results if kind == "scores" else demo.results
    names = ["running-average"] if kind == "scores" else ["mog2", "knn", "running-average"]
    of_project = run_referee(*command, project_file, "--quiet", *FRAMES)
    of_folders = run_referee(
        *command, demo.dataset, *(roots[name] for name in names), "--quiet", *FRAMES
    )
    assert of_project.returncode == 0, of_project.stderr
    assert of_folders.returncode == 0, of_folders.stderr
    assert "mog2" in of_project.stdout or kind == "scores"
    assert of_project.stdout == of_folders.stdout


def test_a_missing_dataset_is_one_line_and_nothing_is_written(
    demo: DemoLayout, tmp_path: Path
) -> None:
    file, missing = tmp_path / "study.referee.json", tmp_path / "no-dataset"
    completed = run_referee(
        "project", "new", file, "--dataset", missing, "--results", demo.results["mog2"]
    )
    _one_error_line(completed, str(missing), "dataset folder does not exist", "--no-check")
    assert completed.stdout.split()[:3] == ["missing", "dataset", f"{missing}:"]
    assert not file.exists()
    # --no-check writes it anyway, unchecked: the files may come later.
    arguments = ("project", "new", file, "--dataset", missing, "--results", demo.results["mog2"])
    completed = run_referee(*arguments, "--no-check")
    assert completed.returncode == 0, completed.stderr
    assert read_project(file).dataset == missing


def test_an_existing_file_is_kept_without_force(demo: DemoLayout, tmp_path: Path) -> None:
    file = tmp_path / "study.referee.json"
    file.write_text("mine", encoding="utf-8")
    arguments = ("project", "new", file, "--dataset", demo.dataset)
    _one_error_line(run_referee(*arguments), str(file), "already exists", "--force")
    assert file.read_text(encoding="utf-8") == "mine"
    completed = run_referee(*arguments, "--results", demo.results["knn"], "--force")
    assert completed.returncode == 0, completed.stderr
    assert [d.name for d in read_project(file).detectors] == ["knn"]


@pytest.mark.parametrize(
    "arguments, parts",
    [
        (["plain.json"], ["plain.json", "ends with .referee.json", "plain.referee.json"]),
        (["a.referee.json"], ["needs a dataset folder"]),
        (["a.referee.json", "--results", "{mog2}"], ["give the dataset folder too"]),
        (
            ["a.referee.json", "--dataset", "{dataset}", "--results", "{mog2}", "{mog2}"],
            ["two detectors are both named 'mog2'"],
        ),
        (
            ["a.referee.json", "--dataset", "{dataset}", "--actions", "{gt}", "{gt}"],
            ["groundtruth.xml", "'groundtruth' cannot name a detector"],
        ),
    ],
    ids=["suffix", "nothing", "no-dataset", "same-name", "reserved-name"],
)
def test_project_new_refuses_in_one_line(
    demo: DemoLayout, tmp_path: Path, arguments: list[str], parts: list[str]
) -> None:
    paths = {"mog2": demo.results["mog2"], "dataset": demo.dataset, "gt": demo.actions_gt}
    given = [tmp_path / a if a.endswith(".json") else a.format(**paths) for a in arguments]
    _one_error_line(run_referee("project", "new", *given), *parts)
    assert not list(tmp_path.iterdir())


def test_a_project_file_refuses_results_and_must_name_what_the_command_reads(
    demo: DemoLayout, tmp_path: Path
) -> None:
    file = tmp_path / "masks.referee.json"
    made = run_referee(
        "project", "new", file, "--dataset", demo.dataset, "--results", demo.results["mog2"]
    )
    assert made.returncode == 0, made.stderr
    _one_error_line(
        run_referee("evaluate", file, demo.results["knn"]), str(file), "drop the RESULTS"
    )
    _one_error_line(run_referee("curves", file), str(file), "no detector with scores")
    _one_error_line(
        run_referee("pseudo", file), str(file), "only 1 detector with masks (mog2)", "two"
    )
    _one_error_line(
        run_referee("evaluate", demo.dataset), "give one or more RESULTS", "project file"
    )
    _one_error_line(run_referee("evaluate", tmp_path / "none.referee.json"), "does not exist")
