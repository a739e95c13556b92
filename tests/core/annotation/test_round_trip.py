"""Every format Referee writes round-trips: what was not edited comes back byte for byte
(docs/measures.md §10).

Each test reads a file, edits one item with the editor's functions, writes it over
the original and compares with the expected text, written out by hand from the
original. TrackEval (a peer reader) checks that the rewritten MOT17 ground truth
keeps its classes and consider flags; a Hypothesis property checks random edits.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import trackeval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.core.annotation.box_items import new_track, next_number, without_box
from referee.core.annotation.count_changes import with_count_change
from referee.core.annotation.keyframes import with_keyframe
from referee.core.annotation.tracks import parse_tracks, updated_tracks
from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats.counts_csv import (
    CountSeries,
    format_counts_csv,
    parse_counts_csv,
    updated_counts_csv,
)
from referee.core.formats.liris_xml import parse_liris_bytes
from referee.core.formats.liris_xml_writer import format_liris, updated_liris
from referee.core.formats.mot_csv import format_mot_csv
from referee.core.formats.own_formats import rows_of_tracks
from referee.core.model.annotations import Action, AnnotationSet, VideoAnnotation
from referee.core.model.tracks import Track

# --------------------------------------------------------------------------- MOTChallenge

#: A MOT17 ground truth ``frame,id,x,y,w,h,consider,class,visibility``: ids 1–12 of
#: classes 1–12 on frames 1–3, non-pedestrians and id 5 not considered (0), visibilities
#: of every kind; sorted by id, then frame, as MOT17's files are.
MOT17 = [
    f"{frame},{track},{100 * track + frame},{50 + frame},{20 + track},{40 + track},"
    f"{int(track in (1, 2, 3, 4, 6))},{track},{visibility}"
    for track, visibility in zip(
        range(1, 13),
        ["1", "0.86014", "0", "0.25", "1", "0.5", "0.03", "1", "0.99", "0.1", "0.7", "0.42"],
    )
    for frame in (1, 2, 3)
]


def _file(lines: list[str], ending: str = "\n") -> bytes:
    return "".join(line + ending for line in lines).encode()


def _track(tracks: tuple[Track, ...], track_id: int) -> Track:
    (found,) = [t for t in tracks if t.track_id == track_id]
    return found


def _replaced(tracks: tuple[Track, ...], old: Track, *new: Track) -> tuple[Track, ...]:
    return tuple(t for t in tracks if t is not old) + new


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_mot17_ground_truth_unedited_is_written_back_byte_for_byte(ending: str) -> None:
    original = _file(MOT17, ending)
    assert updated_tracks(original, parse_tracks(original)) == original


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_a_moved_box_keeps_its_class_visibility_and_every_other_line(ending: str) -> None:
    original = _file(MOT17, ending)
    tracks = parse_tracks(original)
    old = _track(tracks, 7)  # a static person (class 7), not considered, visibility 0.03
    moved = with_keyframe(old, 2, (650.4, 60.5, 27, 46.5))
    written = updated_tracks(original, _replaced(tracks, old, moved))
    # frame 2, id 7 was 2,7,702,52,27,47,0,7,0.03; the box is stored (650, 61, 27, 47),
    # halves up: x and y change, h does not
    expected = [line if line != "2,7,702,52,27,47,0,7,0.03" else "2,7,650,61,27,47,0,7,0.03"
                for line in MOT17]  # fmt: skip
    assert expected != MOT17
    assert written == _file(expected, ending)
    assert _track(parse_tracks(written), 7).boxes.tolist() == moved.boxes.tolist()


def test_deleted_rows_are_dropped_and_added_ones_follow_the_files_order() -> None:
    # Sorted by id, then frame: new rows go after the row before them in that order.
    original = _file(MOT17)
    tracks = parse_tracks(original)
    one, three = _track(tracks, 1), _track(tracks, 3)
    longer = with_keyframe(one, 5, (105, 55, 21, 41))  # frames 4 (filled in) and 5 added
    (shorter,) = without_box(three, 1, next_number(tracks))
    fresh = new_track(13, 2, (1.5, 2.5, 3, 4))
    edited = (*_replaced(_replaced(tracks, one, longer), three, shorter), fresh)
    written = updated_tracks(original, edited)
    expected = list(MOT17)
    # id 1 grows from its frame-3 box (103, 53, 21, 41) to (105, 55, 21, 41) and keeps its
    # class and visibility (those of its nearest row, frame 3); id 13 is new: class 1,
    # visibility 1; id 3 loses frame 1.
    expected[3:3] = ["4,1,104,54,21,41,1,1,1", "5,1,105,55,21,41,1,1,1"]
    expected.remove("1,3,301,51,23,43,1,3,0")
    expected.append("2,13,2,3,3,4,1,1,1")
    assert written.decode().splitlines() == expected


def test_new_rows_in_a_frame_sorted_file_with_a_header_blank_lines_and_a_mark() -> None:
    original = (
        "\ufeffframe,id,x,y,w,h,conf,x3d,y3d,z3d\r\n"
        "1,4,10.25,20,30,40,0.5,-1,-1,-1\r\n"
        "1,9,0,0,5,5,1,7,8,9\r\n"
        "\r\n"
        "3,4,12.75,20,30,40,0.5,-1,-1,-1\r\n"
        "3,9,1,1,5,5,1,7,8,10"  # no line ending at the end
    ).encode()
    tracks = parse_tracks(original)
    nine = next(t for t in tracks if t.track_id == 9 and t.first == 1)
    grown = with_keyframe(nine, 2, (0.4, 0.5, 5, 5))
    written = updated_tracks(
        original, (*_replaced(tracks, nine, grown), new_track(2, 2, (3, 3, 3, 3)))
    )
    assert (
        written
        == (
            "\ufeffframe,id,x,y,w,h,conf,x3d,y3d,z3d\r\n"
            "1,4,10.25,20,30,40,0.5,-1,-1,-1\r\n"
            "1,9,0,0,5,5,1,7,8,9\r\n"
            "2,2,3,3,3,3,1,-1,-1,-1\r\n"  # a new id in a 10-column file: -1 in each
            "2,9,0,1,5,5,1,7,8,9\r\n"  # id 9's nearest row: frame 1 (a tie with frame 3)
            "\r\n"
            "3,4,12.75,20,30,40,0.5,-1,-1,-1\r\n"
            "3,9,1,1,5,5,1,7,8,10"
        ).encode()
    )


def test_new_rows_of_an_unsorted_file_come_after_its_last_row() -> None:
    original = _file(["3,1,0,0,1,1,1", "1,1,0,0,1,1,1", "2,2,5,5,1,1,0.5,3"])
    tracks = parse_tracks(original)
    added = (*tracks, new_track(5, 1, (1, 1, 1, 1)), new_track(6, 1, (2, 2, 2, 2)))
    # 7 columns: nothing after conf; the 8th column of id 2 is not a new id's
    assert updated_tracks(original, added) == original + _file(["1,5,1,1,1,1,1", "1,6,2,2,2,2,1"])
    eight = _file(["1,1,0,0,1,1,1,4"])
    assert updated_tracks(eight, (*parse_tracks(eight), new_track(2, 1, (1, 1, 1, 1)))) == (
        eight + b"1,2,1,1,1,1,1,-1\n"
    )


def test_an_edited_row_keeps_its_cells_spacing_and_changes_only_what_changed() -> None:
    original = b"1, 1, 10.0, 20 , 30, 40, 0, 7, 0.5, extra text\n"
    (track,) = parse_tracks(original)
    moved = with_keyframe(track, 1, (11, 20, 30, 40))
    assert updated_tracks(original, (moved,)) == (b"1, 1, 11, 20 , 30, 40, 0, 7, 0.5, extra text\n")


def test_a_mot_file_that_is_not_utf8_is_refused_by_name() -> None:
    with pytest.raises(InputFileError, match=r"gt\.txt: cannot read the file .*UTF-8 text file"):
        parse_tracks(b"1,1,0,0,1,1,1,\xff\n", "gt.txt")
    with pytest.raises(InputFileError, match=r"gt\.txt: cannot read the file .*UTF-8 text file"):
        updated_tracks(b"1,1,0,0,1,1,1,\xff\n", (), "gt.txt")


def test_a_new_file_is_written_as_before_and_ids_twice_on_a_frame_are_refused() -> None:
    tracks = (Track(3, [2, 3], [[1, 2, 3, 4], [5, 6, 7, 8]]),)
    assert updated_tracks(None, tracks) == b"2,3,1,2,3,4,1,-1,-1,-1\n3,3,5,6,7,8,1,-1,-1,-1\n"
    assert updated_tracks(None, tracks) == format_mot_csv(rows_of_tracks(tracks)).encode()
    twice = (*tracks, Track(3, [3], [[0, 0, 1, 1]]))
    with pytest.raises(InvalidOptionError, match=r"id 3 has two boxes on frame 3"):
        updated_tracks(_file(["1,1,0,0,1,1,1"]), twice)
    with pytest.raises(InputFileError, match=r"line 2: id 1 appears twice on frame 1"):
        updated_tracks(_file(["1,1,0,0,1,1,1", "1,1,0,0,1,1,1"]), tracks)


# --------------------------------------------------------------------------- TrackEval

SEQUENCE, SPLIT = "SEQ-A", "MOT17-train"


def _trackeval_data(root: Path, gt: bytes, length: int) -> dict:
    """TrackEval's raw data for ``gt`` (and a tracker with one box on every frame)."""
    folder = root / "gt" / SPLIT / SEQUENCE
    (folder / "gt").mkdir(parents=True)
    (folder / "gt" / "gt.txt").write_bytes(gt)
    (folder / "seqinfo.ini").write_text(f"[Sequence]\nname={SEQUENCE}\nseqLength={length}\n")
    (root / "gt" / "seqmaps").mkdir()
    (root / "gt" / "seqmaps" / f"{SPLIT}.txt").write_text(f"name\n{SEQUENCE}\n")
    data = root / "trackers" / SPLIT / "T" / "data"
    data.mkdir(parents=True)
    boxes = "".join(f"{f},1,100,50,20,40,0.9,-1,-1,-1\n" for f in range(1, length + 1))
    (data / f"{SEQUENCE}.txt").write_text(boxes)
    dataset = trackeval.datasets.MotChallenge2DBox(
        {
            "GT_FOLDER": str(root / "gt"),
            "TRACKERS_FOLDER": str(root / "trackers"),
            "OUTPUT_FOLDER": str(root / "out"),
            "BENCHMARK": "MOT17",
            "SPLIT_TO_EVAL": "train",
            "PRINT_CONFIG": False,
        }
    )
    raw = dataset.get_raw_seq_data("T", SEQUENCE)
    raw["preprocessed"] = dataset.get_preprocessed_seq_data(raw, "pedestrian")
    return raw


