"""What Referee opens, in words, for the message of a path it cannot open.

Light on purpose (no image or array library): the command line says that a path to
open does not exist before it imports anything heavy, in the words
:func:`~referee.core.workflow.projects.open_path` would use.
"""

from __future__ import annotations

import os
from pathlib import Path

from referee.core.errors import InputFileError
from referee.core.formats.registry import VIDEO_EXTENSIONS
from referee.core.model.project import PROJECT_SUFFIX

#: What can be opened: ends the message of a path that cannot be.
WHAT_OPENS = (
    f"Referee opens a project file (*{PROJECT_SUFFIX}), a CDnet dataset folder "
    "(<category>/<video>/ folders holding groundtruth/, ROI.bmp and "
    "temporalROI.txt), one CDnet video folder, a LASIESTA folder (<sequence>/ folders, "
    "each with its <sequence>-GT/ folder beside it), or a video file ("
    + ", ".join(VIDEO_EXTENSIONS)
    + ")"
)


def missing_error(path: str | Path) -> InputFileError:
    """The error of opening ``path``, which does not exist; it names the absolute path."""
    return InputFileError(Path(os.path.abspath(path)), "does not exist; " + WHAT_OPENS)
