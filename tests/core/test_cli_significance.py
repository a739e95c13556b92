"""``referee significance`` (docs/measures.md §9) through its argument parser."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from referee.core.cli import significance as cli_significance
from referee.core.cli.common import run_command
from referee.core.demo.dataset import DemoLayout
from referee.core.errors import RefereeError


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="referee")
    cli_significance.add_commands(parser.add_subparsers())
    args = parser.parse_args(["significance", *argv])
    return run_command(args)


def _sweep_lines(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["t", "t/Σt"])
    end = lines.index("", start)
    return lines[start + 1 : end]


def test_masks_frames_pair_on_the_demo(demo: DemoLayout, tmp_path: Path, capsys) -> None:
    out_json, out_csv = tmp_path / "s.json", tmp_path / "s.csv"
    assert (
        _run(
            [
                str(demo.dataset),
                str(demo.results["mog2"]),
                str(demo.results["knn"]),
                "--quiet",
                "--json",
                str(out_json),
                "--csv",
                str(out_csv),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "per-frame F1 of mog2, knn" in text and "paired t-test" in text
    assert len(_sweep_lines(text)) == 20
    assert "verdict: " in text
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert data["methods"] == ["mog2", "knn"] and data["test"] == "t"
    assert len(data["sweep"]) == 20 and data["sweep"][0]["threshold"] == 0
    # The first row is the plain paired t-test on every case of the JSON.
    a = np.array([c["scores"]["mog2"] for c in data["cases"]])
    b = np.array([c["scores"]["knn"] for c in data["cases"]])
    assert data["sweep"][0]["p"]["value"] == pytest.approx(stats.ttest_rel(a, b).pvalue)
    assert data["sweep"][0]["cases_left"] == len(a) == len(data["cases"])
    assert len(a) + data["dropped"]["count"] == sum(
        v.temporal_roi[1] - v.temporal_roi[0] + 1 for v in demo.videos
    )
    verdict = "differ" if data["differ"] else "no significant difference"
    assert f"verdict: {data['verdict']}" in text and verdict in data["verdict"]
    assert data["means"]["knn"] == pytest.approx(
        b[[i for i, c in enumerate(data["cases"]) if c["case"] not in data["removed"]]].mean()
    )
    csv_lines = out_csv.read_text(encoding="utf-8").splitlines()
    assert csv_lines[0].startswith("threshold,normalized,fraction_of_max,cases_left")
    assert len(csv_lines) == 21
    with pytest.raises(RefereeError, match="already exists"):
        _run(
            [
                str(demo.dataset),
                str(demo.results["mog2"]),
                str(demo.results["knn"]),
                "--quiet",
                "--json",
                str(out_json),
            ]
        )


def test_masks_several_methods_anova_and_friedman(demo: DemoLayout, capsys) -> None:
    roots = [str(demo.results[m]) for m in ("mog2", "knn", "cnt")]
    assert _run([str(demo.dataset), *roots, "--quiet", "--thresholds", "5"]) == 0
    text = capsys.readouterr().out
    assert "repeated-measures ANOVA" in text and "max − min over methods" in text
    assert len(_sweep_lines(text)) == 5 and "verdict: " in text
    assert _run([str(demo.dataset), *roots, "--quiet", "--test", "friedman"]) == 0
    assert "Friedman test" in capsys.readouterr().out
    with pytest.raises(RefereeError, match="pick two with --a and --b"):
        _run([str(demo.dataset), *roots, "--quiet", "--test", "t"])


def test_pseudo_cases_keep_the_whole_committee(demo: DemoLayout, tmp_path: Path, capsys) -> None:
    pair, committee = tmp_path / "pair.json", tmp_path / "all.json"
    roots = [str(demo.results[m]) for m in ("mog2", "knn", "cnt")]
    assert (
        _run([str(demo.dataset), *roots[:2], "--cases", "pseudo", "--quiet", "--json", str(pair)])
        == 0
    )
    assert (
        _run(
            [
                str(demo.dataset),
                *roots,
                "--cases",
                "pseudo",
                "--a",
                "mog2",
                "--b",
                "knn",
                "--quiet",
                "--json",
                str(committee),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "per-frame pseudo-F1 of mog2, knn" in text and "verdict: " in text
    two, three = (json.loads(p.read_text(encoding="utf-8")) for p in (pair, committee))
    assert two["methods"] == three["methods"] == ["mog2", "knn"]
    # A third committee member changes the consensus, hence the pseudo scores.
    first_two = [c["scores"]["mog2"] for c in two["cases"]]
    first_three = [c["scores"]["mog2"] for c in three["cases"]]
    assert len(first_two) == len(first_three) and first_two != pytest.approx(first_three)
    assert all(0 <= s <= 1 for s in first_three)


def test_boxes_and_actions_inputs(demo: DemoLayout, capsys) -> None:
    gt, dets = str(demo.actions_gt), [str(demo.actions[m]) for m in ("mog2", "knn", "cnt")]
    assert _run(["--boxes", gt, *dets[:2], "--quiet", "--test", "wilcoxon"]) == 0
    text = capsys.readouterr().out
    assert "per-frame FDA of mog2, knn" in text and "Wilcoxon signed-rank test" in text
    assert _run(["--actions", gt, *dets, "--a", "knn", "--b", "cnt", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "per-action Dice of knn, cnt" in text and "verdict: " in text
    with pytest.raises(RefereeError, match="at least two methods"):
        _run(["--actions", gt, dets[0]])
    with pytest.raises(RefereeError, match="drop the DATASET"):
        _run([str(demo.dataset), "--boxes", gt, *dets[:2]])


def _write_scores(path: Path) -> Path:
    # A is better by 0.2–0.3 on six cases; four near-ties; one case with an empty cell.
    rows = [
        ("c1", 0.6, 0.4, 0.5),
        ("c2", 0.72, 0.5, 0.6),
        ("c3", 0.68, 0.45, 0.5),
        ("c4", 0.8, 0.55, 0.6),
        ("c5", 0.63, 0.35, 0.4),
        ("c6", 0.9, 0.6, 0.7),
        ("c7", 0.5, 0.51, 0.5),
        ("c8", 0.7, 0.69, 0.7),
        ("c9", 0.3, 0.32, 0.3),
        ("c10", 0.4, 0.4, 0.4),
    ]
    text = "case,A,B,C\n" + "".join(f"{c},{a},{b},{x}\n" for c, a, b, x in rows)
    path.write_text(text + "c11,0.5,,0.5\n", encoding="utf-8")
    return path


def test_scores_csv(tmp_path: Path, capsys) -> None:
    scores = _write_scores(tmp_path / "scores.csv")
    out = tmp_path / "out.json"
    assert _run(["--scores", str(scores), "--a", "A", "--b", "B", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "score from scores.csv of A, B on 10 cases" in text
    assert "1 cases left out: a score is empty" in text
    assert "verdict: A and B differ" in text
    assert "A is better (higher is better)" in text
    data = json.loads(out.read_text(encoding="utf-8"))
    a = np.array([0.6, 0.72, 0.68, 0.8, 0.63, 0.9, 0.5, 0.7, 0.3, 0.4])
    b = np.array([0.4, 0.5, 0.45, 0.55, 0.35, 0.6, 0.51, 0.69, 0.32, 0.4])
    assert data["sweep"][0]["p"]["value"] == pytest.approx(stats.ttest_rel(a, b).pvalue)
    assert _run(["--scores", str(scores), "--a", "A", "--b", "B", "--lower-is-better"]) == 0
    assert "B is better (lower is better)" in capsys.readouterr().out
    assert _run(["--scores", str(scores)]) == 0
    assert "repeated-measures ANOVA" in capsys.readouterr().out


def test_scores_csv_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("case,A,B\nc1,0.5,oops\n", encoding="utf-8")
    with pytest.raises(RefereeError, match=r"bad.csv: line 2: the score of B is 'oops'"):
        _run(["--scores", str(bad)])
    one = tmp_path / "one.csv"
    one.write_text("case,A\nc1,0.5\n", encoding="utf-8")
    with pytest.raises(RefereeError, match="at least two method names"):
        _run(["--scores", str(one)])
    good = _write_scores(tmp_path / "good.csv")
    with pytest.raises(RefereeError, match="both --a and --b"):
        _run(["--scores", str(good), "--a", "A"])
    with pytest.raises(RefereeError, match="no method named 'D'"):
        _run(["--scores", str(good), "--a", "A", "--b", "D"])