def test_trackeval_reads_the_rewritten_ground_truth_with_classes_and_flags(
    tmp_path: Path,
) -> None:
    original = _file(MOT17)
    tracks = parse_tracks(original)
    old = _track(tracks, 2)
    edited = _replaced(tracks, old, with_keyframe(old, 3, (220, 60, 22, 42)))
    raw = _trackeval_data(tmp_path, updated_tracks(original, edited), 3)
    for t in range(3):
        assert raw["gt_ids"][t].tolist() == list(range(1, 13))
        assert raw["gt_classes"][t].tolist() == list(range(1, 13))
        assert raw["gt_extras"][t]["zero_marked"].tolist() == [1, 1, 1, 1, 0, 1] + [0] * 6
    assert raw["gt_dets"][2][1].tolist() == [220, 60, 22, 42]
    # Kept by MOT17's rules: pedestrians (class 1) considered (flag not 0): id 1 only.
    assert [ids.tolist() for ids in raw["preprocessed"]["gt_ids"]] == [[0], [0], [0]]
    # Visibility is not TrackEval's to check: the 9th cells are the original's.
    written = updated_tracks(original, edited).decode().splitlines()
    assert [line.split(",")[8] for line in written] == [line.split(",")[8] for line in MOT17]


def test_trackeval_refuses_what_saving_used_to_write(tmp_path: Path) -> None:
    old_save = format_mot_csv(rows_of_tracks(parse_tracks(_file(MOT17)))).encode()
    assert old_save.decode().splitlines()[0] == "1,1,101,51,21,41,1,-1,-1,-1"
    with pytest.raises(trackeval.utils.TrackEvalException, match="invalid gt classes"):
        _trackeval_data(tmp_path, old_save, 3)


