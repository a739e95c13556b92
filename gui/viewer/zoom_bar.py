"""The zoom readout of the frame grid, with its Fit and 100 % buttons."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from referee.gui.viewer.frame_grid import FrameGrid
from referee.gui.viewer.zoom import ZOOM_KEYS, zoom_text

_FIT_KEY, _ACTUAL_KEY, _IN_KEY, _OUT_KEY = (key for _, key in ZOOM_KEYS)


class ZoomBar(QWidget):
    """Shows the zoom of ``grid`` ("Fit (62 %)", "250 %") and sets it to fit or to 100 %."""

    def __init__(self, grid: FrameGrid, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._grid = grid
        self.readout = QLabel()
        self.readout.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.readout.setMinimumWidth(self.readout.fontMetrics().horizontalAdvance("Fit (100 %)"))
        self.readout.setToolTip(
            f"Zoom: 100 % shows one pixel of the frame on one pixel of the screen. "
            f"Mouse wheel or {_IN_KEY} / {_OUT_KEY} to zoom, drag to pan"
        )
        self.fit_button = self._button("Fit", f"Fit the frame to the window ({_FIT_KEY})")
        self.fit_button.clicked.connect(grid.fit_to_window)
        self.actual_button = self._button(
            "100 %", f"Actual size: one frame pixel per screen pixel ({_ACTUAL_KEY})"
        )
        self.actual_button.clicked.connect(grid.zoom_actual_size)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.readout)
        layout.addWidget(self.fit_button)
        layout.addWidget(self.actual_button)
        grid.zoom_changed.connect(self.update_readout)
        self.update_readout()

    @staticmethod
    def _button(text: str, tooltip: str) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tooltip)
        button.setAccessibleName(tooltip.split(" (")[0])
        return button

    def update_readout(self) -> None:
        """Show the grid's zoom now (nothing, and the buttons disabled, before a frame)."""
        grid = self._grid
        shown = grid.has_frame()
        self.readout.setText(zoom_text(grid.zoom_percent(), grid.fitted()) if shown else "")
        for button in (self.fit_button, self.actual_button):
            button.setEnabled(shown)
