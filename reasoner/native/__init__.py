"""The native back end: each rule's SPARQL CONSTRUCT compiled to a Python function at build time.

`python -m liuyao_kg.build native` reads the rules from the rules graph, compiles each one from rdflib's
algebra (`compiler`) and writes `compiled.py`, shipped with the package under the rule base's hash. `NativeEngine`
runs those functions per cast on a small triple index (`index`), in the strata the pyoxigraph `Engine` runs, and
writes the same quads to the same graphs; a rule the compiler could not take runs on pyoxigraph instead. SPARQL
on pyoxigraph stays the reference (tests/reasoner/test_native_engine.py compares the two).
"""
from __future__ import annotations

#: what rebuilds the compiled module (named in the errors of a stale one)
BUILD_COMMAND = "python -m liuyao_kg.build native"


class StaleCompiledRules(RuntimeError):
    """The shipped compiled module was not built from these rules."""


def compiled_module():
    """The shipped module of compiled rules and queries (`compiled.py`), or StaleCompiledRules when it is missing."""
    try:
        from liuyao_kg.reasoner.native import compiled
    except ImportError as e:
        raise StaleCompiledRules(f"no compiled rules ({e}): run {BUILD_COMMAND}") from e
    return compiled


_ENGINE_NAMES = ("NativeEngine", "JudgmentReadError", "judgment_readers")
__all__ = ["BUILD_COMMAND", "StaleCompiledRules", "compiled_module", *_ENGINE_NAMES]


def __getattr__(name: str):
    # the engine is imported on first use: the build imports the compiler without it (and without compiled.py)
    if name in _ENGINE_NAMES:
        from liuyao_kg.reasoner.native import engine

        return getattr(engine, name)
    raise AttributeError(name)