# --------------------------------------------------------------------------- property

_ENDINGS = st.sampled_from(["\n", "\r\n"])
MotFile = tuple[list[str], dict[tuple[int, int], list[float]], str]


@st.composite
def _mot_files(draw: st.DrawFn) -> MotFile:
    """A MOT17-like file sorted by frame, by id or not at all: its lines (with their
    endings), its rows' values by (frame, id) in file order, and its line ending."""
    keys = draw(st.sets(st.tuples(st.integers(1, 12), st.integers(1, 6)), min_size=1, max_size=30))
    order = draw(st.sampled_from(["frame", "id", "none"]))
    keys_list = sorted(keys, key=(lambda k: k) if order == "frame" else (lambda k: k[::-1]))
    if order == "none":
        keys_list = draw(st.permutations(keys_list))
    coordinate = st.integers(-400, 4000).map(lambda v: v / 4)  # quarter pixels
    values: dict[tuple[int, int], list[float]] = {}
    ending = draw(_ENDINGS)
    lines = ["frame,id,x,y,w,h,conf,class,visibility" + ending] if draw(st.booleans()) else []
    for key in keys_list:
        x, y = draw(coordinate), draw(coordinate)
        w, h = abs(draw(coordinate)), abs(draw(coordinate))
        conf = draw(st.sampled_from([0.0, 1.0, 0.5]))
        values[key] = [x, y, w, h, conf]
        rest = f"{draw(st.integers(1, 12))},{draw(st.integers(0, 100)) / 100}"
        lines.append(f"{key[0]},{key[1]},{x},{y},{w},{h},{conf},{rest}{ending}")
        if draw(st.integers(0, 9)) == 0:
            lines.append(ending)
    return lines, values, ending


