"""Every stage gives the same answer through the command line, the report and the desktop
session: they all call the one workflow (docs/ARCHITECTURE.md, "One pipeline")."""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from pathlib import Path

import pytest

from referee.core.cli.main import main
from referee.core.demo.dataset import DemoLayout
from referee.core.demo.project import demo_project
from referee.core.model.project import Project
from referee.core.report.build import assemble_report
from referee.core.report.compute import ReportResults, compute_results
from referee.core.report.options import ReportOptions
from referee.core.significance.wording import verdict_text
from referee.core.workflow.options import AnalysisOptions, RankingOptions
from referee.core.workflow.projects import list_project
from referee.gui.session import ProjectSession
from referee.gui.worker import JobRunner

#: Frames that already have ground truth are ranked too, so the demo's list is not empty.
OPTIONS = AnalysisOptions(ranking=RankingOptions(include_annotated=True))


@pytest.fixture(scope="module")
def project(demo: DemoLayout) -> Project:
    return demo_project(demo)


@pytest.fixture(scope="module")
def report(project: Project) -> ReportResults:
    return compute_results(project, ReportOptions(analysis=OPTIONS, heatmap_frames=0))


@pytest.fixture
def session(qtbot, project: Project) -> ProjectSession:
    runner = JobRunner()
    session = ProjectSession(runner)
    session.options = OPTIONS
    session.open(list_project(project))
    results = session.results
    qtbot.waitUntil(
        lambda: (
            None
            not in (
                results.pixels,
                results.curves,
                results.actions,
                results.boxes,
                results.counts,
                results.ranking,
            )
            and results.pseudo is not None
            and results.pseudo.truth is not None
            and results.estimate is not None
        ),
        timeout=120000,
    )
    session.run_significance()
    qtbot.waitUntil(lambda: session.results.significance is not None, timeout=60000)
    yield session
    runner.wait()


