"""The named queries a chart reads, answered by the native back end: the SELECTs compiled into
`liuyao_kg.reasoner.native.compiled` (`QUERIES`), run on one cast's index after its native derivation.

What a query sees is what the SPARQL path's dataset holds for a cast (`store.embedded.KnowledgeGraph.select`: the cast's
graphs and the package's layers): the cast's index (the kept reference, its asserted and inferred triples) chained
with the layers' other triples (less what the kept reference holds, so no triple is seen twice), either looked up
in a store holding the package's layers untouched, a key at a time (`store_layers`: what `liuyao_kg.cast` reads,
nothing parsed at a process's first chart), or a frozen index of the package's layers parsed once, the triples
whose predicate some compiled query reads (`layers_index`: a load's worker process, which has no store). Rows are
dicts converted as `graph._py` converts pyoxigraph's terms.
"""
from __future__ import annotations

import hashlib
import threading
import weakref

from liuyao_kg import queries
from liuyao_kg.namespaces import CAST, XSD

_INT_SUFFIXES = ("#integer", "#int", "#long", "#short", "#nonNegativeInteger", "#positiveInteger")
_XSD_INTEGER = XSD + "integer"
_XSD_STRING = XSD + "string"


class StaleCompiledQuery(RuntimeError):
    """A named query's text is not the one compiled into reasoner/native/compiled.py."""


def py(t):
    """A native term as `store.embedded._py` gives the pyoxigraph term: integers int, booleans bool, other literals their
    lexical form, IRIs (and blank nodes) their text, unbound None."""
    if t is None:
        return None
    if type(t) is tuple:
        dt = t[1]
        if dt.endswith(_INT_SUFFIXES):
            return int(t[0])
        if dt.endswith("#boolean"):
            return t[0] in ("true", "1")
        return t[0]
    return str(t)


class _Chain:
    """Two index maps read as one: `get` gives both sides' values (the keys' lists concatenated)."""

    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a, self.b = a, b

    def get(self, key, default=None):
        x = self.a.get(key)
        y = self.b.get(key)
        if y is None:
            return default if x is None else x
        if x is None:
            return y
        return (*x, *y)

    def __contains__(self, key) -> bool:
        return key in self.a or key in self.b


class View:
    """A cast's index chained with the layers' (`sp`, `po`, `pp` and `spo` as the compiled code reads them)."""

    __slots__ = ("sp", "po", "pp", "spo")

    def __init__(self, cast_index, layers):
        self.sp = _Chain(cast_index.sp, layers.sp)
        self.po = _Chain(cast_index.po, layers.po)
        self.pp = _Chain(cast_index.pp, layers.pp)
        self.spo = _Chain(cast_index.spo, layers.spo)


_LAYERS_LOCK = threading.Lock()
_WHOLE = None  # layers_index(None)


def layers_index(engine, compiled=None):
    """The frozen index of the package's layers the compiled queries read, less the engine's kept reference: built
    once per engine (a process's first native chart pays for it: benchmarks/cold_start.py) and shared by every cast; `engine=None`: the
    layers whole, for a cast's index without the reference (a load's, when the reference engine derived)."""
    global _WHOLE
    if engine is None:  # the layers whole, for an index of a cast's own triples alone
        if _WHOLE is None:
            with _LAYERS_LOCK:
                _WHOLE = _WHOLE or _build_layers(None, compiled)
        return _WHOLE
    index = getattr(engine, "_query_layers", None)
    if index is not None:
        return index
    with _LAYERS_LOCK:
        index = getattr(engine, "_query_layers", None)
        if index is None:
            index = engine._query_layers = _build_layers(engine, compiled)
    return index


def _build_layers(engine, compiled=None):
    from liuyao_kg.ontology import LAYERS, layer_quads
    from liuyao_kg.reasoner.native.index import Index
    from liuyao_kg.reasoner.native.terms import from_ox

    module = compiled if compiled is not None else _compiled()
    reads = getattr(module, "QUERY_READS", None)
    kept = engine._index.spo if engine is not None else set()  # None: an index without the reference (a load's)
    triples = []
    for quads in layer_quads([g for g, _ in LAYERS]).values():
        for q in quads:
            if reads is not None and q.predicate.value not in reads:
                continue
            t = (from_ox(q.subject), q.predicate.value, from_ox(q.object))
            if t not in kept:
                triples.append(t)
    return Index.of(triples)


class _Looked:
    """One index map of a store's layers, read a key at a time and kept (`get`, and `in` for `spo`). A key about a
    cast's node (`at`: the position of the node in the key) is never in the layers: not looked up, not kept."""

    __slots__ = ("_read", "_seen", "_at")

    def __init__(self, read, at: int | None):
        self._read, self._seen, self._at = read, {}, at

    def get(self, key, default=None):
        found = self._seen.get(key, _UNREAD)
        if found is _UNREAD:
            at = self._at
            if at is not None and type(key[at]) is str and key[at].startswith(CAST):
                return default
            found = self._seen[key] = self._read(key) or None
        return default if found is None else found

    def __contains__(self, key) -> bool:
        return self.get(key) is not None


