"""A private OpenLink Virtuoso for the `server` tests: own directory, own ini, free loopback ports.

`start()` copies the packaged virtuoso.ini (Debian: /etc/virtuoso-opensource-7/virtuoso.ini), points
every file at a temporary directory and both listeners (ISQL and HTTP) at free ports on 127.0.0.1,
starts `virtuoso-t +foreground` in a subprocess, waits until /sparql answers, then creates a SPARQL
user for the tests through isql-vt:

    DB.DBA.USER_CREATE('liuyao', '<random password>');  GRANT SPARQL_UPDATE TO "liuyao";

Updates go to the authenticated endpoint /sparql-auth (HTTP Digest, realm "SPARQL") as that user; the
anonymous /sparql stays read-only, as on a production Virtuoso. (The other choice, granting
SPARQL_UPDATE to the anonymous "SPARQL" user, would leave the credential path untested.)

Also raised from the packaged defaults: [SPARQL] ResultSetMaxRows (10,000 by default: Virtuoso cuts
larger results silently) and MaxQueryExecutionTime.
"""
from __future__ import annotations

import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

INI_CANDIDATES = ("/etc/virtuoso-opensource-7/virtuoso.ini", "/usr/share/virtuoso-opensource-7/virtuoso.ini")
USER = "liuyao"


class VirtuosoUnavailable(RuntimeError):
    """Virtuoso is not installed or did not come up."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def binaries() -> tuple[str, str, str]:
    """(virtuoso-t, isql-vt, virtuoso.ini) or VirtuosoUnavailable naming what is missing."""
    server = shutil.which("virtuoso-t")
    isql = shutil.which("isql-vt") or shutil.which("isql-v")
    ini = next((p for p in INI_CANDIDATES if Path(p).is_file()), None)
    missing = [n for n, v in (("virtuoso-t", server), ("isql-vt", isql), ("virtuoso.ini", ini)) if not v]
    if missing:
        raise VirtuosoUnavailable(f"Virtuoso is not installed (missing {', '.join(missing)}); "
                                  "apt-get install virtuoso-opensource")
    return server, isql, ini


def _ini(template: str, root: Path, isql_port: int, http_port: int) -> str:
    overrides = {
        "Database": {"DatabaseFile": root / "virtuoso.db", "ErrorLogFile": root / "virtuoso.log",
                     "LockFile": root / "virtuoso.lck", "TransactionFile": root / "virtuoso.trx",
                     "xa_persistent_file": root / "virtuoso.pxa"},
        "TempDatabase": {"DatabaseFile": root / "virtuoso-temp.db", "TransactionFile": root / "virtuoso-temp.trx"},
        "Parameters": {"ServerPort": f"127.0.0.1:{isql_port}", "NumberOfBuffers": 20000, "MaxDirtyBuffers": 15000,
                       "CheckpointInterval": 0},
        "HTTPServer": {"ServerPort": f"127.0.0.1:{http_port}"},
        "URIQA": {"DefaultHost": f"127.0.0.1:{http_port}"},
        "SPARQL": {"ResultSetMaxRows": 1000000, "MaxQueryExecutionTime": 600, "MaxQueryCostEstimationTime": 600},
    }
    out, section = [], None
    for line in template.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1]
        elif section == "Plugins" and stripped and not stripped.startswith(";"):
            continue  # no hosting plugins: not needed, and slower to start
        elif section in overrides and "=" in stripped and not stripped.startswith(";"):
            key = stripped.split("=", 1)[0].strip()
            if key in overrides[section]:
                line = f"{key} = {overrides[section][key]}"
        out.append(line)
    return "\n".join(out) + "\n"


@dataclass
class Virtuoso:
    root: Path
    isql_port: int
    http_port: int
    password: str
    process: subprocess.Popen | None = None
    isql_bin: str = "isql-vt"
    log: list[str] = field(default_factory=list)

    @property
    def sparql(self) -> str:
        return f"http://127.0.0.1:{self.http_port}/sparql"

    @property
    def sparql_auth(self) -> str:
        return f"http://127.0.0.1:{self.http_port}/sparql-auth"

    user = USER

    def isql(self, sql: str) -> str:
        r = subprocess.run([self.isql_bin, f"127.0.0.1:{self.isql_port}", "dba", "dba", "VERBOSE=OFF",
                            "BANNER=OFF", "PROMPT=OFF", "ECHO=OFF", "ERRORS=stdout", f"EXEC={sql}"],
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0 or "*** Error" in r.stdout:
            raise VirtuosoUnavailable(f"isql failed on {sql!r}: {r.stdout.strip()} {r.stderr.strip()}")
        return r.stdout

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process = None
        shutil.rmtree(self.root, ignore_errors=True)


def _die_with_parent() -> None:
    """In the child: get SIGTERM when the test process dies, however it dies (Linux prctl PR_SET_PDEATHSIG)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


def _answers(url: str) -> bool:
    q = urllib.parse.urlencode({"query": "ASK {}"})
    try:
        with urllib.request.urlopen(f"{url}?{q}", timeout=2) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError):
        return False


def start(timeout: float = 120.0) -> Virtuoso:
    """Start a private Virtuoso and return it once /sparql answers (caller must `stop()` it)."""
    server, isql, ini = binaries()
    root = Path(tempfile.mkdtemp(prefix="liuyao-virtuoso-"))
    v = Virtuoso(root, _free_port(), _free_port(), secrets.token_urlsafe(12), isql_bin=isql)
    (root / "virtuoso.ini").write_text(_ini(Path(ini).read_text(), root, v.isql_port, v.http_port))
    out = open(root / "stdout.log", "wb")
    v.process = subprocess.Popen([server, "+foreground", "+configfile", str(root / "virtuoso.ini")],
                                 cwd=root, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 preexec_fn=_die_with_parent)
    deadline = time.monotonic() + timeout
    try:
        while not _answers(v.sparql):
            if v.process.poll() is not None:
                raise VirtuosoUnavailable(f"virtuoso-t exited with {v.process.returncode}: "
                                          + (root / "stdout.log").read_text(errors="replace")[-2000:])
            if time.monotonic() > deadline:
                raise VirtuosoUnavailable(f"Virtuoso did not answer on {v.sparql} within {timeout:.0f} s")
            time.sleep(0.5)
        v.isql(f"DB.DBA.USER_CREATE('{USER}', '{v.password}'); GRANT SPARQL_UPDATE TO \"{USER}\";")
    except BaseException:
        v.stop()
        raise
    return v


if __name__ == "__main__":  # pragma: no cover - manual use: start one and print its endpoints
    v = start()
    print(v.sparql, v.sparql_auth, v.user, v.password, v.root, flush=True)
    try:
        v.process.wait()
    except KeyboardInterrupt:
        v.stop()
