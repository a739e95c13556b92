"""Where the main window's docks go, and how they fit a small screen.

Every dock's contents sit in a frameless scroll area: a dock can be made as
narrow or as short as the window needs (its contents keep their own minimum
size and scroll instead), so the docks never make the window wider or taller
than a 1366×768 laptop screen. The default layout gives each side a share of
the window's width, so that a larger screen gives the docks more room too.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QGridLayout,
    QMainWindow,
    QScrollArea,
    QWidget,
)

#: Version of the default dock layout: a layout saved with another version is not restored
#: (a window then starts with this one).
LAYOUT_VERSION = 5
#: Share of the window's width the viewer keeps by default; the docks share the rest.
VIEWER_SHARE = 0.47
#: Share of the window's width given to the left dock area by default, and its most pixels
#: (its panels need no more): the right area, with the tables, gets the rest.
LEFT_SHARE, LEFT_MOST = 0.2, 300
#: Share of the right area's height given to its first group of tabs by default.
RIGHT_TOP_SHARE = 0.58
#: Share of the left area's height given to its first dock by default.
LEFT_TOP_SHARE = 0.34


def scroll_contents(dock: QDockWidget) -> None:
    """Put ``dock``'s widget in a frameless scroll area.

    The widget keeps its own minimum size, and the one its dock had (from the dock's
    own code): it is never squeezed below them, the area scrolls instead, and the
    dock itself can shrink as far as the window needs.
    """
    contents = dock.widget()
    minimum = dock.minimumSize()
    dock.setMinimumSize(0, 0)
    holder = QWidget()  # its layout's minimum follows the contents' own as it changes
    layout = _MinimumHeightLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setColumnMinimumWidth(0, minimum.width())
    layout.setRowMinimumHeight(0, minimum.height())
    area = QScrollArea()
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    dock.setWidget(area)  # hides the widget it replaces: lay it out in the holder after
    layout.addWidget(contents, 0, 0)
    contents.show()
    area.setWidget(holder)


class _MinimumHeightLayout(QGridLayout):
    """A grid that never asks for its height for a given width: a scroll area would make
    its widget as tall as that (the contents' preferred height, with wrapped text) and
    scroll, where the contents' minimum height is enough."""

    def hasHeightForWidth(self) -> bool:  # Qt override
        return False


def arrange_docks(
    window: QMainWindow,
    left: Sequence[Sequence[QDockWidget]],
    right: Sequence[Sequence[QDockWidget]],
) -> None:
    """Dock ``left``'s groups one below the other on the left, ``right``'s on the right;
    the docks of a group share one place as tabs, its first one raised."""
    sides = (
        (Qt.DockWidgetArea.LeftDockWidgetArea, left),
        (Qt.DockWidgetArea.RightDockWidgetArea, right),
    )
    for area, groups in sides:
        for group in groups:
            window.addDockWidget(area, group[0], Qt.Orientation.Vertical)
            for dock in group[1:]:
                window.tabifyDockWidget(group[0], dock)
            for dock in group:
                scroll_contents(dock)
            group[0].raise_()


def size_docks(
    window: QMainWindow,
    left: Sequence[QDockWidget],
    right: Sequence[QDockWidget],
) -> None:
    """Give the dock groups whose first docks are ``left`` and ``right`` their default
    shares of ``window``'s size (:data:`VIEWER_SHARE` etc.)."""
    size = window.size()
    width, height = size.width(), size.height()
    left_width = min(round(width * LEFT_SHARE), LEFT_MOST)
    right_width = round(width * (1 - VIEWER_SHARE)) - left_width
    window.resizeDocks([left[0], right[0]], [left_width, right_width], Qt.Orientation.Horizontal)
    for docks, share in ((left, LEFT_TOP_SHARE), (right, RIGHT_TOP_SHARE)):
        if len(docks) > 1:
            top = round(height * share)
            window.resizeDocks(list(docks[:2]), [top, height - top], Qt.Orientation.Vertical)
