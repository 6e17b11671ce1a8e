"""Thread pools for work pyoxigraph does without the GIL (rule evaluations, named queries), safe across a fork."""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor


class ForkSafePool:
    """A thread pool made on first use, and made again in a forked child: the child has the pool object but none of
    its threads, so work handed to the parent's pool there would wait for ever."""

    def __init__(self, name: str):
        self.name = name
        self._made: tuple[int, int, ThreadPoolExecutor] | None = None  # (process, threads, pool)

    def get(self, threads: int) -> ThreadPoolExecutor:
        made = self._made
        if made is None or made[0] != os.getpid() or made[1] != threads:
            made = self._made = (os.getpid(), threads, ThreadPoolExecutor(threads, thread_name_prefix=self.name))
        return made[2]
