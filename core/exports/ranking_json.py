"""Frames to annotate next as JSON (docs/measures.md §8): the criterion, what was scored
and left out, and each ranked frame with its score (every digit kept)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.core.exports.header import json_header
from referee.core.ranking.order import RankedFrame

RANKING_FORMAT = "referee-ranking"
FORMAT_VERSION = 1


def ranking_to_dict(
    criterion: str,
    methods: Sequence[str],
    counts: tuple[int, int, bool],
    frames: Sequence[RankedFrame],
    parameters: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The ranking: ``criterion``, ``methods``, how many frames were ``considered`` and
    ``annotated`` and whether all were left out (``counts``), and ``frames`` in rank
    order."""
    considered, annotated, all_annotated = counts
    return {
        **json_header(RANKING_FORMAT, FORMAT_VERSION),
        "parameters": dict(parameters or {}),
        "criterion": criterion,
        "methods": list(methods),
        "considered": considered,
        "annotated": annotated,
        "all_annotated": all_annotated,
        "frames": [
            {
                "rank": f.rank,
                "video": f.video,
                "frame": f.frame,
                "score": f.score,
                "criterion": f.criterion,
            }
            for f in frames
        ],
    }
