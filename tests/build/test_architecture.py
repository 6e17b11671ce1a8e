"""The flow's layers hold: import-linter checks the contracts in pyproject.toml ([tool.importlinter]) on the package
as it is installed (the folders pyproject's package-dir maps into liuyao_kg, laid out as one tree). Each layer
imports only those below it; the ontology and the loaders import nothing above them; the reasoner imports no store
and no store an engine; liuyao_kg.load is the only place an engine meets a store."""
from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _installed_tree(into: Path) -> Path:
    """The package's modules laid out as an installed tree (liuyao_kg/ontology/… and so on), under `into`."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for package, folder in config["tool"]["setuptools"]["package-dir"].items():
        for source in (ROOT / folder).rglob("*.py"):
            target = into.joinpath(*package.split("."), source.relative_to(ROOT / folder))
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    return into


def test_every_import_contract_of_the_flow_is_kept(tmp_path):
    tree = _installed_tree(tmp_path / "tree")
    lint = Path(sys.executable).with_name("lint-imports")
    run = subprocess.run([str(lint), str(ROOT / "pyproject.toml")], cwd=tree, capture_output=True, text=True,
                         env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"}, timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "4 kept, 0 broken" in run.stdout
