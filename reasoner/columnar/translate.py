"""SPARQL CONSTRUCT (rdflib's algebra) → SQL over per-predicate tables, or `Unsupported` with the reason.

The translation is mechanical and exact for the constructs it knows: BGPs (constant predicates, rdf:type
with a constant class), joins, UNION, MINUS, OPTIONAL, FILTER with [NOT] EXISTS, BIND, VALUES, sub-SELECTs
with GROUP BY / COUNT / SAMPLE, and the expressions of docs/columnar.md. Anything else — property paths, a
variable predicate or class, a blank node in a template, an operator it has no macro for, a computed
string bound to a variable, an ordering comparison between two stored terms — raises `Unsupported`, and
the engine runs that rule on pyoxigraph: the generator is never silently wrong, only slower.

Tables are named by key: ("p", predicate) holds (s, o) pairs, ("t", class) the subjects typed with it;
generated SQL refers to them as `{T:<n>}` placeholders the engine resolves (reference rows and cast
rows sit in separate tables).
"""
from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field

import pyoxigraph as ox

from .terms import CAST_NS, KNOWN as KNOWN_TYPES, q

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
XSD = "http://www.w3.org/2001/XMLSchema#"
#: bump when the generated SQL changes meaning: cached translations of older versions are ignored
VERSION = "18"


#: the message of a generated statement's run-time refusal (see ColumnarEngine._apply)
TERM_ORDER_ERROR = "liuyao-columnar: terms the SQL does not order"


class Unsupported(Exception):
    """The rule uses a construct the SQL generator does not translate exactly; it runs on pyoxigraph."""


@functools.lru_cache(maxsize=None)
def table_id(key: tuple[str, str]) -> str:
    return key[0] + "_" + hashlib.sha1(key[1].encode()).hexdigest()[:12]


@dataclass
class Translation:
    """One rule as SQL: `where` selects the solutions, `template` makes (key, subject, object) from them."""

    where: str
    #: (key kind, key IRI, subject SQL, object SQL or None for a class table) over the solution alias `sol`
    template: list[tuple[str, str, str, str | None]]
    reads: list[tuple[str, str]] = field(default_factory=list)
    #: computes or compares on stored terms: exact only while the batch's literal datatypes are SAFE
    typed: bool = False
    #: orders two stored terms: exact only while the batch holds no xsd:dateTime either
    ordered: bool = False
    #: (table id, SQL) per triple pattern the rule reads, in any part of it: the SQL finds a row of that table
    #: written at the level given as its parameter that could match the pattern — its constants, and for each
    #: of its variables every other pattern of the same BGP holding that variable (a necessary condition,
    #: never a sufficient one). No row found for any pattern: the rule has no solution it lacked before that
    #: level (`ColumnarEngine`: a recursive stratum's rules are not run again for nothing). None: not known
    #: (the package ships them only for the rules of its recursive strata), the rule is always run again
    guards: list[tuple[str, str]] | None = None


@dataclass(frozen=True)
class Layout:
    """What the join orderer knows of the tables (never what a rule means: any order gives the same rows).

    `reference` keys hold only reference-layer rows (a few hundred, the same for every batch); `shared`
    keys relate a cast's node to a term every cast may share (an element, a branch, a literal), so a
    pattern reached only through its object pairs nodes of every cast in the batch.
    """

    reference: frozenset = frozenset()
    shared: frozenset = frozenset()
    #: (key, rows per distinct object) of the reference keys whose objects repeat: how many rows a step
    #: into the table through its object adds (`lyo:index ?n` reaches a position of every hexagram: 64)
    fanout: frozenset = frozenset()

    @functools.cached_property
    def digest_text(self) -> str:
        return hashlib.sha256(repr((sorted(self.reference), sorted(self.shared),
                                    sorted(self.fanout))).encode()).hexdigest()[:16]

    @functools.cached_property
    def fanout_of(self) -> dict:
        return dict(self.fanout)

    def digest(self) -> str:
        """What the translation cache keys on (computed once: every rule's hash includes it)."""
        return self.digest_text


@dataclass
class _Pat:
    sql: str
    cols: dict  # var name → column name
    nullable: set
    #: variables every solution binds to an IRI or blank node (bound in a subject position)
    nodes: set = field(default_factory=set)


@dataclass
class _Ex:
    sql: str
    kind: str  # term | node (an IRI or blank node) | int | str | bool
    const: str | None = None  # the canonical N-Triples of a constant
    iri_text: str | None = None  # STR(node): the node's SQL
    literal: str | None = None  # a constant string's value
    iri_suffix: tuple | None = None  # CONCAT(STR(node), constant IRI characters): (node SQL, suffix)


#: characters that keep an absolute IRI valid when appended to it (RFC 3987 unreserved, sub-delims, / : @)
_IRI_TAIL = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/]*")
#: SQL a let leaves as it is: a column, a string or number constant, a typed NULL
_SIMPLE = re.compile(r"\w+\.\w+|'(?:[^']|'')*'|-?\d+|TRUE|FALSE|NULL|CAST\(NULL AS \w+\)")
_QUOTED = re.compile(r"'(?:[^']|'')*'")
#: a column reference's alias (the generator's aliases: a1, a2 …, CTEs ma…)
_ALIAS_REF = re.compile(r"\b(m?a\d+)\.")
_LET_REF = re.compile(r"\bm?a\d+\.(x\d+)\b")


@dataclass
class _Lets:
    """The operands lifted out of one BIND's or FILTER's expression: SQL → column name, and each one's level
    (1 + the highest level of the lets it reads; a pattern's own columns are level 0)."""

    alias: str
    defs: dict = field(default_factory=dict)
    level: dict = field(default_factory=dict)


def _requalify(sql: str, old: str, new: str) -> str:
    """`sql` with its column references `old.c` written `new.c` (string constants untouched)."""
    ref = re.compile(rf"({_QUOTED.pattern})|\b{re.escape(old)}\.")
    return ref.sub(lambda m: m.group(1) or f"{new}.", sql)


def _nt(term) -> str:
    """An rdflib term → canonical N-Triples (pyoxigraph's spelling, as stored)."""
    from rdflib import Literal, URIRef

    if isinstance(term, URIRef):
        if str(term).startswith(CAST_NS):  # stored short (terms.compact): no rule names one; pyoxigraph runs it
            raise Unsupported(f"a constant IRI in the cast namespace: {term}")
        return str(ox.NamedNode(str(term)))
    if isinstance(term, Literal):
        if term.language:
            return str(ox.Literal(str(term), language=term.language))
        dt = ox.NamedNode(str(term.datatype)) if term.datatype else None
        return str(ox.Literal(str(term), datatype=dt))
    raise Unsupported(f"constant {term!r}")