_UNREAD = object()


class StoreLayers:
    """The layers of a store whose layers are the package's own, untouched (the `packaged` capability), as the
    compiled queries read them: looked up in the store a key at a time and kept, less what the engine's kept
    reference holds. Nothing is parsed at a process's first chart (the frozen `layers_index` parses every layer); a key costs one store lookup per layer graph, once per store."""

    __slots__ = ("sp", "po", "pp", "spo")

    def __init__(self, store, kept: set):
        import pyoxigraph as ox

        from liuyao_kg.ontology import LAYERS
        from liuyao_kg.reasoner.native.terms import BNode, from_ox, to_ox

        graphs = [ox.NamedNode(g) for g, _ in LAYERS]
        nodes: dict = {}

        def node(t):
            n = nodes.get(t)
            if n is None:
                n = nodes[t] = ox.BlankNode(str(t)) if isinstance(t, BNode) else to_ox(t)
            return n

        def matches(s, p, o):
            out = []
            for g in graphs:
                for q in store.quads_for_pattern(s, p, o, g):
                    t = (from_ox(q.subject), q.predicate.value, from_ox(q.object))
                    if t not in kept and t not in out:
                        out.append(t)
            return out

        self.sp = _Looked(lambda k: tuple(o for _, _, o in matches(node(k[0]), node(k[1]), None)), 0)
        self.po = _Looked(lambda k: tuple(s for s, _, _ in matches(None, node(k[0]), node(k[1]))), 1)
        self.pp = _Looked(lambda p: tuple((s, o) for s, _, o in matches(None, node(p), None)), None)
        self.spo = _Looked(lambda t: t not in kept and any(
            ox.Quad(node(t[0]), node(t[1]), node(t[2]), g) in store for g in graphs) or None, 0)


#: {store: ((engine, deferring), its StoreLayers)}: a store's layers as looked up so far, kept while the store lives
_STORE_LAYERS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def store_layers(kg, engine):
    """The layers of `kg` (a KnowledgeGraph holding the package's layers untouched) for the compiled queries, as a
    function of a query's text: a query that may read what a new store defers (liuyao_kg.ontology.lazy) has the
    layers completed first. Kept on the store for its engine, and started again once the store is complete (what
    was looked up before may lack a deferred part)."""
    from liuyao_kg.ontology.lazy import needs_deferred

    def layers(text: str) -> StoreLayers:
        if kg.deferring and needs_deferred(text):
            kg.complete_layers()
        key = (engine, kg.deferring)
        kept = _STORE_LAYERS.get(kg)
        if kept is None or kept[0] != key:
            kept = _STORE_LAYERS[kg] = (key, StoreLayers(kg.oxigraph, engine._index.spo))
        return kept[1]

    return layers


def _compiled():
    from liuyao_kg.reasoner.native import compiled_module

    return compiled_module()


_CHECKED: dict = {}


class NativeAnswers:
    """`queries.Answers`' interface (`ask(name, **params) -> rows`) on the compiled queries, for one cast's view.

    Parameters are checked by `queries.coerce`, as the SPARQL path checks them; a query not compiled, or compiled
    from another text, raises StaleCompiledQuery."""

    def __init__(self, index, layers, compiled=None):
        """`index`: the cast's (NativeEngine.derive_cast); `layers`: the layers to chain it with, or a function of a
        query's text giving them (`store_layers`)."""
        self.index, self.layers = index, layers
        self.compiled = compiled if compiled is not None else _compiled()

    def ask(self, name: str, **params) -> list[dict]:
        q = queries.get(name)
        values = queries.coerce(q, params)
        fn, cols = self._function(q)
        args = []
        for p in q.params:
            kind, value = values[p.name]
            args.append(value if kind in ("iri", "state") else
                        (str(value), _XSD_INTEGER) if kind == "integer" else (value, _XSD_STRING))
        layers = self.layers(q.text) if callable(self.layers) else self.layers
        return [dict(zip(cols, map(py, row))) for row in fn(View(self.index, layers), *args)]

    def _function(self, q):
        key = (id(self.compiled), q.name)
        entry = _CHECKED.get(key)
        if entry is None:
            compiled = getattr(self.compiled, "QUERIES", {}).get(q.name)
            if compiled is None or compiled[0] != hashlib.sha256(q.text.encode("utf-8")).hexdigest():
                raise StaleCompiledQuery(f"the named query {q.name!r} is not compiled as it is now: "
                                         "run python -m liuyao_kg.build native")
            entry = _CHECKED[key] = (compiled[1], compiled[2])
        return entry


def answers_for(engine, index, compiled=None, layers=None) -> NativeAnswers:
    """The answers of one cast's index (`NativeEngine.derive_cast`) with the layers (`store_layers`, or by default
    the frozen index of the package's layers, `layers_index`)."""
    return NativeAnswers(index, layers if layers is not None else layers_index(engine, compiled), compiled)
