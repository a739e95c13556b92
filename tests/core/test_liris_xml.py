"""LIRIS HARL XML (docs/measures.md §4, §10): round trips, folders, located errors, hostile documents."""

from __future__ import annotations

import importlib.resources
import pickle
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from referee.core.errors import InputFileError, InvalidOptionError, RefereeError
from referee.core.formats import liris_xml, safe_xml
from referee.core.formats.liris_xml import (
    XmlFormatError,
    liris_schema,
    parse_liris_bytes,
    read_liris,
)
from referee.core.formats.liris_xml_writer import format_liris, write_liris, write_liris_folder
from referee.core.limits import MAX_COORDINATE, MAX_FRAME_NUMBER, MAX_XML_FILE_BYTES
from referee.core.model.annotations import (
    Action,
    AnnotationSet,
    VideoAnnotation,
    interpolate_action,
)

REPOSITORY = Path(__file__).resolve().parents[2]
SECRET = "referee-secret-6f1c2b"


def _example() -> AnnotationSet:
    return AnnotationSet.from_videos(
        [
            VideoAnnotation(
                "vid0003",
                (
                    Action.from_boxes(1, 3, {34: (40, 30, 50, 101), 35: (41, 30, 50, 101)}),
                    interpolate_action(2, 8, {10: (0, 0, 10, 10), 14: (4, 8, 14, 2)}),
                ),
            ),
            VideoAnnotation("vid 0007 & <friends>", (Action.from_boxes(5, 10, {0: (0, 0, 0, 0)}),)),
            VideoAnnotation("empty", ()),
        ]
    )


