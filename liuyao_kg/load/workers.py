"""Where a load's partitions are derived: in this process (`Inline`), in worker processes of this machine
(`Processes`), or on a Dask distributed cluster (`Cluster`).

Each runs liuyao_kg.load.partition.derive_partition; the load (liuyao_kg.load.pipeline) keeps at most `capacity`
partitions in flight, so memory does not grow with the file. The engine is Python, under the GIL: a process a job
(spawned: the loading process may hold threads), each building its own engine from the package's rules.
"""
from __future__ import annotations

import os
from concurrent.futures import Future

from liuyao_kg.loaders.errors import BatchError

#: the memory a job's worker process takes (its interpreter, engine and one partition; benchmarks/load.py measures
#: the peak), which bounds the default number of jobs (`default_jobs`)
JOB_BYTES = 256 * 2**20


def available_memory() -> int | None:
    """Bytes of memory available to new work (Linux: MemAvailable of /proc/meminfo), or None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def default_jobs() -> int:
    """One job per CPU, as many as the available memory holds at JOB_BYTES a job: on a machine of many cores and
    little memory a job per core would run out of memory, not go faster."""
    cpus = os.cpu_count() or 1
    memory = available_memory()
    return cpus if memory is None else max(1, min(cpus, memory // JOB_BYTES))


class Inline:
    """Every partition derived in this process, when it is submitted."""

    #: whether the workers run in this process (a store's own rules, which are never sent, derive only there)
    local = True
    #: whether the workers share this machine's temporary directory (a store's N-Quads files are written there)
    shares_files = True

    def open(self, partitions: int) -> Inline:
        return self

    @property
    def jobs(self) -> int:
        return 1

    @property
    def capacity(self) -> int:
        return 1

    def submit(self, fn, *args, **kwargs) -> Future:
        done: Future = Future()
        done.set_result(fn(*args, **kwargs))
        return done

    def close(self) -> None:
        pass


def _single_threaded() -> None:
    """A worker process's reference engine evaluates on one thread: the workers already take a core each."""
    from liuyao_kg.reasoner.engine import Engine

    Engine.THREADS = 1


class Processes(Inline):
    """`jobs` worker processes of this machine (None: `default_jobs`), never more than the load has partitions, so a
    small file derives in this process. The processes start at the first partition: a load that derives nothing
    starts none."""

    local = False

    def __init__(self, jobs: int | None = None):
        if jobs is not None and jobs < 1:
            raise BatchError(f"jobs={jobs}: a number of worker processes ≥ 1", [])
        self.asked, self.n, self._pool = jobs, 1, None

    def open(self, partitions: int) -> Inline:
        self.n = min(self.asked or default_jobs(), max(1, partitions))
        return Inline() if self.n == 1 else self

    @property
    def jobs(self) -> int:
        return self.n

    @property
    def capacity(self) -> int:
        return 2 * self.n

    def submit(self, fn, *args, **kwargs) -> Future:
        if self._pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(max_workers=self.n, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_single_threaded)
        return self._pool.submit(fn, *args, **kwargs)

    def close(self) -> None:
        """Wait for the partitions already deriving (a failed load starts no other)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class Cluster(Inline):
    """The workers of a Dask distributed cluster: `local:N` starts a local cluster of N single-threaded workers,
    anything else is a scheduler's address. Each worker writes its own Parquet files, so their directory must be one
    every worker sees; the workers cannot write into this process's store."""

    local = False
    shares_files = False

    def __init__(self, address: str):
        if address.startswith("local:"):
            try:
                n = int(address.split(":", 1)[1])
            except ValueError:
                n = 0
            if n < 1:
                raise BatchError(f"--cluster {address!r}: local:N needs a number of workers N ≥ 1", [])
        self.address, self.client, self._local = address, None, None

    def open(self, partitions: int) -> Cluster:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as e:  # the `cluster` extra
            raise BatchError("--cluster needs Dask distributed: pip install 'liuyao-kg[cluster]'", []) from e
        if self.address.startswith("local:"):
            n = int(self.address.split(":", 1)[1])
            self._local = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
            self.client = Client(self._local)
            return self
        try:
            self.client = Client(self.address, timeout="10s")
        except (OSError, TimeoutError, ValueError) as e:
            raise BatchError(f"--cluster {self.address!r}: cannot reach a Dask scheduler there ({e})", []) from e
        return self

    @property
    def jobs(self) -> int:
        return max(1, len(self.client.scheduler_info().get("workers", {}))) if self.client is not None else 1

    @property
    def capacity(self) -> int:
        return 2 * self.jobs

    def submit(self, fn, *args, **kwargs) -> Future:
        return self.client.submit(fn, *args, pure=False, **kwargs)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        if self._local is not None:
            self._local.close()
        self.client = self._local = None


def workers_of(jobs: int | None = 1, cluster: str | None = None) -> Inline:
    """The workers `liuyao load --jobs N` or `--cluster ADDRESS` asks for (jobs 1: this process)."""
    if cluster is not None:
        if jobs not in (None, 1):
            raise BatchError(f"jobs={jobs} with a cluster: the cluster's workers derive (one partition each at a time)",
                             [])
        return Cluster(cluster)
    return Inline() if jobs == 1 else Processes(jobs)
