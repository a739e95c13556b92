"""Text colours that carry a meaning (loaded, missing, error, warning), each with a shade for
the light theme and one for the dark theme, both legible (5:1 contrast or more) on the
theme's fields and windows."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QPalette


@dataclass(frozen=True)
class ThemedColour:
    """A text colour with its light-theme and dark-theme shades."""

    light: tuple[int, int, int]
    dark: tuple[int, int, int]

    def on(self, palette: QPalette, role: QPalette.ColorRole = QPalette.ColorRole.Base) -> QColor:
        """The shade for text over ``role`` of ``palette``: the dark one on a dark colour."""
        dark = palette.color(role).lightness() < 128
        return QColor(*(self.dark if dark else self.light))


#: A source read without a problem.
LOADED_TEXT = ThemedColour(light=(0, 122, 89), dark=(0, 170, 125))
#: A source, or a warning: something to look at (the missing and the warning share it).
WARNING_TEXT = ThemedColour(light=(166, 77, 0), dark=(230, 159, 0))
#: A source that could not be read.
ERROR_TEXT = ThemedColour(light=(190, 35, 20), dark=(240, 110, 80))
