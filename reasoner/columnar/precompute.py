"""Build the package's precomputed SQL translations (reasoner/columnar/translations.json).

    python -m liuyao_kg.reasoner.columnar.precompute          # rewrite it after changing rules
    python -m liuyao_kg.reasoner.columnar.precompute --check  # exit 1 if it is out of date

Every rule of the package's rule base, and every extension its chapter rules' conditions compile to
(wide.py), translated to SQL under the layout the engine reads off the package's own layers — keyed as the
user cache is (`engine._rule_hash`: the generator's VERSION, the layout's digest, the rule's IRI and text).
A fresh install's first `liuyao load --parquet` then translates nothing (about 35 s of rdflib parsing).
"""
from __future__ import annotations

import json
import sys


def build() -> str:
    import pyoxigraph as ox

    from liuyao_kg import namespaces as ns
    from liuyao_kg.graph import layer_quads
    from liuyao_kg.reasoner.engine import load_rules

    from .engine import _Pseudo, _rule_hash, translate_entry
    from .layout import layout
    from .wide import chapter_conditions, compile_rules

    layers = layer_quads()
    store = ox.Store()
    store.extend(layers[ns.GRAPH_RULES])
    rules = load_rules(store, ns.GRAPH_RULES)
    lay = layout(rules, layers[ns.GRAPH_ONTOLOGY] + layers[ns.GRAPH_REFERENCE])
    _compiled, _refused, comp = compile_rules(rules, chapter_conditions(layers[ns.GRAPH_RULES]))
    items = rules + [_Pseudo(e.iri, e.construct) for e in comp.extensions.values()]
    entries = {_rule_hash(r, lay): translate_entry(r, lay) for r in items}
    dump = lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":"))  # noqa: E731
    # one translation a line: a changed rule is a one-line diff
    lines = ",\n".join(f"{dump(k)}:{dump(v)}" for k, v in sorted(entries.items()))
    return f"{{\n{lines}\n}}\n"


def main(argv: list[str] | None = None) -> int:
    from liuyao_kg.reasoner.precompute import write_or_check

    from .engine import PACKAGED

    return write_or_check(PACKAGED, build(), "liuyao_kg.reasoner.columnar.precompute",
                          sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
