"""``referee boxes`` and ``referee counts`` (docs/measures.md §5, §6) through their argument parsers."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from referee.core.cli import boxes, counts
from referee.core.cli.common import run_command
from referee.core.errors import RefereeError


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="referee")
    commands = parser.add_subparsers()
    boxes.add_commands(commands)
    counts.add_commands(commands)
    args = parser.parse_args(argv)
    return run_command(args)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_counts_prints_the_seed_example(tmp_path: Path, capsys) -> None:
    gt_changes = {2: 1, 6: 1, 10: -1, 14: 2}
    est_changes = dict.fromkeys((3, 6, 8, 12, 14, 16, 17, 18), 1)
    gt, est = [3], [3]
    for n in range(20):
        gt.append(gt[-1] + gt_changes.get(n, 0))
        est.append(est[-1] + est_changes.get(n, 0))
    gt_path = _write(
        tmp_path / "gt.csv", "frame,count\n" + "".join(f"{k},{c}\n" for k, c in enumerate(gt))
    )
    est_path = _write(
        tmp_path / "est.csv", "frame,count\n" + "".join(f"{k},{c}\n" for k, c in enumerate(est))
    )
    out = tmp_path / "counts.json"
    assert _run(["counts", str(gt_path), str(est_path), "--window", "1", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "0.2222  (2 / 9)" in text
    assert "2→3, 6→7" in text and "17→18" in text and "8→9, 12→13, 16→17, 18→19" in text
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["denominator"] == {
        "total": 9,
        "gt_changes": 4,
        "missed_no_change": 1,
        "unpaired_estimated_changes": 4,
    }
    assert data["instants"]["unpaired_estimated_changes"] == [8, 12, 16, 18]
    with pytest.raises(RefereeError, match="already exists"):
        _run(["counts", str(gt_path), str(est_path), "--window", "1", "--json", str(out)])


def test_counts_frames_must_match(tmp_path: Path) -> None:
    gt = _write(tmp_path / "gt.csv", "frame,count\n1,0\n2,1\n")
    est = _write(tmp_path / "est.csv", "frame,count\n1,0\n2,1\n3,1\n")
    with pytest.raises(RefereeError, match=r"gt\.csv covers frames 1–2"):
        _run(["counts", str(gt), str(est), "--window", "0"])


def test_boxes_on_mot_files(tmp_path: Path, capsys) -> None:
    # Frame 1: GT box and detection identical (IoU 1); frame 2: a miss; frame 3: a FP.
    gt = _write(tmp_path / "gt.txt", "1,1,0,0,10,10,1,1,1\n2,1,5,5,10,10,1,1,1\n")
    det = _write(tmp_path / "det.csv", "1,4,0,0,10,10,0.9\n3,4,0,0,10,10,0.8\n3,5,50,50,1,1,0.1\n")
    out_json, out_csv, frames_csv = tmp_path / "b.json", tmp_path / "b.csv", tmp_path / "f.csv"
    assert (
        _run(
            [
                "boxes",
                str(gt),
                str(det),
                "--min-conf",
                "0.5",
                "--json",
                str(out_json),
                "--csv",
                str(out_csv),
                "--frames-csv",
                str(frames_csv),
                "--quiet",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    # SFDA = (1 + 0 + 0)/3; MODA = 1 − (1 miss + 1 FP)/2 = 0; N-MODP = 1.
    assert "mapping hungarian, TP iff IoU >= 0.5, classes ignored" in text
    assert "0.3333  0.0000  1.0000" in text
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert data["videos"][0]["name"] == "gt"  # the lone MOT video pairs whatever its name
    assert data["overall"]["tp"] == 1 and data["overall"]["fp"] == 1
    assert data["videos"][0]["frames"][0]["tp"] == [[0, 0, 1.0]]
    assert out_csv.read_text(encoding="utf-8").splitlines()[-1].startswith("all videos,3,2,2,")
    assert frames_csv.read_text(encoding="utf-8").splitlines()[1] == "gt,1,1,1,1,0,0,1.0"


def test_boxes_refuses_unknown_extension_and_class_aware_mot(tmp_path: Path) -> None:
    gt = _write(tmp_path / "gt.txt", "1,1,0,0,10,10,1\n")
    odd = _write(tmp_path / "det.json", "{}")
    with pytest.raises(RefereeError, match="cannot tell the format"):
        _run(["boxes", str(gt), str(odd)])
    with pytest.raises(RefereeError, match="class labels"):
        _run(["boxes", str(gt), str(gt), "--class-aware", "--quiet"])
    with pytest.raises(RefereeError, match="no such file"):
        _run(["boxes", str(gt), str(tmp_path / "missing.csv")])


GT_XML = """<?xml version="1.0" encoding="UTF-8"?>
<tagset><video><videoName>room</videoName>
<action nr="1" class="1"><bbox x="0" y="0" width="10" height="10" framenr="5"/></action>
</video></tagset>
"""
DET_XML = """<?xml version="1.0" encoding="UTF-8"?>
<tagset><video><videoName>room</videoName>
<action nr="1" class="2"><bbox x="0" y="0" width="10" height="10" framenr="5"/></action>
<action nr="2" class="1"><bbox x="0" y="0" width="6" height="10" framenr="5"/></action>
</video></tagset>
"""


def test_boxes_on_liris_files_and_folders(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "gt"
    folder.mkdir()
    _write(folder / "room.xml", GT_XML)
    det = _write(tmp_path / "det.xml", DET_XML)
    # Classes ignored: GT maps to the class-2 box (IoU 1), the other is a FP.
    # FDA = 1/1.5; MODA = 1 − 1/1 = 0; N-MODP = 1.
    assert _run(["boxes", str(folder), str(det), "--quiet"]) == 0
    row = " ".join(capsys.readouterr().out.split("\n")[2].split())
    assert row == "room 1 1 2 1 1 0 0.6667 0.0000 1.0000"
    # Class-aware: only the class-1 box (IoU 0.6) may match. FDA = 0.6/1.5 = 0.4; N-MODP 0.6.
    assert _run(["boxes", str(folder), str(det), "--class-aware", "--quiet"]) == 0
    row = " ".join(capsys.readouterr().out.split("\n")[2].split())
    assert row == "room 1 1 2 1 1 0 0.4000 0.0000 0.6000"
    # A MOT file facing the single LIRIS video is paired with it.
    mot = _write(tmp_path / "cam.csv", "5,1,0,0,10,10,1\n")
    assert _run(["boxes", str(folder), str(mot), "--quiet"]) == 0
    row = " ".join(capsys.readouterr().out.split("\n")[2].split())
    assert row == "room 1 1 1 1 0 0 1.0000 1.0000 1.0000"
