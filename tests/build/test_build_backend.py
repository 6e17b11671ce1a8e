"""The editable install compiles the package's bytecode, even where PYTHONDONTWRITEBYTECODE is set.

Without it every `liuyao` command in such an environment compiles the modules it imports again (~0.3 s of the
README's first command here); build_backend/liuyao_build.py says why the install, not the command, writes it.
"""
from __future__ import annotations

import importlib.util
import shutil
import sys
import tomllib
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "build_backend"))
import liuyao_build  # noqa: E402

sys.path.remove(str(ROOT / "build_backend"))


def test_pyproject_builds_through_the_bytecode_backend():
    system = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]
    assert system["build-backend"] == "liuyao_build" and system["backend-path"] == ["build_backend"]


def test_the_sources_it_compiles_are_every_directory_the_package_maps():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapped = {Path(d).parts[0] for d in project["tool"]["setuptools"]["package-dir"].values()}
    assert mapped == set(liuyao_build.SOURCES)


def test_the_editable_hook_compiles_then_leaves_the_build_to_setuptools(monkeypatch):
    calls = []
    monkeypatch.setattr(liuyao_build, "compile_sources", lambda: calls.append("compile") or True)
    monkeypatch.setattr(liuyao_build._setuptools, "build_editable", lambda *a: calls.append(("setuptools", a)) or "x.whl")
    assert liuyao_build.build_editable("dist") == "x.whl"
    assert calls == ["compile", ("setuptools", ("dist", None, None))]


def test_every_module_gets_bytecode_although_writing_bytecode_is_switched_off(tmp_path, monkeypatch):
    for name in liuyao_build.SOURCES:
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # what PYTHONDONTWRITEBYTECODE=1 sets
    assert liuyao_build.compile_sources(tmp_path)
    modules = sorted(tmp_path.rglob("*.py"))
    assert len(modules) > 50
    missing = [str(m.relative_to(tmp_path)) for m in modules if not Path(importlib.util.cache_from_source(str(m))).exists()]
    assert missing == []