def _key(line: str) -> tuple[int, int]:
    frame, track_id = line.split(",")[:2]
    return int(frame), int(track_id)


def _nearest_rest(lines: list[str], frame: int, track_id: int) -> str | None:
    """The 8th and 9th cells of the row of ``track_id`` nearest ``frame`` (earlier on ties)."""
    rows = [line.strip().split(",") for line in lines if line.strip() and line[0].isdigit()]
    mine = sorted((int(r[0]), ",".join(r[7:])) for r in rows if int(r[1]) == track_id)
    if not mine:
        return None
    return min(mine, key=lambda fr: (abs(fr[0] - frame), fr[0]))[1]


@pytest.mark.filterwarnings("ignore:.*holds no box")  # every row deleted
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mot_files(), st.data())
def test_random_edits_read_back_as_edited_and_keep_untouched_lines(
    file: MotFile, data: st.DataObject
) -> None:
    lines, values, ending = file
    original = "".join(lines).encode()
    tracks = list(parse_tracks(original))
    box = st.tuples(*[st.integers(0, 2000).map(lambda v: v / 10)] * 4)
    for _ in range(data.draw(st.integers(0, 6))):
        kind = data.draw(st.sampled_from(["move", "delete", "add", "new"]))
        if kind == "new" or not tracks:
            tracks.append(
                new_track(next_number(tracks), data.draw(st.integers(1, 14)), data.draw(box))
            )
            continue
        k = data.draw(st.integers(0, len(tracks) - 1))
        track = tracks[k]
        if kind == "move":
            frame = data.draw(st.integers(track.first, track.last))
            tracks[k] = with_keyframe(track, frame, data.draw(box))
        elif kind == "delete":
            frame = data.draw(st.integers(track.first, track.last))
            tracks[k : k + 1] = without_box(track, frame, next_number(tracks))
        else:
            frame = data.draw(st.sampled_from([track.first - 1, track.last + 1]))
            taken = any(t.track_id == track.track_id and t.first <= frame <= t.last for t in tracks)
            if frame >= 1 and not taken:
                tracks[k] = with_keyframe(track, frame, data.draw(box))
    written = updated_tracks(original, tracks)
    expected, back = rows_of_tracks(tracks), rows_of_tracks(parse_tracks(written))
    for name in ("frames", "ids", "boxes", "conf"):
        assert np.array_equal(getattr(back, name), getattr(expected, name)), name
    numbers = np.column_stack([expected.boxes, expected.conf]).tolist()
    model = dict(zip(zip(expected.frames.tolist(), expected.ids.tolist()), numbers))
    out_lines = re.findall(r"[^\n]*\n|[^\n]+", written.decode())
    # Lines of rows whose box and confidence did not change, header and blank lines: the same
    # text in the same order.
    untouched = [
        line
        for line in lines
        if not line.strip()
        or not line[0].isdigit()
        or ((key := _key(line)) in model and model[key] == values[key])
    ]
    kept = iter(out_lines)
    assert all(any(line == out for out in kept) for line in untouched)
    assert all(out.endswith(ending) for out in out_lines)
    for out in out_lines:
        if not out.strip() or not out[0].isdigit():
            continue
        cells = out.strip().split(",")
        key = _key(out)
        box = [float(v) for v in cells[2:6]]
        if key not in values or values[key][:4] != box:  # set by an edit: whole pixels
            assert all(v.is_integer() for v in box)
        rest = _nearest_rest(lines, *key)
        assert ",".join(cells[7:]) == (rest if rest is not None else "1,1")
    data_keys = [_key(out) for out in out_lines if out[0].isdigit()]
    # New rows follow the file's order: by frame (also when it is sorted both ways), by id.
    if list(values) == sorted(values):
        assert data_keys == sorted(data_keys)
    elif list(values) == sorted(values, key=lambda k: k[::-1]):
        assert data_keys == sorted(data_keys, key=lambda k: k[::-1])


