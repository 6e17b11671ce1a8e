"""Rule dependencies, read from the rule text itself.

Each rule is a SPARQL CONSTRUCT. What it *reads* is the set of predicates (and `rdf:type` objects)
in its WHERE clause, what it *writes* those in its template. Rule B depends on rule A when A writes
something B reads. Reading under NOT EXISTS / MINUS is a *negated* dependency: A must be complete
before B runs, so the two may not sit in one recursive component (stratified negation).

Deriving the dependencies from the text (rdflib's SPARQL parser) rather than from hand-written
lists means a rule cannot lie about what it uses.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from liuyao_kg.namespaces import LYO, LYR, PROV, RDF, sparql_prologue
from liuyao_kg.ontology import COMPILED

RDF_TYPE = RDF + "type"
#: a local name the analysis files may write after a prefix (else the IRI is written whole)
_LOCAL = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")

#: Properties written only together with a state's type; a dependency on them is carried by the type.
#: (rdflib and networkx are imported only where needed: a warm start reads plans from the cache.)
STRUCTURAL = frozenset(
    iri
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
    #: keys every solution of the WHERE clause needs a triple for (outside OPTIONAL, negation and
    #: one-sided UNION branches): while the store holds no triple for one of them the rule cannot
    #: fire, so the engine does not evaluate it. A subset of `reads`.
    required: frozenset[Key] = frozenset()
    #: groups of `required` keys one node must carry together (the patterns of one subject variable, say
    #: `?L lyo:relative lyr:Wealth . ?L a lyo:MovingLine`): a rule whose keys are each present, but never on one
    #: node, cannot fire either (the engine's guard for single casts, `engine.Holders`). Two keys or more each.
    together: frozenset[frozenset[Key]] = frozenset()


def _key(triple) -> Key | None:
    from rdflib import URIRef, Variable

    _s, p, o = triple
    if isinstance(p, Variable):
        return ("p", "*", "")
    if str(p) in STRUCTURAL:
        return None
    if str(p) == RDF_TYPE:
        return ("t", str(o), "") if isinstance(o, URIRef) else ("p", RDF_TYPE, "")
    return ("p", str(p), str(o) if isinstance(o, URIRef) else "")


def _walk(node, negated: bool, out: dict[Key, bool]) -> None:
    name = getattr(node, "name", "")
    if name in ("Builtin_NOTEXISTS", "Minus"):
        if name == "Minus":
            _walk(node.get("p1"), negated, out)
            _walk(node.get("p2"), True, out)
            return
        negated = True
    if name in ("Builtin_EXISTS", "Builtin_NOTEXISTS") and "graph" in vars(node):
        # rdflib keeps the *translated* pattern of an EXISTS as an attribute; the dict item is the parsed group,
        # which has lost the FILTERs nested in it (a FILTER NOT EXISTS inside an EXISTS would go unseen)
        _walk(vars(node)["graph"], negated, out)
        return
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


def _required(node) -> set[Key]:
    """Keys every solution of an algebra node matches a triple for (see RuleIO.required).

    Conservative: an operator not listed requires nothing, a property path requires nothing (it may
    match zero triples), a UNION only what both branches require.
    """
    from rdflib import URIRef, Variable

    name = getattr(node, "name", "")
    if name == "BGP":
        out = set()
        for s, p, o in node.get("triples") or []:
            if isinstance(p, (URIRef, Variable)) and (k := _key((s, p, o))) is not None and k[1] != "*":
                out.add(k)
        return out
    if name == "Join":
        return _required(node.get("p1")) | _required(node.get("p2"))
    if name in ("LeftJoin", "Minus"):
        return _required(node.get("p1"))
    if name == "Union":
        return _required(node.get("p1")) & _required(node.get("p2"))
    if name in ("Filter", "Extend", "Project", "Distinct", "Reduced", "Slice", "OrderBy", "ToMultiSet", "Graph"):
        return _required(node.get("p"))
    return set()


def _together(node) -> dict[str, set[Key]]:
    """{subject variable: the keys every solution needs one node to carry} of an algebra node (see
    RuleIO.together), as conservative as `_required`; a sub-select keeps only the variables it projects, so
    a name reused inside it is never taken for the outer one."""
    from rdflib import BNode, URIRef, Variable

    name = getattr(node, "name", "")
    if name == "BGP":
        out: dict[str, set[Key]] = {}
        for s, p, o in node.get("triples") or []:
            if isinstance(s, (Variable, BNode)) and isinstance(p, URIRef) and (k := _key((s, p, o))) is not None:
                out.setdefault(f"{type(s).__name__}:{s}", set()).add(k)
        return out
    if name == "Join":
        a, b = _together(node.get("p1")), _together(node.get("p2"))
        for var, keys in b.items():
            a.setdefault(var, set()).update(keys)
        return a
    if name in ("LeftJoin", "Minus"):
        return _together(node.get("p1"))
    if name == "Union":
        a, b = _together(node.get("p1")), _together(node.get("p2"))
        return {v: a[v] & b[v] for v in a.keys() & b.keys() if a[v] & b[v]}
    if name == "Project":
        kept = {f"Variable:{v}" for v in node.get("PV") or []}
        return {v: keys for v, keys in _together(node.get("p")).items() if v in kept}
    if name in ("Filter", "Extend", "Distinct", "Reduced", "Slice", "OrderBy", "ToMultiSet", "Graph"):
        return _together(node.get("p"))
    return {}


def rule_io(construct: str) -> RuleIO:
    """Parse a CONSTRUCT rule and return what it reads, reads negatively and writes."""
    from rdflib.plugins.sparql import prepareQuery  # slow to import; only needed on a cache miss

    return rule_io_of(prepareQuery(sparql_prologue() + construct).algebra)


def rule_io_of(algebra) -> RuleIO:
    """rule_io of a CONSTRUCT rule rdflib has parsed (its algebra)."""
    seen: dict[Key, bool] = {}
    _walk(algebra.get("p"), False, seen)
    writes = {k for t in algebra.get("template") or [] if (k := _key(tuple(t))) is not None}
    return RuleIO(
        reads=frozenset(k for k, neg in seen.items()),
        negated=frozenset(k for k, neg in seen.items() if neg),
        writes=frozenset(writes),
        required=frozenset(_required(algebra.get("p"))),
        together=frozenset(frozenset(g) for g in _together(algebra.get("p")).values() if len(g) > 1),
    )


_CACHE_VERSION = "5"  # 3: EXISTS bodies walked through their translated pattern (nested FILTERs); 4: keys as text;
# 5: `together`


#: The rule analysis of the package's own rule base, shipped precomputed (python -m
#: liuyao_kg.build rule-base writes it; tests/build/test_build.py fails when it drifts from the
#: rules), so a fresh install's first start parses no rule. Entries are keyed by the hash of a rule's
#: text like the user cache: a rule changed since it was built simply misses and is analysed then.
PACKAGED = COMPILED / "rule_analysis.json"


def _packaged() -> dict:
    global _PACKAGED_DATA
    if _PACKAGED_DATA is None:
        _PACKAGED_DATA = _read_json(PACKAGED)
    return _PACKAGED_DATA


_PACKAGED_DATA = None


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "liuyao-kg"


def _cache_file() -> Path:
    return _cache_dir() / f"rule-io-v{_CACHE_VERSION}.json"


def _plan_cache_file() -> Path:
    return _cache_dir() / f"rule-plan-v{_CACHE_VERSION}.json"


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _write_json(path: Path, entries: dict, keep: int | None = 8) -> None:
    """Merge entries into a JSON cache file atomically (last `keep` entries); failures are ignored."""
    try:
        merged = {**_read_json(path), **entries}
        if keep is not None:
            merged = dict(list(merged.items())[-keep:])
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(merged, f)
        os.replace(tmp, path)
    except OSError:
        pass


_IO_FIELDS = ("reads", "negated", "writes", "required")
#: a first start that must analyse this many rules says so on stderr (it takes seconds)
PROGRESS_ABOVE = 50
#: prefixes of the keys' IRIs as the analysis files write them (any other IRI is written <in brackets>)
_KEY_PREFIXES = {"lyo": LYO, "lyr": LYR, "rdf": RDF}


def _key_term(iri: str) -> str:
    if iri == "*":
        return iri
    for prefix, base in _KEY_PREFIXES.items():
        if iri.startswith(base) and _LOCAL.fullmatch(iri[len(base):]):
            return f"{prefix}:{iri[len(base):]}"
    return f"<{iri}>"


def key_text(key: Key) -> str:
    """A key as the analysis files write it: `p lyo:relative lyr:Wealth`, `p lyo:hasLine`, `t lyo:Cast`, `p *`."""
    return " ".join([key[0]] + [_key_term(part) for part in key[1:] if part])


@lru_cache(maxsize=None)
def parse_key(text: str) -> Key:
    """The key `key_text` wrote (ValueError for anything else)."""
    kind, *terms = text.split(" ")
    if kind not in ("p", "t") or not 1 <= len(terms) <= (2 if kind == "p" else 1):
        raise ValueError(f"not a rule key: {text!r}")
    iris = []
    for term in terms:
        if term.startswith("<") and term.endswith(">"):
            iris.append(term[1:-1])
        elif term == "*":
            iris.append(term)
        else:
            prefix, _, local = term.partition(":")
            iris.append(_KEY_PREFIXES[prefix] + local)  # KeyError: not a prefix of ours
    return (kind, iris[0], iris[1] if len(iris) > 1 else "")


def _keys_text(keys) -> str:
    return "|".join(sorted(key_text(key) for key in keys))


def io_entry(io: RuleIO) -> dict:
    """A rule's analysis as the files keep it: each field one string of keys (`key_text`) joined by `|`,
    which no IRI contains (`together`: its groups joined by `||`); smaller than the keys as lists of IRIs,
    and faster to decode."""
    entry = {k: _keys_text(getattr(io, k)) for k in _IO_FIELDS}
    entry["together"] = "||".join(sorted(_keys_text(g) for g in io.together))
    return entry


@lru_cache(maxsize=None)
def _field_keys(text: str) -> frozenset[Key]:
    # memoised by the field's text: many rules read, write or require the very same keys
    return frozenset(parse_key(t) for t in text.split("|")) if text else frozenset()


@lru_cache(maxsize=None)
def _groups(text: str) -> frozenset[frozenset[Key]]:
    return frozenset(_field_keys(g) for g in text.split("||")) if text else frozenset()


def io_of_entry(entry: dict) -> RuleIO:
    """The RuleIO an `io_entry` holds (KeyError, ValueError, TypeError for a malformed one)."""
    return RuleIO(*(_field_keys(entry[k]) for k in _IO_FIELDS), together=_groups(entry["together"]))


def rule_ios(constructs: dict[str, str]) -> dict[str, RuleIO]:
    """rule_io for many rules, memoised on disk by the hash of each rule's text.

    Parsing a thousand rules with rdflib's SPARQL parser costs half a minute; the result depends only
    on the text, so a changed rule simply misses the cache. An unwritable cache is not an error.
    """
    packaged = _packaged().get("rule_io", {})
    cache: dict | None = None
    out, fresh = {}, {}
    todo = 0
    for iri, text in constructs.items():
        key = hashlib.sha256(text.encode("utf-8")).hexdigest()
        entry = packaged.get(key)
        if entry is None:
            if cache is None:
                cache = _read_json(_cache_file())
                todo = sum(hashlib.sha256(t.encode("utf-8")).hexdigest() not in packaged
                           and hashlib.sha256(t.encode("utf-8")).hexdigest() not in cache for t in constructs.values())
                if todo >= PROGRESS_ABOVE:
                    print(f"liuyao: analysing {todo} rule(s) not in the package's precomputed analysis "
                          f"(about {todo * 15 // 1000 + 1} s; cached in {_cache_dir()})", file=sys.stderr, flush=True)
            entry = cache.get(key)
        io = None
        if entry is not None:
            try:
                io = io_of_entry(entry)
            except (KeyError, ValueError, TypeError, AttributeError):
                io = None  # a cache entry of another format: analysed again
        if io is None:
            io = rule_io(text)
            fresh[key] = io_entry(io)
        out[iri] = io
    if fresh:
        _write_json(_cache_file(), fresh, keep=None)
    return out


def _matches(written: Key, read: Key) -> bool:
    """Could a triple matching the written pattern match the read pattern?"""
    if read[:2] == ("p", "*") or written[:2] == ("p", "*"):
        return True
    any_type = ("p", RDF_TYPE)
    if written[0] == "t" or read[0] == "t":
        w_any, r_any = written[:2] == any_type, read[:2] == any_type
        return written == read or (w_any and read[0] == "t") or (r_any and written[0] == "t") or (w_any and r_any)
    return written[1] == read[1] and (not written[2] or not read[2] or written[2] == read[2])


class RulePlan:
    """Rules grouped into strata: each stratum is a strongly connected set run to a fixpoint.

    The strata are what the engine needs; the dependency graph itself (networkx) is built on demand,
    for export and inspection, so a warm start does not pay for it.
    """

    def __init__(self, ios: dict[str, RuleIO], strata: list[list[str]], recursive: list[bool],
                 reference_reads: dict | None = None, levels: list[int] | None = None):
        self.ios = ios
        self.strata = strata
        self.recursive = recursive
        #: {"predicates", "types"} the rules can read, when known (the package's rule base); None: anything
        self.reference_reads = reference_reads
        if levels is not None:
            self.__dict__["levels"] = levels

    @cached_property
    def graph(self):
        """The rule dependency graph: an edge a → b when a writes something b reads."""
        return dependency_graph(self.ios)

    @cached_property
    def levels(self) -> list[int]:
        """Each stratum's level (`stratum_levels`); stored with a packaged or cached plan, else from `graph`."""
        return stratum_levels(self.graph, self.strata)

    @cached_property
    def groups(self) -> list[tuple[list[str], bool]]:
        """The rules by level (`level_groups`): what an engine may evaluate together."""
        return level_groups(self.strata, self.recursive, self.levels)


