"""The package's build backend: setuptools', plus the bytecode an editable install would otherwise never get.

A regular `pip install` compiles every module it installs. An editable install (`pip install -e .`, the README's
command) leaves the modules in the source tree and compiles nothing, so Python caches their bytecode at first
import — unless `PYTHONDONTWRITEBYTECODE` is set (as on many containers and CI images), in which case *every*
`liuyao` command compiles the package's ~80 modules again (0.87–0.89 s for the README's first command here,
0.58–0.64 s with bytecode). Compiling the source tree once, at install, does what the regular install does; it
leaves the user's setting alone (nothing is written at run time), and a module edited later is simply
recompiled in memory as usual (its cached bytecode no longer matches the source's mtime).
"""
from __future__ import annotations

import compileall
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (every other hook is setuptools' own)

# the source directories whose modules the editable install maps into the liuyao_kg namespace (pyproject's package-dir)
SOURCES = ("liuyao_kg", "ontology", "loaders", "reasoner", "queries")


#: the project's root: this file's tree, whatever the directory the build frontend runs the backend from
ROOT = Path(__file__).resolve().parents[1]


def compile_sources(root: Path = ROOT) -> bool:
    """Write `__pycache__` bytecode for the package's modules; py_compile writes whatever PYTHONDONTWRITEBYTECODE says."""
    return all(compileall.compile_dir(root / name, quiet=1) for name in SOURCES if (root / name).is_dir())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    compile_sources()
    return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
