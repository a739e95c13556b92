"""The report's output formats, where each writes, and writing several at once.

Shared by ``referee report`` and the GUI's Export report: both check which
existing files an export would replace before writing anything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from referee.core.errors import InputFileError
from referee.core.progress import CancelToken, ProgressCallback, check, report
from referee.core.report.document import Report
from referee.core.report.html import write_html
from referee.core.report.pdf import write_pdf
from referee.core.report.tables_out import csv_paths, write_csv_tables, write_json


def _file_writer(write: Callable[[Report, Path], object]) -> Callable[[Report, Path], list[Path]]:
    def write_file(document: Report, path: Path) -> list[Path]:
        write(document, path)
        return [path]

    return write_file


@dataclass(frozen=True)
class ReportOutput:
    """One format: its label, its default name after the project's, and its writer.

    A folder format (CSV tables) writes one file per table into its folder.
    """

    label: str
    suffix: str
    write: Callable[[Report, Path], list[Path]]
    is_folder: bool = False

    def paths(self, document: Report, target: Path) -> list[Path]:
        """The files writing ``document`` to ``target`` creates or replaces."""
        return csv_paths(document, target) if self.is_folder else [target]


#: Every format, by name, in the order they are offered and written.
REPORT_OUTPUTS: dict[str, ReportOutput] = {
    "html": ReportOutput("HTML", "-report.html", _file_writer(write_html)),
    "pdf": ReportOutput("PDF", "-report.pdf", _file_writer(write_pdf)),
    "csv": ReportOutput("CSV tables", "-report-tables", write_csv_tables, is_folder=True),
    "json": ReportOutput("JSON", "-report.json", _file_writer(write_json)),
}


def check_targets(targets: Mapping[str, Path]) -> None:
    """Raise unless every target's folder exists (checked before any long work starts).

    Raises
    ------
    InputFileError
        Naming the first target whose folder is missing.
    """
    for path in targets.values():
        if not Path(path).parent.is_dir():
            raise InputFileError(
                path,
                f"cannot write here: {Path(path).parent} is not an "
                "existing folder; choose another place",
            )


def replaced_files(document: Report, targets: Mapping[str, Path]) -> list[Path]:
    """The existing files that writing ``targets`` (format name → path) would replace."""
    return [
        path
        for name, target in targets.items()
        for path in REPORT_OUTPUTS[name].paths(document, target)
        if path.exists()
    ]


def write_outputs(
    document: Report,
    targets: Mapping[str, Path],
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> dict[str, list[Path]]:
    """Write ``document`` in each format of ``targets``; return format name → files written."""
    written: dict[str, list[Path]] = {}
    for done, (name, target) in enumerate(targets.items(), start=1):
        check(cancel)
        written[name] = REPORT_OUTPUTS[name].write(document, Path(target))
        report(progress, done, len(targets))
    return written