# --------------------------------------------------------------------------- LIRIS

LIRIS = """<?xml version="1.0" encoding="UTF-8"?>
<!-- ground truth, checked by hand -->
<tagset>
  <video>
    <videoName>vid0003</videoName>
    <action nr="1" class="3" annotator="ab">
      <bbox x="40" y="30" width="50" height="101" framenr="34"/>
      <bbox x="42" y="30" width="50" height="101" framenr="35" interpolated="1"/>
      <bbox x="44" y="30" width="50" height="101" framenr="36"/>
    </action>
    <!-- the handshake -->
    <action nr="2" class="8">
      <bbox x="1" y="2" width="3" height="4" framenr="7" occluded="yes"/>
    </action>
  </video>
  <video>
    <videoName>vid0004</videoName>
    <action nr="1" class="10">
      <bbox x="5" y="5" width="9" height="9" framenr="0"/>
    </action>
  </video>
</tagset>
"""


def _with_video(actions: AnnotationSet, video: VideoAnnotation) -> AnnotationSet:
    return AnnotationSet({**actions.videos, video.name: video})


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_liris_unedited_is_written_back_byte_for_byte(ending: str) -> None:
    original = LIRIS.replace("\n", ending).encode()
    assert updated_liris(original, parse_liris_bytes(original)) == original


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_a_moved_liris_box_changes_one_attribute_and_keeps_the_others(ending: str) -> None:
    original = LIRIS.replace("\n", ending).encode()
    actions = parse_liris_bytes(original)
    video = actions.videos["vid0003"]
    moved = with_keyframe(video.actions[1], 7, (1, 2.5, 3, 4))  # y 2.5 → 3
    edited = _with_video(actions, VideoAnnotation("vid0003", (video.actions[0], moved)))
    written = updated_liris(original, edited)
    expected = LIRIS.replace(
        'y="2" width="3" height="4" framenr="7"', 'y="3" width="3" height="4" framenr="7"'
    )
    assert written == expected.replace("\n", ending).encode()
    assert parse_liris_bytes(written).same_as(edited)


