"""Zoom of a frame view: fit to the window, 100 % and steps between limits, and its keys.

A zoom factor is the number of screen pixels (Qt's device-independent pixels) that one
image pixel covers; a zoom *percent* counts physical pixels, so that 100 % shows one
image pixel on one pixel of the screen also on a high-density display.
"""

from __future__ import annotations

import bisect

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Signal

#: (menu text, key) of the zoom commands, in the order of :data:`ZOOM_COMMANDS`.
ZOOM_KEYS: tuple[tuple[str, str], ...] = (
    ("Fit to &window", "Ctrl+0"),
    ("&Actual size (100 %)", "Ctrl+Alt+0"),
    ("Zoom &in", "Ctrl++"),
    ("Zoom &out", "Ctrl+-"),
)
#: The ``ViewerPanel`` method that each entry of :data:`ZOOM_KEYS` calls.
ZOOM_COMMANDS: tuple[str, ...] = ("fit_to_window", "zoom_actual_size", "zoom_in", "zoom_out")

#: The largest zoom, in percent.
MAX_PERCENT = 3200.0
#: The smallest zoom, as a share of the zoom that fits the frame to the window.
MIN_SHARE_OF_FIT = 0.25
#: The zooms that zooming in and out step through, in percent.
STEPS_PERCENT: tuple[float, ...] = (
    5.0,
    10.0,
    12.5,
    16.7,
    25.0,
    33.3,
    50.0,
    66.7,
    100.0,
    150.0,
    200.0,
    300.0,
    400.0,
    600.0,
    800.0,
    1200.0,
    1600.0,
    2400.0,
    3200.0,
)


def next_step(percent: float, up: bool) -> float:
    """The step of :data:`STEPS_PERCENT` after ``percent`` (``up``) or before it; the
    largest or smallest step past the ends."""
    tolerance = 1e-3 * percent
    if up:
        index = bisect.bisect_right(STEPS_PERCENT, percent + tolerance)
        return STEPS_PERCENT[min(index, len(STEPS_PERCENT) - 1)]
    index = bisect.bisect_left(STEPS_PERCENT, percent - tolerance)
    return STEPS_PERCENT[max(index - 1, 0)]


def zoom_text(percent: float, fitted: bool) -> str:
    """The readout of a zoom: ``"250 %"``, or ``"Fit (62 %)"`` while the frame is fitted."""
    shown = f"{percent:.0f} %" if percent >= 10 else f"{percent:.1f} %"
    return f"Fit ({shown})" if fitted else shown


class ZoomViewBox(pg.ViewBox):
    """A view box showing one image, fitted to its size or at a zoom factor around a centre.

    It keeps its zoom when resized (a fitted image stays fitted); the wheel and the
    right-button drag zoom within the limits; panning keeps the centre over the image.

    Signals
    -------
    zoomed_by_user()
        The user zoomed or panned with the mouse.
    """

    zoomed_by_user = Signal()

    def __init__(self) -> None:
        super().__init__(lockAspect=True, invertY=True, enableMenu=False)
        self.disableAutoRange()
        self._image_size: tuple[int, int] | None = None
        self._factor: float | None = None  # None: fitted to the view
        self._centre = QPointF()
        self.sigResized.connect(lambda _: self._apply())
        self.sigRangeChangedManually.connect(lambda _: self._on_changed_by_user())

    # -- state ------------------------------------------------------------------------------

    def set_image_size(self, width: int, height: int) -> None:
        """The size of the image shown; a new size fits it to the view."""
        if (width, height) != self._image_size:
            self._image_size = (width, height)
            self.fit()

    @property
    def fitted(self) -> bool:
        """Whether the image is fitted to the view (and stays so when the view is resized)."""
        return self._factor is None

    def fit(self) -> None:
        """Show the whole image, as large as the view allows, centred."""
        self._factor = None
        self._apply()

    def set_zoom(self, factor: float, centre: QPointF | None = None) -> None:
        """Show the image at ``factor`` screen pixels per image pixel (kept within
        :meth:`zoom_limits`) around ``centre`` (image coordinates; default: the current one)."""
        self._factor = factor
        self._centre = QPointF(self.viewRect().center() if centre is None else centre)
        self._apply()

    @property
    def has_image(self) -> bool:
        """Whether an image was given (:meth:`set_image_size`)."""
        return self._image_size is not None

    def zoom_factor(self) -> float:
        """Screen pixels per image pixel, as shown now (0 without an image or a size)."""
        (left, right), _ = self.viewRange()
        return self.width() / (right - left) if self.has_image and right > left else 0.0

    def centre(self) -> QPointF:
        """The image point at the centre of the view."""
        return QPointF(self.viewRect().center())

    def fit_factor(self) -> float:
        """The zoom factor at which the image fits the view (0 without an image or a size)."""
        if self._image_size is None:
            return 0.0
        width, height = self._image_size
        return max(min(self.width() / width, self.height() / height), 0.0)

    def pixel_ratio(self) -> float:
        """Physical pixels per screen pixel of the display the view is on."""
        widget = self.getViewWidget()
        return 1.0 if widget is None else float(widget.devicePixelRatioF())

    def zoom_percent(self) -> float:
        """The zoom shown now, in percent: physical pixels per image pixel × 100."""
        return 100.0 * self.zoom_factor() * self.pixel_ratio()

    def zoom_limits(self) -> tuple[float, float]:
        """The smallest and largest zoom factors: a quarter of the fit, and 3200 % (or the
        fit, if larger)."""
        fit = self.fit_factor()
        return MIN_SHARE_OF_FIT * fit, max(MAX_PERCENT / 100.0 / self.pixel_ratio(), fit)

    # -- drawing ----------------------------------------------------------------------------

    def _apply(self) -> None:
        if self._image_size is None or self.width() <= 0 or self.height() <= 0:
            return
        width, height = self._image_size
        if self._factor is None:
            self.setRange(QRectF(0, 0, width, height), padding=0)
            return
        low, high = self.zoom_limits()
        self._factor = min(max(self._factor, low), high)
        self._centre = QPointF(
            min(max(self._centre.x(), 0.0), width), min(max(self._centre.y(), 0.0), height)
        )
        half_width = self.width() / self._factor / 2
        half_height = self.height() / self._factor / 2
        x, y = self._centre.x(), self._centre.y()
        self.setRange(
            xRange=(x - half_width, x + half_width),
            yRange=(y - half_height, y + half_height),
            padding=0,
        )

    def scaleBy(
        self,
        s: object = None,
        center: object = None,
        x: float | None = None,
        y: float | None = None,
    ) -> None:
        """pyqtgraph's zoom by a factor of the range (wheel, right-button drag), kept
        within :meth:`zoom_limits`."""
        if s is not None:
            x, y = s[0], s[1]  # type: ignore[index]
        factor = self.zoom_factor()
        if factor > 0:
            low, high = self.zoom_limits()
            # Scaling the range by s divides the zoom factor by s.
            x = None if x is None else min(max(x, factor / high), factor / low)
            y = None if y is None else min(max(y, factor / high), factor / low)
        super().scaleBy(None, center, x, y)

    def _on_changed_by_user(self) -> None:
        self._factor = self.zoom_factor()
        self._centre = self.centre()
        self._apply()  # brings a centre panned off the image back to its edge
        self.zoomed_by_user.emit()
