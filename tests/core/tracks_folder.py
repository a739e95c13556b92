"""MOTChallenge benchmark folders of random tracks, for the tests of tracking intervals and
tests between trackers (docs/measures.md §5)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.core.test_tracking_clear_identity import _moving_boxes, _tracker_rows

SPLIT = "MOT17-train"
#: Trackers of every folder.
TRACKERS = ("A", "B")

#: Rows ``frame, id, x, y, w, h`` of each sequence: the ground truth and each tracker's.
Rows = dict[str, list[tuple]]


def _write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


def random_tracks(sequences: int, frames: int, seed: int) -> dict[str, Rows]:
    """Per sequence ``SEQ-k``, ground-truth rows (``""``) and each tracker's, frames from 1."""
    rng = np.random.default_rng(seed)
    found = {}
    for k in range(sequences):
        truth = _moving_boxes(rng, frames, 6)  # frames from 0
        rows: Rows = {"": truth}
        for tracker in TRACKERS:
            rows[tracker] = _tracker_rows(rng, truth, frames)
        found[f"SEQ-{k}"] = {
            side: [(f + 1, *rest) for f, *rest in side_rows] for side, side_rows in rows.items()
        }
    return found


def write_benchmark(root: Path, tracks: dict[str, Rows], frames: int) -> tuple[Path, Path]:
    """TrackEval's layout of ``tracks`` (every sequence ``frames`` long); the ground-truth
    and trackers folders."""
    gt, trackers = root / "gt", root / "trackers"
    _write(gt / "seqmaps" / f"{SPLIT}.txt", ["name", *tracks])
    for sequence, rows in tracks.items():
        folder = gt / SPLIT / sequence
        _write(folder / "gt" / "gt.txt", [_row(r, "1,1,1") for r in rows[""]])
        _write(folder / "seqinfo.ini", ["[Sequence]", f"name={sequence}", f"seqLength={frames}"])
        for tracker in TRACKERS:
            data = trackers / SPLIT / tracker / "data" / f"{sequence}.txt"
            _write(data, [_row(r, "0.9,-1,-1,-1") for r in rows[tracker]])
    return gt, trackers


def _row(row: tuple, tail: str) -> str:
    frame, identity, x, y, w, h = row
    return f"{frame},{identity},{x:.3f},{y:.3f},{w:.3f},{h:.3f},{tail}"