class _Translator:
    def __init__(self, layout: Layout | None = None):
        self.layout = layout or Layout()
        #: variables some pattern binds at the object of a shared or reference key (terms, not a cast's nodes)
        self.term_vars: set[str] = set()
        self.n = 0
        self.vars: dict[str, str] = {}
        self.reads: set[tuple[str, str]] = set()
        self.guards: dict[tuple[str, str], None] = {}  # Translation.guards, in order, once each
        self.typed = False
        self.ordered = False
        #: the `nodes` of the pattern whose expressions are being compiled
        self.subjects: set[str] = set()
        #: (CTE name, pattern) of the FILTER whose condition is being compiled, for its EXISTS seeds
        self._exists_source: tuple[str, _Pat] | None = None
        #: the lets of the BIND or FILTER whose expression is being compiled (`let`); None: none taken
        self._lets: _Lets | None = None
        self._let_n = 0

    def alias(self) -> str:
        self.n += 1
        return f"a{self.n}"

    def col(self, var) -> str:
        name = str(var) if not type(var).__name__ == "BNode" else "_bn_" + str(var)
        if name not in self.vars:
            self.vars[name] = f"v{len(self.vars)}"
        return self.vars[name]

    @staticmethod
    def vname(var) -> str:
        return str(var) if not type(var).__name__ == "BNode" else "_bn_" + str(var)

    # --- patterns -------------------------------------------------------------------------------

    #: operators that evaluate themselves from a seed (the solutions they are joined with); any other is
    #: compiled alone and joined with it
    SEEDED = ("BGP", "Join", "Filter", "Union", "Extend", "ToMultiSet")

    def pattern(self, node, outer: dict, seed: _Pat | None = None) -> _Pat:
        name = getattr(node, "name", None)
        fn = getattr(self, "p_" + str(name), None)
        if fn is None:
            raise Unsupported(f"algebra operator {name}")
        # a sub-pattern (an EXISTS's, say) is its own query: the enclosing expression's lets are not its columns
        saved, self._lets = self._lets, None
        try:
            if seed is None:
                return fn(node, outer)
            if name in self.SEEDED:
                return fn(node, outer, seed=seed)
            return self._join(seed, fn(node, outer))
        finally:
            self._lets = saved

    def _cte(self, pat: _Pat) -> tuple[str, str]:
        """(`WITH` clause, name) materialising a pattern once, for a part that reads it twice."""
        name = "m" + self.alias()
        return f"WITH {name} AS MATERIALIZED ({pat.sql}) ", name

    @staticmethod
    def _seed_of(name: str, pat: _Pat, names: list[str]) -> _Pat:
        """The distinct values of some (always bound) variables of a materialised pattern, as a seed."""
        cols = {v: pat.cols[v] for v in names}
        return _Pat(f"SELECT DISTINCT {', '.join(cols.values())} FROM {name}", cols, set(), pat.nodes & set(names))

    def p_BGP(self, node, outer, seed: _Pat | None = None):
        """Triple patterns as explicit joins, in an order that never makes a cross product it can avoid.

        DuckDB's own join-order search costs ~60 ms for a rule of a dozen patterns (more than running
        it), so the engine switches it off and the order is chosen here (_order: the cheapest pattern
        connected to what is bound, by _cost, starting on cast rows). With a `seed` (the group's patterns before this BGP, see p_Join) the patterns
        are joined onto it one by one, its variables counting as bound: a pattern such as
        `?U lyo:element ?e` then starts from the seed's `?U` (one cast's line), where compiled alone it
        would pair every line of the batch with every other through the shared element.
        """
        from rdflib import BNode, Literal, URIRef, Variable

        triples = list(node.get("triples") or [])
        if not triples:
            return seed if seed is not None else _Pat("SELECT 1 AS _one", {}, set())
        pats = self._bgp_pats(triples)
        for i in range(len(pats)):
            self.guards[self._guard(pats, i)] = None
        bound = (set(seed.cols) if seed is not None else set()) | set(outer)
        order, _costs = self._order(pats, bound)
        froms, binds, subj, where = [], {}, set(), []
        if seed is not None:
            sd = self.alias()
            froms.append(f"({seed.sql}) AS {sd}")
            binds = {v: f"{sd}.{c}" for v, c in seed.cols.items()}
        for i in order:
            key, positions, _pv, _c = pats[i]
            a = self.alias()
            self.reads.add(key)
            conds = []
            if isinstance(positions[0][0], Variable):
                subj.add(self.vname(positions[0][0]))
            for term, col in positions:
                ref = f"{a}.{col}"
                if isinstance(term, (Variable, BNode)):
                    v = self.vname(term)
                    if v in binds:
                        conds.append(f"{ref} = {binds[v]}")
                    else:
                        binds[v] = ref
                        if v in outer and not isinstance(term, BNode):
                            where.append(f"{ref} = {outer[v]}")
                else:
                    conds.append(f"{ref} = {q(_nt(term))}")
            table = f"{{T:{table_id(key)}}} AS {a}"
            if not froms:
                froms.append(table)
                where += conds
            elif conds:
                froms.append(f"JOIN {table} ON {' AND '.join(conds)}")
            else:
                froms.append(f"CROSS JOIN {table}")
        # blank nodes of a pattern are existential: not projected
        cols = {v: (seed.cols[v] if seed is not None and v in seed.cols else self.col(v))
                for v in binds if not v.startswith("_bn_")}
        select = ", ".join(f"{binds[v]} AS {c}" for v, c in cols.items()) or "1 AS _one"
        cond = (" WHERE " + " AND ".join(where)) if where else ""
        nodes = (subj & set(cols)) | (seed.nodes if seed is not None else set())
        nullable = set(seed.nullable) if seed is not None else set()
        return _Pat(f"SELECT {select} FROM {' '.join(froms)}{cond}", cols, nullable, nodes)

    def _guard(self, pats: list, i: int) -> tuple[str, str]:
        """(table id, SQL) of pattern `i` of a BGP: a row of its table at the level `?` that agrees with the
        pattern's constants and repeated variables, and whose every variable's term stands where the other
        patterns of the BGP hold that variable. Every solution the pattern matches with such a row meets all of
        it (one BGP is one conjunction), so when none exists no solution can use a row of that level there.
        """
        from rdflib import BNode, Variable

        key, positions, _pv, _c = pats[i]
        conds, cols = ["d.seq = ?"], {}
        for term, col in positions:
            if not isinstance(term, (Variable, BNode)):
                conds.append(f"d.{col} = {q(_nt(term))}")
            elif self.vname(term) in cols:
                conds.append(f"d.{col} = d.{cols[self.vname(term)]}")
            else:
                cols[self.vname(term)] = col
        for v, col in cols.items():
            for j, (other, where, _pv2, _c2) in enumerate(pats):
                if j == i:
                    continue
                fixed = [f"{c} = {q(_nt(t))}" for t, c in where if not isinstance(t, (Variable, BNode))]
                for t, c in where:
                    if isinstance(t, (Variable, BNode)) and self.vname(t) == v:
                        rows = f"SELECT {c} FROM {{T:{table_id(other)}}}" + (f" WHERE {' AND '.join(fixed)}" if fixed else "")
                        conds.append(f"d.{col} IN ({rows})")
        return table_id(key), f"SELECT 1 FROM {{T:{table_id(key)}}} AS d WHERE {' AND '.join(conds)} LIMIT 1"

    def _bgp_pats(self, triples) -> list:
        """(key, positions, variables, constants) per triple pattern; Unsupported for what has no table."""
        from rdflib import BNode, Literal, URIRef, Variable

        pats = []
        for s_, p, o in triples:
            if not isinstance(p, URIRef):
                raise Unsupported("a variable predicate or a property path")
            if str(p) == RDF_TYPE:
                if not isinstance(o, URIRef):
                    raise Unsupported("rdf:type with a variable class")
                key, positions = ("t", str(o)), [(s_, "s")]
            else:
                key, positions = ("p", str(p)), [(s_, "s"), (o, "o")]
            for term, _ in positions:
                if not isinstance(term, (Variable, BNode, URIRef, Literal)):
                    raise Unsupported(f"term {term!r}")
            pvars = {self.vname(t) for t, _ in positions if isinstance(t, (Variable, BNode))}
            consts = sum(1 for t, _ in positions if isinstance(t, (URIRef, Literal)))
            # a class table is one column: as constraining as a constant object
            pats.append((key, positions, pvars, consts + (1 if key[0] == "t" else 0)))
        return pats

    def _order(self, pats: list, bound: set) -> tuple[list[int], list[int]]:
        """The join order of a BGP's patterns from the variables `bound`, and each step's _cost.

        The cheapest connected pattern next; a BGP that reads cast rows starts from them (starting from
        a reference table, the next join would reach every cast's rows through a shared term).
        """
        bound = set(bound)
        order, costs = [], []
        remaining = list(range(len(pats)))
        castside = [i for i in remaining if pats[i][0] not in self.layout.reference]
        while remaining:
            connected = [i for i in remaining if pats[i][2] & bound]
            if not connected:
                connected = [i for i in castside if i in remaining] or remaining
            elif min(self._cost(pats[i], bound) for i in connected) >= self.SHARED_STEP:
                # every connected pattern steps through a shared term (all casts' nodes of an element, say):
                # a reference table joined first, its few rows to each solution, turns that step into a
                # lookup (`?tb a lyo:Branch ; lyo:element ?ge`: 12 branches, not every node of the batch)
                connected += [i for i in remaining if i not in connected and pats[i][0] in self.layout.reference]
            best = min(connected, key=lambda i: (self._cost(pats[i], bound), self._fan(pats[i], bound), -pats[i][3], i))
            costs.append(self._cost(pats[best], bound))
            order.append(best)
            remaining.remove(best)
            bound |= pats[best][2]
        return order, costs

    def _cost(self, pat, bound: set) -> int:
        """How many rows a pattern may add per row already joined, in rank order (see Layout)."""
        from rdflib import Variable

        key, positions = pat[0], pat[1]
        s_fixed = self._fixed(positions[0][0], bound)
        o_fixed = key[0] == "t" or self._fixed(positions[1][0], bound)
        if s_fixed and o_fixed:
            return 0  # a lookup
        if s_fixed:
            return 1  # forward: a node's own values
        if key in self.layout.reference:
            if not o_fixed:
                return 4  # a small table
            # through its object: a lookup where objects are (nearly) unique, else as many rows as share one
            fan = self.layout.fanout_of.get(key, 1)
            return 1 if fan <= self.FANOUT_LOOKUP else 5
        if o_fixed:
            if key[0] == "t" or not isinstance(positions[1][0], Variable):
                return 3  # every cast node of a class, or with a constant: linear in the batch
            return self.SHARED_STEP if key in self.layout.shared else 2  # through a shared term: every cast's nodes
        return 6

    def _fixed(self, term, bound: set) -> bool:
        """A constant, or a variable (or blank node) already bound."""
        from rdflib import BNode, Variable

        return not isinstance(term, (Variable, BNode)) or self.vname(term) in bound

    def _fan(self, pat, bound: set) -> float:
        """Between steps of one cost, the one adding fewer rows: a reference table's rows per object when
        joined through its object only (`?entry lyo:atBranch ?db` before `?entry lyo:forElement ?el`:
        15 rows a solution, not 36), else 0."""
        key, positions = pat[0], pat[1]
        if (key[0] == "p" and key in self.layout.reference and not self._fixed(positions[0][0], bound)
                and self._fixed(positions[1][0], bound)):
            return self.layout.fanout_of.get(key, 1)
        return 0

    #: the cost of a step into a table through a shared term (an unconnected reference table costs less)
    SHARED_STEP = 9
    #: a reference key whose objects have at most this many subjects each is joined through them as a lookup
    FANOUT_LOOKUP = 2

    def _join(self, left: _Pat, right: _Pat, kind: str = "JOIN", extra: str | None = None) -> _Pat:
        if not left.cols and kind == "JOIN" and left.sql == "SELECT 1 AS _one":
            return right
        if not right.cols and kind == "JOIN" and right.sql == "SELECT 1 AS _one":
            return left
        a, b = self.alias(), self.alias()
        shared = [v for v in left.cols if v in right.cols]
        conds, out = [], []
        nullable = set()
        for v, c in left.cols.items():
            if v in right.cols:
                ln, rn = v in left.nullable, v in right.nullable
                if ln or rn:
                    if kind != "JOIN":
                        raise Unsupported("OPTIONAL joining on a possibly unbound variable")
                    conds.append(f"({a}.{c} = {b}.{c} OR {a}.{c} IS NULL OR {b}.{c} IS NULL)")
                    out.append(f"COALESCE({a}.{c}, {b}.{c}) AS {c}")
                    if ln and rn:
                        nullable.add(v)
                else:
                    conds.append(f"{a}.{c} = {b}.{c}")
                    out.append(f"{a}.{c} AS {c}")
            else:
                out.append(f"{a}.{c} AS {c}")
                if v in left.nullable:
                    nullable.add(v)
        for v, c in right.cols.items():
            if v not in left.cols:
                out.append(f"{b}.{c} AS {c}")
                if v in right.nullable or kind != "JOIN":
                    nullable.add(v)
        if extra:
            conds.append(extra)
        cols = {**left.cols, **right.cols}
        on = " AND ".join(conds) if conds else "TRUE"
        sel = ", ".join(out) or "1 AS _one"
        del shared
        nodes = left.nodes | right.nodes if kind == "JOIN" else left.nodes
        return _Pat(f"SELECT {sel} FROM ({left.sql}) AS {a} {'LEFT JOIN' if kind == 'LEFT' else 'JOIN'} "
                    f"({right.sql}) AS {b} ON {on}", cols, nullable, nodes)

    def p_Join(self, node, outer, seed: _Pat | None = None):
        """A group's parts joined in an order that never pairs two unrelated parts while a related one waits.

        Join is commutative and associative (on multisets of solutions), so the nested Joins of a group
        are flattened and taken greedily: a BGP sharing a variable with what is joined so far is evaluated
        from it (p_BGP's seed: SPARQL's join of a BGP with bound, shared variables is the BGP evaluated
        from them), else another part sharing a variable; never two parts with nothing in common while a
        connecting one is left (that product would pair every cast's rows with every other's).
        """
        parts, stack = [], [node]
        while stack:
            n = stack.pop()
            if getattr(n, "name", None) == "Join":
                stack += [n.p2, n.p1]
            else:
                parts.append(n)
        mentions = [{self.vname(v) for v in _variables(p)} for p in parts]
        if seed is not None:
            acc, left = seed, list(range(len(parts)))
        else:
            acc, left = self.pattern(parts[0], outer), list(range(1, len(parts)))
        while left:
            bound = set(acc.cols) | set(outer)
            seedable, cost = set(), {}
            for i in left:
                if not mentions[i] & bound:
                    continue
                if getattr(parts[i], "name", None) == "BGP" and not (acc.nullable & _bgp_vars(parts[i], self)):
                    seedable.add(i)
                    cost[i] = max(self._order(self._bgp_pats(parts[i].get("triples") or []), bound)[1], default=0)
                else:  # joined on what it shares: cheap through a cast's node, not through a shared term
                    cost[i] = 2 if (mentions[i] & bound) - self.term_vars else 9
            i = min(cost, key=lambda i: (cost[i], i not in seedable, i)) if cost else left[0]
            left.remove(i)
            if i in seedable:
                acc = self.p_BGP(parts[i], outer, seed=acc)
            else:
                acc = self._join(acc, self.pattern(parts[i], outer))
        return acc

    def p_LeftJoin(self, node, outer):
        left, right = self.pattern(node.p1, outer), self.pattern(node.p2, outer)
        expr = node.get("expr")
        extra = None
        if expr is not None and getattr(expr, "name", "") != "TrueFilter":
            # the OPTIONAL's filter sees both sides: compile it over the joined aliases' columns
            raise Unsupported("OPTIONAL with a FILTER")
        return self._join(left, right, "LEFT", extra)

    def p_Minus(self, node, outer):
        left = self.pattern(node.p1, outer)
        mentioned = {self.vname(v) for v in _variables(node.p2)}
        shared = [v for v in left.cols if v in mentioned]
        if shared and not any(v in left.nullable for v in shared) and set(shared) <= _certain(node.p2, self):
            # every solution of the right side binds the shared variables: MINUS removes exactly the left
            # solutions equal on them to a right one, so the right side is evaluated from the left's values
            # of them (a seed) instead of alone, where it would pair every cast's rows through shared terms
            with_, m = self._cte(left)
            right = self.pattern(node.p2, outer, seed=self._seed_of(m, left, shared))
            a, b = self.alias(), self.alias()
            cond = " AND ".join(f"{a}.{left.cols[v]} = {b}.{right.cols[v]}" for v in shared)
            return _Pat(f"{with_}SELECT * FROM {m} AS {a} WHERE NOT EXISTS (SELECT 1 FROM ({right.sql}) AS {b} "
                        f"WHERE {cond})", left.cols, left.nullable, left.nodes)
        right = self.pattern(node.p2, outer)
        shared = [v for v in left.cols if v in right.cols]
        if not shared:
            return left
        if any(v in left.nullable or v in right.nullable for v in shared):
            raise Unsupported("MINUS on a possibly unbound variable")
        a, b = self.alias(), self.alias()
        cond = " AND ".join(f"{a}.{left.cols[v]} = {b}.{right.cols[v]}" for v in shared)
        return _Pat(f"SELECT * FROM ({left.sql}) AS {a} WHERE NOT EXISTS (SELECT 1 FROM ({right.sql}) AS {b} "
                    f"WHERE {cond})", left.cols, left.nullable, left.nodes)

    def p_Union(self, node, outer, seed: _Pat | None = None):
        left, right = self.pattern(node.p1, outer, seed), self.pattern(node.p2, outer, seed)
        cols = {**left.cols, **right.cols}
        nullable = left.nullable | right.nullable | {v for v in cols if v not in left.cols or v not in right.cols}

        def side(p: _Pat) -> str:
            a = self.alias()
            sel = ", ".join(f"{a}.{c} AS {c}" if v in p.cols else f"CAST(NULL AS VARCHAR) AS {c}"
                            for v, c in cols.items()) or "1 AS _one"
            return f"SELECT {sel} FROM ({p.sql}) AS {a}"

        return _Pat(f"{side(left)} UNION ALL {side(right)}", cols, nullable, left.nodes & right.nodes)

    def p_Filter(self, node, outer, seed: _Pat | None = None):
        inner = self.pattern(node.p, outer, seed)
        a = self.alias()
        env = {**outer, **{v: f"{a}.{c}" for v, c in inner.cols.items()}}
        self.subjects = inner.nodes
        # an EXISTS in the condition is evaluated from the filtered solutions' values (see _exists)
        with_, m = self._cte(inner) if _has_exists(node.expr) else ("", None)
        saved, self._exists_source = self._exists_source, (m, inner) if m else None
        self._lets = lets = _Lets(a)
        try:
            cond = self.as_bool(self.expr(node.expr, env, inner.nullable))
        finally:
            self._exists_source, self._lets = saved, None
        src = m if m else f"({inner.sql})"
        if not lets.defs:
            return _Pat(f"{with_}SELECT * FROM {src} AS {a} WHERE {cond.sql}", inner.cols, inner.nullable, inner.nodes)
        src = self._layered(f"SELECT * FROM {m}" if m else inner.sql, lets)
        sel = ", ".join(f"{a}.{c} AS {c}" for c in inner.cols.values())  # not the lets' columns
        return _Pat(f"{with_}SELECT {sel} FROM ({src}) AS {a} WHERE {cond.sql}", inner.cols, inner.nullable, inner.nodes)

    def p_Extend(self, node, outer, seed: _Pat | None = None):
        inner = self.pattern(node.p, outer, seed)
        v = self.vname(node.var)
        if v in inner.cols:
            raise Unsupported("BIND to a variable already bound")
        a = self.alias()
        env = {**outer, **{x: f"{a}.{c}" for x, c in inner.cols.items()}}
        self.subjects = inner.nodes
        self._lets = lets = _Lets(a)
        try:
            e = self.as_term(self.expr(node.expr, env, inner.nullable))
        finally:
            self._lets = None
        c = self.col(node.var)
        keep = ", ".join(f"{a}.{cc} AS {cc}" for cc in inner.cols.values())
        sel = (keep + ", " if keep else "") + f"{e.sql} AS {c}"
        # BIND(?x AS ?y) of an always-bound ?x never leaves ?y unbound (nor an IRI a non-node)
        src = self.vname(node.expr) if type(node.expr).__name__ == "Variable" else None
        copied = src is not None and src in inner.cols and src not in inner.nullable
        nodes = inner.nodes | ({v} if copied and src in inner.nodes else set())
        return _Pat(f"SELECT {sel} FROM ({self._layered(inner.sql, lets)}) AS {a}", {**inner.cols, v: c},
                    inner.nullable | (set() if copied else {v}), nodes)

    def p_ToMultiSet(self, node, outer, seed: _Pat | None = None):
        return self.pattern(node.p, outer, seed)

    def p_values(self, node, outer):
        rows = node.get("res") or []
        names = []
        for r in rows:
            for var in r:
                if self.vname(var) not in names:
                    names.append(self.vname(var))
        if not rows:
            return _Pat("SELECT 1 AS _one WHERE FALSE", {}, set())
        from rdflib import Variable

        cols = {v: self.col(Variable(v)) for v in names}
        nullable = set()
        lines = []
        for r in rows:
            vals = {self.vname(k): val for k, val in r.items()}
            cells = []
            for v in names:
                if vals.get(v) is None:
                    nullable.add(v)
                    cells.append("CAST(NULL AS VARCHAR)")
                else:
                    cells.append(q(_nt(vals[v])))
            lines.append("SELECT " + ", ".join(f"{cell} AS {c}" for cell, c in zip(cells, cols.values())))
        # rows as a UNION ALL of SELECTs, not a VALUES list: the one spelling DuckDB and SQLite share
        return _Pat(" UNION ALL ".join(lines), cols, nullable)

    def p_Project(self, node, outer):
        inner = self.pattern(node.p, outer)
        keep = {self.vname(v): inner.cols[self.vname(v)] for v in node.PV if self.vname(v) in inner.cols}
        a = self.alias()
        sel = ", ".join(f"{a}.{c} AS {c}" for c in keep.values()) or "1 AS _one"
        return _Pat(f"SELECT {sel} FROM ({inner.sql}) AS {a}", keep, inner.nullable & set(keep), inner.nodes & set(keep))

    def p_Distinct(self, node, outer):
        inner = self.pattern(node.p, outer)
        return _Pat(f"SELECT DISTINCT * FROM ({inner.sql})", inner.cols, inner.nullable, inner.nodes)

    p_Reduced = p_Distinct

    def p_AggregateJoin(self, node, outer):
        group = node.p
        if getattr(group, "name", "") != "Group":
            raise Unsupported("aggregate without a group")
        inner = self.pattern(group.p, outer)
        a = self.alias()
        keys = []
        for e in group.get("expr") or []:
            if type(e).__name__ != "Variable" or self.vname(e) not in inner.cols:
                raise Unsupported("GROUP BY an expression")
            keys.append(self.vname(e))
        out, cols, maybe_unbound = [], {}, set()
        for agg in node.A:
            res = self.vname(agg.res)
            c = self.col(agg.res)
            target = agg.vars
            if agg.name == "Aggregate_Sample":
                if type(target).__name__ != "Variable" or self.vname(target) not in keys:
                    raise Unsupported("SAMPLE of a non-grouped variable")
                out.append(f"ANY_VALUE({a}.{inner.cols[self.vname(target)]}) AS {c}")
            elif agg.name == "Aggregate_Count":
                distinct = "DISTINCT " if agg.get("distinct") else ""
                if target == "*":
                    if distinct:
                        raise Unsupported("COUNT(DISTINCT *)")
                    arg = "*"
                elif type(target).__name__ == "Variable":
                    if self.vname(target) not in inner.cols:
                        arg = "NULL"
                    else:
                        arg = f"{a}.{inner.cols[self.vname(target)]}"
                else:
                    raise Unsupported("COUNT of an expression")
                out.append(f"int_term(COUNT({distinct}{arg})) AS {c}")
            elif agg.name in ("Aggregate_Max", "Aggregate_Min"):
                if type(target).__name__ != "Variable" or self.vname(target) not in inner.cols:
                    raise Unsupported(f"{agg.name} of an expression")
                x = f"{a}.{inner.cols[self.vname(target)]}"
                fn = "arg_max" if agg.name == "Aggregate_Max" else "arg_min"
                # integers by value (the term itself kept); any other term: SPARQL's order over mixed terms
                # is not modelled, so the statement fails and the engine runs the rule on pyoxigraph
                out.append(f"(CASE WHEN COUNT({x}) = COUNT(nt_int({x})) THEN {fn}({x}, nt_int({x})) "
                           f"ELSE error('{TERM_ORDER_ERROR}') END) AS {c}")
                maybe_unbound.add(res)
            else:
                raise Unsupported(f"aggregate {agg.name}")
            cols[res] = c
            if agg.name == "Aggregate_Sample" and self.vname(target) in inner.nullable:
                maybe_unbound.add(res)
        by = (" GROUP BY " + ", ".join(f"{a}.{inner.cols[k]}" for k in keys)) if keys else ""
        # COUNT is always bound, SAMPLE of a group key as bound as the key; MAX/MIN of an empty group is not
        return _Pat(f"SELECT {', '.join(out)} FROM ({inner.sql}) AS {a}{by}", cols, maybe_unbound)

    # --- lets: a compound operand computed once, in a projection below the expression -------------

    def let(self, sql: str) -> str:
        """`sql` as a column of the pattern whose expression is being compiled, computed in a projection
        beneath it (`_layered`), or `sql` itself when it is already a column or a constant, or reads
        anything but that pattern's columns (an outer query's, a sub-query).

        Why: a term macro names its argument many times (nt_lex ~12, nt_eq ~20), and DuckDB expands macros
        textually, so a macro of a macro's result grows the expression multiplicatively: DuckDB then spent
        ~75 ms binding and optimising a rule like TimingWeak (`IRI(CONCAT(STR(?l), …, STRAFTER(STR(?f), …)))`)
        every batch, and evaluated the repeated operands again per row (its common-subexpression pass costs
        as much). As a column, each operand is written and computed once; the rows are the same."""
        lets = self._lets
        if lets is None or _SIMPLE.fullmatch(sql):
            return sql
        bare = _QUOTED.sub("''", sql)
        aliases = set(_ALIAS_REF.findall(bare))
        if aliases != {lets.alias} or "SELECT" in bare:
            return sql
        if sql not in lets.defs:
            level = 1 + max((lets.level[n] for n in _LET_REF.findall(bare) if n in lets.level), default=0)
            self._let_n += 1
            name = f"x{self._let_n}"
            lets.defs[sql] = name
            lets.level[name] = level
        return f"{lets.alias}.{lets.defs[sql]}"

    def call(self, fn: str, *args: str) -> str:
        """A macro applied to its operands, each compound one a let (the call itself stays inline: a FILTER's
        cheap conjuncts before it still spare most rows its evaluation)."""
        return f"{fn}({', '.join(self.let(x) for x in args)})"

    def _layered(self, sql: str, lets: "_Lets") -> str:
        """The query `sql` (the pattern aliased `lets.alias`) with its lets as further columns, one
        projection per level of nesting; every alias is new (sqlite.hoist needs them unique)."""
        top = max(lets.level.values(), default=0)
        for level in range(1, top + 1):
            b = self.alias()
            defs = ", ".join(f"{_requalify(x, lets.alias, b)} AS {n}" for x, n in lets.defs.items()
                             if lets.level[n] == level)
            sql = f"SELECT {b}.*, {defs} FROM ({sql}) AS {b}"
        return sql

    # --- expressions ----------------------------------------------------------------------------

    def as_term(self, e: _Ex) -> _Ex:
        if e.kind in ("term", "node"):
            return _Ex(e.sql, "term", e.const)
        if e.const is not None:
            return _Ex(q(e.const), "term", e.const)
        if e.kind == "int":
            return _Ex(self.call("int_term", e.sql), "term")
        if e.kind == "bool":
            return _Ex(self.call("bool_term", e.sql), "term")
        raise Unsupported("a computed string bound to a variable")

    def as_bool(self, e: _Ex) -> _Ex:
        if e.kind == "bool":
            return e
        if e.kind == "int":
            return _Ex(f"(({e.sql}) <> 0)", "bool")
        if e.kind == "str":
            return _Ex(f"(length({e.sql}) > 0)", "bool")
        if e.kind == "node":
            return _Ex("CAST(NULL AS BOOLEAN)", "bool")  # an IRI has no effective boolean value
        self.typed = True
        return _Ex(self.call("nt_ebv", e.sql), "bool")

    def as_int(self, e: _Ex) -> _Ex:
        if e.kind == "int":
            return e
        if e.kind == "node":
            return _Ex("CAST(NULL AS BIGINT)", "int")  # an IRI is no number: an error
        if e.kind == "term":
            self.typed = True
            return _Ex(self.call("nt_int", e.sql), "int")
        raise Unsupported("arithmetic on a non-number")

    def as_str(self, e: _Ex) -> _Ex:
        if e.kind == "str":
            return e
        raise Unsupported("a string function on a term that may not be a simple literal")

    def expr(self, node, env: dict, nullable: set) -> _Ex:
        from rdflib import Literal, URIRef, Variable

        if isinstance(node, Variable):
            v = self.vname(node)
            if v not in env:
                return _Ex("CAST(NULL AS VARCHAR)", "term")
            return _Ex(env[v], "node" if v in self.subjects else "term")
        if isinstance(node, URIRef):
            nt = _nt(node)
            return _Ex(q(nt), "term", nt)
        if isinstance(node, Literal):
            nt = _nt(node)
            dt = str(node.datatype) if node.datatype else None
            if dt == XSD + "integer":
                try:
                    return _Ex(str(int(str(node))), "int", nt)
                except ValueError:
                    raise Unsupported(f"ill-typed literal {node!r}")
            if dt == XSD + "boolean" and str(node) in ("true", "false"):
                return _Ex("TRUE" if str(node) == "true" else "FALSE", "bool", nt)
            if not node.language and dt in (None, XSD + "string"):
                return _Ex(q(str(node)), "str", nt, literal=str(node))
            return _Ex(q(nt), "term", nt)
        name = getattr(node, "name", None)
        fn = getattr(self, "e_" + str(name), None)
        if fn is None:
            raise Unsupported(f"expression {name}")
        return fn(node, env, nullable)

    def e_ConditionalAndExpression(self, node, env, nullable):
        parts = [self.as_bool(self.expr(x, env, nullable)).sql for x in [node.expr] + list(node.other or [])]
        return _Ex("(" + " AND ".join(parts) + ")", "bool")

    def e_ConditionalOrExpression(self, node, env, nullable):
        parts = [self.as_bool(self.expr(x, env, nullable)).sql for x in [node.expr] + list(node.other or [])]
        return _Ex("(" + " OR ".join(parts) + ")", "bool")

    def e_UnaryNot(self, node, env, nullable):
        return _Ex(f"(NOT {self.as_bool(self.expr(node.expr, env, nullable)).sql})", "bool")

    def _eq(self, a: _Ex, b: _Ex) -> str:
        if "node" in (a.kind, b.kind) and {a.kind, b.kind} <= {"node", "term"}:
            return f"({a.sql} = {b.sql})"  # an IRI or blank node equals only itself, never an error
        a, b = (self.as_term(x) if x.kind == "node" else x for x in (a, b))
        if a.kind == b.kind and a.kind in ("int", "str", "bool"):
            return f"({a.sql} = {b.sql})"
        if a.kind != "term" and b.kind != "term":
            return "CAST(NULL AS BOOLEAN)"  # literals of different datatypes: an error
        ta, tb = self.as_term(a), self.as_term(b)
        if ta.const is not None and ta.const.startswith("<"):
            return f"({tb.sql} = {ta.sql})"  # an IRI equals only itself (never an error)
        if tb.const is not None and tb.const.startswith("<"):
            return f"({ta.sql} = {tb.sql})"
        self.typed = self.ordered = True
        if {a.kind, b.kind} == {"bool", "term"}:
            x, t = (a, b) if a.kind == "bool" else (b, a)
            return self._bool_eq(self.let(x.sql), self.let(t.sql))
        return self.call("nt_eq", ta.sql, tb.sql)

    @staticmethod
    def _bool_eq(x: str, t: str) -> str:
        """`nt_eq(bool_term(x), t)` case by case — an IRI or blank node: false; a boolean: by value; a literal
        of another known datatype, or any known one beside an error: false; else an error — with `x`
        written three times: the macro names its arguments ~20 times, so `(?pol = "for") = ?fav` nested
        one nt_eq in another and DuckDB spent ~0.4 s binding the expanded expression, every batch."""
        known = ", ".join(q(d) for d in KNOWN_TYPES)
        return (f"(CASE WHEN substr({t}, 1, 1) <> '\"' THEN FALSE "
                f"WHEN ({x}) IS NOT NULL AND nt_bool({t}) IS NOT NULL THEN ({x}) = nt_bool({t}) "
                f"WHEN nt_dt({t}) IN ({known}) AND (({x}) IS NULL OR nt_dt({t}) <> {q(XSD + 'boolean')}) THEN FALSE END)")

    def e_RelationalExpression(self, node, env, nullable):
        op = node.op
        a = self.expr(node.expr, env, nullable)
        if op in ("IN", "NOT IN"):
            others = [self.expr(x, env, nullable) for x in node.other]
            if not others:
                return _Ex("FALSE" if op == "IN" else "TRUE", "bool")
            eqs = [self._eq(a, b) for b in others]
            if op == "IN":
                return _Ex("(" + " OR ".join(eqs) + ")", "bool")
            return _Ex("(" + " AND ".join(f"(NOT {x})" for x in eqs) + ")", "bool")
        b = self.expr(node.other, env, nullable)
        if op == "=":
            return _Ex(self._eq(a, b), "bool")
        if op == "!=":
            return _Ex(f"(NOT {self._eq(a, b)})", "bool")
        sqlop = {"<": "<", ">": ">", "<=": "<=", ">=": ">="}[op]
        a, b = (self.as_term(x) if x.kind == "node" else x for x in (a, b))
        if a.kind == b.kind and a.kind in ("int", "str"):
            return _Ex(f"({a.sql} {sqlop} {b.sql})", "bool")
        if {a.kind, b.kind} == {"int", "term"}:
            return _Ex(f"({self.as_int(a).sql} {sqlop} {self.as_int(b).sql})", "bool")
        if a.kind == b.kind == "term":
            # integers by value, simple literals by code point, anything else an error; exact while the
            # batch holds no other ordered datatype (xsd:dateTime, decimal …): the engine checks that
            self.typed = self.ordered = True
            ia, ib = (self.let(self.call("nt_int", x.sql)) for x in (a, b))
            sa, sb = (self.let(self.call("nt_simple", x.sql)) for x in (a, b))
            return _Ex(f"(CASE WHEN {ia} IS NOT NULL AND {ib} IS NOT NULL THEN {ia} {sqlop} {ib} "
                       f"WHEN {sa} IS NOT NULL AND {sb} IS NOT NULL THEN {sa} {sqlop} {sb} END)", "bool")
        raise Unsupported("an ordering comparison between a string and a term")

    def e_AdditiveExpression(self, node, env, nullable):
        out = self.as_int(self.expr(node.expr, env, nullable)).sql
        for op, x in zip(node.op, node.other):
            if op not in ("+", "-"):
                raise Unsupported(f"operator {op}")
            out = f"({out} {op} {self.as_int(self.expr(x, env, nullable)).sql})"
        return _Ex(out, "int")

    def e_MultiplicativeExpression(self, node, env, nullable):
        out = self.as_int(self.expr(node.expr, env, nullable)).sql
        for op, x in zip(node.op, node.other):
            if op != "*":
                raise Unsupported("division (its result is an xsd:decimal)")
            out = f"({out} * {self.as_int(self.expr(x, env, nullable)).sql})"
        return _Ex(out, "int")

    def e_UnaryMinus(self, node, env, nullable):
        return _Ex(f"(- {self.as_int(self.expr(node.expr, env, nullable)).sql})", "int")

    def e_Builtin_STR(self, node, env, nullable):
        e = self.expr(node.arg, env, nullable)
        if e.const is not None:
            lex = e.const[1:-1] if e.const.startswith("<") else _lex(e.const)
            return _Ex(q(lex), "str")
        if e.kind == "str":
            return e
        if e.kind == "int":
            return _Ex(f"CAST({e.sql} AS VARCHAR)", "str")
        if e.kind == "bool":
            raise Unsupported("STR of a computed boolean")
        if e.kind == "node":  # an IRI or a blank node: no literal parsing needed
            x = self.let(e.sql)
            return _Ex(f"iri_lex({x})", "str", iri_text=x)
        return _Ex(self.call("nt_lex", e.sql), "str")

    def e_Builtin_IRI(self, node, env, nullable):
        e = self.expr(node.arg, env, nullable)
        if e.kind == "str" and e.iri_suffix is not None:
            # STR(<iri>) followed by constant IRI characters is a valid IRI: no validation needed
            # (the stored form kept: a cast's IRI and its suffix as stored, any other IRI put in it, if it now is one)
            base = self.let(e.iri_suffix[0])
            return _Ex(self.call("nt_compact", f"(CASE WHEN substr({base}, 1, 1) = '<' THEN substr({base}, 1, length({base}) - 1) || "
                                               f"{q(e.iri_suffix[1])} || '>' END)"), "node")
        if e.kind == "str":
            return _Ex(self.call("iri_of", e.sql), "term")
        if e.kind in ("term", "node"):
            return _Ex(self.call("nt_iri", e.sql), "term")
        raise Unsupported("IRI of a non-string")

    e_Builtin_URI = e_Builtin_IRI

    def e_Builtin_CONCAT(self, node, env, nullable):
        exs = [self.expr(x, env, nullable) for x in node.arg]
        if any(e.kind == "str" for e in exs):
            # with one simple-literal argument the result is a simple literal, and a term argument counts by
            # its lexical form if it is a string literal (simple or language-tagged), else it is an error
            exs = [_Ex(self.call("nt_strlex", e.sql), "str") if e.kind == "term" and e.const is None else e for e in exs]
        exs = [self.as_str(e) for e in exs]
        out = _Ex("(" + " || ".join(e.sql for e in exs) + ")" if exs else "''", "str")
        rest = exs[1:]
        if exs and exs[0].iri_text is not None and all(e.literal is not None for e in rest):
            tail = "".join(e.literal for e in rest)
            if _IRI_TAIL.fullmatch(tail):
                out.iri_suffix = (exs[0].iri_text, tail)
        return out

    def e_Builtin_STRAFTER(self, node, env, nullable):
        a = self.let(self.as_str(self.expr(node.arg1, env, nullable)).sql)
        b = self.let(self.as_str(self.expr(node.arg2, env, nullable)).sql)
        return _Ex(f"(CASE WHEN strpos({a}, {b}) > 0 THEN substr({a}, strpos({a}, {b}) + length({b})) "
                   f"ELSE '' END)", "str")

    def e_Builtin_IF(self, node, env, nullable):
        c = self.let(self.as_bool(self.expr(node.arg1, env, nullable)).sql)
        x, y = self.expr(node.arg2, env, nullable), self.expr(node.arg3, env, nullable)
        if x.kind != y.kind:
            x, y = self.as_term(x), self.as_term(y)
        return _Ex(f"(CASE WHEN {c} THEN {x.sql} WHEN NOT {c} THEN {y.sql} END)", x.kind)

    def e_Builtin_BOUND(self, node, env, nullable):
        v = self.vname(node.arg)
        return _Ex(f"({env[v]} IS NOT NULL)" if v in env else "FALSE", "bool")

    def e_Builtin_sameTerm(self, node, env, nullable):
        a, b = self.as_term(self.expr(node.arg1, env, nullable)), self.as_term(self.expr(node.arg2, env, nullable))
        return _Ex(f"({a.sql} = {b.sql})", "bool")

    def _exists(self, node, env, nullable, negate: bool) -> _Ex:
        graph = node.graph
        if getattr(graph, "name", "") == "GroupGraphPatternSub":
            from rdflib.plugins.sparql.algebra import translateGroupGraphPattern

            graph = translateGroupGraphPattern(graph)
        # outer variables are substituted into the pattern (SPARQL 1.1 §18.6): they reach its filters
        # and triple patterns as correlated references
        mentioned = {self.vname(v) for v in _variables(node.graph)}
        if any(v in nullable and v in mentioned for v in env):
            raise Unsupported("EXISTS reading a possibly unbound variable")
        saved = self.subjects
        # the filtered solutions' values of the variables the pattern mentions seed it (one distinct row
        # per value set): evaluated alone and correlated, DuckDB may pair every cast's rows before the
        # correlation applies
        src = self._exists_source
        seeded = sorted(v for v in mentioned if src is not None and v in src[1].cols and v in env
                        and v not in src[1].nullable)
        # the pattern's own EXISTS (in a BIND, say) are not the filter's: they correlate, or seed from their
        # own FILTER
        self._exists_source = None
        try:
            if seeded:
                inner = self.pattern(graph, {v: r for v, r in env.items() if v not in seeded},
                                     seed=self._seed_of(src[0], src[1], seeded))
            else:
                inner = self.pattern(graph, env)
        finally:
            self._exists_source = src
        self.subjects = saved
        a = self.alias()
        shared = [v for v in inner.cols if v in env]
        if any(v in inner.nullable for v in shared) or any(v in nullable for v in shared):
            raise Unsupported("EXISTS on a possibly unbound variable")
        cond = " AND ".join(f"{a}.{inner.cols[v]} = {env[v]}" for v in shared) or "TRUE"
        sql = f"EXISTS (SELECT 1 FROM ({inner.sql}) AS {a} WHERE {cond})"
        return _Ex(f"(NOT {sql})" if negate else sql, "bool")

    def e_Builtin_EXISTS(self, node, env, nullable):
        return self._exists(node, env, nullable, False)

    def e_Builtin_NOTEXISTS(self, node, env, nullable):
        return self._exists(node, env, nullable, True)


