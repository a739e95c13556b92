"""The GUI's colours: the overlay is the Okabe–Ito set the detector palette keeps away from."""

from __future__ import annotations

from referee.core.colours import OKABE_ITO
from referee.core.measures.pixel import COMPARISON_LABELS
from referee.gui.widgets.palette import COMPARISON_RGBA, GROUND_TRUTH_RGB, BoxDrawing


def test_overlay_and_ground_truth_take_the_colours_the_detector_palette_avoids() -> None:
    # tests/core/test_colours.py measures the detector palette against these names.
    assert len(COMPARISON_RGBA) == len(COMPARISON_LABELS)
    drawn = {rgba[:3] for rgba in COMPARISON_RGBA if rgba[3]}  # true negatives are transparent
    assert drawn == {
        OKABE_ITO[name]
        for name in ("bluish green", "vermillion", "sky blue", "reddish purple", "grey")
    }
    assert OKABE_ITO["yellow"] == GROUND_TRUTH_RGB


def test_a_box_label_carries_its_marker() -> None:
    box = BoxDrawing(0, 0, 4, 4, "GT 2 try to enter", GROUND_TRUTH_RGB, marker="miss")
    assert box.text == "GT 2 try to enter · miss"
    assert BoxDrawing(0, 0, 4, 4, "det 5", (1, 2, 3)).text == "det 5"
