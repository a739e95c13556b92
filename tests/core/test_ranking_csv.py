"""The ranking CSV ``rank,video,frame,score,criterion`` (docs/measures.md §8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.core.errors import InputFileError
from referee.core.exports.ranking_csv import (
    HEADER,
    format_ranking_csv,
    parse_ranking_csv,
    read_ranking_csv,
    write_ranking_csv,
)
from referee.core.ranking.criteria import FrameScores
from referee.core.ranking.order import RankedFrame, rank_frames


def test_round_trip_keeps_every_field_exactly(tmp_path: Path) -> None:
    scores = FrameScores(
        "baseline/street, north",
        "pairwise-dice",
        ("mog2", "kñn"),
        [3, 40, 41],
        [0.1 + 0.2, 1 / 3, 0.0],
    )
    ranking = rank_frames(scores, gap=0)
    path = tmp_path / "rank.csv"
    write_ranking_csv(path, ranking)
    text = path.read_text(encoding="utf-8")
    assert text.splitlines()[0] == ",".join(HEADER)
    assert (
        text.splitlines()[1] == '1,"baseline/street, north",40,0.3333333333333333,'
        "pairwise-dice: mog2 vs kñn"
    )
    back = read_ranking_csv(path)
    assert back == ranking  # dataclass equality: rank, video, frame, score, criterion
    assert back[1].score == 0.1 + 0.2  # not 0.3: every digit survives


def test_empty_ranking_is_a_header_only() -> None:
    assert format_ranking_csv([]) == "rank,video,frame,score,criterion\n"
    assert parse_ranking_csv(format_ranking_csv([])) == []


def test_columns_in_any_order_with_extra_columns_and_blank_lines() -> None:
    text = "Score,note,FRAME,criterion,video,rank\n\n0.5,x,7,classes,v,1\n0.25,,9,classes,v,3\n"
    assert parse_ranking_csv(text) == [
        RankedFrame(1, "v", 7, 0.5, "classes"),
        RankedFrame(3, "v", 9, 0.25, "classes"),
    ]


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty file"),
        ("rank,video,frame,score\n1,v,2,0.5\n", "missing column 'criterion'"),
        ("rank,video,frame,score,criterion\n0,v,2,0.5,c\n", "line 2: rank is 0"),
        ("rank,video,frame,score,criterion\n1,v,2,0.5,c\n1,v,3,0.4,c\n", "line 3: rank 1 follows"),
        ("rank,video,frame,score,criterion\n1,v,two,0.5,c\n", "line 2: frame is 'two'"),
        ("rank,video,frame,score,criterion\n1,v,2,nan,c\n", "finite"),
        ("rank,video,frame,score,criterion\n1,v,2,,c\n", "score is empty"),
        ("rank,video,frame,score,criterion\n1,v,2,0.5,\n", "criterion is empty"),
    ],
)
def test_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(InputFileError, match=message):
        parse_ranking_csv(text, "r.csv")


def test_missing_file_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match=r"nope\.csv"):
        read_ranking_csv(tmp_path / "nope.csv")