def _has_exists(expr) -> bool:
    """Whether an expression holds an EXISTS or NOT EXISTS (not descending into their patterns)."""
    if isinstance(expr, dict):
        if getattr(expr, "name", "") in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
            return True
        return any(_has_exists(v) for k, v in expr.items() if k not in ("_vars",))
    if isinstance(expr, (list, tuple)):
        return any(_has_exists(x) for x in expr)
    return False


def _certain(node, tr: _Translator) -> set:
    """Variables every solution of an algebra node binds (an under-estimate: empty where unsure)."""
    from rdflib import Variable

    name = getattr(node, "name", None)
    if name == "BGP":
        return {tr.vname(t) for triple in node.get("triples") or [] for t in triple if isinstance(t, Variable)}
    if name == "Join":
        return _certain(node.p1, tr) | _certain(node.p2, tr)
    if name == "Union":
        return _certain(node.p1, tr) & _certain(node.p2, tr)
    if name in ("LeftJoin", "Minus"):
        return _certain(node.p1, tr)
    if name in ("Filter", "Extend", "ToMultiSet", "Distinct", "Reduced"):
        return _certain(node.p, tr)
    if name == "Project":
        return _certain(node.p, tr) & {tr.vname(v) for v in node.PV}
    return set()


def _term_vars(node, tr: _Translator) -> set:
    """Variables at the object of a shared- or reference-key pattern in any BGP under `node`."""
    from rdflib import URIRef, Variable

    out = set()
    keys = tr.layout.shared | tr.layout.reference

    def walk(n):
        if isinstance(n, dict):
            if getattr(n, "name", None) == "BGP":
                for s_, p, o in n.get("triples") or []:
                    if isinstance(p, URIRef) and isinstance(o, Variable) and ("p", str(p)) in keys:
                        out.add(tr.vname(o))
            for k, v in n.items():
                if k not in ("_vars", "PV"):
                    walk(v)
        elif isinstance(n, (list, tuple)):
            for x in n:
                walk(x)

    walk(node)
    return out


