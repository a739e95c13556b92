"""Sizes of windows and dialogs that fit the screen they open on (a 1366×768 laptop too)."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QWidget

#: Largest share of the screen's available area (each side) a new window or dialog takes,
#: leaving room for its frame and title bar.
SCREEN_SHARE = 0.9


def fitted_size(preferred: QSize, available: QSize) -> QSize:
    """``preferred``, made smaller where it exceeds :data:`SCREEN_SHARE` of ``available``."""
    return preferred.boundedTo(
        QSize(int(available.width() * SCREEN_SHARE), int(available.height() * SCREEN_SHARE))
    )


def fit_to_screen(widget: QWidget, preferred: QSize) -> None:
    """Resize ``widget`` to :func:`fitted_size` on the screen it opens on."""
    widget.resize(fitted_size(preferred, widget.screen().availableGeometry().size()))
