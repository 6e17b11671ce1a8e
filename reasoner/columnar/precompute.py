"""Build the package's precomputed SQL translations (reasoner/columnar/translations.json) and layouts (layouts.json).

    python -m liuyao_kg.reasoner.columnar.precompute          # rewrite them after changing rules
    python -m liuyao_kg.reasoner.columnar.precompute --check  # exit 1 if either is out of date

Every rule of the package's rule base, and every extension its chapter rules' conditions compile to
(wide.py), translated to SQL under the layout the engine reads off the package's own layers — keyed as the
user cache is (`engine._rule_hash`: the generator's VERSION, the layout's digest, the rule's IRI and text).
A fresh install's first `liuyao load --parquet` then translates nothing (about 35 s of rdflib parsing).
The layouts: the one of every rule and the one of the state rules alone (`chapter_rules=False`), each keyed by
`layout.layout_key`, so no engine of the package's rules reads its layout at start (~0.3–0.5 s).
"""
from __future__ import annotations

import json
import sys


def _package():
    """The package's rules and the reference the columnar engines read."""
    import pyoxigraph as ox

    from liuyao_kg import namespaces as ns
    from liuyao_kg.graph import layer_quads
    from liuyao_kg.reasoner.engine import load_rules

    layers = layer_quads()
    store = ox.Store()
    store.extend(layers[ns.GRAPH_RULES])
    return layers, load_rules(store, ns.GRAPH_RULES), layers[ns.GRAPH_ONTOLOGY] + layers[ns.GRAPH_REFERENCE]


def _dump(v) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def _shipped(entry: dict, recursive: bool) -> dict:
    """A translation as the package ships it: the guards only of a rule in a recursive stratum (the engine
    reads no other's; one without them is run again with its stratum, as a rule on pyoxigraph is), half the
    file's size."""
    if not recursive:
        entry.pop("guards", None)
    return entry


def build(package=None) -> str:
    """translations.json's text; `package`: `_package()`'s answer, when the caller has it already."""
    from liuyao_kg import namespaces as ns
    from liuyao_kg.reasoner.dependencies import plan

    from .engine import _Pseudo, _rule_hash, translate_entry
    from .layout import read_layout
    from .wide import chapter_conditions, compile_rules

    layers, rules, reference = package or _package()
    lay = read_layout(rules, reference)
    # the rules of the package's recursive strata (any subset of the rules an engine runs, `of_class` or the
    # state rules alone, puts a rule in a recursive stratum only if the whole rule base does)
    recursive = {iri for members, rec in plan({r.iri: r.io for r in rules}).groups if rec for iri in members}
    _compiled, _refused, comp = compile_rules(rules, chapter_conditions(layers[ns.GRAPH_RULES]))
    items = rules + [_Pseudo(e.iri, e.construct) for e in comp.extensions.values()]
    entries = {_rule_hash(r, lay): _shipped(translate_entry(r, lay), r.iri in recursive) for r in items}
    # one translation a line: a changed rule is a one-line diff
    lines = ",\n".join(f"{_dump(k)}:{_dump(v)}" for k, v in sorted(entries.items()))
    return f"{{\n{lines}\n}}\n"


def build_layouts(package=None) -> str:
    """layouts.json's text; `package` as for `build`."""
    from .layout import layout_entry, layout_key, read_layout

    _layers, rules, reference = package or _package()
    entries = {}
    for chosen in (rules, [r for r in rules if not r.chapter]):
        entries[layout_key(chosen, reference)] = layout_entry(read_layout(chosen, reference))
    lines = ",\n".join(f"{_dump(k)}:{_dump(v)}" for k, v in sorted(entries.items()))
    return f"{{\n{lines}\n}}\n"


def main(argv: list[str] | None = None) -> int:
    from liuyao_kg.reasoner.precompute import write_or_check

    from .engine import PACKAGED
    from .layout import PACKAGED as LAYOUTS

    args = sys.argv[1:] if argv is None else argv
    module = "liuyao_kg.reasoner.columnar.precompute"
    package = _package()  # the layers parsed and the rules loaded once for both files
    return (write_or_check(PACKAGED, build(package), module, args)
            | write_or_check(LAYOUTS, build_layouts(package), module, args))


if __name__ == "__main__":
    sys.exit(main())
