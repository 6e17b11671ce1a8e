"""A rule's or a named SELECT's SPARQL algebra, read from rdflib's (parseQuery + translateQuery) into a few plain
classes.

Only the constructs the compiler emits code for have a class here; anything else raises `Unsupported` with
what it is, and that rule runs on pyoxigraph (`engine.NativeEngine`'s fallback list). rdflib's own quirks are
undone here: an EXISTS keeps its translated pattern as an attribute (the item is the parsed group), `&&` and
`||` are n-ary lists, a sub-select's projected group keys come wrapped in SAMPLE, a VALUES cell may be 'UNDEF'.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import lru_cache

from liuyao_kg.reasoner.native.terms import from_rdflib


class Unsupported(Exception):
    """A construct the native compiler does not translate: the rule runs on pyoxigraph."""


@dataclass(frozen=True)
class Var:
    name: str


# ---- graph patterns -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PathOp:
    """A triple pattern's predicate that is `p*` (zero or more) or `p?` (zero or one) of one IRI: its solutions are
    distinct pairs (SPARQL 1.1 §18.4: ALP). A sequence `p1/p2` is expanded into triple patterns instead."""

    kind: str  # '*' or '?'
    pred: str


@dataclass(eq=False)
class BGP:
    triples: list  # [(s, p, o)] of Var or native terms


@dataclass(eq=False)
class Join:
    a: object
    b: object


@dataclass(eq=False)
class LeftJoin:
    a: object
    b: object
    expr: object | None


@dataclass(eq=False)
class Minus:
    a: object
    b: object


@dataclass(eq=False)
class Union:
    branches: list


@dataclass(eq=False)
class Filter:
    expr: object
    p: object


@dataclass(eq=False)
class Extend:
    p: object
    var: str
    expr: object


@dataclass(eq=False)
class Values:
    vars: list[str]
    rows: list[tuple]  # terms, None for UNDEF


@dataclass(eq=False)
class Aggregate:
    kind: str  # count, min, max, sample
    arg: object | None  # an expression, None for COUNT(*)
    distinct: bool


@dataclass(eq=False)
class SubSelect:
    """A sub-select: its pattern, GROUP BY keys (None: no grouping), and each projected variable as a group key
    (str) or an Aggregate; evaluated on its own, joined by the variables it projects."""

    p: object
    keys: list[str] | None
    project: dict = field(default_factory=dict)  # var → key var name | Aggregate


# ---- expressions ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Const:
    term: object


@dataclass(eq=False)
class Call:
    op: str  # '=', '!=', '<', …, '&&', '||', '!', 'IN', 'NOT IN', '+', '-', '*', '/', 'neg', 'STR', 'IRI', …
    args: list


@dataclass(eq=False)
class Exists:
    p: object
    negated: bool


@dataclass(eq=False)
class Select:
    """A SELECT query: its WHERE pattern, projected variables, DISTINCT, and ORDER BY [(expression, descending)]."""

    where: object
    project: list[str]
    distinct: bool
    order: list  # [(expression, bool)]


# ---- reading rdflib ------------------------------------------------------------------------------------------

def _translated(text: str):
    """rdflib's algebra of a query text (prologue included), a constant FILTER refused (`_refuse_constant_filters`)."""
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    try:
        parsed = parseQuery(text)
        _refuse_constant_filters(parsed)
        return translateQuery(parsed).algebra
    except Unsupported:
        raise
    except Exception as e:  # rdflib's parser lags SPARQL 1.1 in places pyoxigraph does not
        raise Unsupported(f"rdflib cannot read it: {type(e).__name__}: {str(e).splitlines()[0][:200]}") from e


@lru_cache(maxsize=None)
def read_construct(text: str):
    """(WHERE pattern, template) of a CONSTRUCT query text (prologue included); memoised, as rdflib's parser takes
    ~20 ms a rule (the compiler never changes what it reads)."""
    algebra = _translated(text)
    if algebra.name != "ConstructQuery":
        raise Unsupported(f"a {algebra.name}, not a CONSTRUCT")
    if algebra.get("datasetClause"):
        raise Unsupported("FROM / FROM NAMED")
    template = [tuple(_term(t) for t in triple) for triple in algebra.get("template") or []]
    where = algebra["p"]
    if getattr(where, "name", "") == "Project":  # a CONSTRUCT's projection is all its variables
        where = where["p"]
    return pattern(where), template


