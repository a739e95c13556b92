"""The catalogue of faults around worker processes: ``referee pseudo --workers 2`` (whose
consensus runs in worker processes) killed by SIGKILL, stopped by SIGTERM or interrupted
by Ctrl+C leaves no process behind, and the last two end with one line, never a traceback
(Linux: processes found through /proc)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.conftest import HIGHWAY

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]

#: Methods evaluated at once: enough work that the workers are still busy when signalled.
METHODS = 8
#: Bounds of the waits (a hang fails the test instead of blocking the suite).
START_SECONDS = 60
END_SECONDS = 30
#: SIGINT's bit in the SigIgn mask of /proc/<pid>/status.
SIGINT_BIT = 1 << (signal.SIGINT - 1)


def _stat(pid: int) -> tuple[str, int, int] | None:
    """State, parent and start time of process ``pid``, or ``None`` if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1]), int(fields[19])


def _descendants(root: int) -> dict[int, tuple[int, int]]:
    """Every living descendant of ``root``: pid -> (parent, start time)."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (status := _stat(int(entry))) is not None:
            table[int(entry)] = status
    found: dict[int, tuple[int, int]] = {}
    parents = [root]
    while parents:
        parent = parents.pop()
        for pid, (state, ppid, start) in table.items():
            if ppid == parent and pid not in found and state != "Z":
                found[pid] = (ppid, start)
                parents.append(pid)
    return found


def _living(processes: dict[int, tuple[int, int]]) -> list[int]:
    """Those of ``processes`` still running (same pid and start time, not a zombie)."""
    living = []
    for pid, (_, start) in processes.items():
        status = _stat(pid)
        if status is not None and status[2] == start and status[0] != "Z":
            living.append(pid)
    return living


def _ignores_sigint(pid: int) -> bool:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return False
    mask = next(int(line.split()[1], 16) for line in lines if line.startswith("SigIgn:"))
    return bool(mask & SIGINT_BIT)


@pytest.fixture(scope="module")
def highway_methods(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """A dataset root holding the highway video and METHODS results roots whose masks are
    its ground truth, all symbolic links to the shared copy's files (nothing copied)."""
    root = tmp_path_factory.mktemp("highway")
    (root / "dataset" / "baseline").mkdir(parents=True)
    (root / "dataset" / "baseline" / "highway").symlink_to(HIGHWAY)
    roots = [root / "dataset"]
    for k in range(METHODS):
        method = root / f"method{k}"
        folder = method / "baseline" / "highway"
        folder.mkdir(parents=True)
        for gt in (HIGHWAY / "groundtruth").glob("gt*.png"):
            (folder / f"bin{gt.name[2:]}").symlink_to(gt)
        roots.append(method)
    return roots


def _start(highway_methods: list[Path], stderr: object) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "referee.core.cli", "pseudo", *map(str, highway_methods)]
    options = ["--workers", "2", "--quiet"]
    # What a killed command cannot remove (its workers' socket folder) stays in the test's folder.
    temporary = highway_methods[0].parent / "tmp"
    temporary.mkdir(exist_ok=True)
    return subprocess.Popen(
        [*command, *options],
        env={**os.environ, "TMPDIR": str(temporary)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        start_new_session=True,  # its own process group, as a command started from a shell
        preexec_fn=_foreground_signals,
    )


def _foreground_signals() -> None:  # runs in the child before exec
    """Ctrl+C as a terminal's foreground command gets it, even when the tests themselves run
    in the background of a shell without job control (which starts them with SIGINT ignored,
    an inherited disposition Python would keep)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for_workers(process: subprocess.Popen[bytes]) -> dict[int, tuple[int, int]]:
    """Every descendant once two workers (grandchildren) run and ignore SIGINT."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        assert process.poll() is None, "referee ended before two workers ignoring SIGINT ran"
        found = _descendants(process.pid)
        workers = [pid for pid, (ppid, _) in found.items() if ppid != process.pid]
        if len(workers) >= 2 and all(_ignores_sigint(pid) for pid in workers):
            return found
        time.sleep(0.05)
    raise AssertionError(f"no two workers ignoring SIGINT within {START_SECONDS} s")


def _wait_until_gone(processes: dict[int, tuple[int, int]]) -> list[int]:
    deadline = time.monotonic() + END_SECONDS
    while (living := _living(processes)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return living


@pytest.mark.parametrize(
    ("name", "status", "line"),
    [
        ("SIGKILL", -signal.SIGKILL, None),
        ("SIGTERM", 143, "referee: terminated"),
        ("SIGINT", 130, "referee: interrupted"),
    ],
)
def test_a_signalled_consensus_leaves_no_process(highway_methods, name, status, line):
    with tempfile.TemporaryFile() as err:
        process = _start(highway_methods, err)
        descendants: dict[int, tuple[int, int]] = {}
        try:
            descendants = _wait_for_workers(process)
            if name == "SIGINT":  # Ctrl+C: the terminal signals the whole process group
                os.killpg(process.pid, signal.SIGINT)
            else:
                process.send_signal(getattr(signal, name))
            assert process.wait(END_SECONDS) == status
            left = _wait_until_gone(descendants)
            assert not left, f"still running {END_SECONDS} s after {name}: {left}"
        finally:  # never leak processes of ~200 MB, even when the test fails
            process.kill()  # nothing if it has ended
            process.wait()
            for pid in _living(descendants):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    if line is not None:
        assert "Traceback" not in stderr, stderr
        assert stderr.splitlines() == [line], stderr
