"""How long a report takes, and how much of it is the report itself rather than the evaluation.

For the demo project and for the real CDnet highway video with four OpenCV
background subtractors (cached by ``highway_detectors.py``), it times
``compute_results`` (every evaluation a report needs: the baseline), then
laying the results out with their plots (``assemble_report``) and writing
HTML, PDF, CSV and JSON. It prints each time and the ratio of the report's own
work to the computation, measured in the same run (best of N rounds).

Usage: python benchmarks/report_timing.py [--rounds N] [--demo-only]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from highway_detectors import HIGHWAY, highway_results

from referee.core.demo.dataset import ensure_demo
from referee.core.demo.project import demo_project
from referee.core.model.project import DetectorSource, Project
from referee.core.report.build import assemble_report
from referee.core.report.compute import compute_results
from referee.core.report.html import write_html
from referee.core.report.pdf import write_pdf
from referee.core.report.tables_out import write_csv_tables, write_json


def _best(function: Callable[[], object], rounds: int) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(rounds):
        start = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - start)
    return best, value


def measure(name: str, project: Project, rounds: int, out: Path) -> None:
    compute_s, results = _best(lambda: compute_results(project), rounds)
    assemble_s, report = _best(lambda: assemble_report(project, results), rounds)
    writes = {
        "HTML": lambda: write_html(report, out / "r.html"),
        "PDF": lambda: write_pdf(report, out / "r.pdf"),
        "CSV": lambda: write_csv_tables(report, out / "tables"),
        "JSON": lambda: write_json(report, out / "r.json"),
    }
    write_s = {fmt: _best(write, rounds)[0] for fmt, write in writes.items()}
    own = assemble_s + sum(write_s.values())
    pages = write_pdf(report, out / "r.pdf")
    print(
        f"\n{name}: {len(results.videos)} videos, {len(project.detectors)} detectors, "
        f"{pages} PDF pages, {len(list(report.figures()))} figures"
    )
    print(f"  computing the results      {compute_s:8.2f} s  (baseline)")
    print(f"  layout and plots           {assemble_s:8.2f} s")
    for fmt, seconds in write_s.items():
        print(f"  writing {fmt:<5}              {seconds:8.2f} s")
    print(f"  report's own work / computing = {own / compute_s:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--demo-only", action="store_true")
    args = parser.parse_args()
    cache = Path(tempfile.gettempdir()) / "referee-bench"
    with tempfile.TemporaryDirectory() as out:
        layout = ensure_demo(cache / "demo")
        measure("demo", demo_project(layout), args.rounds, Path(out))
        if not args.demo_only:
            detectors = tuple(
                DetectorSource(m, masks=folder) for m, folder in highway_results().items()
            )
            highway = Project(name="highway", dataset=HIGHWAY, detectors=detectors)
            measure("highway", highway, 1, Path(out))


if __name__ == "__main__":
    main()