@lru_cache(maxsize=None)
def read_select(text: str) -> Select:
    """The algebra of a SELECT query text (prologue included); memoised as `read_construct`."""
    algebra = _translated(text)
    if algebra.name != "SelectQuery":
        raise Unsupported(f"a {algebra.name}, not a SELECT")
    if algebra.get("datasetClause"):
        raise Unsupported("FROM / FROM NAMED")
    node = algebra["p"]
    distinct = False
    if getattr(node, "name", None) == "Distinct":
        distinct, node = True, node["p"]
    if getattr(node, "name", None) != "Project":
        raise Unsupported(f"a SELECT whose solution modifier is {getattr(node, 'name', node)}")
    project = [str(v) for v in node.get("PV") or []]
    node = node["p"]
    order = []
    if getattr(node, "name", None) == "OrderBy":
        for c in node["expr"]:
            if getattr(c, "name", None) == "OrderCondition":
                order.append((expression(c["expr"]), c.get("order") == "DESC"))
            else:
                order.append((expression(c), False))
        node = node["p"]
    if getattr(node, "name", None) in ("Slice", "Distinct", "Reduced", "Project", "OrderBy", "AggregateJoin"):
        raise Unsupported(f"a SELECT's {node.name} under its projection")
    return Select(_pin_predicates(pattern(node)), project, distinct, order)


def _pin_predicates(node):
    """A group's FILTER(?p IN (iri, …)) on a variable its triple patterns bind as a predicate, also a VALUES ?p
    joined with the group: the same solutions (a triple pattern binds ?p to an IRI, and an IRI equals each option or
    not, never errs), and the pattern then reads the index by those predicates, never by any."""
    if isinstance(node, Filter):
        inner = _pin_predicates(node.p)
        pinned = []
        for c in _conjuncts(node.expr):
            if (isinstance(c, Call) and c.op == "IN" and isinstance(c.args[0], Var)
                    and all(isinstance(x, Const) and type(x.term) is str for x in c.args[1])
                    and c.args[0].name in _group_predicates(inner)):
                pinned.append(Values([c.args[0].name], [(x.term,) for x in c.args[1]]))
        for v in pinned:
            inner = Join(v, inner)
        return Filter(node.expr, inner)
    for attr in ("p", "a", "b"):
        if hasattr(node, attr) and not isinstance(node, SubSelect):
            setattr(node, attr, _pin_predicates(getattr(node, attr)))
    if isinstance(node, Union):
        node.branches = [_pin_predicates(b) for b in node.branches]
    return node


def _conjuncts(e) -> list:
    if isinstance(e, Call) and e.op == "&&":
        return _conjuncts(e.args[0]) + _conjuncts(e.args[1])
    return [e]


def _group_predicates(node) -> set[str]:
    """The variables the triple patterns of a group (not of its OPTIONAL, UNION, MINUS or nested parts) bind as a
    predicate: every solution of the group binds them."""
    if isinstance(node, BGP):
        return {t[1].name for t in node.triples if isinstance(t[1], Var)}
    if isinstance(node, Join):
        return _group_predicates(node.a) | _group_predicates(node.b)
    if isinstance(node, (Filter, Extend)):
        return _group_predicates(node.p)
    if isinstance(node, (LeftJoin, Minus)):
        return _group_predicates(node.a)
    return set()


#: the parse tree's one-operand levels of an expression (what `1` parses into)
_WRAPPERS = {"ConditionalOrExpression", "ConditionalAndExpression", "RelationalExpression", "AdditiveExpression",
             "MultiplicativeExpression"}


