"""``referee estimate`` (docs/measures.md §12) through the real entry point."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from referee.core.cli import main as cli
from referee.core.cli.main import EXIT_USER_ERROR
from referee.core.demo.dataset import DemoLayout
from referee.core.errors import InvalidOptionError
from referee.core.workflow.options import EstimateOptions

METHODS = ("mog2", "knn", "cnt")
MEASURES = {"f1", "precision", "recall"}


def referee(*args: object) -> int:
    return cli.main([str(a) for a in args])


def _interval(entry: dict[str, object], simulated: bool) -> None:
    assert set(entry) == (
        {"estimate", "low", "high", "true"} if simulated else {"estimate", "low", "high"}
    )
    values = [entry[k] for k in sorted(entry)]
    assert all(isinstance(v, (int, float)) and 0 <= v <= 1 for v in values)
    assert entry["low"] <= entry["estimate"] <= entry["high"]  # type: ignore[operator]


def _printed(value: float) -> str:
    """A value as the report prints it."""
    return f"{value:.4f}"


def _true_values(demo: DemoLayout, tmp_path: Path) -> dict[str, dict[str, float]]:
    """Each detector's F1, precision and recall over every frame, from the pixel counts
    ``referee evaluate --json`` gives per video, pooled here."""
    out = tmp_path / "evaluated.json"
    roots = [demo.results[m] for m in METHODS]
    assert referee("evaluate", demo.dataset, *roots, "--quiet", "--json", out) == 0
    values = {}
    for method in json.loads(out.read_text(encoding="utf-8"))["methods"]:
        tp, fp, fn = (sum(v["counts"][k] for v in method["videos"]) for k in ("tp", "fp", "fn"))
        values[method["method"]] = {
            "f1": 2 * tp / (2 * tp + fp + fn),
            "precision": tp / (tp + fp),
            "recall": tp / (tp + fn),
        }
    return values


def _labelled_draws(text: str) -> tuple[int, int, list[tuple[str, int, int]]]:
    """The report's labelled frames: its distinct count, its count of draws, and each
    frame listed with the times it was drawn."""
    match = re.search(r"Labelled frames \((\d+) distinct of (\d+) draws\): (.*?)\n\n", text, re.S)
    assert match is not None, text
    listed = [
        (video, int(frame), int(times or 1))
        for video, frame, times in re.findall(r"([\w/]+):(\d+)(?:\s+\(×(\d+)\))?", match[3])
    ]
    return int(match[1]), int(match[2]), listed


def test_a_simulated_estimate_prints_and_writes_its_json(
    demo: DemoLayout, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "estimate.json"
    roots = [demo.results[m] for m in METHODS]
    assert (
        referee(
            "estimate", demo.dataset, *roots, "--labels", 20, "--simulate", "--quiet", "--json", out
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "§12" in text and "P(row beats column on F1)" in text and "Labelled frames" in text
    assert "mog2 − knn:" in text and "true" in text

    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["format"] == "referee-estimate"
    assert set(data["versions"]) >= {"referee", "python", "numpy", "scipy", "opencv"}
    assert data["labels"] == 20 and data["simulated"] is True and data["design"] == "balanced"
    assert data["trusted"] is True and data["estimator"] == "tuned"
    assert 1 <= len(data["frames"]) <= 20

    # The simulated annotator's true values are the detectors' values over every frame.
    truth = _true_values(demo, tmp_path)
    for method in METHODS:
        for measure in MEASURES:
            entry = data["detectors"][method][measure]
            assert entry["true"] == pytest.approx(truth[method][measure], rel=1e-9)
    # --labels draws were labelled: the report lists the JSON's frames, each with the times
    # it was drawn, and those add up to --labels.
    distinct, draws, listed = _labelled_draws(text)
    assert draws == 20 and sum(times for _, _, times in listed) == 20
    assert distinct == len(listed) == len(data["frames"])
    assert [(video, frame) for video, frame, _ in listed] == [
        (f["video"], f["frame"]) for f in data["frames"]
    ]
    # The numbers printed are the JSON's: each detector's row (estimate, interval and true
    # value of F1, precision and recall), P(row beats column) and each pair's difference.
    table = text.split("\ndetector ")[1].split("\n\n")[0].splitlines()[1:]
    assert len(table) == len(METHODS)
    for method, line in zip(METHODS, table):
        name, *row = line.split()
        assert name == method
        cells = [cell.strip("[],") for cell in row]
        assert cells == [
            _printed(data["detectors"][method][measure][key])
            for measure in ("f1", "precision", "recall")
            for key in ("estimate", "low", "high", "true")
        ]
    beats = text.split("P(row beats column on F1)")[1].splitlines()[2 : 2 + len(METHODS)]
    for method, line in zip(METHODS, beats):
        assert line.split() == [
            method,
            *(
                _printed(data["beats"][method][other]) if other != method else "—"
                for other in METHODS
            ),
        ]
    for pair in data["significance"]:
        gap = pair["f1_difference"]
        printed = f"  {pair['a']} − {pair['b']}: {_printed(gap['estimate'])} "
        assert printed + f"[{_printed(gap['low'])}, {_printed(gap['high'])}]; " in text
    videos = {f"{v.category}/{v.name}" for v in demo.videos}
    for frame in data["frames"]:
        assert set(frame) == {"video", "frame"} and frame["video"] in videos
        assert isinstance(frame["frame"], int)
    assert set(data["detectors"]) == set(METHODS)
    for measures in data["detectors"].values():
        assert set(measures) == MEASURES
        for entry in measures.values():
            _interval(entry, simulated=True)
    assert data["beats"]["mog2"]["knn"] + data["beats"]["knn"]["mog2"] == pytest.approx(1.0)
    (pair,) = [p for p in data["significance"] if (p["a"], p["b"]) == ("mog2", "knn")]
    gap = pair["f1_difference"]
    true_gap = data["detectors"]["mog2"]["f1"]["true"] - data["detectors"]["knn"]["f1"]["true"]
    assert gap["low"] <= gap["estimate"] <= gap["high"] and gap["estimate"] * true_gap > 0
    for method, check in data["consensus"].items():
        f1 = data["detectors"][method]["f1"]
        assert check["bias"]["estimate"] == pytest.approx(check["f1"] - f1["estimate"])


def test_repeated_samples_are_single_runs_with_successive_seeds(
    demo: DemoLayout, tmp_path: Path
) -> None:
    roots = [demo.results[m] for m in METHODS]
    common = ("--labels", 15, "--simulate", "--quiet", "--json")
    repeated = tmp_path / "repeated.json"
    assert (
        referee("estimate", demo.dataset, *roots, "--seed", 3, "--repeat", 4, *common, repeated)
        == 0
    )
    data = json.loads(repeated.read_text(encoding="utf-8"))
    assert [d["seed"] for d in data["draws"]] == [3, 4, 5, 6]
    single = tmp_path / "single.json"
    assert referee("estimate", demo.dataset, *roots, "--seed", 5, *common, single) == 0
    one = json.loads(single.read_text(encoding="utf-8"))
    keys = ("design", "labels", "frames", "detectors", "consensus", "beats", "significance")
    assert {k: data["draws"][2][k] for k in keys} == {k: one[k] for k in keys}
    # Each detector's accuracy, computed here from the draws.
    for method in METHODS:
        runs = [d["detectors"][method]["f1"] for d in data["draws"]]
        errors = [r["estimate"] - r["true"] for r in runs]
        accuracy = data["accuracy"][method]
        assert accuracy["rmse"] == pytest.approx(sum(e * e for e in errors) ** 0.5 / 2)
        assert accuracy["bias"] == pytest.approx(sum(errors) / 4)
        covered = sum(r["low"] <= r["true"] <= r["high"] for r in runs)
        assert accuracy["coverage"] == pytest.approx(covered / 4) and accuracy["intervals"] == 4


def test_the_consensus_alone_has_no_interval(demo: DemoLayout, tmp_path: Path) -> None:
    out = tmp_path / "e.json"
    roots = [demo.results[m] for m in METHODS[:2]]
    assert referee("estimate", demo.dataset, *roots, "--labels", 0, "--quiet", "--json", out) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["frames"] == [] and data["design"] == "none"
    f1 = data["detectors"]["knn"]["f1"]
    assert set(f1) == {"estimate", "low", "high"} and f1["low"] is None and f1["high"] is None


def test_a_simulation_without_draws_is_the_consensus_beside_the_truth(
    demo: DemoLayout, tmp_path: Path
) -> None:
    out = tmp_path / "e.json"
    roots = [demo.results[m] for m in METHODS]
    argv = ("estimate", demo.dataset, *roots, "--simulate", "--labels", 0, "--quiet", "--json", out)
    assert referee(*argv) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["frames"] == [] and data["simulated"]
    truth = _true_values(demo, tmp_path)
    for method, measures in truth.items():
        for measure, value in measures.items():
            entry = data["detectors"][method][measure]
            assert entry["true"] == pytest.approx(value, abs=1e-12)
            assert entry["low"] is None and entry["high"] is None


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--labels", "5"], "without --simulate"),
        (["--simulate"], "--simulate needs --labels"),
        (["--simulate", "--labels", "100000"], "draw at most"),
        (["--repeat", "3"], "--repeat R draws R simulated samples"),
    ],
)
def test_bad_options_are_one_line_and_status_2(
    demo: DemoLayout, extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    roots = [demo.results[m] for m in METHODS[:2]]
    assert referee("estimate", demo.dataset, *roots, "--quiet", *extra) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert err.startswith("referee: error: ") and message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("extra", "options"),
    [
        (["--simulate"], {"simulate": True}),
        (["--repeat", "3"], {"repeat": 3}),
        (["--repeat", "3", "--labels", "5"], {"repeat": 3, "labels": 5}),
        (["--labels", "5"], {"labels": 5}),
    ],
)
def test_the_command_says_what_the_options_say(
    demo: DemoLayout,
    extra: list[str],
    options: dict[str, object],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The rules of --simulate, --labels and --repeat live in the options alone: the
    command's one line is the options' message, which names the options as the command
    spells them."""
    with pytest.raises(InvalidOptionError) as refused:
        EstimateOptions(**options)  # type: ignore[arg-type]
    message = str(refused.value)
    assert "--" in message and "a simulation" not in message
    roots = [demo.results[m] for m in METHODS[:2]]
    assert referee("estimate", demo.dataset, *roots, "--quiet", *extra) == EXIT_USER_ERROR
    assert capsys.readouterr().err == f"referee: error: {message}\n"


