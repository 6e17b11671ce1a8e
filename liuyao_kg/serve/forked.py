"""A SPARQL query, or an update's dry run, evaluated where a time limit can stop it: a forked child process.

pyoxigraph cannot interrupt an evaluation from Python (a query stops only between rows, when its consumer
refuses the next one; an update not at all). So `liuyao serve` evaluates each query in a child made with
``os.fork``: the child shares the store copy-on-write (in memory, or the parent's open RocksDB handles,
which it only reads), serialises the answer into a pipe and ends with ``os._exit``; the parent relays the
bytes and kills the child (SIGKILL) when the time limit passes, the answer outgrows its limit, or the
client leaves. The work stops then, whatever the query is doing.

Forking a threaded process is safe only if the child touches nothing another thread may have held at the
fork: the child runs pyoxigraph, the pipe and a few pure-Python lines (no logging, no imports, no
threads; the garbage collector off). Inside the store, a thread of the parent that was writing (or, on
RocksDB, reading) at that instant could hold a lock the child then waits for forever, so every use of the
store in the parent's own threads takes :class:`Gate` as a *user* and a fork waits until none is inside.

Updates cannot be killed half-way in the process that owns the store (the store must stay whole), and a
child's copy cannot carry its writes back. So an update that evaluates something (a WHERE, CLEAR, ADD …)
is first *dry-run* with the time limit — in a forked child on its copy-on-write copy of an in-memory store,
or in a fresh process on a RocksDB checkpoint (hard links) of an on-disk one — and applied for real, as one
pyoxigraph transaction, only if the dry run finished in time; the caller holds a write lock from before the
dry run to after the apply, so both see the same store. See docs/robustness.md.
"""
from __future__ import annotations

import gc
import json
import os
import queue
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import pyoxigraph as ox

from liuyao_kg.serve.readable import readable

#: where a forked child can evaluate (Linux: /proc/self/fd and prctl are used)
AVAILABLE = hasattr(os, "fork") and sys.platform.startswith("linux")

try:  # the child dies with the thread that forked it (a server killed -9 leaves no query running)
    import ctypes

    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (ImportError, OSError, AttributeError):  # pragma: no cover - not Linux
    _prctl = None
_PR_SET_PDEATHSIG = 1

# Python 3.12+ warns at every fork of a threaded process; the child here touches only what is said above
warnings.filterwarnings("ignore", message=r".*use of fork\(\) may lead to deadlocks", category=DeprecationWarning)


class Gate:
    """Store users in the parent's threads (shared) against forks (exclusive, for the fork call only).

    A waiting fork goes first: new users wait behind it, so a stream of API reads cannot starve queries. Forks
    are one at a time, so the parent closes a child's pipe ends before another child could inherit them."""

    def __init__(self):
        self._cond = threading.Condition()
        self._users = 0
        self._forks = 0
        self._one = threading.Lock()

    @contextmanager
    def using(self):
        with self._cond:
            self._cond.wait_for(lambda: not self._forks)
            self._users += 1
        try:
            yield
        finally:
            with self._cond:
                self._users -= 1
                self._cond.notify_all()

    @contextmanager
    def forking(self, timeout: float):
        with self._cond:
            self._forks += 1
            if not self._cond.wait_for(lambda: not self._users, max(0.0, timeout)):
                self._forks -= 1
                self._cond.notify_all()
                raise TimeoutError("the store is busy")
        try:
            if not self._one.acquire(timeout=max(0.0, timeout)):
                raise TimeoutError("the store is busy")
            try:
                yield
            finally:
                self._one.release()
        finally:
            with self._cond:
                self._forks -= 1
                self._cond.notify_all()


class Outcome:
    """What a child produced: status 200 with body and media, or an error status and message."""

    __slots__ = ("status", "body", "media", "message")

    def __init__(self, status: int, body: bytes = b"", media: str = "", message: str = ""):
        self.status, self.body, self.media, self.message = status, body, media, message

    def __repr__(self):
        return f"Outcome({self.status}, {self.message or self.media!r}, {len(self.body)} bytes)"


TIME_LIMIT = "the query ran past the time limit; narrow it or raise --query-timeout"
UPDATE_TIME_LIMIT = ("the update ran past the time limit (--update-timeout); nothing was written: narrow it, "
                     "split it, or raise the limit")


# -- children ---------------------------------------------------------------------------------------
def _child_start(parent: int, keep: tuple[int, ...]) -> None:
    """First thing in a child: no garbage collection (it would copy every page it touches), die with the
    forking thread, and close the sockets and pipes it inherited (the listening socket, other clients'
    connections, other children's pipes: a pipe's reader sees its end only when every writer has closed it)."""
    gc.disable()
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent ended before prctl took effect
            os._exit(1)
    try:
        fds = [int(n) for n in os.listdir("/proc/self/fd")]
    except OSError:
        return
    for fd in fds:
        if fd in keep or fd < 3:
            continue
        try:
            mode = os.fstat(fd).st_mode
            if stat.S_ISSOCK(mode) or stat.S_ISFIFO(mode):
                os.close(fd)
        except OSError:
            pass


