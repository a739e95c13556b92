"""User errors survive pickling, so worker processes can send them back unchanged."""

from __future__ import annotations

import pickle
from pathlib import Path

from referee.core.errors import (
    InputFileError,
    MissingFrameError,
    RefereeError,
    SizeMismatchError,
)


def test_file_errors_pickle_with_their_message_and_path() -> None:
    for error in (
        InputFileError(Path("/data/gt000001.png"), "cannot be read"),
        MissingFrameError("/r/bin000007.png", "result of frame 7 is missing"),
    ):
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is type(error)
        assert str(copy) == str(error) and copy.path == error.path
        assert isinstance(copy, RefereeError)


def test_size_mismatch_names_both_files_and_sizes_and_pickles() -> None:
    error = SizeMismatchError("a/gt000001.png", (240, 320), "b/bin000001.png", (120, 160))
    assert str(error) == (
        "size mismatch: a/gt000001.png is 320x240 but b/bin000001.png is "
        "160x120; both must have the same width and height"
    )
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is SizeMismatchError and str(copy) == str(error)
    assert (copy.first, copy.second) == (Path("a/gt000001.png"), Path("b/bin000001.png"))
