"""``referee estimate``: F1, precision and recall with intervals from a few labelled frames
(docs/measures.md §12).

The consensus of the RESULTS gives every frame expected counts; the labelled
frames give true counts. With ``--simulate`` the sampler draws ``--labels K``
frames of a fully annotated dataset and reads the ground truth of those only;
without, the labelled frames of each partly annotated video (``--labelled``).
"""

from __future__ import annotations

import argparse

from referee.core.cli.common import (
    Commands,
    add_frames,
    add_outputs,
    add_quiet,
    add_workers,
    fraction,
    frames_parameter,
    progress_bar,
    whole_number,
)
from referee.core.cli.inputs import add_dataset_and_results, input_parameters, project_of_inputs
from referee.core.estimation.choices import ESTIMATORS, LABELLED, SAMPLERS
from referee.core.workflow.options import EstimateOptions

_DESCRIPTION = """\
Estimates with 95% intervals from a few labelled frames (docs/measures.md §12).
Each detector's totals tp, fp, fn over every evaluated frame are estimated from
the consensus of the RESULTS (pseudo ground truth, §7) corrected by the true
counts of a few labelled frames, as much as the correction helps each detector;
precision, recall and F1 follow, with intervals (Student's t, the larger of the
delta method's and the jackknife's standard error), each pair's F1 difference
and P(A beats B), the discriminative test (§9) on the labelled frames, and how
far the consensus reads each detector's F1 from the estimate.

With --simulate (a dataset annotated on every frame) the sampler draws --labels K
frames and ground truth is read for those frames only, as if an annotator had
labelled them; the true values over every frame are shown too. --repeat R draws
R samples (seeds --seed onwards, the consensus computed once) and shows how far
each detector's F1 estimates fell from the truth: plan a labelling budget on one
fully annotated pilot video. Without --simulate a video with ground truth on
every frame is counted whole, and a partly annotated one (the project's record,
else the groundtruth/ files) is estimated from its labelled frames: by default
the start of the sampler's sequence of draws of that video that has ground
truth, which also names the frame to label next; with --labelled annotated,
every annotated frame, taken as a uniform sample of the video (refused where
they are evidently frames chosen where the detectors disagree). --labels 0 gives
the consensus alone.
"""


def add_commands(commands: Commands) -> None:
    """Register ``referee estimate`` on the top-level parser."""
    parser = commands.add_parser(
        "estimate",
        help="F1, precision and recall with intervals from the consensus and a few labelled frames",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_dataset_and_results(
        parser,
        "dataset root (<category>/<video>/ folders) or one video folder",
        "two or more detectors' results roots (<category>/<video>/bin%%06d.png); "
        "each folder name is a detector's name",
    )
    parser.add_argument(
        "--labels",
        type=whole_number(0),
        metavar="K",
        help="frames the sampler draws, with --simulate (required there); without "
        "--simulate only 0 (the consensus alone) is accepted",
    )
    parser.add_argument(
        "--labelled",
        choices=LABELLED,
        default=EstimateOptions.labelled,
        help="without --simulate, the labelled frames of a partly annotated video: 'drawn' "
        "(default) the sampler's draws that have ground truth, 'annotated' every annotated "
        "frame as a uniform sample",
    )
    parser.add_argument(
        "--sampler",
        choices=SAMPLERS,
        default=EstimateOptions.sampler,
        help="'balanced' (default) draws frames where the detectors disagree about an "
        "object and where each detector's own F1 is at stake more often, 'active' where "
        "they disagree, 'random' uniformly",
    )
    parser.add_argument(
        "--estimator",
        choices=ESTIMATORS,
        default=EstimateOptions.estimator,
        help="'tuned' (default): the consensus corrected by the labelled frames as much as "
        "it helps each detector; 'surrogate': always corrected; 'plain': the labelled "
        "frames alone",
    )
    parser.add_argument(
        "--seed",
        type=whole_number(0),
        default=EstimateOptions.seed,
        metavar="N",
        help=f"seed of the draws (default {EstimateOptions.seed})",
    )
    parser.add_argument(
        "--uniform",
        type=fraction,
        default=EstimateOptions.uniform_share,
        metavar="U",
        help=f"the balanced and active samplers' uniform share, between 0 and 1 (default "
        f"{EstimateOptions.uniform_share})",
    )
    parser.add_argument(
        "--simulate",
        action="store_true",
        help="play an annotator on a fully annotated dataset: read ground truth only "
        "for the drawn frames, and show the true values",
    )
    parser.add_argument(
        "--repeat",
        type=whole_number(1),
        default=EstimateOptions.repeat,
        metavar="R",
        help="with --simulate, draw R samples with the seeds --seed onwards and show each "
        "detector's RMSE, bias and interval coverage of F1 (default 1)",
    )
    add_frames(parser)
    add_outputs(parser, "write the estimates, the labelled frames and the versions to FILE")
    add_workers(parser)
    add_quiet(parser)
    parser.set_defaults(run=run_estimate)


def run_estimate(args: argparse.Namespace) -> int:
    """Estimate, print the report and write the JSON."""
    from referee.core.exports.estimate import format_estimate_report, write_estimate_json
    from referee.core.workflow.estimate import run_estimate as estimate

    options = EstimateOptions(  # checks every rule of --simulate, --labels and --repeat
        labels=args.labels,
        labelled=args.labelled,
        sampler=args.sampler,
        estimator=args.estimator,
        seed=args.seed,
        uniform_share=args.uniform,
        simulate=args.simulate,
        repeat=args.repeat,
        workers=args.workers,
    )
    project = project_of_inputs("estimate", args.dataset, args.results, args.frames, at_least=2)
    with progress_bar("estimating", "frame", args.quiet) as progress:
        result = estimate(project, options, progress)
    print(format_estimate_report(result))
    if args.json is not None:
        parameters = {
            **input_parameters(project),
            "frames": frames_parameter(args.frames),
            "results": {name: str(root) for name, root in project.mask_detectors().items()},
        }
        write_estimate_json(args.json, result, parameters)
    return 0
