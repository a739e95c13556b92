"""Frame-exact video access, frame cache and prefetch (DESIGN "Frames")."""

from __future__ import annotations

import dataclasses
import os
import pickle
import random
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import av
import numpy as np
import pytest
from av.video.frame import PictureType

from referee.core.errors import InputFileError, MissingFrameError, RefereeError
from referee.core.frames.video_files import (
    FrameCache,
    FramePrefetcher,
    VideoFileSource,
    build_frame_index,
)
from referee.core.thread_priority import BACKGROUND_NICENESS

HEIGHT, WIDTH = 48, 64
GREY_STEP = 4  # frame n is grey level 4 n everywhere


def write_numbered_video(path: Path, frames: int, gop: int, b_frames: int) -> Path:
    """An H.264 video at 25 fps with B-frames whose frame n is uniformly grey 4 n."""
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=25)
        stream.width, stream.height, stream.pix_fmt = WIDTH, HEIGHT, "yuv420p"
        stream.options = {"bf": str(b_frames), "g": str(gop), "crf": "10"}
        for n in range(1, frames + 1):
            image = np.full((HEIGHT, WIDTH, 3), GREY_STEP * n, np.uint8)
            for packet in stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path


def number_shown(image: np.ndarray) -> int:
    return round(float(image.mean()) / GREY_STEP)


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """60 frames, a keyframe every 12, up to 3 consecutive B-frames."""
    return write_numbered_video(tmp_path_factory.mktemp("video") / "numbered.mp4", 60, 12, 3)


@pytest.fixture(scope="module")
def odd_video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """37 frames, a keyframe every 7, up to 2 consecutive B-frames."""
    return write_numbered_video(tmp_path_factory.mktemp("video") / "odd.mp4", 37, 7, 2)


def test_test_video_has_b_frames_and_reordered_packets(video: Path) -> None:
    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        packet_pts = [p.pts for p in container.demux(stream) if p.pts is not None]
    with av.open(str(video)) as container:
        types = {PictureType(frame.pict_type).name for frame in container.decode(video=0)}
    assert "B" in types
    assert packet_pts != sorted(packet_pts)


def test_every_frame_read_in_order_shows_its_number(video: Path) -> None:
    with VideoFileSource(video, cache_bytes=0) as source:
        for i in range(1, 61):
            image = source.read(i)
            assert image.shape == (HEIGHT, WIDTH, 3) and image.dtype == np.uint8
            assert number_shown(image) == i
            assert not image.flags.writeable


def test_sequential_reading_does_not_seek_inside_a_gop(video: Path) -> None:
    with VideoFileSource(video, cache_bytes=0) as source:
        seeks = []
        seek = source._seek
        source._seek = lambda keyframe: (seeks.append(keyframe), seek(keyframe))  # type: ignore
        for i in range(1, 61):
            source.read(i)
    assert len(seeks) <= 60 // 12  # at most once per keyframe, never per frame


def test_random_order_with_backward_jumps_and_repeats_lands_on_each_frame(video: Path) -> None:
    order = [*range(1, 61), 60, 1, 1, 30, 29, 13, 12, 12, 11, 59]
    random.Random(7).shuffle(order)
    with VideoFileSource(video, cache_bytes=0) as source:
        assert [number_shown(source.read(i)) for i in order] == order


def test_odd_gop_video_is_read_exactly(odd_video: Path) -> None:
    order = list(range(37, 0, -1)) + list(range(1, 38, 3))
    with VideoFileSource(odd_video, cache_bytes=0) as source:
        assert source.frame_count == 37
        assert [number_shown(source.read(i)) for i in order] == order


def test_index_counts_frames_and_finds_rate_and_size(video: Path) -> None:
    index = build_frame_index(video)
    assert index.frame_count == 60
    assert index.fps == pytest.approx(25.0)
    assert (index.width, index.height) == (WIDTH, HEIGHT)
    assert list(index.pts) == sorted(set(index.pts))
    assert index.keyframe_pts[0] == index.pts[0]
    assert set(index.keyframe_pts) <= set(index.pts)
    assert index.time_of(26) == pytest.approx(1.0)  # 25 frames after frame 1 at 25 fps
    assert index.frame_at(index.pts[41]) == 42


