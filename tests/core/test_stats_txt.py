"""CDnet's stats.txt: exact layout and values, and reading the ``cm video`` lines back."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.core.errors import InputFileError, RefereeError
from referee.core.formats.stats_txt import (
    format_stats_txt,
    parse_stats_txt,
    read_stats_txt,
    write_stats_txt,
)
from referee.core.measures.summarize import cdnet_procedure
from referee.core.model.confusion import ConfusionMatrix, VideoConfusion

# Two categories, three videos (SE of b1 unknown, written 0):
#   baseline/a1: tp 3 fp 1 fn 1 tn 15 → R .75 Sp 15/16 FPR 1/16 FNR .25 PBC 10 P .75 F .75
#   baseline/a2: tp 1 fp 1 fn 3 tn 15 → R .25 Sp 15/16 FPR 1/16 FNR .75 PBC 20 P .5  F 1/3
#   baseline mean: R .5 Sp .9375 FPR .0625 FNR .5 PBC 15 P .625 F (.75 + 1/3)/2 = .5416666667
#   dynamicBackground/b1: tp 8 fp 2 fn 2 tn 88 → R .8 Sp 88/90 = .9777777778
#       FPR 2/90 = .0222222222 FNR .2 PBC 4 P .8 F .8
#   Overall = mean of the two category means: R .65, Sp (.9375 + .97777…)/2 = .9576388889,
#       FPR (.0625 + .02222…)/2 = .0423611111, FNR .35, PBC 9.5, P .7125,
#       F (.5416666… + .8)/2 = .6708333333
#   "dynamicBackground" has more than 8 characters: shown as its first 7, "dynamic".
VIDEOS = [
    VideoConfusion("baseline", "a1", ConfusionMatrix(3, 1, 1, 15), 0),
    VideoConfusion("baseline", "a2", ConfusionMatrix(1, 1, 3, 15), 1),
    VideoConfusion("dynamicBackground", "b1", ConfusionMatrix(8, 2, 2, 88), None),
]

EXPECTED = (
    "#This is the statistical file we use to compare each method.\n"
    '#Only the lines starting with "cm" are importants.\n'
    "#cm NbTruePositive NbFalsePositive NbFalseNegative NbTrueNegative NbErrorShadow\n"
    "\n"
    "cm video baseline a1 3 1 1 15 0\n"
    "cm video baseline a2 1 1 3 15 1\n"
    "cm category baseline 4 2 4 30 1\n"
    "\n"
    "cm video dynamicBackground b1 8 2 2 88 0\n"
    "cm category dynamicBackground 8 2 2 88 0\n"
    "\n"
    "\n"
    "\n"
    "cm overall 12 4 6 118 1\n"
    "\n"
    "\n"
    "\n"
    "\t\t\tRecall\t\t\tSpecificity\t\tFPR\t\t\t\tFNR\t\t\t\tPBC\t\t\t\tPrecision\t\tFMeasure\n"
    "baseline :\t0.5000000000\t0.9375000000\t0.0625000000\t0.5000000000\t15.0000000000"
    "\t0.6250000000\t0.5416666667\n"
    "dynamic :\t0.8000000000\t0.9777777778\t0.0222222222\t0.2000000000\t4.0000000000"
    "\t0.8000000000\t0.8000000000\n"
    "\n"
    "Overall :\t0.6500000000\t0.9576388889\t0.0423611111\t0.3500000000\t9.5000000000"
    "\t0.7125000000\t0.6708333333\n"
    "Your method will not be visible in the Overall section.\n"
    "You need all 6 categories to appear in the overall section."
)


def test_layout_and_values_of_a_hand_computed_example(tmp_path: Path) -> None:
    assert format_stats_txt(cdnet_procedure(VIDEOS)) == EXPECTED
    path = tmp_path / "stats.txt"
    write_stats_txt(path, cdnet_procedure(VIDEOS))
    assert path.read_bytes() == EXPECTED.encode("utf-8")


def test_six_categories_need_no_note_and_short_names_are_kept() -> None:
    videos = [VideoConfusion(f"cat{i}", "v", ConfusionMatrix(1, 1, 1, 1), 0) for i in range(6)]
    text = format_stats_txt(cdnet_procedure(videos))
    assert "You need all 6 categories" not in text
    # every statistic of (1,1,1,1) is .5 except PBC = 50
    assert text.endswith(
        "Overall :\t0.5000000000\t0.5000000000\t0.5000000000\t0.5000000000"
        "\t50.0000000000\t0.5000000000\t0.5000000000"
    )
    assert "\ncat5 :\t" in text


def test_eight_characters_are_not_truncated() -> None:
    videos = [
        VideoConfusion("abcdefgh", "v", ConfusionMatrix(1, 1, 1, 1), 0),
        VideoConfusion("abcdefghi", "v", ConfusionMatrix(1, 1, 1, 1), 0),
    ]
    text = format_stats_txt(cdnet_procedure(videos))
    assert "\nabcdefgh :\t" in text
    assert "\nabcdefg :\t" in text


def test_names_with_spaces_cannot_be_written() -> None:
    videos = [VideoConfusion("my category", "v", ConfusionMatrix(1, 1, 1, 1), 0)]
    with pytest.raises(RefereeError, match="my category"):
        format_stats_txt(cdnet_procedure(videos))


def test_reading_back_the_written_file(tmp_path: Path) -> None:
    path = tmp_path / "stats.txt"
    write_stats_txt(path, cdnet_procedure(VIDEOS))
    read = read_stats_txt(path)
    assert [(v.category, v.video, v.cm, v.shadow_errors) for v in read] == [
        ("baseline", "a1", ConfusionMatrix(3, 1, 1, 15), 0),
        ("baseline", "a2", ConfusionMatrix(1, 1, 3, 15), 1),
        ("dynamicBackground", "b1", ConfusionMatrix(8, 2, 2, 88), 0),  # None was written 0
    ]


def test_reading_a_per_category_file_with_slashes() -> None:
    text = (
        "#comment\n\ncm video baseline highway 10 2 3 85 0/\n"
        "cm category baseline 10 2 3 85 0\n\nRecall\n0.7692307692\n"
    )
    assert parse_stats_txt(text) == [
        VideoConfusion("baseline", "highway", ConfusionMatrix(10, 2, 3, 85), 0)
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cm video baseline highway 10 2 x 85 0\n", r"line 1: FN is 'x'"),
        ("#c\ncm video baseline highway 10 2 3\n", r"line 2: expected 'cm video"),
        (
            "cm video a b 1 1 1 1 0\ncm video a b 1 1 1 1 0\n",
            r"line 2: video a/b appears twice \(first on line 1\)",
        ),
        ("cm video a b 1 -1 1 1 0\n", r"line 1: FP is -1"),
        ("#nothing here\ncm overall 1 2 3 4 5\n", r"no 'cm video' line"),
    ],
)
def test_reader_errors_name_file_and_line(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "stats.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputFileError, match=expected) as info:
        read_stats_txt(path)
    assert str(path) in str(info.value)