def stratum_levels(graph, strata: list[list[str]], floor: dict[int, int] | None = None) -> list[int]:
    """A stratum's level: one past the deepest stratum it reads from (at least `floor[i]`).

    Strata of one level do not read each other's output, so their rules can be evaluated in any order, or at once.
    """
    index = {m: i for i, st in enumerate(strata) for m in st}
    level: list[int] = []
    for i, st in enumerate(strata):  # the strata are in dependency order: a stratum reads only earlier ones
        deps = {index[a] for m in st for a in graph.predecessors(m) if index[a] != i}
        level.append(max((floor or {}).get(i, 0), 1 + max((level[d] for d in deps), default=-1)))
    return level


def level_groups(strata: list[list[str]], recursive: list[bool], levels: list[int]) -> list[tuple[list[str], bool]]:
    """[(rules, recursive)] in order: per level, its non-recursive strata's rules as one group, then each of its
    recursive strata alone (run to its fixpoint)."""
    out: list[tuple[list[str], bool]] = []
    for lv in sorted(set(levels)):
        flat = [m for i, st in enumerate(strata) if levels[i] == lv and not recursive[i] for m in st]
        if flat:
            out.append((flat, False))
        out += [(st, True) for i, st in enumerate(strata) if levels[i] == lv and recursive[i]]
    return out


