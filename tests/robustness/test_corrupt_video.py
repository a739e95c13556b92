"""A video file that does not decode, opened as a project through the real entry point
(``referee report``, ``referee gui --screenshot``): exit status 2 and one line naming the
file and what is wrong, the same line in the GUI's dialog (tests/robustness/test_gui_faults.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.core.demo.dataset import DemoLayout
from tests.robustness.conftest import assert_refused, run_referee
from tests.robustness.gui_cases import BAD_INPUTS

#: What is wrong with such a file, after its path.
PROBLEM = (
    "not a video OpenCV can decode (no frame could be read): the file is corrupt, "
    "truncated or not a video, or its codec is not supported"
)


def _environment(tmp_path: Path) -> dict[str, str]:
    return {
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }


@pytest.mark.parametrize("case", ["text as a video", "corrupt video"])
@pytest.mark.parametrize("command", ["report", "gui"])
def test_a_video_that_does_not_decode_is_refused_in_one_line(
    demo: DemoLayout, tmp_path: Path, case: str, command: str
) -> None:
    path, _ = BAD_INPUTS[case](demo, tmp_path)
    output = tmp_path / ("report.html" if command == "report" else "shot.png")
    option = "--html" if command == "report" else "--screenshot"
    outcome = run_referee(command, path, option, output, env=_environment(tmp_path))
    line = assert_refused(outcome, path)
    assert line == f"referee: error: {path}: {PROBLEM}"
    assert not output.exists()