def _refuse_constant_filters(node) -> None:
    """rdflib drops a group's FILTER whose expression is one literal its Python truth calls false (FILTER(""),
    FILTER(0), FILTER(false): `if filters:`), keeping the solutions SPARQL removes: refused, not mistranslated."""
    from pyparsing import ParseResults
    from rdflib import Literal
    from rdflib.plugins.sparql.parserutils import CompValue

    if isinstance(node, CompValue):
        if node.name == "Filter":
            expr = node.get("expr")
            while isinstance(expr, CompValue) and expr.name in _WRAPPERS and "other" not in expr:
                expr = expr.get("expr")
            if isinstance(expr, Literal) or (isinstance(expr, CompValue) and expr.name == "literal"):
                raise Unsupported("a FILTER of a constant literal (rdflib drops a false one)")
        for value in node.values():
            _refuse_constant_filters(value)
    elif isinstance(node, (list, tuple, ParseResults)):
        for item in node:
            _refuse_constant_filters(item)


def _term(t):
    from rdflib import Variable

    if isinstance(t, Variable):
        return Var(str(t))
    return from_rdflib(t)


def pattern(node):
    name = getattr(node, "name", None)
    if name == "BGP":
        triples = []
        for t in node.get("triples") or []:
            if len(t) != 3 or not _is_term(t[0]) or not _is_term(t[2]):
                raise Unsupported("a triple pattern of no three terms")
            if _is_term(t[1]):
                triples.append(tuple(_term(x) for x in t))
            else:
                triples += _path_triples(_term(t[0]), t[1], _term(t[2]))
        return BGP(triples)
    if name == "Join":
        return Join(pattern(node["p1"]), pattern(node["p2"]))
    if name == "LeftJoin":
        expr = node.get("expr")
        if getattr(expr, "name", None) == "TrueFilter":
            expr = None
        return LeftJoin(pattern(node["p1"]), pattern(node["p2"]), None if expr is None else expression(expr))
    if name == "Minus":
        return Minus(pattern(node["p1"]), pattern(node["p2"]))
    if name == "Union":
        branches = []
        for side in (node["p1"], node["p2"]):
            p = pattern(side)
            branches.extend(p.branches if isinstance(p, Union) else [p])
        return Union(branches)
    if name == "Filter":
        return Filter(expression(node["expr"]), pattern(node["p"]))
    if name == "Extend":
        return Extend(pattern(node["p"]), str(node["var"]), expression(node["expr"]))
    if name == "ToMultiSet":
        inner = node["p"]
        if getattr(inner, "name", None) == "values":
            return _values(inner)
        if getattr(inner, "name", None) == "Project":
            return _subselect(inner)
        raise Unsupported(f"ToMultiSet of {getattr(inner, 'name', inner)}")
    if name == "values":
        return _values(node)
    raise Unsupported(f"the graph pattern {name}")


_FRESH = itertools.count()


def _path_triples(s, path, o) -> list:
    """A property path as triple patterns: a sequence joined through fresh variables (never projected: their
    names are no SPARQL variable's), `p*` and `p?` of an IRI as a PathOp predicate; any other path Unsupported."""
    from rdflib import URIRef
    from rdflib.paths import MulPath, SequencePath

    if isinstance(path, URIRef):
        return [(s, str(path), o)]
    if isinstance(path, SequencePath):
        steps = list(path.args)
        out = []
        here = s
        for i, step in enumerate(steps):
            there = o if i == len(steps) - 1 else Var(f"path {next(_FRESH)}")
            out += _path_triples(here, step, there)
            here = there
        return out
    if isinstance(path, MulPath) and isinstance(path.path, URIRef) and path.mod in ("*", "?"):
        return [(s, PathOp(path.mod, str(path.path)), o)]
    raise Unsupported(f"the property path {path.n3() if hasattr(path, 'n3') else path}")


def _is_term(x) -> bool:
    from rdflib.term import Identifier

    return isinstance(x, Identifier)


def _values(node) -> Values:
    rows = node.get("res") or []
    names: list[str] = []
    for row in rows:
        for v in row:
            if str(v) not in names:
                names.append(str(v))
    out = []
    for row in rows:
        by_name = {str(k): v for k, v in row.items()}
        out.append(tuple(None if by_name.get(n) in (None, "UNDEF") else from_rdflib(by_name[n]) for n in names))
    return Values(names, out)


