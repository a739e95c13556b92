"""The catalogue of bad inputs and faults: helpers that run ``referee`` as a user would.

Every case runs the real entry point in its own process, bounded in time and
in memory, and checks the rule of the project: exit status 2, one line on
standard error that names the file and the problem, never a traceback.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path

#: A case that takes longer than this hangs (each normally takes a few seconds).
TIMEOUT_SECONDS = 120
#: Address space a case may map; a run-away allocation fails here instead of the machine.
ADDRESS_SPACE_BYTES = 8 * 2**30


@dataclass(frozen=True)
class Outcome:
    """What one run of ``referee`` did."""

    status: int
    stdout: str
    stderr: str
    peak_rss_mib: float
    timed_out: bool

    @property
    def stderr_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip()]


#: Runs ``python -m referee.core.cli ARGS`` and, at exit, writes its own peak resident memory
#: (``VmHWM``, in KiB) to the file named by its first argument. The kernel's ``ru_maxrss``
#: of a child started with ``fork`` keeps the parent's peak (the test process, hundreds of MB
#: by then); ``VmHWM`` belongs to the memory of the program after ``exec`` alone.
_MEASURED = """
import atexit, runpy, sys
report = sys.argv.pop(1)
def peak():
    with open("/proc/self/status") as status:
        kib = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(report, "w") as out:
        out.write(kib)
atexit.register(peak)
runpy.run_module("referee.core.cli", run_name="__main__", alter_sys=True)
"""


def _limit_memory() -> None:  # runs in the child before exec
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_BYTES, ADDRESS_SPACE_BYTES))


def _prepare_child(preexec: Callable[[], None]) -> None:  # runs in the child before exec
    _limit_memory()
    preexec()


def run_referee(
    *args: str | Path,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = TIMEOUT_SECONDS,
    preexec: Callable[[], None] | None = None,
) -> Outcome:
    """Run ``python -m referee.core.cli ARGS`` and measure its own peak memory.

    ``preexec`` also runs in the child before ``exec`` (e.g. to drop privileges).
    """
    environment = {**os.environ, **(env or {})}
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.TemporaryDirectory() as measured,
    ):
        peak_file = Path(measured) / "peak"
        process = subprocess.Popen(
            [sys.executable, "-c", _MEASURED, str(peak_file), *map(str, args)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            cwd=cwd,
            env=environment,
            preexec_fn=_limit_memory if preexec is None else partial(_prepare_child, preexec),
        )
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            process.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, wait_status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(wait_status)
        out.seek(0)
        err.seek(0)
        return Outcome(
            status=process.returncode,
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
            peak_rss_mib=_peak_kib(peak_file, usage.ru_maxrss) / 1024,
            timed_out=killed.is_set(),
        )


def _peak_kib(report: Path, fallback: int) -> int:
    """The peak the program wrote at exit, or (killed before) the kernel's ``ru_maxrss``."""
    try:
        return int(report.read_text())
    except (OSError, ValueError):
        return fallback


def assert_refused(outcome: Outcome, *names: str | Path) -> str:
    """Check the rule for bad input and return the one error line.

    Exit status 2, no traceback, one line on standard error starting with
    ``referee: error:`` that contains each of ``names`` (file names, words of
    the problem).
    """
    assert not outcome.timed_out, f"hung: no answer within {TIMEOUT_SECONDS} s"
    assert "Traceback" not in outcome.stderr, outcome.stderr
    assert outcome.status == 2, (outcome.status, outcome.stderr)
    lines = outcome.stderr_lines
    assert len(lines) == 1, outcome.stderr
    line = lines[0]
    assert line.startswith("referee: error: "), line
    for name in names:
        assert str(name) in line, (name, line)
    return line
