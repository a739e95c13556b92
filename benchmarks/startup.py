"""How long the ``referee`` command takes to start, over a bare Python interpreter.

Times whole processes, the way a user meets them: ``python -c pass`` (the floor: the
interpreter and the site packages' start-up), then ``referee --version``, ``referee
evaluate --help``, and two commands given a path that does not exist, which must fail
before any heavy import (``referee report MISSING`` and ``referee gui MISSING
--screenshot FILE``). The commands run in turn, round after round, so that a change of
load on the machine touches them alike; it prints each one's median and its excess over
the bare interpreter's median, with the load average before and after.

The console script next to this interpreter is run (``.venv/bin/referee``), as installed.

Usage: python benchmarks/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def referee_command() -> str:
    """The installed ``referee`` command: beside this Python, else on the PATH."""
    beside = Path(sys.executable).with_name("referee")
    found = str(beside) if beside.exists() else shutil.which("referee")
    if found is None:
        raise SystemExit("the 'referee' command is not installed (pip install -e .)")
    return found


def commands(folder: Path) -> dict[str, tuple[list[str], int]]:
    """Each timed command line by its label, with the exit status it must end with."""
    referee, missing = referee_command(), str(folder / "MISSING")
    return {
        "python -c pass": ([sys.executable, "-c", "pass"], 0),
        "referee --version": ([referee, "--version"], 0),
        "referee evaluate --help": ([referee, "evaluate", "--help"], 0),
        "referee report MISSING": ([referee, "report", missing], 2),
        "referee gui MISSING --screenshot": (
            [referee, "gui", missing, "--screenshot", str(folder / "x.png")],
            2,
        ),
    }


def time_once(command: list[str], status: int, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, env=env, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != status:
        raise SystemExit(
            f"{' '.join(command)} ended with status {done.returncode}, not {status}:\n"
            + done.stderr.decode(errors="replace")
        )
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="rounds (default 15; at least 11)")
    runs = max(parser.parse_args().runs, 11)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    with tempfile.TemporaryDirectory() as temporary:
        table = commands(Path(temporary))
        times: dict[str, list[float]] = {label: [] for label in table}
        load_before = os.getloadavg()
        for _ in range(runs):
            for label, (command, status) in table.items():
                times[label].append(time_once(command, status, env))
        load_after = os.getloadavg()
    medians = {label: statistics.median(seconds) for label, seconds in times.items()}
    bare = medians["python -c pass"]
    print(
        f"{runs} rounds on {os.cpu_count()} cores; load average (1, 5, 15 min) before "
        f"{', '.join(f'{x:.1f}' for x in load_before)}, after "
        f"{', '.join(f'{x:.1f}' for x in load_after)}"
    )
    print(f"{'command':34} {'median':>8} {'over bare':>10} {'min':>8} {'max':>8}")
    for label, seconds in times.items():
        excess = "" if label == "python -c pass" else f"{medians[label] - bare:+9.3f}s"
        print(
            f"{label:34} {medians[label]:7.3f}s {excess:>10} {min(seconds):7.3f}s "
            f"{max(seconds):7.3f}s"
        )


if __name__ == "__main__":
    main()
