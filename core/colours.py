"""Colours shared by the GUI and the reports, as RGB 0–255.

The pixel comparison, the masks and the ground truth use the Okabe–Ito
palette (:data:`OKABE_ITO`). Detectors use :data:`DETECTOR_PALETTE`, whose
colours are kept apart from those, so that a detector's colour never reads
as a true positive, a miss or the ground truth.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

RGB = tuple[int, int, int]

#: The Okabe–Ito palette, readable with every common colour-vision deficiency.
OKABE_ITO: dict[str, RGB] = {
    "orange": (230, 159, 0),
    "sky blue": (86, 180, 233),
    "bluish green": (0, 158, 115),
    "yellow": (240, 228, 66),
    "blue": (0, 114, 178),
    "vermillion": (213, 94, 0),
    "reddish purple": (204, 121, 167),
    "grey": (153, 153, 153),
}

#: Colours of the detectors, in the order of the project's detector list (cycled).
#: Mostly from Paul Tol's qualitative schemes ("bright", "vibrant", "muted",
#: "light") and the IBM Design Library's colour-blind-safe palette, chosen so
#: that each is at least ΔE76 20 from every comparison-overlay colour and the
#: ground-truth yellow, at least ΔE76 30 from each other, and keeps a contrast of
#: 2.5:1 or more both on white and on the dark theme's plot background.
#: In order, each is the farthest (ΔE76) from the overlay colours and those before it,
#: so the few detectors of most projects get the least ambiguous colours.
DETECTOR_PALETTE: tuple[RGB, ...] = (
    (120, 94, 240),  # IBM indigo
    (238, 51, 119),  # Tol vibrant: magenta
    (153, 153, 51),  # Tol muted: olive
    (0, 130, 140),  # a dark teal, chosen here: far from indigo, where ultramarine was not
    (238, 136, 102),  # Tol light: orange
    (170, 68, 153),  # Tol muted: purple
    (34, 136, 51),  # Tol bright: green
    (68, 119, 170),  # Tol bright: blue
)


def detector_colour(index: int) -> RGB:
    """Colour of the project's ``index``-th detector (cycles through :data:`DETECTOR_PALETTE`)."""
    return DETECTOR_PALETTE[index % len(DETECTOR_PALETTE)]


def detector_colours(names: Iterable[str], order: Sequence[str] = ()) -> dict[str, RGB]:
    """Each of ``names``' colour, by its position in ``order`` (the project's detector list).

    Names missing from ``order`` follow its end, in the order given, so that a
    plot without the project's list still gives its detectors distinct colours.
    """
    positions = {name: index for index, name in enumerate(order)}
    colours: dict[str, RGB] = {}
    extra = len(order)
    for name in names:
        if name in colours:
            continue
        if name in positions:
            colours[name] = detector_colour(positions[name])
        else:
            colours[name] = detector_colour(extra)
            extra += 1
    return colours