BUSY = "the server is busy; try again"
NO_FORK = "the server could not start a process to evaluate this"


def _await_idle_storage_threads(deadline: float, patience: float = 2.0) -> None:
    """Wait (at most `patience` s, never past `deadline`) until no RocksDB background thread of this process runs.

    RocksDB flushes and compacts in its own native threads ("rocksdb:high", "rocksdb:low"), which the Gate cannot
    see. A child forked while one of them holds the database's mutex inherits the mutex held and waits for it
    for ever (a store served right after a bulk load and a flush had many of its first queries run into the time
    limit). A thread asleep on its queue holds no mutex, so the fork waits until each is asleep."""
    until = min(deadline, time.monotonic() + patience)
    while time.monotonic() < until:
        if not _busy_storage_threads():
            return
        time.sleep(0.002)


def _busy_storage_threads() -> bool:
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return False
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/comm", "rb") as f:
                if not f.read().startswith(b"rocksdb"):
                    continue
            with open(f"/proc/self/task/{tid}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != b"S":
            return True
    return False


def _fork(gate: Gate, deadline: float, work: Callable[[int], dict], classify: Callable) -> tuple[int, int, int]:
    """Fork a child that runs work(data_w) (data_w: a pipe's write end) and reports the status it returns, or
    classify(exception) as {"error": [status, message]}; (pid, data_r, status_r) in the parent. TimeoutError
    if the store stayed in use by the parent's threads until `deadline`."""
    data_r, data_w = os.pipe()
    status_r, status_w = os.pipe()
    parent = os.getpid()
    try:
        with gate.forking(deadline - time.monotonic()):
            _await_idle_storage_threads(deadline)
            pid = os.fork()
            if pid == 0:  # the child: never returns, never raises
                try:
                    os.close(data_r)
                    os.close(status_r)
                    _child_start(parent, (data_w, status_w))
                    try:
                        status = work(data_w)
                    except BaseException as e:  # noqa: BLE001 - every failure is a status for the parent
                        status = {"error": list(classify(e))}
                    _report(status_w, data_w, status)
                finally:
                    os._exit(0)
            os.close(data_w)  # before the next fork, which would otherwise inherit them
            os.close(status_w)
    except BaseException:
        for fd in (data_r, data_w, status_r, status_w):
            try:
                os.close(fd)
            except OSError:
                pass
        raise
    return pid, data_r, status_r


class _Child:
    """A forked child as a context: `busy` (and why) if it could not be forked in time, or not at all; killed on
    exit unless `done`."""

    def __init__(self, gate: Gate, deadline: float, work: Callable[[int], dict], classify: Callable):
        self.busy, self.done, self.why = False, False, BUSY
        try:
            self.pid, self.data_r, self.status_r = _fork(gate, deadline, work, classify)
        except TimeoutError:
            self.busy = True
        except OSError as e:  # fork refused: no memory to copy the process's mappings (ENOMEM), or processes (EAGAIN)
            self.busy, self.why = True, f"{NO_FORK} ({e.strerror or e}); try again"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.busy:
            _end(self.pid, kill=not self.done)
            os.close(self.data_r)
            os.close(self.status_r)


def _report(status_w: int, data_w: int, status: dict) -> None:
    """The child's last words: its status (JSON), then both pipes closed (the parent reads the status at EOF)."""
    os.write(status_w, json.dumps(status).encode("utf-8"))
    os.close(status_w)
    os.close(data_w)


def run_query(store: ox.Store, text: str, kwargs: dict, choose: Callable, classify: Callable, *,
              deadline: float, limit: int, sock, gate: Gate, gone: Callable) -> Outcome:
    """Evaluate `text` in a child and collect its serialised answer (at most `limit` bytes, until `deadline`,
    while `gone(sock)` is False). `choose(is_graph)` → (media, format), raising for an unacceptable Accept;
    `classify(exc)` → (status, message) for an exception in the child."""

    def work(data_w: int) -> dict:
        result = store.query(text, **kwargs)
        media, fmt = choose(isinstance(result, ox.QueryTriples))
        with open(data_w, "wb", buffering=1 << 16, closefd=False) as out:
            result.serialize(out, format=fmt)
        return {"media": media}

    with _Child(gate, deadline, work, classify) as child:
        if child.busy:
            return Outcome(503, message=child.why)
        data_r = child.data_r
        body = bytearray()
        watch = [data_r, sock]
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return Outcome(503, message=TIME_LIMIT)
            try:
                ready = readable(watch, min(remaining, 0.5))
            except (OSError, ValueError):  # our side of the socket is closed
                return Outcome(499, message="client closed the connection")
            if sock in ready or sock not in watch:
                if gone(sock):
                    return Outcome(499, message="client closed the connection")
                if sock in ready:  # the client sent more (a pipelined request): ask it again at each pass
                    watch = [data_r]
            if data_r in ready:
                chunk = os.read(data_r, 1 << 16)
                if not chunk:
                    break
                if len(body) + len(chunk) > limit:
                    return Outcome(413, message=f"the answer is larger than the limit of {limit:,} bytes: narrow "
                                                f"the query (LIMIT, filters)")
                body += chunk
        child.done = True
        status = _read_status(child.status_r)
        if status is None:
            return Outcome(500, message="the query's process ended without an answer")
        if "media" in status:
            return Outcome(200, bytes(body), status["media"])
        code, message = status["error"]
        return Outcome(int(code), message=str(message))


def _read_status(fd: int) -> dict | None:
    raw = b""
    while True:  # the child closed it before the data pipe: all there, EOF at once
        ready = readable([fd], 5.0)
        if not ready:
            return None
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        raw += chunk
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


# -- reaping ----------------------------------------------------------------------------------------
_reap_queue: queue.SimpleQueue = queue.SimpleQueue()
_reaper: threading.Thread | None = None
_reaper_lock = threading.Lock()


def _reap_forever() -> None:
    while True:
        pid = _reap_queue.get()
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def _end(pid: int, *, kill: bool) -> None:
    """Kill (if asked) and reap the child in the background: a big process takes milliseconds to tear down,
    which the answer need not wait for."""
    global _reaper
    if kill:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    with _reaper_lock:
        if _reaper is None or not _reaper.is_alive():
            _reaper = threading.Thread(target=_reap_forever, name="liuyao-reaper", daemon=True)
            _reaper.start()
    _reap_queue.put(pid)


# -- updates ----------------------------------------------------------------------------------------
_DRY_RUN = """
import json, sys
import pyoxigraph as ox
store = ox.Store(sys.argv[1])
try:
    store.update(sys.stdin.buffer.read().decode("utf-8"))
    status = {"ok": True}
except SyntaxError as e:
    status = {"error": [400, "malformed update: " + str(e)[:2000]]}
except Exception as e:
    status = {"error": [500, "update failed: " + str(e)[:300]]}
sys.stdout.write(json.dumps(status))
"""


def dry_run_update(store: ox.Store, text: str, *, deadline: float, gate: Gate, path: Path | None,
                   classify: Callable) -> Outcome | None:
    """None if the update `text` runs to its end before `deadline` on a copy of `store` (nothing is written to
    `store`); else what to answer (503 past the limit, 400 malformed, …).

    An on-disk store (`path`, or any store whose `backup` works) is copied as a RocksDB checkpoint (hard links
    beside it) that a fresh Python process updates; an in-memory one is updated by a forked child in its
    copy-on-write copy."""
    tmp = None
    try:
        try:
            tmp = tempfile.mkdtemp(prefix=".liuyao-dry-run-", dir=path.parent if path is not None else None)
        except OSError:
            tmp = tempfile.mkdtemp(prefix="liuyao-dry-run-")
        checkpoint = os.path.join(tmp, "store")
        try:
            with gate.using():
                store.backup(checkpoint)
        except RuntimeError:  # "It is not possible to backup an in-memory database"
            return _dry_run_forked(store, text, deadline=deadline, gate=gate, classify=classify)
        return _dry_run_process(checkpoint, text, deadline)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _dry_run_process(checkpoint: str, text: str, deadline: float) -> Outcome | None:
    proc = subprocess.Popen([sys.executable, "-c", _DRY_RUN, checkpoint], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        out, _ = proc.communicate(text.encode("utf-8"), timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return Outcome(503, message=UPDATE_TIME_LIMIT)
    try:
        status = json.loads(out)
    except ValueError:
        return Outcome(500, message="the update's dry run ended without an answer; nothing was written")
    return None if status.get("ok") else Outcome(int(status["error"][0]), message=str(status["error"][1]))


def _dry_run_forked(store: ox.Store, text: str, *, deadline: float, gate: Gate, classify: Callable) -> Outcome | None:
    def work(data_w: int) -> dict:
        store.update(text)
        return {"ok": True}

    with _Child(gate, deadline, work, classify) as child:
        if child.busy:
            return Outcome(503, message=child.why)
        ready = readable([child.data_r], max(0.0, deadline - time.monotonic()))
        if not ready:
            return Outcome(503, message=UPDATE_TIME_LIMIT)
        os.read(child.data_r, 1)  # EOF: the child has reported
        child.done = True
        status = _read_status(child.status_r)
        if status is None:
            return Outcome(500, message="the update's dry run ended without an answer; nothing was written")
        return None if status.get("ok") else Outcome(int(status["error"][0]), message=str(status["error"][1]))


__all__ = ["AVAILABLE", "Gate", "Outcome", "run_query", "dry_run_update", "TIME_LIMIT", "UPDATE_TIME_LIMIT"]
