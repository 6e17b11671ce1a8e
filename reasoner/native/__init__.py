"""The native back end: each rule's SPARQL CONSTRUCT compiled to a Python function at build time.

`python -m liuyao_kg.reasoner.native.build` reads the rules from the rules graph, compiles each one from rdflib's
algebra (`compiler`) and writes `compiled.py`, shipped with the package under the rule base's hash. `NativeEngine`
runs those functions per cast on a small triple index (`index`), in the strata the pyoxigraph `Engine` runs, and
writes the same quads to the same graphs; a rule the compiler could not take runs on pyoxigraph instead. SPARQL
on pyoxigraph stays the reference (tests/test_native_engine.py compares the two).
"""
from __future__ import annotations

__all__ = ["NativeEngine", "StaleCompiledRules", "JudgmentReadError", "judgment_readers"]


def __getattr__(name: str):
    # the engine is imported on first use: the build imports the compiler without it (and without compiled.py)
    if name in __all__:
        from liuyao_kg.reasoner.native import engine

        return getattr(engine, name)
    raise AttributeError(name)
