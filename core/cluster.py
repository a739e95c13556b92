"""Running the chunked computations on a Dask cluster (``dask.distributed``).

Inside :func:`connected`, :func:`referee.core.parallel.map_chunks` sends every
chunk (a range of one video's frames, for every method at once) to the
cluster instead of local workers. Chunks name files, not pixels: every worker
must see the dataset and the results at the same paths as this process (a
shared filesystem), and have Referee installed. A chunk that fails is computed
again up to :data:`RETRIES` times; one that still fails is either reported by
the caller (``on_failure``) or raised.

Nothing here imports ``distributed`` until a cluster is used.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from referee.core.errors import InvalidOptionError, UnavailableError
from referee.core.progress import CancelToken, ProgressCallback, check, report

if TYPE_CHECKING:
    from distributed import Client

#: Times a failed chunk is computed again before it counts as failed.
RETRIES = 2
#: Seconds to wait for a scheduler to answer.
CONNECT_SECONDS = 10
#: How often a waiting map checks for cancellation, in seconds.
_POLL_SECONDS = 0.1

Chunk = TypeVar("Chunk")
Piece = TypeVar("Piece")


class _Connection(NamedTuple):
    client: Client
    threads: int


_CURRENT: ContextVar[_Connection | None] = ContextVar("referee_cluster", default=None)


def current_client() -> Client | None:
    """The client of the cluster in use, or ``None`` (local workers)."""
    connection = _CURRENT.get()
    return None if connection is None else connection.client


def dashboard_link() -> str | None:
    """The address of the dashboard of the cluster in use; ``None`` without a cluster or
    when its scheduler runs none (the dashboard needs ``bokeh``, which
    ``pip install 'referee[dask]'`` installs)."""
    client = current_client()
    if client is None or "dashboard" not in client.scheduler_info().get("services", {}):
        return None
    link: str = client.dashboard_link
    return link


def worker_threads() -> int | None:
    """Threads over the cluster's workers when one is in use, else ``None``."""
    connection = _CURRENT.get()
    return None if connection is None else connection.threads


@contextmanager
def connected(scheduler: str | None = None, local_workers: int | None = None) -> Iterator[None]:
    """Run every map of this block on a Dask cluster.

    Parameters
    ----------
    scheduler
        Address of a running scheduler (``tcp://host:8786``).
    local_workers
        Otherwise, start a cluster of this many single-threaded worker processes
        on this machine (loopback only) for the block.

    Raises
    ------
    UnavailableError
        If ``distributed`` is not installed.
    InvalidOptionError
        If the scheduler cannot be reached, or neither or both are given.
    """
    if (scheduler is None) == (local_workers is None):
        raise InvalidOptionError("give either a scheduler address or a number of local workers")
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise UnavailableError(
            "running on a Dask cluster needs the 'distributed' package: pip install 'referee[dask]'"
        ) from None
    if local_workers is not None:
        if local_workers < 1:
            raise InvalidOptionError(f"a local cluster needs 1 worker or more, not {local_workers}")
        with (
            LocalCluster(
                n_workers=local_workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address="127.0.0.1:0",
                silence_logs=logging.ERROR,
            ) as local,
            Client(local) as client,
        ):
            yield from _using(client, "the local cluster")
        return
    try:
        client = Client(scheduler, timeout=CONNECT_SECONDS)
    except (OSError, TimeoutError, ValueError) as error:
        raise InvalidOptionError(
            f"cannot reach the Dask scheduler at {scheduler}: {error}; "
            "check the address and that the scheduler runs"
        ) from None
    with client:
        yield from _using(client, f"the Dask scheduler at {scheduler}")


def _using(client: Client, where: str) -> Iterator[None]:
    threads = sum(client.nthreads().values())
    if threads < 1:
        raise InvalidOptionError(f"{where} has no worker; start workers first")
    token = _CURRENT.set(_Connection(client, threads))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def map_on_cluster(
    client: Client,
    function: Callable[[Chunk], Piece],
    chunks: Sequence[Chunk],
    frames: Sequence[int],
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
    on_failure: Callable[[Chunk, BaseException], Piece] | None,
) -> list[Piece]:
    """:func:`referee.core.parallel.map_chunks` on the cluster of ``client``.

    Progress counts the frames of the chunks finished anywhere on the cluster.
    On cancellation or an error the chunks still queued are cancelled.
    """
    from distributed import wait

    futures = client.map(function, list(chunks), retries=RETRIES, pure=False)
    position = {future.key: k for k, future in enumerate(futures)}
    pending: set[Any] = set(futures)
    pieces: dict[int, Piece] = {}
    total, done = sum(frames), 0
    try:
        while pending:
            check(cancel)
            try:
                finished, _ = wait(
                    list(pending), timeout=_POLL_SECONDS, return_when="FIRST_COMPLETED"
                )
            except TimeoutError:
                continue
            for future in finished:
                pending.discard(future)
                k = position[future.key]
                pieces[k] = _piece(future, chunks[k], on_failure)
                done += frames[k]
                report(progress, done, total)
    except BaseException:
        client.cancel(list(pending))
        raise
    return [pieces[k] for k in range(len(chunks))]


def _piece(
    future: Any, chunk: Chunk, on_failure: Callable[[Chunk, BaseException], Piece] | None
) -> Piece:
    if future.status != "error":
        return future.result()  # type: ignore[no-any-return]
    error = future.exception()
    if on_failure is None:
        raise error
    return on_failure(chunk, error)