def test_source_reports_rate_shape_and_iterates(video: Path) -> None:
    with VideoFileSource(video) as source:
        assert source.frame_count == 60 and source.fps == pytest.approx(25.0)
        assert source.shape == (HEIGHT, WIDTH, 3)
        assert [(i, number_shown(image)) for i, image in source.iter_frames([3, 9, 40])] == [
            (3, 3),
            (9, 9),
            (40, 40),
        ]
        assert "numbered.mp4" in str(source.path_of(5))


@pytest.mark.parametrize("frame", [0, 61, 1000])
def test_frame_out_of_range_names_the_file(video: Path, frame: int) -> None:
    with (
        VideoFileSource(video) as source,
        pytest.raises(RefereeError, match=r"numbered\.mp4.*1 to 60"),
    ):
        source.read(frame)


def test_timestamp_never_decoded_is_an_error_not_a_neighbour(video: Path) -> None:
    with VideoFileSource(video, cache_bytes=0) as source:
        pts = list(source.index.pts)
        pts[9] += 1  # frame 10 now claims a timestamp no frame has
        source.index = dataclasses.replace(source.index, pts=tuple(pts))
        with pytest.raises(MissingFrameError, match=r"numbered\.mp4.*frame 10"):
            source.read(10)
        assert number_shown(source.read(11)) == 11


def test_text_file_named_mp4_is_an_input_file_error(tmp_path: Path) -> None:
    fake = tmp_path / "fake.mp4"
    fake.write_text("this is not a video\n" * 20)
    with pytest.raises(InputFileError, match=r"fake\.mp4"):
        VideoFileSource(fake)
    with pytest.raises(InputFileError, match="missing"):
        build_frame_index(tmp_path / "absent.mp4")


def test_pickled_source_reopens_the_file(video: Path) -> None:
    with VideoFileSource(video) as source:
        source.read(5)
        copy = pickle.loads(pickle.dumps(source))
    with copy:
        assert number_shown(copy.read(17)) == 17


def test_read_frames_are_cached_and_read_only(video: Path) -> None:
    with VideoFileSource(video, cache_bytes=10 * HEIGHT * WIDTH * 3) as source:
        image = source.read(8)
        assert source.cache.cached_frames() == [8]
        assert source.read(8) is image
        assert not image.flags.writeable


def block(nbytes: int) -> np.ndarray:
    return np.zeros(nbytes, np.uint8)


def test_cache_drops_least_recently_used_first_within_budget() -> None:
    cache = FrameCache(max_bytes=300)
    for i in (1, 2, 3):
        cache.put(i, block(100))
    assert cache.nbytes == 300 and cache.cached_frames() == [1, 2, 3]
    assert cache.get(1) is not None  # 1 becomes the most recently used; 2 is now the oldest
    cache.put(4, block(100))
    assert cache.cached_frames() == [1, 3, 4] and 2 not in cache and cache.get(2) is None
    cache.put(5, block(150))  # needs two slots: drops 3 then 1
    assert cache.cached_frames() == [4, 5] and cache.nbytes == 250


def test_cache_replacing_a_frame_counts_its_bytes_once() -> None:
    cache = FrameCache(max_bytes=300)
    cache.put(1, block(100))
    cache.put(1, block(200))
    assert cache.nbytes == 200 and len(cache) == 1


def test_cache_does_not_keep_an_array_over_budget() -> None:
    cache = FrameCache(max_bytes=300)
    cache.put(1, block(100))
    cache.put(2, block(301))
    assert cache.cached_frames() == [1] and cache.nbytes == 100
    cache.clear()
    assert cache.cached_frames() == [] and cache.nbytes == 0


