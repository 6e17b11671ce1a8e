"""A group graph pattern flattened into units and put in a join order.

A unit is what the emitted code does at one nesting level: match a triple pattern, take a VALUES row, a
sub-select's row, a UNION's branch or an OPTIONAL's match, or test a FILTER, compute a BIND, test a MINUS. Joins
flatten (a join is commutative); FILTER, BIND and MINUS stay attached to the units of the pattern they apply to
(`scope`), which is what their expressions may see, and come as soon as the units of that pattern binding what
they mention are placed (`deps`). The order is greedy on the statistics (`stats.Stats`): at each step the unit
expected to match fewest rows given what is bound; a test as soon as it can run.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from liuyao_kg.reasoner.native.algebra import (
    BGP, Extend, Filter, Join, LeftJoin, Minus, PathOp, SubSelect, Union, Unsupported, Values, Var, bound_vars,
    expr_vars, pattern_vars,
)


@dataclass(eq=False)
class Unit:
    id: int
    kind: str  # tp, path, values, sub, union, opt, filter, extend, minus
    node: object  # the triple, the Values / SubSelect / Union / LeftJoin / Filter / Extend / Minus node, or expression
    mentions: frozenset  # variables it reads or binds (what must be kept for it)
    binds: frozenset  # variables it may bind
    scope: frozenset = frozenset()  # filter, extend, minus, opt: the units of the pattern it applies to
    deps: set = field(default_factory=set)  # units placed before it
    seq: int = 0  # position in the text (ties)


class Block:
    """The units of one group graph pattern (a union branch, an EXISTS or sub-select pattern are blocks of their own)."""

    def __init__(self, ids):
        self.units: list[Unit] = []
        self._ids = ids  # a counter shared by every block of a rule: unit ids are unique in it

    def add(self, kind: str, node, mentions, binds, scope=frozenset()) -> int:
        u = Unit(next(self._ids), kind, node, frozenset(mentions), frozenset(binds), frozenset(scope),
                 seq=len(self.units))
        self.units.append(u)
        return u.id


def flatten(node, block: Block) -> frozenset:
    """Add a pattern's units to a block; return their ids (the pattern's scope)."""
    if isinstance(node, BGP):
        return frozenset(block.add("path" if isinstance(t[1], PathOp) else "tp", t,
                                   {x.name for x in t if isinstance(x, Var)},
                                   {x.name for x in t if isinstance(x, Var)}) for t in node.triples)
    if isinstance(node, Join):
        return flatten(node.a, block) | flatten(node.b, block)
    if isinstance(node, Filter):
        inner = flatten(node.p, block)
        ids = {block.add("filter", c, expr_vars(c), (), inner) for c in conjuncts(node.expr)}
        return inner | ids
    if isinstance(node, Extend):
        inner = flatten(node.p, block)
        return inner | {block.add("extend", node, expr_vars(node.expr) | {node.var}, {node.var}, inner)}
    if isinstance(node, Minus):
        inner = flatten(node.a, block)
        return inner | {block.add("minus", node, pattern_vars(node.b), (), inner)}
    if isinstance(node, Union):
        return frozenset({block.add("union", node, pattern_vars(node), bound_vars(node)[1])})
    if isinstance(node, Values):
        return frozenset({block.add("values", node, node.vars, node.vars)})
    if isinstance(node, SubSelect):
        return frozenset({block.add("sub", node, node.project, node.project)})
    if isinstance(node, LeftJoin):
        inner = flatten(node.a, block)
        mentions = pattern_vars(node.b) | (expr_vars(node.expr) if node.expr is not None else set())
        opt = block.add("opt", node, mentions, bound_vars(node.b)[1], inner)
        return inner | {opt}
    raise Unsupported(f"{type(node).__name__} in a group")


def conjuncts(e) -> list:
    """A FILTER's `&&` split in tests: a solution passes `a && b` exactly when it passes `a` and `b`."""
    from liuyao_kg.reasoner.native.algebra import Call

    if isinstance(e, Call) and e.op == "&&":
        return conjuncts(e.args[0]) + conjuncts(e.args[1])
    return [e]


def dependencies(block: Block) -> None:
    """Fill each unit's `deps`: a test or BIND follows the units of its scope that bind what it mentions; an
    OPTIONAL follows its left side, and every unit outside that side follows the OPTIONAL (OPTIONALs one after the
    other in a group nest: each the left side of the next; two OPTIONALs neither of which is on the other's left
    side leave no order, Unsupported)."""
    units = {u.id: u for u in block.units}
    opts = [u for u in block.units if u.kind == "opt"]
    for u in block.units:
        if u.kind in ("filter", "extend", "minus"):
            needs = u.mentions - (u.binds if u.kind == "extend" else frozenset())
            u.deps |= {i for i in u.scope if i in units and units[i].binds & needs}
        elif u.kind == "opt":
            u.deps |= set(u.scope)
    for opt in opts:
        # what the OPTIONAL's left side certainly binds (a triple pattern, a path or VALUES row always binds its
        # variables): a FILTER over a pattern holding the OPTIONAL that reads none of the OPTIONAL's variables but
        # these tests the same before it (FILTER(e, A ⟕ B) = FILTER(e, A) ⟕ B when every variable of e that B may
        # bind is bound in A), so it is not made to wait: a label's language is tested before a dozen OPTIONALs
        certain = set().union(*(units[i].binds for i in opt.scope if units[i].kind in ("tp", "path", "values")))
        for u in block.units:
            if u.id != opt.id and u.id not in opt.scope:
                if u.kind == "filter" and opt.id in u.scope and (u.mentions & opt.binds) <= certain:
                    continue
                u.deps.add(opt.id)


def order(block: Block, bound: set, estimate) -> list[Unit]:
    """The units in a join order: greedy, fewest expected rows first, given `bound` (variables bound before the
    block) and `estimate(unit, bound) -> rows`."""
    dependencies(block)
    todo = list(block.units)
    placed: set[int] = set()
    out: list[Unit] = []
    bound = set(bound)
    while todo:
        ready = [u for u in todo if u.deps <= placed]
        if not ready:
            raise Unsupported("no order satisfies the group's scopes")
        best = min(ready, key=lambda u: (estimate(u, bound), u.seq))
        todo.remove(best)
        placed.add(best.id)
        out.append(best)
        bound |= best.binds
    return out
