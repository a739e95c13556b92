"""A work-around for a stray dock tab bar that Qt leaves on the main window."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow, QTabBar


def hide_stray_tab_bars(window: QMainWindow) -> None:
    """Hide the copy of a dock group's tab bar that Qt (seen with 6.11) leaves drawn over
    the status bar when a second group of docks is tabified.

    The copy keeps the first tabs of its group while the group's own bar grows: a bar
    whose tabs are the start of a longer bar's tabs is the copy.
    """
    bars = [bar for bar in window.findChildren(QTabBar) if bar.parent() is window]
    titles = {bar: [bar.tabText(i) for i in range(bar.count())] for bar in bars}
    for bar in bars:
        mine = titles[bar]
        if any(len(titles[o]) > len(mine) and titles[o][: len(mine)] == mine for o in bars):
            bar.hide()