def dependency_graph(ios: dict[str, RuleIO]):
    """networkx DiGraph of rule dependencies; edge data: the keys read and whether negated.

    Writers are indexed by predicate (or class), so a thousand rules are linked in well under a second.
    """
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(sorted(ios))
    by_key: dict[tuple[str, str], list[tuple[str, Key]]] = {}
    for a, io_a in ios.items():
        for w in io_a.writes:
            by_key.setdefault(w[:2], []).append((a, w))
    wildcard = [pair for k, pairs in by_key.items() if k == ("p", "*") for pair in pairs]
    any_type = [pair for k, pairs in by_key.items() if k == ("p", RDF_TYPE) for pair in pairs]
    all_writes = [pair for pairs in by_key.values() for pair in pairs]
    for b, io_b in ios.items():
        for r in io_b.reads:
            if r[:2] == ("p", "*"):
                candidates = all_writes
            elif r[0] == "t":
                candidates = by_key.get(r[:2], []) + any_type + wildcard
            elif r[:2] == ("p", RDF_TYPE):
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
    return g


def _stratify(g) -> tuple[list[list[str]], list[bool]]:
    import networkx as nx

    cond = nx.condensation(g)
    strata, recursive_flags = [], []
    for comp in nx.lexicographical_topological_sort(cond, key=lambda c: min(cond.nodes[c]["members"])):
        members = sorted(cond.nodes[comp]["members"])
        sub = g.subgraph(members)
        recursive = len(members) > 1 or any(g.has_edge(m, m) for m in members)
        if recursive and any(d.get("negated") for _, _, d in sub.edges(data=True)):
            raise RuleCycleError(f"rules depend on each other through negation: {members}")
        strata.append(members)
        recursive_flags.append(recursive)
    return strata, recursive_flags


