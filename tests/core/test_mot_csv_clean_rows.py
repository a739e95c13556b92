"""The MOTChallenge reader's fast path for plain files gives exactly the rows of the
row-by-row reader, which stays the reference (and the one that names a bad line)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.errors import InputFileError
from referee.core.formats.mot_csv import _clean_rows, _rows_one_by_one, parse_mot_csv

NUMBER_FORMS = ("{:d}", "{:.1f}", "{:+.3e}", " {:.2f}", "{:.0f}.", "\t{:g}")


def _same(a, b) -> None:
    for field in ("frames", "ids", "boxes", "conf", "lines"):
        ours, reference = getattr(a, field), getattr(b, field)
        assert ours.dtype == reference.dtype and np.array_equal(ours, reference), field
    assert (a.classes is None) == (b.classes is None)
    if a.classes is not None:
        assert np.array_equal(a.classes, b.classes)


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.integers(1, 40),
            st.integers(-5, 60),
            st.floats(-500, 500, allow_nan=False),
            st.floats(-500, 500, allow_nan=False),
            st.floats(0, 300, allow_nan=False),
            st.floats(0, 300, allow_nan=False),
            st.floats(-1, 1, allow_nan=False),
            st.integers(1, 13),
        ),
        min_size=1,
        max_size=40,
    ),
    form=st.sampled_from(NUMBER_FORMS[1:]),
    header=st.booleans(),
    blank=st.booleans(),
    crlf=st.booleans(),
    min_conf=st.one_of(st.none(), st.floats(-1, 1)),
)
def test_a_plain_file_reads_as_row_by_row(rows, form, header, blank, crlf, min_conf) -> None:
    lines = ["frame,id,x,y,w,h,conf,class,visibility"] if header else []
    for frame, ident, x, y, w, h, conf, cls in rows:
        cells = [str(frame), str(ident), *(form.format(v) for v in (x, y, w, h, conf))]
        lines.append(",".join([*cells, str(cls), "1"]))
        if blank:
            lines.append("  ")
    text = ("\r\n" if crlf else "\n").join(lines) + "\n"
    for classes in (False, True):
        fast = _clean_rows(text, min_conf, classes)
        assert fast is not None
        _same(fast, _rows_one_by_one(text, "f.txt", min_conf, classes))


@pytest.mark.parametrize(
    "text",
    [
        "1,1,0,0,10,10,1\n2,1,0,0,-1,10,1\n",  # negative width
        "0,1,0,0,10,10,1\n",  # frame 0
        "1.5,1,0,0,10,10,1\n",  # frame not whole
        "1,1,0,0,10,10\n",  # six columns
        "1,1,0,0,10,10,1\n1,1,0,0,10,10\n",  # ragged
        "1,1,0,0,1e999,10,1\n",  # overflow
    ],
)
def test_any_other_file_goes_row_by_row(text: str) -> None:
    assert _clean_rows(text, None, False) is None
    with pytest.raises(InputFileError, match="line"):
        parse_mot_csv(text, "f.txt")


@pytest.mark.parametrize("text", ["1,1,0,0,10,10,1,car\n", '1,1,0,0,10,10,"1"\n'])
def test_text_and_quoted_cells_are_read_row_by_row(text: str) -> None:
    assert _clean_rows(text, None, False) is None
    assert parse_mot_csv(text, "f.txt").frames.tolist() == [1]