def test_a_missing_results_folder_is_named(
    demo: DemoLayout, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nothing"
    code = referee(
        "estimate", demo.dataset, demo.results["knn"], missing, "--labels", "0", "--quiet"
    )
    err = capsys.readouterr().err
    assert code == EXIT_USER_ERROR and str(missing) in err and "Traceback" not in err


def test_command_line_defaults_are_the_options_defaults() -> None:
    args = vars(cli.build_parser().parse_args(["estimate", "d", "a", "b"]))
    defaults = EstimateOptions()
    assert (args["labels"], args["labelled"], args["sampler"], args["estimator"]) == (
        defaults.labels,
        defaults.labelled,
        defaults.sampler,
        defaults.estimator,
    )
    assert (args["seed"], args["uniform"], args["simulate"], args["workers"]) == (
        defaults.seed,
        defaults.uniform_share,
        defaults.simulate,
        defaults.workers,
    )
    assert args["repeat"] == defaults.repeat


def test_a_partly_annotated_video_names_the_frame_to_label_next(
    demo: DemoLayout, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "dataset"
    shutil.copytree(demo.dataset, dataset)
    video = demo.videos[0]
    label = f"{video.category}/{video.name}"
    truth = dataset / video.category / video.name / "groundtruth"
    removed = {int(gt.stem[2:]) for gt in sorted(truth.iterdir())[::3]}
    for number in removed:
        (truth / f"gt{number:06d}.png").unlink()
    roots = [demo.results[m] for m in METHODS]
    out = tmp_path / "drawn.json"
    assert referee("estimate", dataset, *roots, "--quiet", "--json", out) == 0
    text = capsys.readouterr().out
    assert "F1 of each partly annotated video" in text and label in text
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["design"] == "balanced" and [v["video"] for v in data["videos"]] == [label]
    (mine,) = data["videos"]
    assert mine["next_frame"] in removed and mine["labels"] == data["labels"]
    assert all(f["video"] == label and f["frame"] not in removed for f in data["frames"])
    assert set(mine["detectors"]) == set(METHODS)
    out = tmp_path / "annotated.json"
    args = ("--labelled", "annotated", "--quiet", "--json", out)
    assert referee("estimate", dataset, *roots, *args) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    (mine,) = data["videos"]
    assert data["design"] == "annotated" and mine["next_frame"] is None
    first, last = (int(n) for n in (truth.parent / "temporalROI.txt").read_text().split())
    assert mine["labels"] == mine["frames"] - len({n for n in removed if first <= n <= last})