def _plan_key(ios: dict[str, RuleIO]) -> str:
    h = hashlib.sha256()
    for iri in sorted(ios):
        io = ios[iri]
        h.update(json.dumps([iri] + [sorted(map(list, getattr(io, k))) for k in ("reads", "negated", "writes")]).encode())
    return h.hexdigest()


def rules_key(constructs: dict[str, str]) -> str:
    """A hash of the rules' IRIs and texts: what their analysis, and so their plan, is a function of."""
    h = hashlib.sha256()
    for iri in sorted(constructs):
        h.update(f"{iri}\0{constructs[iri]}\0".encode())
    return h.hexdigest()


def plan(ios: dict[str, RuleIO], constructs: dict[str, str] | None = None) -> RulePlan:
    """Order rules by dependency (networkx); detect cycles through negation.

    The strata depend only on the rules' reads and writes, so they are memoised on disk under a hash
    of those; a rule base that was planned before starts without networkx. The package's own rule base
    is found first by the hash of its texts (`constructs`, {iri: CONSTRUCT}), cheaper than that of the analysis.
    """
    entry = _packaged().get("plan_by_rules", {}).get(rules_key(constructs)) if constructs is not None else None
    if entry is not None:
        return RulePlan(ios, entry["strata"], entry["recursive"], entry.get("reference_reads"), entry.get("levels"))
    key = _plan_key(ios)
    entry = _packaged().get("plan", {}).get(key)
    if entry is None:
        entry = _read_json(_plan_cache_file()).get(key)
    if entry is not None:
        return RulePlan(ios, entry["strata"], entry["recursive"], levels=entry.get("levels"))
    graph = dependency_graph(ios)
    strata, recursive = _stratify(graph)
    result = RulePlan(ios, strata, recursive)
    result.__dict__["graph"] = graph
    _write_json(_plan_cache_file(), {key: plan_entry(graph, strata, recursive)})
    return result


def plan_entry(graph, strata: list[list[str]], recursive: list[bool]) -> dict:
    """A plan as the packaged analysis and the cache keep it: the engine needs no dependency graph to run it."""
    return {"strata": strata, "recursive": recursive, "levels": stratum_levels(graph, strata)}
