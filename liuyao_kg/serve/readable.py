"""Which file descriptors or sockets can be read without blocking: `poll`, not `select`.

`select.select` cannot watch a descriptor numbered 1024 or above (FD_SETSIZE): it raises ValueError. A process
that holds many files or connections hands such numbers out, and the endpoint then failed every query it
evaluated in a forked child (liuyao_kg.serve.forked) and took every client for gone (endpoint._client_gone).
"""
from __future__ import annotations

import select


def readable(objs, timeout: float) -> list:
    """The objects of `objs` (descriptors, or objects with `fileno()`) that can be read within `timeout` seconds:
    data, end of file, a hang-up or an error (what select reports as readable). Raises ValueError or OSError
    for a closed one, as select does."""
    if not hasattr(select, "poll"):  # Windows: its select takes any socket, whatever its number
        return select.select(list(objs), [], [], timeout)[0]
    poller, by_fd = select.poll(), {}
    for obj in objs:
        fd = obj if isinstance(obj, int) else obj.fileno()
        poller.register(fd, select.POLLIN | select.POLLPRI)  # ValueError for a closed one (-1)
        by_fd[fd] = obj
    return [by_fd[fd] for fd, _events in poller.poll(max(0.0, timeout) * 1000)]


__all__ = ["readable"]