def test_liris_keyframe_flags_class_deletion_and_new_items() -> None:
    original = LIRIS.encode()
    actions = parse_liris_bytes(original)
    first, _ = actions.videos["vid0003"].actions
    keyed = with_keyframe(first, 35, (42, 30, 50, 101))  # the interpolated box becomes a key
    extended = with_keyframe(keyed, 38, (48, 30, 50, 101))
    relabelled = Action(first.number, 4, extended.frames, extended.boxes, extended.interpolated)
    added = Action.from_boxes(3, 1, {2: (0, 0, 2, 2)})
    edited = AnnotationSet(
        {
            "vid0003": VideoAnnotation("vid0003", (relabelled, added)),  # action 2 deleted
            "vid0004": actions.videos["vid0004"],
            "vid0009": VideoAnnotation("vid0009", (Action.from_boxes(1, 2, {0: (1, 1, 1, 1)}),)),
        }
    )
    written = updated_liris(original, edited)
    assert (
        written.decode()
        == """<?xml version="1.0" encoding="UTF-8"?>
<!-- ground truth, checked by hand -->
<tagset>
  <video>
    <videoName>vid0003</videoName>
    <action nr="1" class="4" annotator="ab">
      <bbox x="40" y="30" width="50" height="101" framenr="34"/>
      <bbox x="42" y="30" width="50" height="101" framenr="35"/>
      <bbox x="44" y="30" width="50" height="101" framenr="36"/>
      <bbox x="46" y="30" width="50" height="101" framenr="37" interpolated="1"/>
      <bbox x="48" y="30" width="50" height="101" framenr="38"/>
    </action>
    <!-- the handshake -->
    <action nr="3" class="1">
      <bbox x="0" y="0" width="2" height="2" framenr="2"/>
    </action>
  </video>
  <video>
    <videoName>vid0004</videoName>
    <action nr="1" class="10">
      <bbox x="5" y="5" width="9" height="9" framenr="0"/>
    </action>
  </video>
  <video>
    <videoName>vid0009</videoName>
    <action nr="1" class="2">
      <bbox x="1" y="1" width="1" height="1" framenr="0"/>
    </action>
  </video>
</tagset>
"""
    )
    assert parse_liris_bytes(written).same_as(edited)
    assert updated_liris(None, edited) == format_liris(edited)


def test_a_removed_liris_video_and_a_first_video_in_an_empty_file() -> None:
    original = LIRIS.encode()
    only = AnnotationSet({"vid0004": parse_liris_bytes(original).videos["vid0004"]})
    assert updated_liris(original, only).decode() == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        "<!-- ground truth, checked by hand -->\n"
        "<tagset>\n" + LIRIS[LIRIS.index("  <video>\n    <videoName>vid0004") :]
    )
    empty = b'<?xml version="1.0"?>\n<tagset>\n</tagset>\n'
    video = VideoAnnotation("v", (Action.from_boxes(1, 2, {3: (1, 1, 1, 1)}),))
    assert updated_liris(empty, [video]).decode() == (
        '<?xml version="1.0"?>\n'
        "<tagset>\n"
        "  <video>\n"
        "    <videoName>v</videoName>\n"
        '    <action nr="1" class="2">\n'
        '      <bbox x="1" y="1" width="1" height="1" framenr="3"/>\n'
        "    </action>\n"
        "  </video>\n"
        "</tagset>\n"
    )


