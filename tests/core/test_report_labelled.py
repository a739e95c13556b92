"""The report's estimates from labelled frames (docs/measures.md §12): the numbers of the
``EstimateResult`` it is given, the labelled frames, the sentences, and why it is missing."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from itertools import combinations

import lxml.html
import pytest

from referee.core.demo.dataset import DemoLayout
from referee.core.estimation.result import Estimate, EstimateResult
from referee.core.model.project import Project, with_annotated
from referee.core.report import build
from referee.core.report.build import assemble_report
from referee.core.report.compute import ReportResults
from referee.core.report.document import Paragraph, Report, Section, Table, cell_text
from referee.core.report.html import render_html
from referee.core.workflow.estimate import run_estimate
from referee.core.workflow.options import EstimateOptions
from referee.core.workflow.projects import project_of_outputs, project_videos

METHODS = ("mog2", "knn", "cnt")
CREATED = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
TITLE = "Estimates from labelled frames"
LABELS = 10  # below the 20 draws from which intervals are trusted


def _project(demo: DemoLayout) -> Project:
    return project_of_outputs("masks", [demo.results[m] for m in METHODS], dataset=demo.dataset)


def _report(project: Project, **fields: object) -> Report:
    results = ReportResults(
        videos=project_videos(project), detectors=tuple(d.name for d in project.detectors)
    )
    for name, value in fields.items():
        setattr(results, name, value)
    return assemble_report(project, results, created=CREATED)


def _section(report: Report) -> Section:
    return next(s for s in report.sections if s.title == TITLE)


def _texts(section: Section) -> list[str]:
    return [b.text for b in section.blocks if isinstance(b, Paragraph)]


def _table(section: Section, title_start: str) -> Table:
    return next(
        b for b in section.blocks if isinstance(b, Table) and b.title.startswith(title_start)
    )


def _shown(value: float) -> str:
    """A number as the report shows it: four decimals."""
    return f"{value:.4f}"


@pytest.fixture(scope="module")
def simulated(demo: DemoLayout) -> tuple[Project, EstimateResult, Report]:
    project = _project(demo)
    result = run_estimate(project, EstimateOptions(labels=LABELS, simulate=True, seed=3))
    return project, result, _report(project, estimate=result)


def test_the_table_holds_every_estimate_interval_and_true_value(
    simulated: tuple[Project, EstimateResult, Report],
) -> None:
    _, result, report = simulated
    table = _table(_section(report), "Each detector over every frame")
    assert table.columns == ("detector", "measure", "estimate", "95% low", "95% high", "true")
    rows = {(row[0], row[1]): row[2:] for row in table.rows}
    assert len(rows) == len(table.rows) == 3 * len(METHODS)
    for method in METHODS:
        for measure, title in (("f1", "F1"), ("precision", "precision"), ("recall", "recall")):
            e = result.estimates[method][measure]
            assert e.true is not None and not math.isnan(e.low)
            values = (e.estimate, e.low, e.high, e.true)
            assert rows[(method, title)] == values
            assert [cell_text(c) for c in rows[(method, title)]] == [_shown(v) for v in values]


def test_the_design_and_every_labelled_frame_are_said(
    simulated: tuple[Project, EstimateResult, Report],
) -> None:
    _, result, report = simulated
    text = " ".join(_texts(_section(report)))
    assert f"{LABELS} labelled draws ({len(result.frames)} distinct frames)" in text
    assert f"over {result.population} frames" in text
    assert "balanced sampler (seed 3, uniform share 0.3)" in text and "estimator tuned" in text
    assert len(result.frames) >= 5
    for frame in result.frames:
        assert f"{frame.video}:{frame.frame}" in text


def test_too_few_draws_and_the_consensus_bias_are_said(
    simulated: tuple[Project, EstimateResult, Report],
) -> None:
    _, result, report = simulated
    text = " ".join(_texts(_section(report)))
    assert f"Only {LABELS} labelled draws: below 20 the intervals are approximate" in text
    large = [m for m, c in result.consensus.items() if c.large]
    assert large  # the demo's consensus over-reads some detector
    for method in METHODS:
        said = f"The consensus over-reads {method}'s F1" in text
        assert said == (method in large and result.consensus[method].bias.estimate > 0)


def test_each_pair_has_its_f1_difference_and_interval(
    simulated: tuple[Project, EstimateResult, Report],
) -> None:
    _, result, report = simulated
    table = _table(_section(report), "Pairs of detectors")
    rows = {(row[0], row[1]): row for row in table.rows}
    assert sorted(rows) == sorted(combinations(METHODS, 2))
    for a, b in combinations(METHODS, 2):
        pair = next(p for p in result.pairs if (p.a, p.b) == (a, b))
        d = pair.difference
        assert rows[(a, b)][2:6] == (d.estimate, d.low, d.high, result.beats[a][b])
        assert cell_text(rows[(a, b)][2]) == _shown(d.estimate)


def test_the_html_has_the_section_and_its_numbers(
    simulated: tuple[Project, EstimateResult, Report],
) -> None:
    _, result, report = simulated
    document = lxml.html.fromstring(render_html(report))
    section = document.get_element_by_id("labelled")
    assert section.find("h2").text_content() == TITLE
    table = document.get_element_by_id("table-labelled-estimates")
    cells = next(
        row.findall("td")
        for row in table.iter("tr")
        if [td.text_content() for td in row.findall("td")[:2]] == ["knn", "recall"]
    )
    e = result.estimates["knn"]["recall"]
    shown = [td.text_content() for td in cells[2:5]]
    assert shown == [_shown(e.estimate), _shown(e.low), _shown(e.high)]
    assert float(cells[2].get("data-value")) == e.estimate
    contents = [a.text_content() for a in document.get_element_by_id("contents").iter("a")]
    assert TITLE in contents


def test_a_skipped_estimate_says_why_and_none_run_shows_nothing(demo: DemoLayout) -> None:
    project = _project(demo)
    reason = "a simulation needs ground truth on every frame"
    report = _report(project, skipped={"estimate": reason})
    assert _texts(_section(report)) == [
        f"No estimates from labelled frames (docs/measures.md §12): {reason}."
    ]
    assert ("estimates from labelled frames", reason) in report.table("not-evaluated").rows
    assert not any(s.title == TITLE for s in _report(project).sections)


def test_the_section_comes_after_the_consensus_and_before_significance(
    demo: DemoLayout, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in ("pseudo", "annotate", "significance"):
        dummy = Section(key, key, (Paragraph(key),))
        monkeypatch.setattr(build, f"{key}_section", lambda results, s=dummy: s)
    keys = [s.key for s in _report(_project(demo), skipped={"estimate": "no"}).sections]
    assert keys.index("pseudo") < keys.index("annotate") < keys.index("labelled")
    assert keys.index("labelled") < keys.index("significance")


def test_a_partly_annotated_video_has_its_own_f1_and_next_frame(demo: DemoLayout) -> None:
    project = _project(demo)
    video = project_videos(project)[0]
    # One frame in 30 lacks ground truth: the sampler's first few draws have it.
    recorded = [i for i in range(video.first, video.last + 1) if (i - video.first) % 30]
    project = with_annotated(project, video.label, recorded)
    result = run_estimate(project, EstimateOptions())
    assert [v.video for v in result.videos] == [video.label]
    mine = result.videos[0]
    assert mine.labels >= 2 and mine.next_frame is not None
    section = _section(_report(project, estimate=result))
    table = _table(section, "F1 of each partly annotated")
    assert len(table.rows) == len(METHODS)
    for method in METHODS:
        e: Estimate = mine.estimates[method]["f1"]
        row = next(r for r in table.rows if r[:2] == (video.label, method))
        assert row[2:] == (e.estimate, e.low, e.high, mine.labels, mine.frames, mine.next_frame)
    assert "true" not in _table(section, "Each detector").columns
    assert f"{mine.labels} labelled draws" in " ".join(_texts(section))
