"""Windows no one watches (``referee gui --screenshot``): what they would ask is said instead.

A question in such a window would wait for good. Code about to ask one calls
:func:`unanswerable` first: in an unattended window it says, in one line on
standard error, what it does not ask and what happens instead, and does not ask.
"""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QWidget

#: The dynamic property that marks a window unattended.
UNATTENDED_PROPERTY = "refereeUnattended"


def mark_unattended(window: QWidget) -> None:
    """Mark ``window`` as one no one watches: no question is asked over it."""
    window.setProperty(UNATTENDED_PROPERTY, True)


def unanswerable(widget: QWidget, notice: str) -> bool:
    """Whether a question over ``widget`` cannot be asked (its window is unattended); if so,
    ``notice`` — what is not asked, and what happens instead — is said on standard error,
    in one line that starts with ``referee:``."""
    if not widget.window().property(UNATTENDED_PROPERTY):
        return False
    print(f"referee: {' '.join(notice.split())}", file=sys.stderr, flush=True)
    return True