def test_liris_boxes_out_of_frame_order_get_new_ones_after_them() -> None:
    original = (
        b'<tagset><video><videoName>v</videoName><action nr="1" class="1">'
        b'<bbox x="2" y="0" width="1" height="1" framenr="6"/>'
        b'<bbox x="1" y="0" width="1" height="1" framenr="5"/>'
        b"</action></video></tagset>"
    )
    (action,) = parse_liris_bytes(original).videos["v"].actions
    grown = with_keyframe(action, 4, (0, 0, 1, 1))
    written = updated_liris(original, [VideoAnnotation("v", (grown,))])
    assert written.decode() == original.decode().replace(
        "</action>", '<bbox x="0" y="0" width="1" height="1" framenr="4"/></action>'
    )


def test_liris_elements_spelled_otherwise_keep_their_content_not_their_spelling() -> None:
    """The limit docs/measures.md §10 states: lxml writes the tree back in its spelling."""
    original = (
        b"<?xml version='1.0'?>\n<tagset>\n<video><videoName>v</videoName>"
        b"<action nr='1'  class='1' ><bbox x='1' y='1' width='1' height='1' framenr='1'>"
        b"</bbox></action></video>\n</tagset>\n"
    )
    written = updated_liris(original, parse_liris_bytes(original))
    assert written.decode() == (
        "<?xml version='1.0'?>\n<tagset>\n<video><videoName>v</videoName>"
        '<action nr="1" class="1"><bbox x="1" y="1" width="1" height="1" framenr="1"/>'
        "</action></video>\n</tagset>\n"
    )


# --------------------------------------------------------------------------- counts

COUNTS = (
    '\ufeffFrame,note,Count\r\n5,start,2\r\n\r\n6,"a note, with a comma", 3 \r\n7,,3\r\n8,end,4'
)


def test_counts_unedited_come_back_byte_for_byte() -> None:
    original = COUNTS.encode()
    assert updated_counts_csv(original, parse_counts_csv(COUNTS[1:])) == original


def test_a_count_change_changes_only_count_cells() -> None:
    original = COUNTS.encode()
    series = with_count_change(parse_counts_csv(COUNTS[1:]), 7, 1)  # frames 7 and 8 gain 1
    assert updated_counts_csv(original, series).decode() == (
        '\ufeffFrame,note,Count\r\n5,start,2\r\n\r\n6,"a note, with a comma", 3 \r\n7,,4\r\n8,end,5'
    )


def test_counts_of_frames_added_or_removed_at_the_ends() -> None:
    original = COUNTS.encode()
    longer = CountSeries(3, np.array([0, 1, 2, 3, 3, 4, 4]))
    assert updated_counts_csv(original, longer).decode() == (
        "\ufeffFrame,note,Count\r\n"
        "3,,0\r\n"
        "4,,1\r\n"
        "5,start,2\r\n"
        "\r\n"
        '6,"a note, with a comma", 3 \r\n'
        "7,,3\r\n"
        "8,end,4\r\n"
        "9,,4\r\n"
    )
    shorter = CountSeries(6, np.array([3, 3]))
    assert updated_counts_csv(original, shorter).decode() == (
        '\ufeffFrame,note,Count\r\n\r\n6,"a note, with a comma", 3 \r\n7,,3\r\n'
    )
    fresh = CountSeries(1, np.array([0, 2]))
    assert updated_counts_csv(None, fresh) == format_counts_csv(1, [0, 2]).encode()
