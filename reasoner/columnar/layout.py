"""The Layout the SQL join orderer works from: which tables hold only reference rows, which relate a
cast's nodes to shared terms. Read off the reference layers, the rules' templates and the asserted
graphs of a few sample casts; it steers the join order only, never what a rule derives.

Reading it costs ~0.3–0.5 s (the samples derived on pyoxigraph, the reference walked in Python), at every
start of a columnar or SQLite engine. The layouts of the package's own rule bases (all rules, the state rules
alone) are shipped in `layouts.json`, keyed by a digest of the rules' texts and the reference triples
(`layout_key`, ~50 ms) and built by `python -m liuyao_kg.reasoner.columnar.precompute` beside the
translations (checked by tests/test_precomputed.py); any other rules or reference are read as before.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import pyoxigraph as ox

from liuyao_kg.namespaces import CAST
from liuyao_kg.reasoner.dependencies import STRUCTURAL
from liuyao_kg.reasoner.engine import Rule

from .translate import RDF_TYPE, Layout

#: casts whose asserted graphs show every key a cast input can assert (time, year, birth, sex, date, use-god)
_SAMPLES = (
    dict(spec="987678", month="寅", day="甲子", year="甲子", birth="子", sex="女", topic="婚姻"),
    dict(spec="787986", date="2024-03-05T10:00:00+08:00", topic="求財", use_god="妻財"),
)


def key_of(p: str, o: str) -> tuple[str, str]:
    """The table key of a triple, from its N-Triples predicate and object."""
    if p == f"<{RDF_TYPE}>" and o.startswith("<"):
        return ("t", o[1:-1])
    return ("p", p[1:-1])


def _sample_quads() -> list[ox.Quad]:
    from liuyao_kg.loaders.cast_input import make_cast_input
    from liuyao_kg.loaders.rdf import cast_quads

    out = []
    for kw in _SAMPLES:
        kw = dict(kw)
        out += cast_quads(make_cast_input(kw.pop("spec"), **kw))
    return out


#: {layout_key: Layout fields} of the package's own rule bases (`packaged_layouts`)
PACKAGED = Path(__file__).resolve().parent / "layouts.json"
#: the format of a layout's key and entry: a change makes every shipped entry miss (read again, never misread)
KEY_VERSION = "1"


def layout_key(rules: list[Rule], reference: list[ox.Quad]) -> str:
    """A digest of what `read_layout` reads: the rules' IRIs and texts, and the reference's triples (graphs and
    order aside: a store's dump and the layer files give the same key). A blank node counts as `_:`, whatever
    its label (each parse labels the OWL axioms' nodes anew): two references differing only in which blank
    node is which share a key, and at worst a layout, which orders joins and never changes what they return."""
    h = hashlib.sha256(KEY_VERSION.encode())
    for r in sorted(rules, key=lambda r: r.iri):
        h.update(f"\0{r.iri}\0{r.construct}".encode())
    h.update(b"\0\0")
    h.update("\n".join(sorted(f"{_term(q.subject)} {q.predicate} {_term(q.object)}" for q in reference)).encode())
    return h.hexdigest()


def _term(t) -> str:
    return "_:" if isinstance(t, ox.BlankNode) else str(t)


def layout_entry(lay: Layout) -> dict:
    """A layout as JSON: its keys as lists, sorted."""
    return {"reference": sorted(map(list, lay.reference)), "shared": sorted(map(list, lay.shared)),
            "fanout": sorted([list(k), n] for k, n in lay.fanout)}


def _from_entry(entry: dict) -> Layout:
    return Layout(reference=frozenset(map(tuple, entry["reference"])), shared=frozenset(map(tuple, entry["shared"])),
                  fanout=frozenset((tuple(k), n) for k, n in entry["fanout"]))


@cache
def packaged_layouts() -> dict:
    try:
        return json.loads(PACKAGED.read_text(encoding="utf-8"))
    except FileNotFoundError:  # a checkout before its first precompute: every layout is read
        return {}


def layout(rules: list[Rule], reference: Iterable[ox.Quad]) -> Layout:
    """The layout of these rules over this reference: shipped, when they are the package's own, else read."""
    reference = list(reference)
    entry = packaged_layouts().get(layout_key(rules, reference))
    return _from_entry(entry) if entry is not None else read_layout(rules, reference)


def read_layout(rules: list[Rule], reference: Iterable[ox.Quad]) -> Layout:
    """Reference keys: keys with reference rows that no rule writes and no cast asserts. Shared keys: keys
    whose objects, in the reference rows and the sample casts (asserted and derived), are never a cast's
    own node. Fan-out: a reference key's rows per distinct object, where objects repeat.

    The samples are derived (by the pyoxigraph engine) so that a key only rules write is classed by what
    they write: `?f lyo:factorKind ?k` relates a cast's factor to a shared kind, and a join stepping into
    it through `?k` alone pairs the factors of every cast of the batch (Outweighs: 21 of 90 s at 10,000
    casts) where `?f lyo:factorOf ?u` steps from one cast's line."""
    from liuyao_kg.reasoner.engine import Engine

    reference = list(reference)
    written = {(k[0], k[1]) for r in rules for k in r.io.writes} | {("p", iri) for iri in STRUCTURAL}
    samples = _sample_quads()
    samples += Engine(rules, reference).derive(samples)
    ref, cast, local = set(), set(), set()
    for quads, side in ((reference, ref), (samples, cast)):
        for qd in quads:
            p, o = str(qd.predicate), str(qd.object)
            key = key_of(p, o)
            side.add(key)
            if o.startswith("<" + CAST):
                local.add(key)
    reference_only = frozenset(ref - cast - written)
    per_object: dict = {}
    for qd in reference:
        key = key_of(str(qd.predicate), str(qd.object))
        if key in reference_only and key[0] == "p":
            per_object.setdefault(key, {}).setdefault(str(qd.object), set()).add(str(qd.subject))
    rows = {k: sum(map(len, objs.values())) for k, objs in per_object.items()}
    fanout = frozenset((k, round(rows[k] / len(objs), 1)) for k, objs in per_object.items() if rows[k] > len(objs))
    # a key only rules write, and no sample shows, counts as local (its objects unknown here)
    shared = frozenset(k for k in ref | cast if k[0] == "p" and k not in local and k not in reference_only)
    return Layout(reference=reference_only, shared=shared, fanout=fanout)


__all__ = ["layout", "read_layout", "layout_key", "key_of"]