def _cli(tmp_path: Path, name: str, *argv: object) -> dict:
    out = tmp_path / f"{name}.json"
    assert main([str(a) for a in (*argv, "--quiet", "--json", out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def _value(entry: dict) -> float:
    return entry["value"]


def test_masks_and_their_summaries(session, report, demo, tmp_path) -> None:
    ours, theirs = session.results.pixels, report.pixels
    results = [str(p) for p in demo.results.values()]
    cli = _cli(tmp_path, "evaluate", "evaluate", demo.dataset, *results)
    assert list(ours.methods) == list(theirs.methods) == [m["method"] for m in cli["methods"]]
    for method in cli["methods"]:
        name = method["method"]
        for key, entry in method["summary"]["indicators"].items():
            a, b = ours.methods[name].summary.values[key], theirs.methods[name].summary.values[key]
            assert a == b or (not a.defined and not b.defined)
            assert entry["value"] == (a.value if a.defined else None)
        for video, evaluation in zip(method["videos"], ours.evaluations[name]):
            assert video["counts"]["tp"] == evaluation.total.tp
    assert ours.ranking.summary_ranking == theirs.ranking.summary_ranking
    assert cli["rankings"][0]["summary_ranking"] == ours.ranking.summary_ranking
    document = assemble_report(session.project, report, ReportOptions(analysis=OPTIONS))
    table = document.table("summary-blended")
    f1_column = table.columns.index("F1")
    for row in table.rows:
        assert row[f1_column] == ours.methods[row[0]].summary.values["f1"]


def test_score_curves(session, report, demo, tmp_path) -> None:
    name, root = next(iter(demo.soft_results.items()))
    out = tmp_path / "curves.csv"
    assert main(["curves", str(demo.dataset), str(root), "--quiet", "--csv", str(out)]) == 0
    rows = [r for r in csv.DictReader(out.open()) if r["row"].startswith("summary")]
    scheme, ours = session.results.curves.summaries[name]
    assert report.curves.summaries[name][1].confusions.tolist() == ours.confusions.tolist()
    assert [float(r["tp"]) for r in rows] == pytest.approx(  # T = 0..255 and the end, 256
        ours.with_end().confusions[:, 0].tolist(), rel=1e-12
    )
    assert rows[0]["row"] == f"summary:{scheme}"


def test_actions_and_boxes(session, report, demo, tmp_path) -> None:
    for name, path in demo.actions.items():
        cli = _cli(tmp_path, f"actions-{name}", "actions", demo.actions_gt, path)
        ours, theirs = session.actions[name], report.actions.evaluations[name]
        assert (
            _value(cli["overall"]["final"])
            == ours.overall.final.value
            == theirs.overall.final.value
        )
        boxes = _cli(tmp_path, f"boxes-{name}", "boxes", demo.actions_gt, path)
        mine, reported = session.results.boxes.evaluations[name], report.boxes.evaluations[name]
        assert (
            _value(boxes["overall"]["sfda"])
            == mine.overall.sfda.value
            == reported.overall.sfda.value
        )
        assert boxes["overall"]["tp"] == mine.overall.tp == reported.overall.tp


def test_counts(session, report, demo, tmp_path) -> None:
    ours = {(r.video, r.detector): r for r in session.results.counts.rows}
    theirs = {(r.video, r.detector): r for r in report.counts.rows}
    assert ours.keys() == theirs.keys() and ours
    (video, detector), row = next(iter(ours.items()))
    folder = demo.root / "counts" / video
    cli = _cli(tmp_path, "counts", "counts", folder / "groundtruth.csv", folder / f"{detector}.csv")
    assert (
        _value(cli["ccr_wcc"])
        == row.result.ccr_wcc.value
        == theirs[(video, detector)].result.ccr_wcc.value
    )


def test_pseudo_ground_truth_and_its_truth(session, report, demo, tmp_path) -> None:
    results = [str(p) for p in demo.results.values()]
    cli = _cli(tmp_path, "pseudo", "pseudo", demo.dataset, *results)
    ours, theirs = session.pseudo, report.pseudo
    for method in cli["methods"]:
        name = method["method"]
        f1 = ours.result.summaries[name].values["f1"].value
        assert method["summary"]["indicators"]["f1"]["value"] == f1
        assert theirs.result.summaries[name].values["f1"].value == f1
    pearson = ours.truth.summary["f1"].pearson.value
    assert cli["correlations"]["summary"]["f1"]["pearson"]["value"] == pearson
    assert theirs.truth.summary["f1"].pearson.value == pearson


def test_frames_to_annotate(session, report, demo, tmp_path) -> None:
    out = tmp_path / "rank.csv"
    results = [str(p) for p in demo.results.values()]
    argv = [
        "rank",
        str(demo.dataset),
        *results,
        "--include-annotated",
        "--quiet",
        "--csv",
        str(out),
    ]
    assert main(argv) == 0
    cli = [(r["video"], int(r["frame"])) for r in csv.DictReader(out.open())]
    ours = [(r.video, r.frame) for r in session.ranking]
    assert ours == [(r.video, r.frame) for r in report.ranking.frames] == cli
    assert len(ours) > 20  # every frame left by the gap, in all three


def test_the_one_rule_for_annotated_frames(qtbot, project, demo, tmp_path) -> None:
    """With the default options every demo frame has ground truth: nothing to annotate, anywhere."""
    defaults = AnalysisOptions()
    report = compute_results(project, ReportOptions(analysis=defaults, heatmap_frames=0))
    out = tmp_path / "rank.csv"
    results = [str(p) for p in demo.results.values()]
    assert main(["rank", str(demo.dataset), *results, "--quiet", "--csv", str(out)]) == 0
    assert list(csv.DictReader(out.open())) == []
    runner = JobRunner()
    session = ProjectSession(runner)
    session.project = project
    session.run_ranking(defaults.ranking)
    qtbot.waitUntil(lambda: session.ranking_result is not None, timeout=60000)
    for result in (report.ranking, session.ranking_result):
        assert result.frames == [] and result.all_annotated and result.annotated == 392
    runner.wait()


def test_significance_verdicts(session, report, demo, tmp_path) -> None:
    results = [str(p) for p in demo.results.values()]
    cli = _cli(tmp_path, "significance", "significance", demo.dataset, *results)
    ours, theirs = session.significance, report.significance
    assert cli["verdict"] == verdict_text(ours) == verdict_text(theirs)
    assert cli["test"] == ours.test == theirs.test == "anova"  # the 'auto' default
    assert [r["p"]["value"] for r in cli["sweep"]] == [r.p.value for r in ours.rows]
    assert ours.means == theirs.means


def test_estimates_from_labelled_frames(session, report, demo, tmp_path) -> None:
    """Each detector's estimates and intervals (docs/measures.md §12): the command line's,
    the report's table and the window's are the same numbers."""
    results = [str(p) for p in demo.results.values()]
    cli = _cli(tmp_path, "estimate", "estimate", demo.dataset, *results)
    ours, theirs = session.estimate, report.estimate
    assert cli["labels"] == ours.labels == theirs.labels == 392  # every demo frame
    assert list(cli["detectors"]) == list(ours.methods) == list(theirs.methods)
    table = assemble_report(session.project, report, ReportOptions(analysis=OPTIONS))
    rows = {(row[0], row[1]): row[2:5] for row in table.table("labelled-estimates").rows}
    titles = {"f1": "F1", "precision": "precision", "recall": "recall"}
    for name, measures in cli["detectors"].items():
        for measure, entry in measures.items():
            a, b = ours.estimates[name][measure], theirs.estimates[name][measure]
            assert entry["estimate"] == a.estimate == b.estimate
            assert entry["low"] == a.low == b.low and entry["high"] == a.high == b.high
            shown = rows[(name, titles.get(measure, measure))]
            assert shown[0] == a.estimate


def test_the_session_reuses_nothing_it_should_not(session, project) -> None:
    """A report built from the session's results, with its options, equals a fresh one."""
    fresh = compute_results(project, ReportOptions(analysis=OPTIONS, heatmap_frames=0))
    reused = compute_results(
        project,
        ReportOptions(analysis=OPTIONS, heatmap_frames=0),
        computed=replace(session.results),
    )
    assert reused.pixels is session.results.pixels  # reused as computed
    assert [r.frame for r in reused.ranking.frames] == [r.frame for r in fresh.ranking.frames]
    assert verdict_text(reused.significance) == verdict_text(fresh.significance)
