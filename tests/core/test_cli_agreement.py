"""``referee agreement`` (docs/measures.md §13) through the real entry point, in a new
process, on a synthetic dataset with three annotators written here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from referee.core.cli.main import EXIT_USER_ERROR
from referee.core.formats.project_json import write_project
from referee.core.model.project import AnnotatorSource, Project
from referee.core.report.build import build_report
from tests.core.agreement_data import SHAPE, read_label, simulated_labels, write_label, write_video

NAMES = ("ann", "bob", "cyd")
QUALITY = {"ann": (0.95, 0.97), "bob": (0.8, 0.95), "cyd": (0.9, 0.9)}
#: Frames each video's annotators share (a's temporal ROI is 1..8, b's 1..5).
SHARED = {"a": (2, 3, 5), "b": (1, 4)}


def referee(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.core.cli", "agreement", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def one_line_error(done: subprocess.CompletedProcess[str], *words: str) -> str:
    assert done.returncode == EXIT_USER_ERROR, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: error: "), done.stderr
    for word in words:
        assert word in lines[0]
    return lines[0]


@pytest.fixture
def study(tmp_path: Path) -> Path:
    """``data/`` (two videos), ``labels/<name>/`` for three annotators with unknown (170)
    pixels, one frame only ``ann`` labelled, and a project file naming them."""
    rng = np.random.default_rng(3)
    write_video(tmp_path / "data", "street", "a", 1, 8)
    write_video(tmp_path / "data", "street", "b", 1, 5)
    for video, frames in SHARED.items():
        for frame in frames:
            truth = rng.random(SHAPE) < 0.3
            for name in NAMES:
                label = simulated_labels(truth, *QUALITY[name], rng)
                label[rng.random(SHAPE) < 0.05] = 170
                write_label(tmp_path / "labels" / name, "street", video, frame, label)
    write_label(tmp_path / "labels" / "ann", "street", "a", 7, np.zeros(SHAPE, np.uint8))
    annotators = tuple(AnnotatorSource(n, tmp_path / "labels" / n) for n in NAMES)
    write_project(
        Project("study", dataset=tmp_path / "data", annotators=annotators),
        tmp_path / "study.referee.json",
    )
    return tmp_path


def _labels(study: Path, video: str, frame: int) -> list[np.ndarray]:
    return [
        read_label(study / "labels" / n / "street" / video / "groundtruth" / f"gt{frame:06d}.png")
        for n in NAMES
    ]


def _counted(labels: list[np.ndarray]) -> np.ndarray:
    """Inside the ROI (not the first four columns) and 0, 50 or 255 for everyone."""
    counted = np.ones(SHAPE, bool)
    counted[:, :4] = False
    for label in labels:
        counted &= np.isin(label, (0, 50, 255))
    return counted


def test_agreement_of_a_project_prints_writes_json_and_the_consensus(study: Path) -> None:
    out = study / "consensus"
    done = referee(
        study / "study.referee.json",
        "--quiet",
        "--json",
        study / "a.json",
        "--write-consensus",
        out,
    )
    assert done.returncode == 0, done.stderr
    assert "Pairs, counts pooled over every frame" in done.stdout
    assert "STAPLE consensus" in done.stdout and "Frames, most disagreement first" in done.stdout
    assert "5 frame(s) labelled by every annotator" in done.stdout
    data = json.loads((study / "a.json").read_text(encoding="utf-8"))
    assert data["format"] == "referee-agreement" and data["annotators"] == list(NAMES)

    # Pooled pairs against counts and κ computed here from the files.
    firsts: dict[tuple[int, int], list[np.ndarray]] = {}
    for video, frames in SHARED.items():
        for frame in frames:
            labels = _labels(study, video, frame)
            counted = _counted(labels)
            for a, b in ((0, 1), (0, 2), (1, 2)):
                firsts.setdefault((a, b), []).append(
                    np.stack([labels[a][counted] == 255, labels[b][counted] == 255])
                )
    for pair in data["pairs"]:
        a, b = NAMES.index(pair["first"]), NAMES.index(pair["second"])
        first, second = np.concatenate(firsts[(a, b)], axis=1)
        assert pair["counts"] == {
            "tp": int(np.sum(first & second)),
            "fp": int(np.sum(~first & second)),
            "fn": int(np.sum(first & ~second)),
            "tn": int(np.sum(~first & ~second)),
        }
        assert pair["kappa"]["value"] == pytest.approx(cohen_kappa_score(first, second), abs=1e-12)

    # The consensus written reads back as CDnet levels, on the shared frames only: 85
    # outside the ROI, 170 where someone left the pixel unknown, and 255 exactly where the
    # posterior of the fitted model (written out here from its parameters) is ≥ 0.5.
    videos = {v["video"]: v for v in data["videos"]}
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.png"))
    assert written == [
        f"street/{video}/groundtruth/gt{frame:06d}.png"
        for video, frames in SHARED.items()
        for frame in frames
    ]
    for video, frames in SHARED.items():
        model = videos[video]["model"]
        prior = model["prior"]
        p = np.array([model["sensitivity"][n] for n in NAMES])
        q = np.array([model["specificity"][n] for n in NAMES])
        for frame in frames:
            labels = _labels(study, video, frame)
            votes = np.stack([label == 255 for label in labels], axis=-1)
            positive = prior * np.prod(np.where(votes, p, 1 - p), axis=-1)
            negative = (1 - prior) * np.prod(np.where(votes, 1 - q, q), axis=-1)
            motion = positive / (positive + negative) >= 0.5
            consensus = read_label(out / "street" / video / "groundtruth" / f"gt{frame:06d}.png")
            assert consensus.dtype == np.uint8 and consensus.shape == SHAPE
            assert set(np.unique(consensus)) <= {0, 50, 85, 170, 255}
            counted = _counted(labels)
            assert np.all(consensus[:, :4] == 85)
            assert (consensus == 255).any() and (consensus == 0).any()
            assert np.array_equal(consensus[counted] == 255, motion[counted])
            assert np.array_equal(consensus == 170, ~counted & (np.arange(SHAPE[1]) >= 4))

    again = referee(study / "study.referee.json", "--quiet", "--write-consensus", out)
    one_line_error(again, "already exists", "--force")
    forced = referee(study / "study.referee.json", "--quiet", "--write-consensus", out, "--force")
    assert forced.returncode == 0, forced.stderr


def test_folders_given_directly_give_the_same_numbers(study: Path) -> None:
    labels = [study / "labels" / n for n in NAMES]
    direct = referee(study / "data", *labels, "--quiet", "--json", study / "d.json")
    assert direct.returncode == 0, direct.stderr
    project = referee(study / "study.referee.json", "--quiet", "--json", study / "p.json")
    assert project.returncode == 0, project.stderr
    pairs = [json.loads((study / f).read_text())["pairs"] for f in ("d.json", "p.json")]
    assert pairs[0] == pairs[1]
    two = referee(study / "data", *labels[:2], "--quiet")
    assert two.returncode == 0 and "note: with two annotators" in two.stdout
    chosen = referee(study / "study.referee.json", "--quiet", "--annotators", "cyd,ann")
    assert chosen.returncode == 0, chosen.stderr
    assert "Agreement between annotators (docs/measures.md §13): cyd, ann\n" in chosen.stdout


def test_bad_inputs_say_one_line_and_exit_2(study: Path) -> None:
    data, labels = study / "data", study / "labels"
    one_line_error(
        referee(data, labels / "ann", study / "nobody", "--quiet"), "nobody", "does not exist"
    )
    one_line_error(referee(data, labels / "ann", "--quiet"), "two or more annotators' folders")
    # Frames not shared: an annotator who labelled only frames nobody else did.
    write_label(study / "lone", "street", "a", 6, np.zeros(SHAPE, np.uint8))
    one_line_error(
        referee(data, labels / "ann", study / "lone", "--quiet"),
        "no frame is labelled by every annotator",
        str(study / "lone"),
    )
    # A label map of another size is named with the one it differs from.
    odd = write_label(study / "odd", "street", "b", 1, np.zeros((10, 10), np.uint8))
    one_line_error(
        referee(data, labels / "ann", study / "odd", "--quiet"), str(odd), "size mismatch"
    )
    one_line_error(
        referee(study / "study.referee.json", labels / "ann", "--quiet"), "drop the folders"
    )
    one_line_error(
        referee(study / "study.referee.json", "--quiet", "--annotators", "ann,zed"), "'zed'"
    )
    one_line_error(
        referee(study / "study.referee.json", "--quiet", "--write-consensus", labels / "bob"),
        "is the ground truth of annotator 'bob'",
    )


def test_the_report_has_an_agreement_section(study: Path) -> None:
    from referee.core.workflow.projects import open_path

    report = build_report(open_path(study / "study.referee.json"))
    pairs = report.table("agreement-pairs")
    assert [row[:2] for row in pairs.rows] == [("ann", "bob"), ("ann", "cyd"), ("bob", "cyd")]
    assert [row[0] for row in report.table("agreement-consensus").rows] == list(NAMES)
    assert len(report.table("agreement-videos").rows) == 2 * 3
    plain = build_report(Project("plain", dataset=study / "data"))
    assert all(section.key != "agreement" for section in plain.sections)
