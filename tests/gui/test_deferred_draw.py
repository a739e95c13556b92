"""A deferred draw happens at once while its widget can be seen, else once it is shown."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QTabWidget

from referee.gui.widgets.deferred_draw import DeferredDraw


def _counted(widget) -> tuple[DeferredDraw, list[int]]:
    draws: list[int] = []
    return DeferredDraw(widget, lambda: draws.append(len(draws) + 1)), draws


def test_a_page_behind_another_tab_draws_when_its_tab_is_chosen(qtbot) -> None:
    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    front, back = QLabel("front"), QLabel("back")
    tabs.addTab(front, "front")
    tabs.addTab(back, "back")
    tabs.show()
    qtbot.waitExposed(tabs)
    drawing, draws = _counted(back)
    drawing.request()
    drawing.request()
    assert draws == [] and drawing.pending
    tabs.setCurrentWidget(back)
    assert draws == [1] and not drawing.pending  # once, for both requests
    drawing.request()  # seen now: at once
    assert draws == [1, 2]
    tabs.setCurrentWidget(front)
    tabs.setCurrentWidget(back)  # shown again with nothing new: no draw
    assert draws == [1, 2]


def test_flush_draws_what_waits_even_unseen(qtbot) -> None:
    label = QLabel("never shown")
    qtbot.addWidget(label)
    drawing, draws = _counted(label)
    drawing.flush()
    assert draws == []  # nothing waited
    drawing.request()
    assert draws == []
    drawing.flush()
    assert draws == [1] and not drawing.pending
