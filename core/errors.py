"""The one error family for everything a user can cause.

The GUI shows a :class:`RefereeError` in a dialog; the CLI prints its message
and exits with status 2, without a traceback. Messages name the file and say
what is wrong and what to do.
"""

from __future__ import annotations

from pathlib import Path


class RefereeError(Exception):
    """A problem with the user's input or request (not a bug in Referee)."""


class InputFileError(RefereeError):
    """A file or folder given by the user is missing, unreadable or malformed."""

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path = Path(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")

    def __reduce__(self) -> tuple[type[InputFileError], tuple[object, ...]]:
        # Rebuild from the constructor's arguments, so worker processes can send it back.
        # (Subclasses with more arguments return more of them.)
        return (type(self), (self.path, self.problem))


class MissingFrameError(InputFileError):
    """A frame file that the temporal ROI or the ground truth requires is absent."""


_SizeArguments = tuple[str | Path, tuple[int, ...], str | Path, tuple[int, ...]]
"""The constructor's arguments of a :class:`SizeMismatchError`."""


class ChangedOnDiskError(InputFileError):
    """A file changed on disk since Referee read it: writing would lose someone's work."""


class SizeMismatchError(RefereeError):
    """Two images that must have the same size do not."""

    def __init__(
        self,
        first: str | Path,
        first_shape: tuple[int, ...],
        second: str | Path,
        second_shape: tuple[int, ...],
    ) -> None:
        self.first, self.second = Path(first), Path(second)
        self._arguments: _SizeArguments = (first, first_shape, second, second_shape)
        super().__init__(
            f"size mismatch: {self.first} is {_size(first_shape)} but "
            f"{self.second} is {_size(second_shape)}; both must have the same width and height"
        )

    def __reduce__(self) -> tuple[type[SizeMismatchError], _SizeArguments]:
        return (type(self), self._arguments)


class InvalidOptionError(RefereeError):
    """A parameter value given by the user is out of range or inconsistent."""


class CancelledError(RefereeError):
    """The user cancelled a long computation."""


class UnavailableError(RefereeError):
    """The project lacks what a computation needs (no masks, a single detector, no ground
    truth…); the message says what is missing."""


def _size(shape: tuple[int, ...]) -> str:
    return f"{shape[1]}x{shape[0]}" if len(shape) >= 2 else str(shape)


class RefereeWarning(UserWarning):
    """An input that is valid but surprising: the computation goes on as documented, and the
    message names the file and says what was done (the CLI prints it as one line)."""
