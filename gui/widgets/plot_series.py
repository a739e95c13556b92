"""Plot items of named series (one detector's curve, points, band), made once and reused.

Making and adding a pyqtgraph item costs far more than giving it new data: a
plot that shows each new result of the same detectors keeps its items and
calls their ``setData``. :class:`SeriesItems` makes a series' items when the
series first appear, and makes them anew (in the order given, with their legend
rows) only when the set or order of series changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pyqtgraph as pg

#: The items of one series; the plot adds them in this order.
Items = tuple[Any, ...]


class SeriesItems:
    """The items of each series shown on ``plot``; ``make(name)`` makes one series' items.

    An item with a name (``name=`` of a pyqtgraph item) gets a legend row when added,
    which goes when the series does.
    """

    def __init__(self, plot: pg.PlotItem, make: Callable[[str], Items]) -> None:
        self._plot = plot
        self._make = make
        self._items: dict[str, Items] = {}

    @property
    def names(self) -> tuple[str, ...]:
        """The series shown, in order."""
        return tuple(self._items)

    def show(self, names: Sequence[str]) -> bool:
        """Show the series ``names`` in this order, keeping their items if they were shown
        so already. Returns whether the series changed (and their items were made anew)."""
        if tuple(names) == self.names:
            return False
        self.clear()
        self._items = {name: self._make(name) for name in names}
        for items in self._items.values():
            for item in items:
                self._plot.addItem(item)
        return True

    def clear(self) -> None:
        """Remove every series' items (and legend rows)."""
        for items in self._items.values():
            for item in items:
                self._plot.removeItem(item)
        self._items = {}

    def __getitem__(self, name: str) -> Items:
        return self._items[name]
