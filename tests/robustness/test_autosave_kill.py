"""A process killed while it autosaves leaves the previous autosave or the new one, intact."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import cv2
import numpy as np

from referee.core.annotation.autosave import autosave_path, read_autosave
from referee.core.annotation.document import GroundTruthDocument
from referee.core.formats.project_json import write_project
from referee.core.model.project import Project
from referee.core.workflow.projects import project_videos
from tests.core.test_evaluate import make_dataset

KILLS = 25

#: Autosaves again and again, each time with the version number as every count and a fresh
#: 1920×1080 label map (so that writing takes long enough to be killed in the middle);
#: prints each version once its autosave is written.
_AUTOSAVING = textwrap.dedent(
    """
    import sys
    import numpy as np
    from referee.core.annotation.autosave import write_autosave
    from referee.core.annotation.document import GroundTruthDocument
    from referee.core.formats.counts_csv import CountSeries
    from referee.core.formats.project_json import read_project
    from referee.core.workflow.projects import project_videos

    project = read_project(sys.argv[1])
    document = GroundTruthDocument(project, project_videos(project))
    office = document.videos["baseline/office"]
    rng = np.random.default_rng(int(sys.argv[2]))
    levels = np.array([0, 50, 85, 170, 255], np.uint8)
    version = int(sys.argv[3])
    while True:
        version += 1
        document.set_counts(office.file_stem, CountSeries(1, np.full(50, version, np.int64)))
        big = rng.choice(levels, size=(1080, 1920))
        document.replace_label_map("baseline/office", 3, big)
        write_autosave(document)
        print(version, flush=True)
    """
)


def _version(sidecar: Path, project: Project) -> int:
    """The version an intact sidecar holds (every count is the version number)."""
    contents = read_autosave(sidecar, GroundTruthDocument(project, project_videos(project)))
    (series,) = contents.counts.values()
    assert len(set(series.counts.tolist())) == 1
    assert contents.masks[("baseline/office", 3)].shape == (1080, 1920)
    return int(series.counts[0])


def test_killing_the_autosave_never_leaves_a_broken_file(tmp_path: Path) -> None:
    make_dataset(tmp_path / "data")
    # Frames of 1920×1080 (the autosave checks each label map against the video's size).
    cv2.imwrite(
        str(tmp_path / "data/baseline/office/ROI.bmp"), np.full((1080, 1920), 255, np.uint8)
    )
    project = write_project(Project("p", dataset=tmp_path / "data"), tmp_path / "p.referee.json")
    sidecar = autosave_path(project.file)  # type: ignore[arg-type]
    rng = random.Random(7)
    last = 0  # the newest version known to be written
    killed_while_writing = 0
    for k in range(KILLS):
        child = subprocess.Popen(
            [sys.executable, "-c", _AUTOSAVING, str(project.file), str(k), str(last)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parents[2],
        )
        assert child.stdout is not None
        first = child.stdout.readline()  # one autosave done: the next is being written
        assert first.strip(), "the autosaving process wrote nothing"
        time.sleep(rng.uniform(0.0, 0.25))
        os.kill(child.pid, signal.SIGKILL)
        printed = [int(line) for line in [first, *child.stdout.read().split()] if line.strip()]
        child.wait()
        child.stdout.close()
        found = _version(sidecar, project)  # raises if the file is not an intact autosave
        newest = printed[-1]
        # The old file (the last version reported) or the new one (the one being written).
        assert found in (newest, newest + 1)
        killed_while_writing += found == newest
        last = found
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    # A kill between creating the temporary file and renaming it leaves that file behind,
    # never a damaged sidecar; the next autosave removes it, so at most one is left.
    assert len(leftovers) <= 1
    assert killed_while_writing > 0  # some kills did land in the middle of a write
