"""Per-video confusion-matrix CSV (docs/measures.md §10): reading, writing, errors naming file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.core.errors import InputFileError, RefereeError
from referee.core.formats.cm_csv import format_cm_csv, read_cm_csv, write_cm_csv
from referee.core.model.confusion import ConfusionMatrix, VideoConfusion


def _write(tmp_path: Path, text: str, name: str = "cm.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_rows_with_any_case_order_and_optional_se(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        (
            "Video,CATEGORY,tp,Fp,FN,tn,se,notes\n"
            "highway,baseline,10,2,3,85,1,fine\n"
            "office,baseline, 5 ,0,1,94,,\n"
            "\n"
            "solo,,1,1,1,1,0,no category\n"
        ),
    )
    videos = read_cm_csv(path)
    assert videos == [
        VideoConfusion("baseline", "highway", ConfusionMatrix(10, 2, 3, 85), 1),
        VideoConfusion("baseline", "office", ConfusionMatrix(5, 0, 1, 94), None),
        # an empty category cell: the video is a category of its own
        VideoConfusion("solo", "solo", ConfusionMatrix(1, 1, 1, 1), 0),
    ]


def test_se_column_may_be_absent(tmp_path: Path) -> None:
    path = _write(tmp_path, "category,video,TP,FP,FN,TN\nc,v,1,2,3,4\n")
    assert read_cm_csv(path) == [VideoConfusion("c", "v", ConfusionMatrix(1, 2, 3, 4), None)]


def test_round_trip(tmp_path: Path) -> None:
    videos = [
        VideoConfusion("baseline", "highway", ConfusionMatrix(10, 2, 3, 85), 1),
        VideoConfusion("night, rain", "street", ConfusionMatrix(0, 0, 0, 7), None),
    ]
    path = tmp_path / "out.csv"
    write_cm_csv(path, videos)
    assert path.read_text(encoding="utf-8").splitlines()[0] == "category,video,TP,FP,FN,TN,SE"
    assert read_cm_csv(path) == videos


def test_writing_a_normalized_matrix_is_refused() -> None:
    with pytest.raises(RefereeError, match="non-integer"):
        format_cm_csv([VideoConfusion("c", "v", ConfusionMatrix(0.5, 0.5, 0, 0))])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("category,video,TP,FP,FN\nc,v,1,2,3\n", r"line 1: missing column 'tn'"),
        (
            "category,video,TP,FP,FN,TN\nc,v,1,2,3,4\nc,w,1,x,3,4\n",
            r"line 3: FP is 'x', not a whole number",
        ),
        ("category,video,TP,FP,FN,TN\nc,v,1,2,3,4.5\n", r"line 2: TN is '4.5', not a whole number"),
        ("category,video,TP,FP,FN,TN\nc,v,1,2,3\n", r"line 2: TN is empty, not a whole number"),
        ("category,video,TP,FP,FN,TN,SE\nc,v,1,2,3,4,-1\n", r"line 2: SE is -1; counts cannot"),
        (
            "category,video,TP,FP,FN,TN\nc,v,1,2,3,4\n\nd,w,1,2,3,4\nc,v,5,6,7,8\n",
            r"line 5: video c/v appears twice \(first on line 2\)",
        ),
        ("category,video,TP,FP,FN,TN\nc,,1,2,3,4\n", r"line 2: the video cell is empty"),
        ("", r"empty file"),
        ("\n\n", r"empty file"),
        ("category,video,TP,FP,FN,TN\n", r"no video rows after the header on line 1"),
    ],
)
def test_errors_name_the_file_and_line(tmp_path: Path, text: str, expected: str) -> None:
    path = _write(tmp_path, text, "results_method_A.csv")
    with pytest.raises(InputFileError, match=expected) as info:
        read_cm_csv(path)
    assert str(path) in str(info.value)
    assert info.value.path == path


def test_missing_file_is_an_input_file_error(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match=r"nothere\.csv"):
        read_cm_csv(tmp_path / "nothere.csv")