def _bgp_vars(bgp, tr: _Translator) -> set:
    """The variable names a BGP's triple patterns mention."""
    from rdflib import Variable

    return {tr.vname(t) for triple in bgp.get("triples") or [] for t in triple if isinstance(t, Variable)}


def _variables(node, out: set | None = None) -> set:
    """Every variable an algebra or parse-tree node mentions."""
    from rdflib import Variable

    out = set() if out is None else out
    if isinstance(node, Variable):
        out.add(node)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key != "_vars":
                _variables(value, out)
    elif isinstance(node, (list, tuple, set)):
        for x in node:
            _variables(x, out)
    return out


def _lex(nt: str) -> str:
    term = ox.parse(f"<urn:s> <urn:p> {nt} .", format=ox.RdfFormat.N_TRIPLES)
    return next(iter(term)).object.value


def translate(construct: str, rule_iri: str, prologue: str, layout: Layout | None = None) -> Translation:
    """Translate one rule (`?rule` bound to its IRI, as the engine binds it); raises Unsupported.

    `layout` only steers the join order (the engine derives it from its tables); the rows are the same.
    """
    from rdflib import BNode, Literal, URIRef, Variable
    from rdflib.plugins.sparql import prepareQuery

    query = prepareQuery(f"{prologue}{construct}\nVALUES ?rule {{ <{rule_iri}> }}")
    alg = query.algebra
    if alg.name != "ConstructQuery":
        raise Unsupported("not a CONSTRUCT")
    tr = _Translator(layout)
    tr.term_vars = _term_vars(alg.p, tr)
    top = alg.p
    if getattr(top, "name", "") == "Project":  # a CONSTRUCT's template reads every in-scope variable
        top = top.p
    pat = tr.pattern(top, {})
    template = []
    for s, p, o in alg.template or []:
        if not isinstance(p, URIRef):
            raise Unsupported("a variable predicate in the template")

        def term(t):
            if isinstance(t, Variable):
                v = tr.vname(t)
                return f"sol.{pat.cols[v]}" if v in pat.cols else None
            if isinstance(t, (URIRef, Literal)):
                return q(_nt(t))
            if isinstance(t, BNode):
                raise Unsupported("a blank node in the template")
            raise Unsupported(f"template term {t!r}")

        st = term(s)
        if st is None:
            continue  # never bound: the template triple is never made
        if str(p) == RDF_TYPE:
            if not isinstance(o, URIRef):
                raise Unsupported("rdf:type of a variable class in the template")
            template.append(("t", str(o), st, None))
        else:
            ot = term(o)
            if ot is None:
                continue
            template.append(("p", str(p), st, ot))
    sel = ", ".join(f"{c}" for c in pat.cols.values()) or "1 AS _one"
    return Translation(where=f"SELECT {sel} FROM ({pat.sql})", template=template,
                       reads=sorted(tr.reads), typed=tr.typed, ordered=tr.ordered, guards=list(tr.guards))