def wait_for(condition: Callable[[], bool], timeout: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


def test_prefetcher_delivers_the_newest_request_and_reads_ahead(video: Path) -> None:
    source = VideoFileSource(video)
    delivered: list[tuple[int, int]] = []
    errors: list[tuple[int, Exception]] = []
    prefetcher = FramePrefetcher(
        source,
        source.cache,
        lambda i, image: delivered.append((i, number_shown(image))),
        ahead=8,
        on_error=lambda i, e: errors.append((i, e)),
    )
    prefetcher.request(10)
    prefetcher.request(40)
    assert wait_for(lambda: delivered[-1:] == [(40, 40)])
    assert {i for i, _ in delivered} <= {10, 40}
    assert wait_for(lambda: set(range(41, 49)) <= set(source.cache.cached_frames()))
    assert 49 not in source.cache
    prefetcher.close()
    assert not prefetcher._thread.is_alive()
    assert errors == []
    assert number_shown(source.cache.get(45)) == 45
    source.close()


class BlockingSource:
    """Frames are arrays holding their number; reading ``block_on`` waits for a release."""

    frame_count = 20

    def __init__(self, block_on: int, fail_on: int = -1) -> None:
        self.block_on, self.fail_on = block_on, fail_on
        self.reading, self.release = threading.Event(), threading.Event()
        self.reads: list[int] = []

    def read(self, i: int) -> np.ndarray:
        self.reads.append(i)
        if i == self.block_on:
            self.reading.set()
            self.release.wait(3)
        if i == self.fail_on:
            raise MissingFrameError(f"f{i}.png", "missing")
        return np.full(1, i, np.uint8)

    def path_of(self, i: int) -> str:
        return f"f{i}.png"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread niceness is Linux's")
def test_the_prefetcher_reads_below_the_calling_thread() -> None:
    # Linux gives each thread its own niceness: the reading thread's is the process's
    # plus BACKGROUND_NICENESS, the thread that asks (the GUI's) keeps its own.
    asking = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    seen: list[int] = []

    class Source(BlockingSource):
        def read(self, i: int) -> np.ndarray:
            seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
            return super().read(i)

    prefetcher = FramePrefetcher(Source(block_on=-1), FrameCache(1000), lambda i, _: None, ahead=0)
    prefetcher.request(1)
    assert wait_for(lambda: len(seen) == 1)
    prefetcher.close()
    process = os.getpriority(os.PRIO_PROCESS, os.getpid())
    assert seen == [min(process + BACKGROUND_NICENESS, 19)]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == asking


def test_prefetcher_drops_stale_requests_unread() -> None:
    source = BlockingSource(block_on=1)
    delivered: list[int] = []
    prefetcher = FramePrefetcher(
        source, FrameCache(1000), lambda i, _: delivered.append(i), ahead=2
    )
    prefetcher.request(1)
    assert source.reading.wait(3)
    prefetcher.request(2)
    prefetcher.request(3)  # replaces 2 before the worker is free
    source.release.set()
    assert wait_for(lambda: 5 in prefetcher.cache)
    prefetcher.close()
    assert delivered == [1, 3]
    assert 2 not in source.reads
    assert source.reads == [1, 3, 4, 5]  # read-ahead stops at 3 + ahead


def test_prefetcher_passes_read_errors_on_and_keeps_serving() -> None:
    source = BlockingSource(block_on=-1, fail_on=7)
    delivered: list[int] = []
    errors: list[tuple[int, Exception]] = []
    prefetcher = FramePrefetcher(
        source,
        FrameCache(1000),
        lambda i, _: delivered.append(i),
        ahead=0,
        on_error=lambda i, e: errors.append((i, e)),
    )
    prefetcher.request(7)
    assert wait_for(lambda: len(errors) == 1)
    prefetcher.request(8)
    assert wait_for(lambda: delivered == [8])
    prefetcher.close()
    assert errors[0][0] == 7 and isinstance(errors[0][1], MissingFrameError)


def test_prefetcher_reads_ahead_no_further_than_the_last_frame() -> None:
    source = BlockingSource(block_on=-1)
    prefetcher = FramePrefetcher(source, FrameCache(1000), lambda i, _: None, ahead=8)
    prefetcher.request(17)
    assert wait_for(lambda: 20 in prefetcher.cache)
    prefetcher.close()
    assert prefetcher.cache.cached_frames() == [17, 18, 19, 20]
