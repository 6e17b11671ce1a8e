"""Rule dependencies, read from the rule text itself.

Each rule is a SPARQL CONSTRUCT. What it *reads* is the set of predicates (and `rdf:type` objects)
in its WHERE clause, what it *writes* those in its template. Rule B depends on rule A when A writes
something B reads. Reading under NOT EXISTS / MINUS is a *negated* dependency: A must be complete
before B runs, so the two may not sit in one recursive component (stratified negation).

Deriving the dependencies from the text (rdflib's SPARQL parser) rather than from hand-written
lists means a rule cannot lie about what it uses.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import hashlib
import json
import os
import tempfile
from pathlib import Path

import networkx as nx
from rdflib import URIRef, Variable
from rdflib.namespace import RDF

from liuyao_kg.namespaces import LYO, PROV, sparql_prologue

#: Properties written only together with a state's type; a dependency on them is carried by the type.
STRUCTURAL = frozenset(
    URIRef(iri)
    for iri in (LYO + "stateOf", LYO + "inCast", LYO + "involves", LYO + "school", LYO + "stateRelative",
                LYO + "hiddenUseGod", LYO + "stage", LYO + "variant", LYO + "rescuer", LYO + "judgmentOf", LYO + "matchedLine", PROV + "wasDerivedFrom")
)

# ("p", predicate, object-or-"") — object set when it is a constant IRI, so `?l lyo:hasRole lyr:RoleShi`
# and `?l lyo:hasRole lyr:RoleYing` do not depend on each other; ("t", class, "") for rdf:type;
# ("p", "*", "") for a variable predicate.
Key = tuple[str, str, str]


class RuleCycleError(RuntimeError):
    """Raised when rules depend on each other through negation: no stratification exists."""


@dataclass(frozen=True)
class RuleIO:
    reads: frozenset[Key]
    negated: frozenset[Key]
    writes: frozenset[Key]


def _key(triple) -> Key | None:
    _s, p, o = triple
    if isinstance(p, Variable):
        return ("p", "*", "")
    if p in STRUCTURAL:
        return None
    if p == RDF.type:
        return ("t", str(o), "") if isinstance(o, URIRef) else ("p", str(RDF.type), "")
    return ("p", str(p), str(o) if isinstance(o, URIRef) else "")


def _walk(node, negated: bool, out: dict[Key, bool]) -> None:
    name = getattr(node, "name", "")
    if name in ("Builtin_NOTEXISTS", "Minus"):
        if name == "Minus":
            _walk(node.get("p1"), negated, out)
            _walk(node.get("p2"), True, out)
            return
        negated = True
    if isinstance(node, dict):
        triples = node.get("triples") if "triples" in node else None
        if triples:
            # Translated BGPs hold 3-tuples; untranslated blocks (inside EXISTS) flat lists of 3n terms.
            flat = [term for t in triples for term in t]
            for i in range(0, len(flat) - 2, 3):
                k = _key(tuple(flat[i:i + 3]))
                if k is not None:
                    out[k] = out.get(k, False) or negated
        for key, value in node.items():
            if key in ("triples", "template", "_vars", "PV"):
                continue
            _walk(value, negated, out)
    elif isinstance(node, (list, tuple)):
        for item in node:
            _walk(item, negated, out)


def rule_io(construct: str) -> RuleIO:
    """Parse a CONSTRUCT rule and return what it reads, reads negatively and writes."""
    from rdflib.plugins.sparql import prepareQuery  # slow to import; only needed on a cache miss

    query = prepareQuery(sparql_prologue() + construct)
    algebra = query.algebra
    seen: dict[Key, bool] = {}
    _walk(algebra.get("p"), False, seen)
    writes = {k for t in algebra.get("template") or [] if (k := _key(tuple(t))) is not None}
    return RuleIO(
        reads=frozenset(k for k, neg in seen.items()),
        negated=frozenset(k for k, neg in seen.items() if neg),
        writes=frozenset(writes),
    )


_CACHE_VERSION = "1"


def _cache_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "liuyao-kg" / f"rule-io-v{_CACHE_VERSION}.json"


def rule_ios(constructs: dict[str, str]) -> dict[str, RuleIO]:
    """rule_io for many rules, memoised on disk by the hash of each rule's text.

    Parsing ~70 rules with rdflib's SPARQL parser costs about two seconds; the result depends only
    on the text, so a changed rule simply misses the cache. An unwritable cache is not an error.
    """
    path = _cache_file()
    try:
        cache = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        cache = {}
    out, dirty = {}, False
    for iri, text in constructs.items():
        key = hashlib.sha256(text.encode("utf-8")).hexdigest()
        entry = cache.get(key)
        if entry is None:
            io = rule_io(text)
            cache[key] = {k: sorted(map(list, getattr(io, k))) for k in ("reads", "negated", "writes")}
            dirty = True
            out[iri] = io
        else:
            out[iri] = RuleIO(**{k: frozenset(tuple(x) for x in entry[k]) for k in ("reads", "negated", "writes")})
    if dirty:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(cache, f)
            os.replace(tmp, path)
        except OSError:
            pass
    return out


def _matches(written: Key, read: Key) -> bool:
    """Could a triple matching the written pattern match the read pattern?"""
    if read[:2] == ("p", "*") or written[:2] == ("p", "*"):
        return True
    any_type = ("p", str(RDF.type))
    if written[0] == "t" or read[0] == "t":
        w_any, r_any = written[:2] == any_type, read[:2] == any_type
        return written == read or (w_any and read[0] == "t") or (r_any and written[0] == "t") or (w_any and r_any)
    return written[1] == read[1] and (not written[2] or not read[2] or written[2] == read[2])


@dataclass
class RulePlan:
    """Rules grouped into strata: each stratum is a strongly connected set run to a fixpoint."""

    graph: nx.DiGraph
    strata: list[list[str]] = field(default_factory=list)
    recursive: list[bool] = field(default_factory=list)


def plan(ios: dict[str, RuleIO]) -> RulePlan:
    """Order rules by dependency (networkx); detect cycles through negation.

    Writers are indexed by predicate (or class), so a thousand rules plan in well under a second.
    """
    g = nx.DiGraph()
    g.add_nodes_from(sorted(ios))
    by_key: dict[tuple[str, str], list[tuple[str, Key]]] = {}
    for a, io_a in ios.items():
        for w in io_a.writes:
            by_key.setdefault(w[:2], []).append((a, w))
    wildcard = [pair for k, pairs in by_key.items() if k == ("p", "*") for pair in pairs]
    any_type = [pair for k, pairs in by_key.items() if k == ("p", str(RDF.type)) for pair in pairs]
    all_writes = [pair for pairs in by_key.values() for pair in pairs]
    for b, io_b in ios.items():
        for r in io_b.reads:
            if r[:2] == ("p", "*"):
                candidates = all_writes
            elif r[0] == "t":
                candidates = by_key.get(r[:2], []) + any_type + wildcard
            elif r[:2] == ("p", str(RDF.type)):
                candidates = [p for k, ps in by_key.items() if k[0] == "t" for p in ps] + any_type + wildcard
            else:
                candidates = by_key.get(r[:2], []) + wildcard
            for a, w in candidates:
                if _matches(w, r):
                    data = g.get_edge_data(a, b)
                    negated = r in io_b.negated
                    if data is None:
                        g.add_edge(a, b, keys=[str(r)], negated=negated)
                    else:
                        data["keys"].append(str(r))
                        data["negated"] = data["negated"] or negated
    cond = nx.condensation(g)
    result = RulePlan(graph=g)
    for comp in nx.lexicographical_topological_sort(cond, key=lambda c: min(cond.nodes[c]["members"])):
        members = sorted(cond.nodes[comp]["members"])
        sub = g.subgraph(members)
        recursive = len(members) > 1 or any(g.has_edge(m, m) for m in members)
        if recursive and any(d.get("negated") for _, _, d in sub.edges(data=True)):
            raise RuleCycleError(f"rules depend on each other through negation: {members}")
        result.strata.append(members)
        result.recursive.append(recursive)
    return result