def _write(tmp_path: Path, text: str, name: str = "gt.xml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _box(frame: int, x: str = "1") -> str:
    return f'<bbox x="{x}" y="2" width="3" height="4" framenr="{frame}"/>'


# --------------------------------------------------------------------------- round trips


def test_write_then_read_gives_the_same_annotations(tmp_path: Path) -> None:
    path = tmp_path / "gt.xml"
    write_liris(path, _example())
    back = read_liris(path)
    assert back.same_as(_example())
    assert back.videos["vid0003"].action(2).interpolated.tolist() == [
        False,
        True,
        True,
        True,
        False,
    ]
    text = path.read_text(encoding="utf-8")
    assert text.count('interpolated="1"') == 3 and "<videoName>vid0003</videoName>" in text
    assert not list(tmp_path.glob(".*tmp")), "the atomic write left a temporary file"


def test_reads_the_spec_example_with_boxes_out_of_order_and_unknown_attributes(
    tmp_path: Path,
) -> None:
    path = _write(
        tmp_path,
        """<?xml version="1.0" encoding="UTF-8"?>
<!-- produced by another tool -->
<tagset source="elsewhere">
  <video>
    <videoName>  vid0003
    </videoName>
    <action nr="2" class="3" score="0.75">
      <bbox x="42" y="30" width="50" height="101" framenr="36" interpolated="true"/>
      <bbox x="40" y="30" width="50" height="101" framenr="34"/>
      <bbox x="41" y="30" width="50" height="101" framenr="35" interpolated="0"/>
    </action>
  </video>
</tagset>
""",
    )
    action = read_liris(path).videos["vid0003"].action(2)
    assert action.action_class == 3 and action.frames.tolist() == [34, 35, 36]
    assert action.boxes[:, 0].tolist() == [40, 41, 42]
    assert action.interpolated.tolist() == [False, False, True]


def test_an_empty_tagset_is_an_empty_set() -> None:
    assert len(parse_liris_bytes(b"<tagset/>")) == 0
    assert len(parse_liris_bytes(format_liris(AnnotationSet({})))) == 0


def test_folder_of_files_reads_every_video_in_file_name_order(tmp_path: Path) -> None:
    folder = tmp_path / "detections"
    folder.mkdir()
    example = list(_example())
    write_liris(folder / "b.xml", example[:2])
    write_liris(folder / "a.XML", example[2:])
    (folder / "notes.txt").write_text("not xml")
    (folder / "sub").mkdir()
    (folder / "sub" / "c.xml").write_text("<broken")
    back = read_liris(folder)
    assert list(back.videos) == ["empty", "vid0003", "vid 0007 & <friends>"]
    assert all(v.same_as(back.videos[v.name]) for v in example)


def test_write_folder_writes_one_file_per_video_with_safe_names(tmp_path: Path) -> None:
    videos = [*_example(), VideoAnnotation("VID 0007 & <FRIENDS>"), VideoAnnotation("../up")]
    paths = write_liris_folder(tmp_path / "out", videos)
    assert [p.name for p in paths] == [
        "vid0003.xml",
        "vid_0007____friends_.xml",
        "empty.xml",
        "VID_0007____FRIENDS_-2.xml",
        "_up.xml",
    ]
    assert all(p.parent == tmp_path / "out" for p in paths)
    back = read_liris(tmp_path / "out")
    assert sorted(back.videos) == sorted(v.name for v in videos)
    assert all(v.same_as(back.videos[v.name]) for v in videos)


def test_a_video_in_two_files_of_a_folder_names_both(tmp_path: Path) -> None:
    write_liris(tmp_path / "a.xml", [VideoAnnotation("x"), VideoAnnotation("v")])
    _write(tmp_path, "<tagset>\n<video>\n<videoName>v</videoName>\n</video>\n</tagset>", "b.xml")
    with pytest.raises(XmlFormatError) as caught:
        read_liris(tmp_path)
    error = caught.value
    assert error.path == tmp_path / "b.xml" and (error.line, error.video) == (3, "v")
    assert "b.xml: line 3: video 'v': " in str(error) and "also in a.xml (line 7)" in str(error)


def test_an_empty_or_missing_source_is_a_file_error(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match=r"no \.xml file"):
        read_liris(tmp_path)
    with pytest.raises(InputFileError, match="cannot read"):
        read_liris(tmp_path / "absent.xml")


@pytest.mark.parametrize("name", ["", " lead", "trail\n", "bell\x07"])
def test_names_that_would_not_read_back_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(InvalidOptionError, match="video name"):
        format_liris([VideoAnnotation(name)])
    with pytest.raises(InvalidOptionError, match="video name"):
        write_liris_folder(tmp_path / "out", [VideoAnnotation("fine"), VideoAnnotation(name)])
    assert not (tmp_path / "out").exists(), "a refused name must leave nothing written"


# --------------------------------------------------------------------------- located errors

_ACTION = '<action nr="2" class="3">'
ERRORS = {
    "gap": (
        [_ACTION, _box(35), _box(38), _box(34), "</action>"],
        5,
        "action 2",
        "frames 36–37 are missing between 35 and 38 (frames of an action must be consecutive)",
    ),
    "one-frame gap": (
        [_ACTION, _box(35), _box(37), "</action>"],
        5,
        "action 2",
        "frame 36 is missing between 35 and 37",
    ),
    "duplicate frame": (
        [_ACTION, _box(35), _box(36), _box(35), "</action>"],
        6,
        "action 2",
        "frame 35 has two boxes (the first on line 4)",
    ),
    "unknown class": (
        ['<action nr="2" class="11">', _box(1), "</action>"],
        3,
        "action 2",
        "class is 11, out of range; LIRIS classes are 1 DI, 2 GI",
    ),
    "class zero": (
        ['<action nr="2" class="0">', _box(1), "</action>"],
        3,
        "action 2",
        "class is 0, out of range",
    ),
    "class word": (
        ['<action nr="2" class="HS">', _box(1), "</action>"],
        3,
        "action 2",
        "class is 'HS', not a whole number",
    ),
    "negative x": (
        [_ACTION, _box(1), _box(2, "-4"), "</action>"],
        5,
        "action 2",
        "x is -4, a negative number; box coordinates",
    ),
    "fractional x": (
        [_ACTION, _box(1, "1.5"), "</action>"],
        4,
        "action 2",
        "x is '1.5', not a whole number",
    ),
    "huge x": (
        [_ACTION, _box(1, "99999999999999999999"), "</action>"],
        4,
        "action 2",
        "x is 99999999999999999999, out of range",
    ),
    "no framenr": (
        [_ACTION, '<bbox x="1" y="2" width="3" height="4"/>', "</action>"],
        4,
        "action 2",
        "the <bbox> has no framenr attribute",
    ),
    "bad flag": (
        [_ACTION, _box(1).replace("/>", ' interpolated="yes"/>'), "</action>"],
        4,
        "action 2",
        "interpolated is 'yes'",
    ),
    "no box": ([_ACTION, "</action>"], 3, "action 2", "the action has no <bbox>"),
    "no nr": (
        ['<action class="3">', _box(1), "</action>"],
        3,
        None,
        "the <action> has no nr attribute",
    ),
    "duplicate nr": (
        [_ACTION, _box(1), "</action>", _ACTION, _box(1), "</action>"],
        6,
        "action 2",
        "action number 2 is used twice in this video (first on line 3)",
    ),
    "unknown element": (
        [_ACTION, _box(1), "<box/>", "</action>"],
        5,
        "action 2",
        "Element 'box': This element is not expected",
    ),
    "text in action": (
        [_ACTION, _box(1), "oops", "</action>"],
        3,
        "action 2",
        "Character content other than whitespace",
    ),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_each_error_names_file_line_video_and_action(tmp_path: Path, case: str) -> None:
    body, line, action, words = ERRORS[case]
    text = "\n".join(
        ["<tagset>", "<video><videoName>vid0003</videoName>", *body, "</video>", "</tagset>"]
    )
    path = _write(tmp_path, text)
    with pytest.raises(XmlFormatError) as caught:
        read_liris(path)
    error = caught.value
    location = f"line {line}: video 'vid0003'" + (f", {action}: " if action else ": ")
    assert str(error).startswith(f"{path}: {location}"), str(error)
    assert words in str(error)
    assert (error.path, error.line, error.video) == (path, line, "vid0003")
    assert error.action == (2 if action else None)


def test_the_message_of_the_brief_reads_as_promised() -> None:
    text = "\n".join(
        ["<tagset>", "<video>", "<videoName>vid0003</videoName>"]
        + [""] * 6
        + [_ACTION, _box(35), _box(37), "</action></video></tagset>"]
    )
    with pytest.raises(XmlFormatError) as caught:
        parse_liris_bytes(text.encode(), "gt.xml")
    assert str(caught.value) == (
        "gt.xml: line 12: video 'vid0003', action 2: frame 36 is "
        "missing between 35 and 37 (frames of an action must be "
        "consecutive)"
    )


@pytest.mark.parametrize(
    ("text", "line", "video", "words"),
    [
        (
            "<tagset>\n<video>\n" + _ACTION + _box(1) + "</action></video></tagset>",
            2,
            None,
            "<video> number 1 has no <videoName>",
        ),
        (
            "<tagset>\n<video><videoName>a</videoName></video>\n<video/></tagset>",
            3,
            None,
            "<video> number 2 has no <videoName>",
        ),
        (
            "<tagset>\n<video>\n<videoName> \n </videoName></video></tagset>",
            3,
            None,
            "<video> number 1 has an empty <videoName>",
        ),
        (
            "<tagset><video><videoName>v</videoName>\n<videoName>w</videoName></video></tagset>",
            2,
            "v",
            "more than one <videoName>",
        ),
        (
            "<tagset>\n<video><videoName>v</videoName></video>\n<video>\n<videoName>v</videoName>"
            "</video></tagset>",
            4,
            "v",
            "this video name is used twice (first on line 2)",
        ),
        (
            "<tagset>\n<video><videoName>v</videoName></video>\n<clip/></tagset>",
            3,
            None,
            "Element 'clip': This element is not expected",
        ),
        ("\n<video><videoName>v</videoName></video>", 2, None, "the root element is <video>"),
        ('<tagset xmlns="urn:other"/>', 1, None, "expected <tagset> (without a namespace)"),
        ("<tagset>\n<video>\n</tagset>", 3, None, "not well-formed XML: Opening and ending tag"),
        ("<tagset>\n&nbsp;</tagset>", 2, None, "not well-formed XML: Entity 'nbsp' not defined"),
    ],
)
def test_video_level_errors_name_file_line_and_video(
    text: str, line: int, video, words: str
) -> None:
    with pytest.raises(XmlFormatError) as caught:
        parse_liris_bytes(text.encode(), "gt.xml")
    error = caught.value
    assert (error.line, error.video, error.action) == (line, video, None)
    prefix = f"gt.xml: line {line}: " + (f"video {video!r}: " if video else "")
    assert str(error).startswith(prefix) and words in str(error), str(error)


def test_an_empty_file_says_so() -> None:
    with pytest.raises(XmlFormatError, match=r"gt\.xml: the file is empty"):
        parse_liris_bytes(b"  \n", "gt.xml")


def test_xml_format_errors_pickle_with_their_location() -> None:
    error = XmlFormatError(Path("d/gt.xml"), "frame 36 is missing", 12, "vid0003", 2)
    assert str(error) == "d/gt.xml: line 12: video 'vid0003', action 2: frame 36 is missing"
    assert error.problem == "line 12: video 'vid0003', action 2: frame 36 is missing"
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is XmlFormatError and str(copy) == str(error)
    assert (copy.path, copy.line, copy.video, copy.action, copy.detail) == (
        Path("d/gt.xml"),
        12,
        "vid0003",
        2,
        "frame 36 is missing",
    )
    assert isinstance(copy, InputFileError) and isinstance(copy, RefereeError)
    assert str(XmlFormatError("f.xml", "bad")) == "f.xml: bad"


# --------------------------------------------------------------------------- hostile documents


def _billion_laughs(encoding: str = "UTF-8") -> bytes:
    entities = "".join(f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">\n' for i in range(1, 10))
    text = (
        f'<?xml version="1.0" encoding="{encoding}"?>\n<!DOCTYPE tagset [\n'
        f'<!ENTITY lol0 "lol">\n{entities}]>\n'
        "<tagset><video><videoName>&lol9;</videoName></video></tagset>\n"
    )
    return text.encode(encoding)


def _external_entity(secret_file: Path) -> bytes:
    return (
        f'<?xml version="1.0"?>\n<!DOCTYPE tagset [\n'
        f'<!ENTITY leak SYSTEM "{secret_file.as_uri()}">\n]>\n'
        "<tagset><video><videoName>&leak;</videoName></video></tagset>\n"
    ).encode()


def _external_dtd(secret_file: Path) -> bytes:
    return (
        f'<?xml version="1.0"?>\n<!DOCTYPE tagset SYSTEM "{secret_file.as_uri()}">\n<tagset/>\n'
    ).encode()


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_text(SECRET, encoding="utf-8")
    return path


def _refused_quickly(data: bytes) -> XmlFormatError:
    start = time.perf_counter()
    with pytest.raises(XmlFormatError) as caught:
        parse_liris_bytes(data, "evil.xml")
    assert time.perf_counter() - start < 1.0
    return caught.value


@pytest.mark.parametrize("encoding", ["UTF-8", "UTF-16", "UTF-32"])
def test_billion_laughs_is_refused_fast(encoding: str) -> None:
    error = _refused_quickly(_billion_laughs(encoding))
    assert str(error).startswith("evil.xml: line 2: the document contains <!DOCTYPE")


@pytest.mark.parametrize("document", [_external_entity, _external_dtd])
def test_external_entities_never_leak_a_local_file(
    tmp_path: Path, secret_file: Path, document
) -> None:
    path = tmp_path / "evil.xml"
    path.write_bytes(document(secret_file))
    with pytest.raises(XmlFormatError) as caught:
        read_liris(path)
    assert "DOCTYPE" in str(caught.value) and SECRET not in str(caught.value)
    assert SECRET not in repr(caught.value.__dict__)


@pytest.mark.parametrize("document", [_billion_laughs, _external_entity, _external_dtd])
def test_the_parser_refuses_them_even_without_the_byte_scan(
    monkeypatch, secret_file: Path, document
) -> None:
    # Defence in depth: were the scan for <!DOCTYPE fooled (an exotic encoding), the parser
    # settings, the refusing resolver and the DOCTYPE check still stop the document.
    monkeypatch.setattr(safe_xml, "_FORBIDDEN_MARKUP", ())
    data = document() if document is _billion_laughs else document(secret_file)
    error = _refused_quickly(data)
    assert SECRET not in str(error) and SECRET not in repr(error.__dict__)


@pytest.mark.parametrize("levels", [liris_xml.MAX_DEPTH + 1, 100_000])
def test_deep_nesting_is_refused(levels: int) -> None:
    data = ("<tagset>" + "<a>" * levels + "</a>" * levels + "</tagset>").encode()
    error = _refused_quickly(data)
    assert f"nested deeper than {liris_xml.MAX_DEPTH} levels" in str(error)
    assert "XML_PARSE_HUGE" not in str(error)


def test_files_over_the_size_limit_are_refused_before_reading(tmp_path: Path, monkeypatch) -> None:
    assert liris_xml.MAX_FILE_BYTES == MAX_XML_FILE_BYTES == 32 * 2**20
    path = tmp_path / "big.xml"
    write_liris(path, _example())
    monkeypatch.setattr(liris_xml, "MAX_FILE_BYTES", 100)
    with pytest.raises(InputFileError, match="more than the 100"):
        read_liris(path)
    with pytest.raises(InputFileError, match="more than the 100"):
        parse_liris_bytes(path.read_bytes())


# --------------------------------------------------------------------------- the schema


def test_schema_is_shipped_as_package_data() -> None:
    resource = importlib.resources.files("referee.resources").joinpath("liris_harl.xsd")
    assert resource.is_file() and b"xs:schema" in resource.read_bytes()
    config = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = config["tool"]["setuptools"]
    assert "referee.resources" in setuptools["packages"]
    assert "*.xsd" in setuptools["package-data"]["referee.resources"]


def test_schema_is_strict_on_elements_and_lenient_on_attributes() -> None:
    schema = liris_schema()
    good = format_liris(_example()).replace(b'<action nr="1"', b'<action note="x" nr="1"')
    assert schema.validate(etree.fromstring(good).getroottree())
    for bad in (
        b"<video><videoName>v</videoName></video>",
        b"<tagset><video><videoName>v</videoName><extra/></video></tagset>",
    ):
        assert not schema.validate(etree.fromstring(bad).getroottree())


def test_threads_validate_independently() -> None:
    good = format_liris(_example())
    bad = good.replace(b'class="8"', b'class="12"')

    def outcome(data: bytes) -> str:
        try:
            return f"ok {len(parse_liris_bytes(data, 'f.xml'))}"
        except XmlFormatError as exc:
            return exc.detail.split(";")[0]

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(outcome, [good, bad] * 20))
    assert results == ["ok 3", "class is 12, out of range"] * 20


# --------------------------------------------------------------------------- properties

_XML_SPACE = " \t\r\n"
_names = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters="\ufffe\uffff")
    | st.sampled_from("\t\n\r<>&'\""),
    min_size=1,
    max_size=12,
).filter(lambda s: s.strip(_XML_SPACE) == s)
_coordinate = st.integers(0, MAX_COORDINATE) | st.integers(0, 500)


