"""Every command shown in README.md and docs/*.md works as written (docs/extending.md, "Documentation").

Commands are the fenced ``sh`` blocks and the ``$ `` lines of any Markdown file there (a file added at merge is
picked up as it is). The blocks of one file run in order, each as one bash script, in one scratch directory for
that file, with this environment's ``liuyao`` and ``python`` first on PATH — so a file can build ``./kg`` and then
query it. A ``$ `` line's following lines (up to the block's end or the next ``$ ``) are its shown output: each
shown line, except ``…``, must appear in what the command prints. The few blocks that cannot run here are listed
in SKIP, each with the reason.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: (text a block contains, why it is not run here)
SKIP = (
    ("pip install", "installs the package: .ci/run runs it on a fresh clone"),
    ("python3 -m venv", "installs the package: .ci/run runs it on a fresh clone"),
    ("benchmarks/bench.py", "the benchmark runs for tens of minutes; benchmarks/README.md reports its measured run"),
    ("pytest -n 0 tests/", "runs part of this test suite, which runs itself"),
    ("dask scheduler", "starts a Dask cluster on other hosts (tests/load/test_parquet_load.py runs a local one)"),
    ("--endpoint http://localhost:", "needs a Virtuoso / Fuseki / GraphDB you run; tests/store/test_remote.py runs these "
                                     "commands against a private Virtuoso"),
)


def blocks(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line number, script, shown output lines) for each sh block and each `$ ` line of a Markdown file."""
    out, fence, start, body = [], None, 0, []
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        m = re.match(r"^\s*```(\w*)", line)
        if fence is None and m:
            fence, start, body = m.group(1), n, []
            continue
        if fence is not None and line.strip().startswith("```"):
            if fence == "sh":
                out.append((start, "\n".join(body) + "\n", []))
            else:
                out += _dollar_lines(start, body)
            fence = None
            continue
        if fence is not None:
            body.append(line)
        elif line.startswith("$ "):
            out.append((n, line[2:] + "\n", []))
    return out


def _dollar_lines(start: int, body: list[str]):
    found = []
    for i, line in enumerate(body):
        if line.startswith("$ "):
            found.append([start + i + 1, line[2:] + "\n", []])
        elif found:
            found[-1][2].append(line)
    return [tuple(f) for f in found]


CASES = [(path, n, script, shown) for path in DOCS for n, script, shown in blocks(path)]
#: one test per file: its blocks run in order in one scratch directory, whatever worker runs the test
FILES = [pytest.param(path, [c[1:] for c in CASES if c[0] == path], id=str(path.relative_to(ROOT)))
         for path in DOCS if any(c[0] == path for c in CASES)]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    dirs: dict[Path, Path] = {}

    def for_file(path: Path) -> Path:
        """A scratch checkout: the commands run as from the repository root (tests/, benchmarks/ and ../shared
        are where a reader's clone has them), writing only in scratch."""
        if path not in dirs:
            base = tmp_path_factory.mktemp(path.stem)
            work = base / "repo"
            work.mkdir()
            for name in ("tests", "benchmarks"):
                (work / name).symlink_to(ROOT / name)
            if (ROOT.parent / "shared").is_dir():
                (base / "shared").symlink_to(ROOT.parent / "shared")
            dirs[path] = work
        return dirs[path]
    return for_file


def test_the_docs_show_commands():
    assert any(p.name == "README.md" for p, *_ in CASES)
    assert len(CASES) >= 10


@pytest.mark.server
@pytest.mark.parametrize("path, cases", FILES)
def test_every_documented_command_works_as_written(path, cases, scratch):
    reading_shared = [line for line, script, _ in cases if "../shared" in script]
    if reading_shared and not (ROOT.parent / "shared").is_dir():  # the later blocks may read what these built
        pytest.skip(f"{path.name}: the commands at line(s) {', '.join(map(str, reading_shared))} read the source "
                    f"texts in ../shared, which is not beside this checkout")
    for line, script, shown in cases:
        if not any(text in script for text, _reason in SKIP):
            _run_block(path, line, script, shown, scratch)


def _run_block(path, line, script, shown, scratch):
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    # -e as a reader would want (stop at the first failing command); its own process group, so a server a block
    # starts in the background is stopped with it whatever happens
    proc = subprocess.Popen(["bash", "-e", "-c", script], cwd=scratch(path), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=300)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    done = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    assert done.returncode == 0, f"{path.name}:{line} failed:\n{script}\nstderr:\n{done.stderr[-3000:]}"
    missing = [s for s in shown if s.strip() and s.strip() != "…" and s.rstrip() not in done.stdout]
    assert not missing, f"{path.name}:{line}: the shown output is not what the command prints: {missing[:3]}"
