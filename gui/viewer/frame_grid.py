"""One, two or four frame views side by side, with one zoom and pan for all."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QWidget

from referee.gui.viewer.frame_view import FrameView
from referee.gui.viewer.zoom import next_step


class FrameGrid(QWidget):
    """One, two (side by side) or four (2×2) frame views with synchronized zoom and pan.

    A change of layout fits the frames to their views again.

    Signals
    -------
    zoom_changed()
        The zoom or the part of the frame shown changed (by the user, a command or a resize).
    """

    COUNTS = (1, 2, 4)
    zoom_changed = Signal()

    def __init__(self, count: int = 1, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._views = [FrameView() for _ in range(max(self.COUNTS))]
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        for index, view in enumerate(self._views):
            layout.addWidget(view, index // 2, index % 2)
            view.view_box.zoomed_by_user.connect(partial(self._follow, view))
        self._views[0].view_box.sigRangeChanged.connect(lambda *_: self.zoom_changed.emit())
        self._count = 0
        self.set_count(count)

    @property
    def views(self) -> list[FrameView]:
        """The views currently shown, in reading order."""
        return self._views[: self._count]

    def set_count(self, count: int) -> None:
        """Show ``count`` views: 1 (1×1), 2 (1×2) or 4 (2×2), fitted."""
        if count not in self.COUNTS:
            raise ValueError(f"a frame grid shows 1, 2 or 4 views, not {count}")
        self._count = count
        for index, view in enumerate(self._views):
            view.setVisible(index < count)
        self.fit_to_window()

    # -- zoom -------------------------------------------------------------------------------

    def fit_to_window(self) -> None:
        """Show the whole frame in every view, as large as the views allow."""
        for view in self._views:
            view.view_box.fit()
        self.zoom_changed.emit()

    def zoom_actual_size(self) -> None:
        """Zoom to 100 %: one pixel of the frame on one pixel of the screen."""
        self._zoom_to(100.0)

    def zoom_in(self) -> None:
        """Zoom in to the next step (at most 3200 %), keeping the centre."""
        self._zoom_to(next_step(self.zoom_percent(), up=True))

    def zoom_out(self) -> None:
        """Zoom out to the previous step (at least a quarter of the fit), keeping the centre."""
        self._zoom_to(next_step(self.zoom_percent(), up=False))

    def zoom_percent(self) -> float:
        """The zoom shown, in percent of the frame's own size on the screen."""
        return self._views[0].view_box.zoom_percent()

    def has_frame(self) -> bool:
        """Whether a frame was shown (there is something to zoom)."""
        return self._views[0].view_box.has_image

    def fitted(self) -> bool:
        """Whether the frames are fitted to their views."""
        return self._views[0].view_box.fitted

    def _zoom_to(self, percent: float) -> None:
        first = self._views[0].view_box
        factor = percent / 100.0 / first.pixel_ratio()
        centre = first.centre()
        for view in self.views:
            view.view_box.set_zoom(factor, centre)
        self.zoom_changed.emit()

    def _follow(self, source: FrameView) -> None:
        """Give the other views the zoom and centre the user just set in ``source``."""
        factor, centre = source.view_box.zoom_factor(), source.view_box.centre()
        for view in self.views:
            if view is not source:
                view.view_box.set_zoom(factor, centre)
