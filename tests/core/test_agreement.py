"""Agreement between annotators (docs/measures.md §13): κ and Dice by hand and against
scikit-learn and SciPy, the STAPLE consensus of simulated annotators, the maps a dock
shows, and the project file's annotators."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.distance import dice as dice_distance
from sklearn.metrics import cohen_kappa_score

from referee.core.errors import InputFileError, UnavailableError
from referee.core.formats.project_json import read_project, write_project
from referee.core.measures.agreement import (
    NO_COUNTED_PIXEL,
    NO_MOTION,
    ONE_CLASS,
    consensus_levels,
    disagreement_map,
    frame_patterns,
    pair_values,
    vote_codes,
)
from referee.core.model.confusion import ConfusionMatrix
from referee.core.model.project import AnnotatorSource, Project
from referee.core.pseudo.agreement import video_agreement
from referee.core.workflow.agreement import frame_maps, run_agreement
from referee.core.workflow.graph import BY_KEY, changed_parts, invalidate, run_stages
from referee.core.workflow.options import AgreementOptions
from tests.core.agreement_data import simulated_labels, write_label, write_video

# Two annotators' maps of one frame. Counted (both gave 0, 50 or 255): all but (3, 0),
# which A left unknown (170), and (3, 1), which B put outside (85): 14 pixels.
A = np.array([[255, 255, 255, 0], [255, 0, 0, 0], [0, 0, 50, 0], [170, 0, 0, 255]], np.uint8)
B = np.array([[255, 0, 0, 0], [255, 255, 0, 0], [0, 0, 0, 0], [0, 85, 0, 255]], np.uint8)
NOT_FIRST_COLUMN = np.array([[False, True, True, True]] * 4)


def _video(labels_by_frame: list[list[np.ndarray]], roi: np.ndarray | None = None):
    """The agreement of in-memory frames, as the workflow builds it from files."""
    k = len(labels_by_frame[0])
    rows, pixels = [], []
    for row, labels in enumerate(labels_by_frame):
        codes, counted = vote_codes(labels, roi)
        counts = frame_patterns(codes, counted, k)
        present = np.flatnonzero(counts)
        rows.append(np.column_stack([np.full(present.size, row), present, counts[present]]))
        pixels.append(counts.sum())
    names = [f"a{j}" for j in range(k)]
    frames = list(range(1, len(labels_by_frame) + 1))
    return video_agreement(("c", "v"), names, frames, np.concatenate(rows), np.array(pixels, float))


@pytest.mark.parametrize(
    "roi, counts, kappa, dice",
    [
        # tp (0,0) (1,0) (3,3); fn (0,1) (0,2) only A; fp (1,1) only B; tn the other 8 of
        # 14. p_o = 11/14, p_e = (5·4 + 9·10)/14² = 55/98, κ = (77 − 55)/(98 − 55) = 22/43;
        # Dice = 2·3/(2·3 + 1 + 2) = 2/3.
        (None, (3, 1, 2, 8), 22 / 43, 2 / 3),
        # Without column 0: 11 counted; tp (3,3), fn (0,1) (0,2), fp (1,1), tn 7.
        # p_o = 8/11, p_e = (3·2 + 8·9)/11² = 78/121, κ = (88 − 78)/(121 − 78) = 10/43;
        # Dice = 2/(2 + 1 + 2) = 2/5.
        (NOT_FIRST_COLUMN, (1, 1, 2, 7), 10 / 43, 2 / 5),
    ],
)
def test_kappa_and_dice_of_two_small_maps_by_hand(roi, counts, kappa, dice) -> None:
    (pair,) = _video([[A, B]], roi).pairs()
    assert (pair.first, pair.second) == ("a0", "a1")
    assert (pair.cm.tp, pair.cm.fp, pair.cm.fn, pair.cm.tn) == counts
    assert pair.kappa.value == pytest.approx(kappa, abs=1e-12)
    assert pair.dice.value == pytest.approx(dice, abs=1e-12)
    # Both are symmetric: B against A gives the same numbers.
    (swapped,) = _video([[B, A]], roi).pairs()
    assert swapped.kappa.value == pytest.approx(kappa) and swapped.dice.value == pytest.approx(dice)


def test_undefined_kappa_and_dice_say_why_in_annotators_words() -> None:
    kappa, dice = pair_values(ConfusionMatrix(0, 0, 0, 0))
    assert kappa.reason == dice.reason == NO_COUNTED_PIXEL
    kappa, dice = pair_values(ConfusionMatrix(0, 0, 0, 12))
    assert (kappa.reason, dice.reason) == (ONE_CLASS, NO_MOTION)
    kappa, dice = pair_values(ConfusionMatrix(5, 0, 0, 0))
    assert kappa.reason == ONE_CLASS and dice.value == 1.0


@pytest.mark.parametrize("seed", range(5))
def test_kappa_and_dice_of_random_maps_match_scikit_learn_and_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    levels = np.array([0, 50, 85, 170, 255], np.uint8)
    frames = [
        [rng.choice(levels, size=(20, 30), p=[0.5, 0.1, 0.05, 0.05, 0.3]) for _ in range(3)]
        for _ in range(4)
    ]
    roi = rng.random((20, 30)) < 0.9
    video = _video(frames, roi)
    for (a, b), pooled in zip([(0, 1), (0, 2), (1, 2)], video.pairs()):
        firsts, seconds = [], []
        for number, labels in enumerate(frames, start=1):
            counted = roi & np.isin(labels[0], (0, 50, 255))
            for label in labels[1:] + labels[:1]:
                counted &= np.isin(label, (0, 50, 255))
            first, second = labels[a][counted] == 255, labels[b][counted] == 255
            firsts.append(first)
            seconds.append(second)
            one = next(p for p in video.pairs(number) if (p.first, p.second) == (f"a{a}", f"a{b}"))
            assert one.kappa.value == pytest.approx(cohen_kappa_score(first, second), abs=1e-12)
            assert one.dice.value == pytest.approx(1 - dice_distance(first, second), abs=1e-12)
        first, second = np.concatenate(firsts), np.concatenate(seconds)
        assert pooled.cm.total == first.size
        assert pooled.kappa.value == pytest.approx(cohen_kappa_score(first, second), abs=1e-12)
        assert pooled.dice.value == pytest.approx(1 - dice_distance(first, second), abs=1e-12)


def test_disagreement_map_and_its_mean_per_frame() -> None:
    c = np.array([[255, 0, 0, 0], [255, 255, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], np.uint8)
    shares = disagreement_map([A, B, c], None)
    # (0,0): all three motion → 0; (0,1), (0,2): A alone → m = 1 of 3, 1·2/3 pairs = 2/3;
    # (1,1): B and C → 2/3; (3,0) and (3,1): not counted.
    assert shares[0, 0] == 0 and shares[0, 1] == shares[0, 2] == pytest.approx(2 / 3)
    assert shares[1, 1] == pytest.approx(2 / 3) and shares[2, 2] == 0
    assert np.isnan(shares[3, 0]) and np.isnan(shares[3, 1])
    assert disagreement_map([A, B], None)[0, 1] == 1.0
    video = _video([[A, B, c]])
    assert video.disagreement[0] == pytest.approx(np.nanmean(shares))


def test_consensus_levels_keep_cdnet_levels() -> None:
    roi = NOT_FIRST_COLUMN
    shadow = np.array([[0, 50, 50, 0]] * 4, np.uint8)
    motion = np.zeros((4, 4), bool)
    motion[2, 3] = True
    levels = consensus_levels([shadow, shadow, np.zeros((4, 4), np.uint8)], roi, motion)
    # Outside the ROI 85; 50 where two of three gave 50; motion where W ≥ 0.5.
    assert levels.tolist() == [[85, 50, 50, 0], [85, 50, 50, 0], [85, 50, 50, 255], [85, 50, 50, 0]]
    unknown = np.full((4, 4), 0, np.uint8)
    unknown[0, 1], unknown[0, 2] = 170, 85
    levels = consensus_levels([unknown, np.zeros((4, 4), np.uint8)], None, np.zeros((4, 4), bool))
    assert levels[0].tolist() == [0, 170, 85, 0]


#: Simulated annotators: (sensitivity, specificity), as in the brief.
ANNOTATORS = {"careful": (0.9, 0.98), "hasty": (0.7, 0.95), "eager": (0.95, 0.9)}


def test_staple_recovers_simulated_annotators(tmp_path: Path) -> None:
    """Four 96×128 frames (96×124 inside the ROI), truth drawn with prior 0.3: about
    14,000 motion and 33,000 static pixels. The sampling standard error of a sensitivity
    is then at most √(0.7·0.3/14,000) ≈ 0.004, of a specificity √(0.9·0.1/33,000) ≈
    0.0017; over 200 seeds the fitted values' standard deviation was 0.0042 and 0.0019 at
    most (worst error 0.011 and 0.005), with no bias. The tolerances, 0.02 and 0.01,
    are about five of those standard deviations."""
    rng = np.random.default_rng(7)
    roi = write_video(tmp_path / "data", "baseline", "street", 1, 10, shape=(96, 128))
    for frame in (2, 4, 6, 8):
        truth = rng.random(roi.shape) < 0.3
        for name, (p, q) in ANNOTATORS.items():
            write_label(
                tmp_path / name, "baseline", "street", frame, simulated_labels(truth, p, q, rng)
            )
    project = Project(
        "sim",
        dataset=tmp_path / "data",
        annotators=tuple(AnnotatorSource(n, tmp_path / n) for n in ANNOTATORS),
    )
    result = run_agreement(project)
    assert result.identifiable and result.frames == 4
    (video,) = result.videos
    assert video.pixels.tolist() == [96 * 124] * 4
    for quality, fitted_p, fitted_q, (p, q) in zip(
        result.qualities(), video.model.sensitivity, video.model.specificity, ANNOTATORS.values()
    ):
        assert quality.sensitivity.value == pytest.approx(p, abs=0.02)
        assert quality.specificity.value == pytest.approx(q, abs=0.01)
        # At EM's fixed point the expected counts give back the model's parameters.
        assert quality.sensitivity.value == pytest.approx(fitted_p, abs=1e-6)
        assert quality.specificity.value == pytest.approx(fitted_q, abs=1e-6)
    # The maps of one frame for a dock: the mean disagreement is the frame's, the
    # consensus is NaN exactly outside the ROI.
    maps = frame_maps(project, result, "baseline/street", 4)
    assert np.nanmean(maps.disagreement) == pytest.approx(video.disagreement[1])
    assert np.array_equal(np.isnan(maps.consensus), ~roi)
    with pytest.raises(KeyError):
        frame_maps(project, result, "baseline/street", 3)
    chosen = run_agreement(project, AgreementOptions(annotators=("eager", "careful")))
    assert chosen.annotators == ("eager", "careful") and not chosen.identifiable


def test_frames_outside_the_temporal_roi_or_not_shared_are_left_out(tmp_path: Path) -> None:
    write_video(tmp_path / "data", "baseline", "a", 3, 6)
    write_video(tmp_path / "data", "baseline", "b", 1, 4)
    label = np.zeros((24, 32), np.uint8)
    for frame in (1, 3, 5, 9):  # 1 and 9 lie outside a's temporal ROI 3..6
        write_label(tmp_path / "x", "baseline", "a", frame, label)
        write_label(tmp_path / "y", "baseline", "a", frame, label)
    write_label(tmp_path / "y", "baseline", "a", 4, label)  # only y
    write_label(tmp_path / "x", "baseline", "b", 2, label)
    write_label(tmp_path / "y", "baseline", "b", 3, label)
    project = Project(
        "p",
        dataset=tmp_path / "data",
        annotators=(AnnotatorSource("x", tmp_path / "x"), AnnotatorSource("y", tmp_path / "y")),
    )
    result = run_agreement(project)
    assert [v.label for v in result.videos] == ["baseline/a"]
    assert result.videos[0].frames.tolist() == [3, 5]
    assert result.left_out == (("baseline/b", "no frame labelled by every annotator (x 1, y 1)"),)

    (tmp_path / "x" / "baseline" / "a" / "groundtruth" / "gt000003.png").unlink()
    (tmp_path / "x" / "baseline" / "a" / "groundtruth" / "gt000005.png").unlink()
    with pytest.raises(UnavailableError, match="no frame is labelled by every annotator"):
        run_agreement(project)
    missing = Project(
        "p",
        dataset=tmp_path / "data",
        annotators=(project.annotators[0], AnnotatorSource("z", tmp_path / "z")),
    )
    with pytest.raises(InputFileError, match="the ground truth of annotator 'z' does not exist"):
        run_agreement(missing)
    with pytest.raises(UnavailableError, match="at least two annotators"):
        run_agreement(Project("p", dataset=tmp_path / "data", annotators=project.annotators[:1]))


def test_project_files_keep_annotators_and_old_files_still_read(tmp_path: Path) -> None:
    file = tmp_path / "p.referee.json"
    annotators = (
        AnnotatorSource("ann", tmp_path / "gt" / "ann"),
        AnnotatorSource("bob", tmp_path / "bob"),
    )
    write_project(Project("p", dataset=tmp_path / "data", annotators=annotators), file)
    document = json.loads(file.read_text(encoding="utf-8"))
    assert document["version"] == 3
    assert document["annotators"] == [
        {"name": "ann", "root": "gt/ann"},
        {"name": "bob", "root": "bob"},
    ]
    assert read_project(file).annotators == annotators

    write_project(Project("p", dataset=tmp_path / "data"), file)
    document = json.loads(file.read_text(encoding="utf-8"))
    assert document["version"] == 1 and "annotators" not in document
    assert read_project(file).annotators == ()

    for annotators_field, version, problem in [
        ([{"name": "a", "root": "a"}], 2, "'annotators' needs version 3"),
        ([{"name": "a", "root": "a"}, {"name": "a", "root": "b"}], 3, "'a' is given twice"),
        ([{"name": "a"}], 3, "'annotators[0].root' is missing"),
        ([{"name": "a", "root": "a", "masks": "m"}], 3, "unknown key 'masks' in annotators[0]"),
        (["a"], 3, "annotators[0] must be an object"),
    ]:
        file.write_text(
            json.dumps(
                {
                    "format": "referee-project",
                    "version": version,
                    "name": "p",
                    "annotators": annotators_field,
                }
            )
        )
        with pytest.raises(InputFileError, match=problem.replace("[", r"\[").replace("]", r"\]")):
            read_project(file)


def test_the_agreement_is_a_stage_that_a_saved_mask_makes_wrong(tmp_path: Path) -> None:
    """The report and the window ask the graph for it (core/workflow/graph.py)."""
    write_video(tmp_path / "data", "baseline", "a", 1, 2)
    for name, label in (("x", A), ("y", B)):
        write_label(tmp_path / name, "baseline", "a", 1, np.pad(label, ((0, 20), (0, 28))))
    project = Project(
        "p",
        dataset=tmp_path / "data",
        annotators=(AnnotatorSource("x", tmp_path / "x"), AnnotatorSource("y", tmp_path / "y")),
    )
    stage = [BY_KEY["agreement"]]
    results = run_stages(project, stages=stage)
    assert results.agreement is not None
    (pair,) = results.agreement.pairs()
    assert pair.cm == run_agreement(project).pairs()[0].cm
    saved = tmp_path / "y" / "baseline" / "a" / "groundtruth" / "gt000001.png"
    assert "agreement" in invalidate(results, parts=changed_parts(project, [saved]))
    assert results.agreement is None
    alone = run_stages(replace(project, annotators=project.annotators[:1]), stages=stage)
    assert "at least two annotators" in alone.skipped["agreement"]
