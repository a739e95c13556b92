"""Runs on a Dask cluster give the numbers of a local run, retry failed chunks and name
what keeps failing (README "Scale out")."""

from __future__ import annotations

import json
import logging
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import dask
import pytest
from distributed import Client, LocalCluster

from referee.core import cluster
from referee.core.cli import main as cli
from referee.core.cli.common import EXIT_INCOMPLETE
from referee.core.demo.dataset import DemoLayout
from referee.core.errors import InputFileError

METHODS = ("mog2", "knn", "cnt")


@pytest.fixture(scope="module", autouse=True)
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Dask's workers keep their scratch space in the test's temporary folder (removed
    afterwards), not in a dask-scratch-space folder left in the system's."""
    with dask.config.set({"temporary-directory": str(tmp_path_factory.mktemp("dask"))}):
        yield


@pytest.fixture(scope="module")
def scheduler(scratch: None) -> Iterator[str]:
    """The address of a two-worker cluster of processes on the loopback interface."""
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
        silence_logs=logging.ERROR,
    ) as local:
        yield local.scheduler_address


def referee(*args: object) -> int:
    return cli.main([str(a) for a in args])


def _outputs(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir())}


def _run_everything(demo: DemoLayout, out: Path, *where: object) -> dict[str, str]:
    """evaluate, curves, pseudo, rank and estimate on the demo, every output in ``out``."""
    out.mkdir()
    masks = [demo.results[m] for m in METHODS]
    soft = list(demo.soft_results.values())
    common = ("--quiet", *where)
    evaluate = ("--json", out / "evaluate.json", "--csv", out / "evaluate.csv")
    assert referee("evaluate", demo.dataset, *masks, *evaluate, *common) == 0
    assert referee("curves", demo.dataset, *soft, "--csv", out / "curves.csv", *common) == 0
    pseudo = ("--json", out / "pseudo.json", "--csv", out / "pseudo.csv")
    assert referee("pseudo", demo.dataset, *masks, *pseudo, *common) == 0
    assert referee("rank", demo.dataset, *masks, "--csv", out / "rank.csv", *common) == 0
    estimate = ("--labels", 6, "--simulate", "--json", out / "estimate.json")
    assert referee("estimate", demo.dataset, *masks, *estimate, *common) == 0
    return _outputs(out)


def test_every_number_on_a_cluster_equals_the_local_run(
    demo: DemoLayout, tmp_path: Path, scheduler: str, capsys: pytest.CaptureFixture[str]
) -> None:
    local = _run_everything(demo, tmp_path / "local")
    local_text = capsys.readouterr().out
    remote = _run_everything(demo, tmp_path / "cluster", "--scheduler", scheduler)
    assert capsys.readouterr().out == local_text
    assert remote.keys() == local.keys() and len(local) == 7
    for name, text in local.items():
        assert remote[name] == text, name
    assert json.loads(local["evaluate.json"])["methods"]  # the outputs hold results


def test_a_failing_file_is_named_and_the_rest_evaluated(
    demo: DemoLayout, tmp_path: Path, scheduler: str, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(demo.results["knn"], broken)
    video = demo.videos[0]
    folder = broken / video.category / video.name
    frames = sorted(folder.glob("bin*.png"))
    frames[len(frames) // 2].unlink()
    roots = [demo.results["mog2"], broken]
    assert referee("evaluate", demo.dataset, *roots, "--quiet", "--json", tmp_path / "l.json") == 2
    assert frames[len(frames) // 2].name in capsys.readouterr().err  # locally: stop, named

    status = referee(
        "evaluate", demo.dataset, *roots, "--quiet", "--scheduler", scheduler,
        "--json", tmp_path / "c.json",
    )  # fmt: skip
    assert status == EXIT_INCOMPLETE
    err = capsys.readouterr().err
    label = f"{video.category}/{video.name}"
    assert f"broken on {label} is left out" in err and frames[len(frames) // 2].name in err
    document = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    [missing] = document["parameters"]["missing"]
    assert missing["method"] == "broken" and missing["video"] == label
    alone = tmp_path / "alone.json"
    assert referee("evaluate", demo.dataset, demo.results["mog2"], "--quiet", "--json", alone) == 0
    expected = json.loads(alone.read_text(encoding="utf-8"))
    assert _videos(document, "mog2") == _videos(expected, "mog2")
    evaluated = {row["video"] for row in _videos(document, "broken")}
    assert label not in evaluated and len(evaluated) == len(demo.videos) - 1


def _videos(document: dict[str, object], method: str) -> list[dict[str, object]]:
    methods = document["methods"]
    assert isinstance(methods, list)
    [found] = [m for m in methods if m["method"] == method]
    return list(found["videos"])


def test_a_chunk_that_fails_once_is_computed_again(tmp_path: Path, scheduler: str) -> None:
    marker = tmp_path / "failed-once"

    def flaky(chunk: int) -> int:  # pickled by value: the workers need not import the tests
        if chunk == 2 and not marker.exists():
            marker.touch()
            raise OSError("the shared disk did not answer")
        return chunk * 10

    done: list[int] = []
    with Client(scheduler) as client:
        pieces = cluster.map_on_cluster(
            client, flaky, [1, 2, 3], [5, 5, 5], lambda d, t: done.append(d), None, None
        )
    assert pieces == [10, 20, 30] and marker.exists()
    assert sorted(done) == [5, 10, 15]


def test_a_chunk_that_keeps_failing_is_reported_or_raised(tmp_path: Path, scheduler: str) -> None:
    def broken(chunk: int) -> int:
        if chunk == 2:
            raise InputFileError(tmp_path / "bin000002.png", "cannot decode this result")
        return chunk

    with Client(scheduler) as client:
        pieces = cluster.map_on_cluster(
            client, broken, [1, 2, 3], [1, 1, 1], None, None, lambda c, e: -c
        )
        assert pieces == [1, -2, 3]
        with pytest.raises(InputFileError, match=r"bin000002\.png"):
            cluster.map_on_cluster(client, broken, [1, 2, 3], [1, 1, 1], None, None, None)


def test_a_local_cluster_is_started_for_the_run(
    demo: DemoLayout, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    masks = [demo.results[m] for m in METHODS]
    local, dask = tmp_path / "local.csv", tmp_path / "dask.csv"
    assert referee("evaluate", demo.dataset, *masks, "--quiet", "--csv", local) == 0
    capsys.readouterr()
    assert referee("evaluate", demo.dataset, *masks, "--dask-local", 2, "--csv", dask) == 0
    assert dask.read_text(encoding="utf-8") == local.read_text(encoding="utf-8")
    # The dashboard of the local cluster (bokeh is installed with the dask extra) is on
    # loopback, at a port of its own.
    said = [line for line in capsys.readouterr().err.splitlines() if "dashboard" in line]
    assert len(said) == 1 and re.fullmatch(
        r"Dask dashboard: http://127\.0\.0\.1:\d+/status", said[0]
    )


def test_bad_cluster_options_are_one_line(
    demo: DemoLayout, capsys: pytest.CaptureFixture[str]
) -> None:
    root = demo.results["mog2"]
    both = ("--workers", 2, "--dask-local", 2)
    assert referee("evaluate", demo.dataset, root, "--quiet", *both) == 2
    assert "drop --workers" in capsys.readouterr().err
    nowhere = ("--scheduler", "tcp://127.0.0.1:9")
    assert referee("evaluate", demo.dataset, root, "--quiet", *nowhere) == 2
    err = capsys.readouterr().err
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
