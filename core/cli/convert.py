"""``referee convert``: annotations from one format to another (docs/measures.md §10)."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.core.cli.common import Commands, add_force
from referee.core.workflow.options import ConvertOptions

#: The contents ``--kind`` names (the registry's kinds), richest first.
KIND_CHOICES = ("tracks", "actions", "boxes", "label-maps")
FRAME_FROM = ("name", "frame_id", "id")


def add_commands(commands: Commands) -> None:
    parser = commands.add_parser(
        "convert",
        help="convert annotations between CVAT, COCO, YOLO, labelme, MOTChallenge, LIRIS and CDnet",
        description="Read IN in whatever format it is and write it to OUT in the format "
        "--to names (docs/measures.md §10): tracks, actions, per-frame boxes or label "
        "maps, the richest content both formats hold unless --kind says. Targets: "
        "cvat-video, cvat-images, coco, yolo, labelme, mot-csv, liris-xml, cdnet-png "
        "(a folder of gt%%06d.png). A conversion that would drop part of IN (identities, "
        "confidences, labels, keyframe flags) says what in one line and is refused "
        "unless --lossy is given.",
    )
    parser.add_argument("source", type=Path, metavar="IN", help="file or folder to convert")
    parser.add_argument("target", type=Path, metavar="OUT", help="file or folder to write")
    parser.add_argument("--to", required=True, metavar="FORMAT", help="the format to write")
    parser.add_argument(
        "--kind", choices=KIND_CHOICES, help="the content to convert (default: the richest)"
    )
    parser.add_argument(
        "--labels",
        metavar="MAP",
        help="label names to CDnet levels or LIRIS classes, 'person=255,shadow=50', or a "
        "JSON file of such a mapping; the names written back come from it too",
    )
    parser.add_argument(
        "--image-size",
        metavar="WxH",
        help="frame size in pixels, for YOLO's normalized boxes and formats that record it",
    )
    parser.add_argument(
        "--images", metavar="FILE", help="the COCO instances file a COCO results file refers to"
    )
    parser.add_argument(
        "--frame-from",
        choices=FRAME_FROM,
        help="how a COCO image gives its frame: its file name's last number (default), its "
        "frame_id or its id",
    )
    parser.add_argument(
        "--lossy", action="store_true", help="convert even if the target drops part of IN"
    )
    add_force(parser, "overwrite OUT if it exists")
    parser.set_defaults(run=run_convert)


def run_convert(args: argparse.Namespace) -> int:
    """Convert, then say what was written in one line."""
    from referee.core.workflow.convert import parse_image_size, parse_labels
    from referee.core.workflow.convert import run_convert as convert

    options = ConvertOptions(
        to=args.to,
        kind=args.kind,
        labels=None if args.labels is None else parse_labels(args.labels),
        image_size=None if args.image_size is None else parse_image_size(args.image_size),
        images=args.images,
        frame_from=args.frame_from,
        lossy=args.lossy,
        force=args.force,
    )
    done = convert(args.source, args.target, options)
    dropped = f", without its {' and '.join(done.dropped)}" if done.dropped else ""
    print(
        f"{done.source} ({done.source_format}, {done.kind}: {done.items:,}) → "
        f"{done.target} ({done.target_format}){dropped}"
    )
    return 0
