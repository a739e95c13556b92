"""Sizes of windows and dialogs that fit the screen they open on (a 1366×768 laptop too)."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QWidget

#: Largest share of the screen's available area (each side) a new dialog takes, leaving room
#: for its frame and title bar.
SCREEN_SHARE = 0.9
#: Room left around the main window on a screen smaller than its preferred size: its frame and
#: title bar (the window itself takes the rest, which its docks need on a laptop).
FRAME_ROOM = QSize(12, 44)


def fitted_size(preferred: QSize, available: QSize) -> QSize:
    """``preferred``, made smaller where it exceeds :data:`SCREEN_SHARE` of ``available``."""
    return preferred.boundedTo(
        QSize(int(available.width() * SCREEN_SHARE), int(available.height() * SCREEN_SHARE))
    )


def fit_to_screen(widget: QWidget, preferred: QSize) -> None:
    """Resize ``widget`` to :func:`fitted_size` on the screen it opens on."""
    widget.resize(fitted_size(preferred, widget.screen().availableGeometry().size()))


def opening_size(preferred: QSize, available: QSize) -> QSize:
    """The main window's opening size: ``preferred``, made smaller where it exceeds the
    screen's ``available`` area less :data:`FRAME_ROOM` (1354×696 on a 1366×768 laptop
    whose panel leaves 1366×740)."""
    return preferred.boundedTo(available - FRAME_ROOM)