def _subselect(project) -> SubSelect:
    projected = [str(v) for v in project.get("PV") or []]
    inner = project["p"]
    renames: dict[str, object] = {}
    while getattr(inner, "name", None) == "Extend":
        expr = inner["expr"]
        if not isinstance(expr, _rdflib_var()):
            raise Unsupported("a computed projection in a sub-select")
        renames[str(inner["var"])] = str(expr)
        inner = inner["p"]
    if getattr(inner, "name", None) != "AggregateJoin":
        if renames:
            raise Unsupported("a sub-select's BIND over no aggregate")
        return SubSelect(pattern(inner), None, {v: v for v in projected})
    group = inner["p"]
    if getattr(group, "name", None) != "Group":
        raise Unsupported("an aggregate over no GROUP")
    keys = group.get("expr")
    if keys is not None:
        if not all(isinstance(k, _rdflib_var()) for k in keys):
            raise Unsupported("GROUP BY an expression")
        keys = [str(k) for k in keys]
    aggregates: dict[str, object] = {}
    for a in inner.get("A") or []:
        res = str(a["res"])
        kind = a.name.removeprefix("Aggregate_").lower()
        arg = a.get("vars")
        if kind == "sample":
            if not isinstance(arg, _rdflib_var()) or keys is None or str(arg) not in keys:
                raise Unsupported("SAMPLE of what is not a group key")
            aggregates[res] = str(arg)
            continue
        if kind not in ("count", "min", "max"):
            raise Unsupported(f"the aggregate {kind.upper()}")
        distinct = a.get("distinct") == "DISTINCT"
        aggregates[res] = Aggregate(kind, None if arg == "*" else expression(arg), distinct)
    project_map = {}
    for v in projected:
        source = renames.get(v, v)
        if source in aggregates:
            project_map[v] = aggregates[source]
        elif keys is not None and source in keys:
            project_map[v] = source
        else:
            raise Unsupported(f"the sub-select projects ?{v}, neither a group key nor an aggregate")
    return SubSelect(pattern(group["p"]), keys, project_map)


def _rdflib_var():
    from rdflib import Variable

    return Variable


_RELATIONAL = {"=", "!=", "<", ">", "<=", ">=", "IN", "NOT IN"}
_BUILTINS = {"STR": 1, "IRI": 1, "URI": 1, "CONCAT": None, "STRAFTER": 2, "STRBEFORE": 2, "IF": 3, "BOUND": 1,
             "COALESCE": None, "LANG": 1, "LANGMATCHES": 2, "STRENDS": 2}
XSD_BOOLEAN_IRI = "http://www.w3.org/2001/XMLSchema#boolean"


def expression(e):
    from rdflib import Literal, URIRef, Variable

    if isinstance(e, Variable):
        return Var(str(e))
    if isinstance(e, (URIRef, Literal)):
        return Const(from_rdflib(e))
    name = getattr(e, "name", None)
    if name == "RelationalExpression":
        op = e["op"]
        if op not in _RELATIONAL:
            raise Unsupported(f"the operator {op}")
        if op in ("IN", "NOT IN"):
            return Call(op, [expression(e["expr"]), [expression(x) for x in e["other"]]])
        return Call(op, [expression(e["expr"]), expression(e["other"])])
    if name in ("ConditionalAndExpression", "ConditionalOrExpression"):
        op = "&&" if name == "ConditionalAndExpression" else "||"
        out = expression(e["expr"])
        for other in e.get("other") or []:
            out = Call(op, [out, expression(other)])
        return out
    if name in ("AdditiveExpression", "MultiplicativeExpression"):
        out = expression(e["expr"])
        for op, other in zip(e.get("op") or [], e.get("other") or []):
            out = Call(op, [out, expression(other)])
        return out
    if name == "UnaryNot":
        return Call("!", [expression(e["expr"])])
    if name == "UnaryMinus":
        return Call("neg", [expression(e["expr"])])
    if name == "UnaryPlus":
        return Call("pos", [expression(e["expr"])])
    if name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
        # the translated pattern is an attribute; the item "graph" is the parsed group (no nested FILTERs)
        return Exists(pattern(vars(e)["graph"]), negated=name == "Builtin_NOTEXISTS")
    if name == "Function":
        if str(e["iri"]) != XSD_BOOLEAN_IRI:
            raise Unsupported(f"the function <{e['iri']}>")
        args = e.get("expr") or []
        if len(args) != 1:
            raise Unsupported("xsd:boolean of other than one argument")
        return Call("xsd:boolean", [expression(args[0])])
    if name and name.startswith("Builtin_"):
        fn = name.removeprefix("Builtin_")
        if fn not in _BUILTINS:
            raise Unsupported(f"the function {fn}")
        arity = _BUILTINS[fn]
        if arity is None:
            args = e["arg"]
            args = [expression(a) for a in (args if isinstance(args, list) else [args])]
        elif arity == 1:
            args = [expression(e["arg"])]
        else:
            args = [expression(e[f"arg{i}"]) for i in range(1, arity + 1)]
        return Call("IRI" if fn == "URI" else fn, args)
    raise Unsupported(f"the expression {name or type(e).__name__}")