@st.composite
def _actions(draw, number: int) -> Action:
    first = draw(st.integers(0, MAX_FRAME_NUMBER - 30))
    count = draw(st.integers(1, 12))
    boxes = draw(st.lists(st.tuples(*[_coordinate] * 4), min_size=count, max_size=count))
    flags = draw(st.lists(st.booleans(), min_size=count, max_size=count))
    return Action.from_boxes(
        number,
        draw(st.integers(1, 10)),
        {first + k: box for k, box in enumerate(boxes)},
        [first + k for k, flag in enumerate(flags) if flag],
    )


@st.composite
def _videos(draw, name: str) -> VideoAnnotation:
    numbers = draw(st.lists(st.integers(1, 2**31 - 1), max_size=4, unique=True))
    return VideoAnnotation(name, tuple(draw(_actions(n)) for n in numbers))


@st.composite
def _annotation_sets(draw) -> AnnotationSet:
    names = draw(st.lists(_names, max_size=4, unique=True))
    return AnnotationSet.from_videos([draw(_videos(name)) for name in names])


@settings(max_examples=150, deadline=None)
@given(_annotation_sets())
def test_random_sets_round_trip_exactly(annotations: AnnotationSet) -> None:
    assert parse_liris_bytes(format_liris(annotations), "r.xml").same_as(annotations)


_VALID = format_liris(_example())
_GARBAGE = st.binary(min_size=1, max_size=8) | st.sampled_from(
    [
        b"<",
        b"&",
        b'"',
        b"<foo>",
        b"</video>",
        b"-1",
        b"99999999999",
        b"<!DOCTYPE t>",
        b"\x00",
        b"<?pi?>",
        b"<!--c-->",
        b"]]>",
        b"&#0;",
        b"\xff\xfe",
        b"&amp;",
    ]
)


@st.composite
def _mutations(draw) -> bytes:
    data = bytearray(_VALID)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["truncate", "flip", "insert"]))
        at = draw(st.integers(0, len(data)))
        if kind == "truncate":
            del data[at:]
        elif kind == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        else:
            data[at:at] = draw(_GARBAGE)
    return bytes(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutations())
def test_mutated_documents_only_raise_file_errors(data: bytes) -> None:
    try:
        result = parse_liris_bytes(data, "m.xml")
    except InputFileError as exc:
        assert str(exc).startswith("m.xml: ")
        assert isinstance(exc, XmlFormatError) and (exc.line is None or exc.line >= 1)
    else:
        assert isinstance(result, AnnotationSet)