# ---- what a pattern or expression mentions -----------------------------------------------------------------

def expr_vars(e) -> set[str]:
    """Every variable an expression mentions, inside its EXISTS patterns too (they are substituted there)."""
    if isinstance(e, Var):
        return {e.name}
    if isinstance(e, Const):
        return set()
    if isinstance(e, Exists):
        return pattern_vars(e.p)
    if isinstance(e, Call):
        out: set[str] = set()
        for a in e.args:
            for x in a if isinstance(a, list) else [a]:
                out |= expr_vars(x)
        return out
    raise TypeError(e)


def pattern_vars(p) -> set[str]:
    """Every variable a pattern mentions anywhere (a sub-select: only those it projects)."""
    if isinstance(p, BGP):
        return {x.name for t in p.triples for x in t if isinstance(x, Var)}
    if isinstance(p, (Join, Minus)):
        return pattern_vars(p.a) | pattern_vars(p.b)
    if isinstance(p, LeftJoin):
        return pattern_vars(p.a) | pattern_vars(p.b) | (expr_vars(p.expr) if p.expr is not None else set())
    if isinstance(p, Union):
        return set().union(*(pattern_vars(b) for b in p.branches))
    if isinstance(p, Filter):
        return pattern_vars(p.p) | expr_vars(p.expr)
    if isinstance(p, Extend):
        return pattern_vars(p.p) | expr_vars(p.expr) | {p.var}
    if isinstance(p, Values):
        return set(p.vars)
    if isinstance(p, SubSelect):
        return set(p.project)
    raise TypeError(p)


def bound_vars(p) -> tuple[set[str], set[str]]:
    """(certain, possible): the variables every solution of a pattern binds, and those some solution may bind."""
    if isinstance(p, BGP):
        vs = pattern_vars(p)
        return vs, set(vs)
    if isinstance(p, Join):
        ca, pa = bound_vars(p.a)
        cb, pb = bound_vars(p.b)
        return ca | cb, pa | pb
    if isinstance(p, LeftJoin):
        ca, pa = bound_vars(p.a)
        _, pb = bound_vars(p.b)
        return ca, pa | pb
    if isinstance(p, Minus):
        return bound_vars(p.a)
    if isinstance(p, Union):
        sides = [bound_vars(b) for b in p.branches]
        return set.intersection(*(c for c, _ in sides)), set().union(*(q for _, q in sides))
    if isinstance(p, Filter):
        return bound_vars(p.p)
    if isinstance(p, Extend):
        c, q = bound_vars(p.p)
        return c, q | {p.var}
    if isinstance(p, Values):
        return {v for i, v in enumerate(p.vars) if all(r[i] is not None for r in p.rows)}, set(p.vars)
    if isinstance(p, SubSelect):
        inner, _ = bound_vars(p.p)
        certain = {v for v, src in p.project.items()
                   if (isinstance(src, str) and src in inner) or (isinstance(src, Aggregate) and src.kind == "count")}
        return certain, set(p.project)
    raise TypeError(p)
