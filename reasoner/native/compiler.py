"""A rule's CONSTRUCT compiled to Python source: one function per rule, nested loops over the triple index.

Each unit of a planned group (`planner`) emits one nesting level; what follows it is emitted inside it, down to
the CONSTRUCT template, which appends triples. A variable is a Python local bound once on each code path; where
SPARQL leaves a variable bound or not at run time (a BIND that may err, a UNION's branches, an OPTIONAL), the
code that follows is emitted once for each case, so every local is bound wherever it is read. Which variables an
expression sees is SPARQL's, not the loop nest's: a binding remembers the units that bound it (`Binding.sources`)
and an expression sees it only when one of them is in its pattern (`visible`); inside EXISTS the solution's
variables are substituted everywhere (pyoxigraph evaluates EXISTS from the current tuple).

EXISTS, MINUS, OPTIONAL and sub-selects become helper functions; a sub-select is evaluated once per rule call and
joined by the variables it shares. Where only which solutions exist matters (a CONSTRUCT, an EXISTS), a pattern
whose variables nothing reads is a membership test and a loop stops at its first match once nothing reads what it
bound (a semi-join). Past SPLIT_AT levels the rest of a rule is a nested function (Python allows 20 nested blocks).
Anything not listed in `algebra` raises `Unsupported` while compiling: the rule then runs on pyoxigraph.

A named SELECT (`QueryCompiler`) is compiled the same way with bag semantics: its continuation appends a row of the
projected variables (and the ORDER BY keys), then ORDER BY and DISTINCT are applied in Python (`runtime._rows`).
Its parameters are the function's arguments, bound before the pattern (visible everywhere, as SEP-0007 substitutes
them). A SELECT's OPTIONALs and BINDs would double the code emitted after each (a dozen in a query): there a
variable they may leave unbound is a local that may hold None (`Binding.maybe`), read as unbound by the expressions
and the row, and split into its bound and unbound cases only before a unit that joins on it.
"""
from __future__ import annotations

import itertools
import re
import zlib
from typing import NamedTuple

from liuyao_kg.reasoner.native import runtime
from liuyao_kg.reasoner.native.algebra import (
    Aggregate, Call, Const, Exists, SubSelect, Unsupported, Var, bound_vars, expr_vars, pattern_vars,
    read_construct, read_select,
)
from liuyao_kg.reasoner.native.planner import Block, Unit, flatten, order
from liuyao_kg.reasoner.native.terms import BNode, XSD_STRING

SUBST = -1  # the source of a variable substituted into an EXISTS pattern: visible everywhere in it
OUTER = -2  # the source of a binding a pattern evaluated on its own is joined with: constrains, never visible
ALL = None  # a visibility that sees every binding
#: the nesting level past which the rest of a rule goes to a nested function
SPLIT_AT = 14

#: characters a constant may add to an IRI and leave it an IRI (path characters, RFC 3987 iunreserved ASCII part)
_SAFE_SUFFIX = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/]*\Z")


class Binding(NamedTuple):
    name: str  # the Python local holding it
    sources: frozenset  # ids of the units that bound it (SUBST, OUTER)
    kind: str  # iri, node (IRI or blank node), lit, any
    maybe: bool = False  # the local may hold None: the variable left unbound (a SELECT's OPTIONAL or BIND)


class CE(NamedTuple):
    """A compiled expression: Python code giving a term (or None: error / unbound), whether it may give None,
    a static kind, and the term when constant."""

    code: str
    err: bool
    kind: str = "any"
    const: object = ...


class CB(NamedTuple):
    """A compiled condition: Python code giving True, False or None (error), whether it may give None."""

    code: str
    err: bool
    const: object = ...


def visible(b: Binding | None, vis) -> bool:
    if b is None:
        return False
    if vis is ALL or SUBST in b.sources:
        return True
    return not b.sources.isdisjoint(vis)


def term_kind(t) -> str:
    if type(t) is str:
        return "iri"
    if isinstance(t, BNode):
        return "node"
    return "lit"


class Lines:
    """Indented source lines. A line that does something a caller sees (appends a triple, a row, returns) is an
    effect; `pruned()` drops every loop and test whose body has none (code emitted for a case whose continuation
    turned out to produce nothing, say a BIND left unbound that every template triple needs)."""

    def __init__(self):
        self.out: list[str] = []
        self.effects: set[int] = set()

    def add(self, ind: int, text: str, effect: bool = False) -> None:
        if effect:
            self.effects.add(len(self.out))
        self.out.append("    " * ind + text)

    def mark(self) -> int:
        return len(self.out)

    def pruned(self) -> list[str]:
        lines = self.out
        depth = [len(line) - len(line.lstrip(" ")) for line in lines]

        def block(i: int, end: int) -> tuple[list[str], bool]:
            """Lines i..end at one indentation (and their bodies): the kept ones, and whether any is an effect."""
            out: list[str] = []
            productive = False
            j = i
            while j < end:
                k = j + 1
                while k < end and depth[k] > depth[j]:
                    k += 1
                line = lines[j]
                if line.endswith(":"):
                    body, useful = block(j + 1, k)
                    is_else = line.lstrip().startswith("else")
                    if useful:
                        out += [line, *body]
                        productive = True
                    elif not is_else and k < end and depth[k] == depth[j] and lines[k].lstrip().startswith("else"):
                        out += [line, " " * (depth[j] + 4) + "pass"]  # kept for its else
                else:
                    out.append(line)
                    productive = productive or j in self.effects
                j = k
            return out, productive

        return block(0, len(lines))[0]


class Module:
    """What the compiled rules share: constants (module globals) and helper functions."""

    def __init__(self):
        self.constants: dict = {}
        self.helpers: list[str] = []
        self._names = itertools.count()
        #: the predicates looked up by object (`po`) and scanned whole (`pp`); None: a variable one, any
        self.lookups: dict = {"po": set(), "pp": set()}
        #: every predicate a triple pattern or path reads, by any index (None: a variable one, any)
        self.reads: set | None = set()

    def looked_up(self, index: str, predicate) -> None:
        """A rule reads index `index` for this predicate (a Var: for any): a cast's index keeps only those."""
        if self.lookups[index] is not None:
            if isinstance(predicate, Var):
                self.lookups[index] = None
            else:
                self.lookups[index].add(predicate)

    def read(self, predicate) -> None:
        if self.reads is not None:
            if isinstance(predicate, Var):
                self.reads = None
            else:
                self.reads.add(predicate)

    def const(self, value) -> str:
        key = (type(value), value)
        name = self.constants.get(key)
        if name is None:
            name = self.constants[key] = f"_c{len(self.constants)}"
        return name

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self._names)}"

    def constant_lines(self) -> list[str]:
        out = []
        for (typ, value), name in self.constants.items():
            out.append(f"{name} = {_literal_source(value)}")
        return out


def _literal_source(value) -> str:
    if isinstance(value, BNode):
        return f"BNode({str(value)!r})"
    if isinstance(value, frozenset):
        return "frozenset((" + "".join(f"{_literal_source(v)}, " for v in sorted(value, key=repr)) + "))"
    if isinstance(value, tuple) and value and all(isinstance(v, tuple) or v is None for v in value):
        return "(" + "".join(f"{_literal_source(v)}, " for v in value) + ")"
    return repr(value)


class Function:
    """One emitted Python function (a rule or a helper) and the index structures it reads."""

    def __init__(self, name: str, params: list[str], returns: bool = False):
        self.name, self.params = name, params
        #: an EXISTS or MINUS test: its body returns True at the first solution
        self.returns = returns
        self.lines = Lines()
        self.uses: set[str] = set()
        self.prologue: list[str] = []
        self.memos: set[str] = set()  # locals of the prologue the body assigns (sub-select results)
        self.nested: list[str] = []  # functions of the continuation past SPLIT_AT nesting levels
        self._tmp = itertools.count()

    def tmp(self, prefix: str = "_t") -> str:
        return f"{prefix}{next(self._tmp)}"

    def source(self, epilogue: list[str]) -> str:
        head = [f"def {self.name}({', '.join(['X', *self.params])}):"]
        for attr, local in (("sp", "SP"), ("po", "PO"), ("pp", "PP"), ("spo", "SPO")):
            if local in self.uses:
                head.append(f"    {local} = X.{attr}")
        head += ["    " + p for p in self.prologue]
        head += self.nested
        return "\n".join(head + self.lines.pruned() + ["    " + e for e in epilogue]) + "\n"


class RuleCompiler:
    """Compiles one rule into `module`: its function and helpers."""

    def __init__(self, module: Module, stats, fn_name: str):
        self.m, self.stats, self.fn_name = module, stats, fn_name
        self._ids = itertools.count()
        self._helpers: dict = {}
        #: a variable an OPTIONAL or a BIND may leave unbound is a local holding None (a SELECT's; see the docstring)
        self.nullable = False
        #: {variable bound as a predicate by VALUES: its IRIs} (what a pattern with that predicate reads)
        self._pinned: dict = {}

    # ---- the rule ---------------------------------------------------------------------------------------

    def compile(self, text: str) -> str:
        """The rule's function source (helpers go to the module); `text` with its prologue and ?rule VALUES."""
        where, template = read_construct(text)
        for t in template:
            if any(isinstance(x, BNode) for x in t):
                raise Unsupported("a blank node in the template")
        f = Function(self.fn_name, [])
        f.prologue.append("out = []")
        f.prologue.append("_add = out.append")
        needs = {x.name for t in template for x in t if isinstance(x, Var)}

        def emit_template(fn: Function, env: dict, ind: int) -> None:
            for s, p, o in template:
                parts, guards = [], []
                for pos, x in (("s", s), ("p", p), ("o", o)):
                    if isinstance(x, Var):
                        b = env.get(x.name)
                        if b is None:
                            break
                        parts.append(b.name)
                        if pos == "s" and b.kind in ("lit", "any"):
                            guards.append(f"type({b.name}) is not tuple")
                        elif pos == "p" and b.kind != "iri":
                            guards.append(f"type({b.name}) is str")
                    else:
                        if (pos == "s" and type(x) is tuple) or (pos == "p" and type(x) is not str):
                            break
                        parts.append(self.m.const(x))
                else:
                    line = f"_add(({', '.join(parts)}))"
                    if guards:
                        fn.lines.add(ind, f"if {' and '.join(guards)}:")
                        fn.lines.add(ind + 1, line, effect=True)
                    else:
                        fn.lines.add(ind, line, effect=True)

        self.emit_pattern(f, where, {}, 1, emit_template, needs, True)
        return f.source(["return out"])

    # ---- patterns ---------------------------------------------------------------------------------------

    def emit_pattern(self, fn: Function, node, env: dict, ind: int, k, needs: set, set_semantics: bool) -> None:
        """Emit code running `k(fn, env, ind)` once for each solution of `node` joined with `env`'s bindings.

        `needs`: the variables `k` reads; `set_semantics`: only which solutions exist matters, not how many (a
        CONSTRUCT, an EXISTS): a triple pattern binding only variables no one reads is then a membership test.
        """
        block = Block(self._ids)
        flatten(node, block)
        units = order(block, set(env), self.estimate)
        needed = []
        after = set(needs)
        for u in reversed(units):
            needed.append(frozenset(after))
            after |= u.mentions
        needed.reverse()
        self._emit_units(fn, units, 0, env, ind, k, needed, set_semantics)

    def _emit_units(self, fn, units: list[Unit], i: int, env: dict, ind: int, k, needed, set_sem,
                    loops: tuple = ()) -> None:
        """Emit units[i:] then `k`. `loops`: for each enclosing loop over a triple pattern whose body, so far, only
        tests (set semantics), the variables bound from it on: once none is read any more, every further iteration
        would emit the same, so the rest is followed by `break` (a semi-join)."""
        if loops and i > 0 and not (loops[-1] & needed[i - 1]):
            self._emit_units(fn, units, i, env, ind, k, needed, set_sem)
            fn.lines.add(ind, "break")
            return
        if ind >= SPLIT_AT:
            self._split(fn, units, i, env, ind, k, needed, set_sem)
            return
        if i == len(units):
            k(fn, env, ind)
            return
        u = units[i]
        if self.nullable:
            maybe = [v for v in sorted(self._joined(u, env)) if env[v].maybe]
            if maybe:
                self._unmaybe(fn, maybe, env, ind, lambda env2, ind2: self._emit_units(
                    fn, units, i, env2, ind2, k, needed, set_sem, loops))
                return
        if loops and not self._tests_only(u, env):
            loops = ()

        def rest(env2: dict, ind2: int) -> None:
            # what a loop's iteration binds includes what the tests after it compute from its variables (a BIND)
            new = frozenset(env2.keys() - env.keys())
            inner = tuple(m | new for m in loops) if new else loops
            if set_sem and u.kind == "tp" and new:
                inner = (*inner, new)
            self._emit_units(fn, units, i + 1, env2, ind2, k, needed, set_sem, inner)

        getattr(self, f"_emit_{u.kind}")(fn, u, env, ind, rest, needed[i], set_sem)

    @staticmethod
    def _joined(u: Unit, env: dict) -> set:
        """The variables bound in `env` a unit reads as a join (not as an expression's value, which may be None):
        a pattern's, an EXISTS pattern's in a test, a BIND's own variable."""
        if u.kind in ("filter", "extend"):
            e = u.node if u.kind == "filter" else u.node.expr
            out = _exists_vars(e)
            if u.kind == "extend":
                out.add(u.node.var)
            return out & env.keys()
        return u.mentions & env.keys()

    def _unmaybe(self, fn, maybe: list, env: dict, ind: int, rest) -> None:
        """Emit `rest` for each case of the `maybe` variables: bound (not None) or not."""
        if not maybe:
            rest(env, ind)
            return
        v, more = maybe[0], maybe[1:]
        b = env[v]
        fn.lines.add(ind, f"if {b.name} is not None:")
        env2 = dict(env)
        env2[v] = b._replace(maybe=False)
        self._unmaybe(fn, more, env2, ind + 1, rest)
        env3 = {x: y for x, y in env.items() if x != v}
        self._else(fn, ind, lambda ind2: self._unmaybe(fn, more, env3, ind2, rest))

    @staticmethod
    def _tests_only(u: Unit, env: dict) -> bool:
        """Whether a unit's code is a test (an if, or an if and its else), no loop and no second branch to run."""
        if u.kind in ("filter", "minus", "extend"):
            return True
        if u.kind == "tp":
            return all(not isinstance(x, Var) or x.name in env for x in u.node)
        return False

    def _split(self, fn, units, i, env, ind, k, needed, set_sem) -> None:
        """Emit the rest as a function nested in `fn` (Python allows 20 nested blocks), called here with the
        bindings: it sees the function's locals (the output, the memos) as a closure does."""
        name = fn.tmp("_k")
        params = sorted(b.name for b in env.values())
        saved, memos = fn.lines, set(fn.memos)
        fn.lines = Lines()
        self._emit_units(fn, units, i, env, 1, k, needed, set_sem)
        body, fn.lines = fn.lines, saved
        assigned = sorted(fn.memos - memos)
        fn.nested.append(f"    def {name}({', '.join(params)}):")
        if assigned:
            fn.nested.append(f"        nonlocal {', '.join(assigned)}")
        fn.nested += ["    " + line for line in body.pruned()] or ["        pass"]
        call = f"{name}({', '.join(params)})"
        if fn.returns:
            fn.lines.add(ind, f"if {call}:")
            fn.lines.add(ind + 1, "return True", effect=True)
        else:
            fn.lines.add(ind, call, effect=True)

    def _name(self, var: str) -> str:
        return f"v_{var}" if var.isidentifier() and var.isascii() else f"v{zlib.crc32(var.encode())}"

    def _bind(self, env: dict, var: str, uid: int, kind: str, maybe: bool = False) -> dict:
        env2 = dict(env)
        env2[var] = Binding(self._name(var), frozenset({uid}), kind, maybe)
        return env2

    def _also(self, env: dict, var: str, uid: int, kind: str | None = None) -> dict:
        """`var`, already bound, is bound by unit `uid` too (it constrained it): visible to that unit's scopes."""
        b = env[var]
        env2 = dict(env)
        k = b.kind if kind is None or b.kind == kind else _meet(b.kind, kind)
        env2[var] = b._replace(sources=b.sources | {uid}, kind=k)
        return env2

    def _position(self, x, env: dict):
        if isinstance(x, Var):
            b = env.get(x.name)
            return ("b", b.name) if b is not None else ("f", x.name)
        return ("c", self.m.const(x))

    def _emit_tp(self, fn, u: Unit, env, ind, rest, needed, set_sem) -> None:
        s, p, o = u.node
        if not isinstance(s, Var) and type(s) is tuple:
            return  # a literal subject matches nothing
        ps, pp, po = self._position(s, env), self._position(p, env), self._position(o, env)
        if pp[0] == "f":
            raise Unsupported("a variable predicate")
        P = pp[1]
        preds = (p,)
        if isinstance(p, Var):
            pinned = self._pinned.get(p.name)
            if pinned is not None and env[p.name].sources <= pinned[0]:
                preds = tuple(sorted(pinned[1]))  # the IRIs a VALUES binds it to: what the lookups below read
            elif self.nullable:
                raise Unsupported("a variable predicate bound otherwise than by VALUES")
        for q in preds:
            self.m.read(q)
        env2 = env
        for x, kind in ((s, "node"), (p, "iri"), (o, "any")):
            if isinstance(x, Var) and x.name in env:
                env2 = self._also(env2, x.name, u.id, kind)
        if ps[0] != "f" and po[0] != "f":
            fn.uses.add("SPO")
            fn.lines.add(ind, f"if ({ps[1]}, {P}, {po[1]}) in SPO:")
            rest(env2, ind + 1)
            return
        if ps[0] != "f":
            dead = set_sem and o.name not in needed
            fn.uses.add("SP")
            if dead:
                fn.lines.add(ind, f"if ({ps[1]}, {P}) in SP:")
                rest(env2, ind + 1)
                return
            env3 = self._bind(env2, o.name, u.id, "any")
            fn.lines.add(ind, f"for {env3[o.name].name} in SP.get(({ps[1]}, {P}), _E):")
            rest(env3, ind + 1)
            return
        if po[0] != "f":
            dead = set_sem and s.name not in needed
            fn.uses.add("PO")
            for q in preds:
                self.m.looked_up("po", q)
            if dead:
                fn.lines.add(ind, f"if ({P}, {po[1]}) in PO:")
                rest(env2, ind + 1)
                return
            env3 = self._bind(env2, s.name, u.id, "node")
            fn.lines.add(ind, f"for {env3[s.name].name} in PO.get(({P}, {po[1]}), _E):")
            rest(env3, ind + 1)
            return
        fn.uses.add("PP")
        for q in preds:
            self.m.looked_up("pp", q)
        if s.name == o.name:
            env3 = self._bind(env2, s.name, u.id, "node")
            name, other = env3[s.name].name, fn.tmp()
            fn.lines.add(ind, f"for {name}, {other} in PP.get({P}, _E):")
            fn.lines.add(ind + 1, f"if {name} == {other}:")
            rest(env3, ind + 2)
            return
        if set_sem and s.name not in needed and o.name not in needed:
            fn.lines.add(ind, f"if {P} in PP:")
            rest(env2, ind + 1)
            return
        env3 = self._bind(self._bind(env2, s.name, u.id, "node"), o.name, u.id, "any")
        fn.lines.add(ind, f"for {env3[s.name].name}, {env3[o.name].name} in PP.get({P}, _E):")
        rest(env3, ind + 1)

    def _emit_path(self, fn, u: Unit, env, ind, rest, needed, set_sem) -> None:
        """`s p* o` / `s p? o` with one end bound (or both): its distinct solutions (the zero-length path matches the
        bound term itself, in the graph or not)."""
        s, path, o = u.node
        ps, po = self._position(s, env), self._position(o, env)
        P = self.m.const(path.pred)
        self.m.read(path.pred)
        env2 = env
        for x, kind in ((s, "any"), (o, "any")):
            if isinstance(x, Var) and x.name in env:
                env2 = self._also(env2, x.name, u.id, kind)
        if ps[0] == "f" and po[0] == "f":
            raise Unsupported("a property path with neither end bound")
        if ps[0] != "f" and po[0] != "f":
            if path.kind == "?":
                fn.uses.add("SPO")
                fn.lines.add(ind, f"if {ps[1]} == {po[1]} or ({ps[1]}, {P}, {po[1]}) in SPO:")
            else:
                fn.uses.add("SP")
                fn.lines.add(ind, f"if {po[1]} in _star(SP, {ps[1]}, {P}, True):")
            rest(env2, ind + 1)
            return
        if ps[0] != "f":
            fn.uses.add("SP")
            var, start, forward = o, ps[1], True
        else:
            fn.uses.add("PO")
            self.m.looked_up("po", path.pred)
            var, start, forward = s, po[1], False
        env3 = self._bind(env2, var.name, u.id, "any")
        index = "SP" if forward else "PO"
        call = f"_star({index}, {start}, {P}, {forward})" if path.kind == "*" else \
            f"_opt_step({index}, {start}, {P}, {forward})"
        fn.lines.add(ind, f"for {env3[var.name].name} in {call}:")
        rest(env3, ind + 1)

    def _emit_values(self, fn, u: Unit, env, ind, rest, needed, set_sem) -> None:
        node = u.node
        for i, v in enumerate(node.vars):
            column = {row[i] for row in node.rows}
            if v not in env and column and all(type(t) is str for t in column):
                ids, iris = self._pinned.get(v, (frozenset(), frozenset()))
                self._pinned[v] = (ids | {u.id}, iris | column)
        groups: dict = {}
        for row in node.rows:
            groups.setdefault(tuple(c is not None for c in row), []).append(row)
        for defined, rows in groups.items():
            names = [v for v, d in zip(node.vars, defined) if d]
            cols = [i for i, d in enumerate(defined) if d]
            bound = [v for v in names if v in env]
            free = [v for v in names if v not in env]
            env2 = env
            for v in bound:
                env2 = self._also(env2, v, u.id)
            if len(rows) == 1:
                row = rows[0]
                by_var = {node.vars[i]: row[i] for i in cols}
                checks = [f"{env[v].name} == {self.m.const(by_var[v])}" for v in bound]
                ind2 = ind
                if checks:
                    fn.lines.add(ind, f"if {' and '.join(checks)}:")
                    ind2 += 1
                for v in free:
                    env2 = self._bind(env2, v, u.id, term_kind(by_var[v]))
                    fn.lines.add(ind2, f"{env2[v].name} = {self.m.const(by_var[v])}")
                rest(env2, ind2)
                continue
            order_vars = bound + free
            table = tuple(tuple(r[node.vars.index(v)] for v in order_vars) for r in rows)
            if not free:
                keys = frozenset(t if len(t) > 1 else t[0] for t in table)
                lhs = env[bound[0]].name if len(bound) == 1 else f"({', '.join(env[v].name for v in bound)})"
                fn.lines.add(ind, f"if {lhs} in {self.m.const(keys)}:")
                rest(env2, ind + 1)
                continue
            kinds = {v: _join_kinds(term_kind(r[node.vars.index(v)]) for r in rows) for v in free}
            targets = [fn.tmp() for _ in bound]
            for v in free:
                env2 = self._bind(env2, v, u.id, kinds[v])
            targets += [env2[v].name for v in free]
            fn.lines.add(ind, f"for {', '.join(targets)}, in {self.m.const(table)}:")
            if bound:
                fn.lines.add(ind + 1, "if " + " and ".join(f"{t} == {env[v].name}" for t, v in zip(targets, bound)) + ":")
                rest(env2, ind + 2)
            else:
                rest(env2, ind + 1)

    def _emit_sub(self, fn, u: Unit, env, ind, rest, needed, set_sem) -> None:
        node: SubSelect = u.node
        helper = self._subselect(node)
        cols = list(node.project)
        certain, _ = bound_vars(node)
        keys = [v for v in cols if v in env]
        for v in keys:
            if v not in certain:
                raise Unsupported("a sub-select joined on a variable it may leave unbound")
        others = [v for v in cols if v not in env]
        memo = fn.tmp("_sub")
        fn.prologue.append(f"{memo} = None")
        fn.memos.add(memo)
        env2 = env
        for v in keys:
            env2 = self._also(env2, v, u.id)
        names = {v: fn.tmp("_r") if v not in certain else self._name(v) for v in others}
        target = ", ".join(names[v] for v in others) + ("," if len(others) == 1 else "")
        if keys:
            key_cols = tuple(cols.index(v) for v in keys)
            val_cols = tuple(cols.index(v) for v in others)
            fn.lines.add(ind, f"if {memo} is None:")
            fn.lines.add(ind + 1, f"{memo} = _group({helper}(X), {key_cols!r}, {val_cols!r})", effect=True)
            key = "(" + "".join(f"{env[v].name}, " for v in keys) + ")"
            source = f"{memo}.get({key}, _E)"
        else:
            fn.lines.add(ind, f"if {memo} is None:")
            fn.lines.add(ind + 1, f"{memo} = {helper}(X)", effect=True)
            source = memo
        if not others:  # a membership test where only which solutions exist matters, else one per row
            fn.lines.add(ind, f"if {source}:" if set_sem else f"for _ in {source}:")
            rest(env2, ind + 1)
            return
        fn.lines.add(ind, f"for {target} in {source}:")
        maybe = [v for v in others if v not in certain]
        for v in others:
            if v in certain:
                env2 = self._bind(env2, v, u.id, "any")
        self._split_maybe(fn, maybe, names, env2, u.id, ind + 1, rest)

    def _split_maybe(self, fn, maybe: list, names: dict, env: dict, uid: int, ind: int, rest) -> None:
        """Emit `rest` for each combination of the `maybe` variables being bound (to `names[v]`) or not."""
        if not maybe:
            rest(env, ind)
            return
        v, more = maybe[0], maybe[1:]
        fn.lines.add(ind, f"if {names[v]} is not None:")
        env2 = self._bind(env, v, uid, "any")
        fn.lines.add(ind + 1, f"{env2[v].name} = {names[v]}")
        self._split_maybe(fn, more, names, env2, uid, ind + 1, rest)
        self._else(fn, ind, lambda ind2: self._split_maybe(fn, more, names, env, uid, ind2, rest))

    def _else(self, fn, ind: int, body) -> None:
        """An `else:` branch at `ind`, left out when its body emits nothing."""
        mark = fn.lines.mark()
        fn.lines.add(ind, "else:")
        body(ind + 1)
        if fn.lines.mark() == mark + 1:
            del fn.lines.out[mark:]

    def _emit_union(self, fn, u: Unit, env, ind, rest, needed, set_sem) -> None:
        for branch in u.node.branches:
            def after(fn2, env2, ind2):
                env3 = {}
                for var, b in env2.items():
                    old = env.get(var)
                    if old is None or old.sources != b.sources:
                        b = b._replace(sources=b.sources | {u.id})
                    env3[var] = b
                rest(env3, ind2)

            self.emit_pattern(fn, branch, env, ind, after, set(needed), set_sem)

    def _emit_opt(self, fn, u: Unit, env, ind, rest, needed, set_sem) -> None:
        node = u.node
        b_vars = pattern_vars(node.b)
        mentioned = b_vars | (expr_vars(node.expr) if node.expr is not None else set())
        params = [v for v in sorted(mentioned) if v in env]
        for v in params:
            if not visible(env[v], u.scope):
                raise Unsupported("an OPTIONAL reading a variable bound outside its left side")
        certain, possible = bound_vars(node.b)
        new = [v for v in sorted(possible) if v not in env]
        helper = self._optional(node, params, new, {v: env[v].kind for v in params})
        rows = fn.tmp("_o")
        fn.lines.add(ind, f"{rows} = {helper}(X{''.join(', ' + env[v].name for v in params)})")
        if self.nullable and new:  # one loop: each row, or one of None when there is none (the variables unbound)
            env2 = env
            for v in params:
                if v in possible:
                    env2 = self._also(env2, v, u.id)
            for v in new:
                env2 = self._bind(env2, v, u.id, "any", maybe=True)
            target = ", ".join(env2[v].name for v in new) + ("," if len(new) == 1 else "")
            nothing = self.m.const(tuple([None] * len(new)))
            fn.lines.add(ind, f"for {target} in {rows} or ({nothing},):")
            rest(env2, ind + 1)
            return
        if not self.nullable or set_sem:
            fn.lines.add(ind, f"if {rows}:")
        else:  # bag semantics: the solution once per row of the OPTIONAL's
            fn.lines.add(ind, f"for _ in {rows}:")
        names = {v: (self._name(v) if v in certain else fn.tmp("_r")) for v in new}
        target = ", ".join(names[v] for v in new) + ("," if len(new) == 1 else "")
        env2 = env
        for v in params:
            if v in possible:
                env2 = self._also(env2, v, u.id)
        if new:
            fn.lines.add(ind + 1, f"for {target} in {rows}:")
            for v in new:
                if v in certain:
                    env2 = self._bind(env2, v, u.id, "any")
            self._split_maybe(fn, [v for v in new if v not in certain], names, env2, u.id, ind + 2, rest)
        else:
            rest(env2, ind + 1)
        self._else(fn, ind, lambda ind2: rest(env, ind2))

    def _emit_filter(self, fn, u: Unit, env, ind, rest, needed, set_sem) -> None:
        cond = self.cbool(fn, u.node, env, u.scope)
        if cond.const is True:
            rest(env, ind)
            return
        if cond.const is not ...:
            return  # false or an error: no solution passes
        fn.lines.add(ind, f"if {cond.code}:")
        rest(env, ind + 1)

    def _emit_extend(self, fn, u: Unit, env, ind, rest, needed, set_sem) -> None:
        node = u.node
        var = node.var
        if var not in needed:
            rest(env, ind)  # nothing reads it
            return
        e = self.cterm(fn, node.expr, env, u.scope)
        if var in env:  # bound by a unit outside this BIND's group: compatible when equal, or when the BIND errs
            t = fn.tmp()
            fn.lines.add(ind, f"{t} = {e.code}")
            fn.lines.add(ind, f"if {t} is None:")
            rest(env, ind + 1)
            fn.lines.add(ind, f"if {t} is not None and {t} == {env[var].name}:")
            rest(self._also(env, var, u.id, e.kind), ind + 1)
            return
        if e.const is not ...:
            if e.const is None:
                rest(env, ind)
                return
            env2 = self._bind(env, var, u.id, e.kind)
            fn.lines.add(ind, f"{env2[var].name} = {e.code}")
            rest(env2, ind)
            return
        env2 = self._bind(env, var, u.id, e.kind, maybe=self.nullable and e.err)
        name = env2[var].name
        fn.lines.add(ind, f"{name} = {e.code}")
        if not e.err or self.nullable:
            rest(env2, ind)
            return
        fn.lines.add(ind, f"if {name} is not None:")
        rest(env2, ind + 1)
        self._else(fn, ind, lambda ind2: rest(env, ind2))

    def _emit_minus(self, fn, u: Unit, env, ind, rest, needed, set_sem) -> None:
        node = u.node
        params = [v for v in sorted(pattern_vars(node.b)) if v in env and visible(env[v], u.scope)]
        if not params:
            rest(env, ind)  # no variable in common: MINUS removes nothing
            return
        helper = self._minus(node, params, {v: env[v].kind for v in params})
        fn.lines.add(ind, f"if not {helper}(X{''.join(', ' + env[v].name for v in params)}):")
        rest(env, ind + 1)

    # ---- helper functions ---------------------------------------------------------------------------------

    def _helper(self, key, make) -> str:
        name = self._helpers.get(key)
        if name is None:
            name = self._helpers[key] = make()
        return name

    def _params_env(self, params: list, kinds: dict, source: int) -> dict:
        return {v: Binding(self._name(v), frozenset({source}), kinds[v]) for v in params}

    def _exists(self, node, params: list, kinds: dict) -> str:
        def make():
            f = Function(self.m.fresh(f"{self.fn_name}_ex"), [self._name(v) for v in params], returns=True)
            self.emit_pattern(f, node, self._params_env(params, kinds, SUBST), 1,
                              lambda fn, env, ind: fn.lines.add(ind, "return True", effect=True), set(), True)
            self.m.helpers.append(f.source(["return False"]))
            return self._memoized(f)

        return self._helper(("ex", id(node), tuple(params), tuple(kinds[v] for v in params)), make)

    def _minus(self, node, params: list, kinds: dict) -> str:
        def make():
            f = Function(self.m.fresh(f"{self.fn_name}_minus"), [self._name(v) for v in params], returns=True)

            def found(fn, env, ind):
                # removed when some variable in common is bound in the MINUS pattern's solution too
                if any(env[v].sources - {OUTER} for v in params):
                    fn.lines.add(ind, "return True", effect=True)

            self.emit_pattern(f, node.b, self._params_env(params, kinds, OUTER), 1, found, set(), True)
            self.m.helpers.append(f.source(["return False"]))
            return f.name

        return self._helper(("minus", id(node), tuple(params)), make)

    def _optional(self, node, params: list, new: list, kinds: dict) -> str:
        def make():
            f = Function(self.m.fresh(f"{self.fn_name}_opt"), [self._name(v) for v in params])
            f.prologue.append("rows = []")

            def found(fn, env, ind):
                row = "(" + "".join(f"{env[v].name if v in env else 'None'}, " for v in new) + ")"
                if node.expr is not None:
                    cond = self.cbool(fn, node.expr, env, ALL)
                    if cond.const is not ...:
                        if cond.const is True:
                            fn.lines.add(ind, f"rows.append({row})", effect=True)
                        return
                    fn.lines.add(ind, f"if {cond.code}:")
                    ind += 1
                fn.lines.add(ind, f"rows.append({row})", effect=True)

            needs = set(new) | (expr_vars(node.expr) if node.expr is not None else set())
            self.emit_pattern(f, node.b, self._params_env(params, kinds, OUTER), 1, found, needs, False)
            self.m.helpers.append(f.source(["return rows"]))
            return self._memoized(f)

        return self._helper(("opt", id(node), tuple(params)), make)

    #: whether an EXISTS or OPTIONAL helper reading forward only (`sp`, `spo`) keeps its answers for arguments that
    #: are no cast's nodes (runtime._layers_only): a named query's, whose helpers ask the same of the layers for
    #: every cast; a rule's are left as they are
    MEMO = False

    def _memoized(self, f: Function) -> str:
        """`f`'s name, or with MEMO, when `f` has parameters and reads the index forward only, the name of a wrapper
        that keeps its answers by arguments (read from the layers and the reference alone: the same for every
        cast)."""
        if not (self.MEMO and f.params and f.uses <= {"SP", "SPO"}):
            return f.name
        memo, name = f"_memo_{f.name}", f"{f.name}_kept"
        key = "(" + "".join(f"{p}, " for p in f.params) + ")"
        args = ", ".join(["X", *f.params])
        self.m.helpers.append("\n".join([
            f"{memo} = {{}}", "", "",
            f"def {name}({args}):",
            f"    _key = {key}",
            f"    _hit = {memo}.get(_key, _NOTHING)",
            "    if _hit is _NOTHING:",
            f"        _hit = {f.name}({args})",
            "        if _layers_only(*_key):",
            f"            {memo}[_key] = _hit",
            "    return _hit", ""]))
        return name

    def _subselect(self, node: SubSelect) -> str:
        def make():
            f = Function(self.m.fresh(f"{self.fn_name}_sub"), [])
            cols = list(node.project)
            if node.keys is None and not any(isinstance(s, Aggregate) for s in node.project.values()):
                f.prologue.append("rows = []")

                def found(fn, env, ind):
                    fn.lines.add(ind, "rows.append((" + "".join(
                        f"{env[v].name if v in env else 'None'}, " for v in cols) + "))", effect=True)

                self.emit_pattern(f, node.p, {}, 1, found, set(cols), False)
                self.m.helpers.append(f.source(["return rows"]))
                return f.name
            aggs = [(v, a) for v, a in node.project.items() if isinstance(a, Aggregate)]
            keys = node.keys or []
            init = "[" + "".join("set(), " if a.distinct and a.kind == "count" else
                                 "0, " if a.kind == "count" else "_NOTHING, " for _, a in aggs) + "]"
            f.prologue.append("groups = {}")
            if node.keys is None:
                f.prologue.append(f"groups[()] = {init}")

            def found(fn, env, ind):
                key = "(" + "".join(f"{env[v].name if v in env else 'None'}, " for v in keys) + ")"
                acc = fn.tmp("_acc")
                fn.lines.add(ind, f"{acc} = groups.get({key})")
                fn.lines.add(ind, f"if {acc} is None:")
                fn.lines.add(ind + 1, f"{acc} = groups[{key}] = {init}", effect=True)
                for i, (_, a) in enumerate(aggs):
                    if a.arg is None:
                        if a.distinct:
                            raise Unsupported("COUNT(DISTINCT *)")
                        fn.lines.add(ind, f"{acc}[{i}] += 1", effect=True)
                        continue
                    e = self.cterm(fn, a.arg, env, ALL)
                    if a.kind == "count":
                        t = fn.tmp()
                        fn.lines.add(ind, f"{t} = {e.code}")
                        fn.lines.add(ind, f"if {t} is not None:")
                        fn.lines.add(ind + 1, f"{acc}[{i}].add({t})" if a.distinct else f"{acc}[{i}] += 1",
                                     effect=True)
                    else:
                        fn.lines.add(ind, f"{acc}[{i}] = _{a.kind}_of({acc}[{i}], {e.code})", effect=True)

            needs = set(keys) | set().union(*(expr_vars(a.arg) for _, a in aggs if a.arg is not None))
            self.emit_pattern(f, node.p, {}, 1, found, needs, False)
            parts = []
            for v in cols:
                src = node.project[v]
                if isinstance(src, str):
                    parts.append(f"key[{keys.index(src)}]")
                    continue
                i = [x for x, _ in aggs].index(v)
                if src.kind == "count":
                    parts.append(f"count(len(acc[{i}]))" if src.distinct else f"count(acc[{i}])")
                else:
                    parts.append(f"(None if acc[{i}] is _NOTHING else acc[{i}])")
            epilogue = ["return [(" + "".join(p + ", " for p in parts) + ") for key, acc in groups.items()]"]
            self.m.helpers.append(f.source(epilogue))
            return f.name

        return self._helper(("sub", id(node)), make)

    # ---- expressions --------------------------------------------------------------------------------------

    def cterm(self, fn, e, env: dict, vis) -> CE:
        """An expression giving a term."""
        if isinstance(e, Var):
            b = env.get(e.name)
            if visible(b, vis):
                return CE(b.name, b.maybe, b.kind)
            return CE("None", True, "none", None)
        if isinstance(e, Const):
            return CE(self.m.const(e.term), False, term_kind(e.term), e.term)
        if isinstance(e, Exists) or (isinstance(e, Call) and e.op in _CONDITIONS):
            c = self.cbool(fn, e, env, vis)
            if c.const is not ...:
                return self._folded(runtime.boolean(c.const))
            if not c.err:
                return CE(f"(_TRUE if {c.code} else _FALSE)", False, "lit")
            return CE(f"boolean({c.code})", True, "lit")
        if not isinstance(e, Call):
            raise Unsupported(f"the expression {e!r}")
        op = e.op
        if op == "IRI":
            return self._iri(fn, e.args[0], env, vis)
        if op == "xsd:boolean":
            x = e.args[0]
            if isinstance(x, Exists) or (isinstance(x, Call) and x.op in _CONDITIONS):
                return self.cterm(fn, x, env, vis)  # a boolean already: the cast is the identity
            a = self.cterm(fn, x, env, vis)
            if a.const is not ...:
                return self._folded(runtime.to_boolean(a.const))
            return CE(f"to_boolean({a.code})", True, "lit")
        if op == "LANG":
            a = self.cterm(fn, e.args[0], env, vis)
            if a.const is not ...:
                return self._folded(runtime.lang(a.const))
            return CE(f"lang({a.code})", a.err or a.kind != "lit", "lit")
        if op == "IF":
            c = self.cbool(fn, e.args[0], env, vis)
            a, b = (self.cterm(fn, x, env, vis) for x in e.args[1:])
            kind = a.kind if a.kind == b.kind else "any"
            if c.const is not ...:
                return a if c.const is True else b if c.const is False else CE("None", True, "none", None)
            if not c.err:
                return CE(f"({a.code} if {c.code} else {b.code})", a.err or b.err, kind)
            t = fn.tmp()
            return CE(f"({a.code} if ({t} := {c.code}) is True else ({b.code} if {t} is False else None))",
                      True, kind)
        args = [self.cterm(fn, x, env, vis) for x in e.args]
        if all(a.const is not ... for a in args) and op in _FOLDABLE:
            return self._folded(_FOLDABLE[op](*(a.const for a in args)))
        if op == "STR":
            a = args[0]
            if a.kind == "iri" and not a.err:
                return CE(f"({a.code}, _XSD_STRING)", False, "lit")
            return CE(f"str_({a.code})", True, "lit")
        if op in _TERM_FUNCTIONS:
            return CE(f"{_TERM_FUNCTIONS[op]}({', '.join(a.code for a in args)})", True,
                      "lit" if op != "COALESCE" else "any")
        raise Unsupported(f"the function {op}")

    def _folded(self, value) -> CE:
        if value is None:
            return CE("None", True, "none", None)
        return CE(self.m.const(value), False, term_kind(value), value)

    def _piece(self, fn, e, env, vis):
        """A CONCAT argument as Python code giving its text (str, or None on error), with whether it may err,
        whether it is an IRI's full text (STR of an IRI) and the constant text if constant; None when the argument
        is not one of: a simple string constant, STR(x), STRAFTER of two such."""
        if isinstance(e, Const):
            t = e.term
            if type(t) is tuple and len(t) == 2 and t[1] == XSD_STRING:
                return repr(t[0]), False, False, t[0]
            return None
        if isinstance(e, Call) and e.op == "STR":
            x = e.args[0]
            if isinstance(x, Const):
                if type(x.term) is str:
                    return repr(x.term), False, True, x.term
                if type(x.term) is tuple:
                    return repr(x.term[0]), False, False, x.term[0]
                return None
            a = self.cterm(fn, x, env, vis)
            if a.const is not ...:
                return None
            if a.kind == "iri" and not a.err:
                return a.code, False, True, None
            return f"_lex({a.code})", True, a.kind in ("iri", "node"), None
        if isinstance(e, Call) and e.op == "STRAFTER":
            a, b = (self._piece(fn, x, env, vis) for x in e.args)
            if a is None or b is None:
                return None
            if not a[1] and not b[1] and b[3]:
                return f"{a[0]}.partition({b[0]})[2]", False, False, None
            return f"_after({a[0]}, {b[0]})", True, False, None
        return None

    def _iri(self, fn, arg, env, vis) -> CE:
        """IRI(x). IRI(CONCAT(STR(?iri), "suffix")) is the IRI's text plus the suffix, an IRI by construction: no
        parse (a suffix of path characters only); any other text is parsed as pyoxigraph parses it."""
        if isinstance(arg, Call) and arg.op == "CONCAT":
            pieces = [self._piece(fn, x, env, vis) for x in arg.args]
            if pieces and all(p is not None for p in pieces):
                head, tail = pieces[0], pieces[1:]
                consts = [p[3] for p in tail]
                slow = f"valid_iri_of(_cat({', '.join(p[0] for p in pieces)}))"
                if all(c is not None and _SAFE_SUFFIX.match(c) for c in consts):
                    suffix = repr("".join(consts))
                    if head[2] and not head[1]:
                        return CE(f"{head[0]} + {suffix}", False, "iri")
                    x = arg.args[0].args[0] if isinstance(arg.args[0], Call) and arg.args[0].op == "STR" else None
                    if x is not None and not isinstance(x, Const):
                        b = self.cterm(fn, x, env, vis)
                        if not b.err:  # an IRI: its text plus the suffix; a literal's lexical form is parsed
                            return CE(f"({b.code} + {suffix} if type({b.code}) is str else {slow})", True, "iri")
                if not any(p[1] for p in pieces):
                    return CE(f"valid_iri({' + '.join(p[0] for p in pieces)})", True, "iri")
                return CE(slow, True, "iri")
        a = self.cterm(fn, arg, env, vis)
        if a.kind == "iri" and not a.err:
            return a
        return CE(f"iri({a.code})", True, "iri")

    def cbool(self, fn, e, env: dict, vis) -> CB:
        """An expression's effective boolean value (as FILTER and the logical operators read it)."""
        if isinstance(e, Exists):
            params = [v for v in sorted(pattern_vars(e.p)) if visible(env.get(v), vis)]
            helper = self._exists(e.p, params, {v: env[v].kind for v in params})
            call = f"{helper}(X{''.join(', ' + env[v].name for v in params)})"
            return CB(f"(not {call})" if e.negated else call, False)
        if isinstance(e, Call):
            op = e.op
            if op in ("&&", "||"):
                a, b = (self.cbool(fn, x, env, vis) for x in e.args)
                if a.const is not ... and b.const is not ...:
                    return _cb_const((runtime.and_ if op == "&&" else runtime.or_)(a.const, b.const))
                if not a.err and not b.err:
                    return CB(f"({a.code} {'and' if op == '&&' else 'or'} {b.code})", False)
                return CB(f"{'and_' if op == '&&' else 'or_'}({a.code}, {b.code})", True)
            if op == "!":
                a = self.cbool(fn, e.args[0], env, vis)
                if a.const is not ...:
                    return _cb_const(runtime.not_(a.const))
                return CB(f"(not {a.code})", False) if not a.err else CB(f"not_({a.code})", True)
            if op == "BOUND":
                x = e.args[0]
                if not isinstance(x, Var):
                    raise Unsupported("BOUND of an expression")
                b = env.get(x.name)
                if visible(b, vis) and b.maybe:
                    return CB(f"({b.name} is not None)", False)
                return _cb_const(visible(b, vis))
            if op == "LANGMATCHES":
                a, r = e.args
                if (isinstance(a, Call) and a.op == "LANG" and isinstance(r, Const) and type(r.term) is tuple
                        and len(r.term) == 2 and r.term[1] == XSD_STRING and r.term[0] not in ("", "*")):
                    t = self.cterm(fn, a.args[0], env, vis)  # LANGMATCHES(LANG(x), "range"): the tag of x
                    if t.const is None:
                        return _cb_const(None)
                    if t.const is not ...:
                        return _cb_const(runtime.langmatches(runtime.lang(t.const), r.term))
                    return CB(f"_lang_in({t.code}, {r.term[0].lower()!r})", True)
                x, y = (self.cterm(fn, z, env, vis) for z in e.args)
                if x.const is not ... and y.const is not ...:
                    return _cb_const(runtime.langmatches(x.const, y.const))
                return CB(f"langmatches({x.code}, {y.code})", True)
            if op == "STRENDS":
                x, y = (self.cterm(fn, z, env, vis) for z in e.args)
                if x.const is not ... and y.const is not ...:
                    return _cb_const(runtime.strends(x.const, y.const))
                return CB(f"strends({x.code}, {y.code})", True)
            if op in ("IN", "NOT IN"):
                a = self.cterm(fn, e.args[0], env, vis)
                if a.const is None:
                    return _cb_const(None)
                opts = [self.cterm(fn, x, env, vis) for x in e.args[1]]
                if not a.err and all(type(o.const) is str for o in opts):
                    # equality with an IRI never errs: plain membership
                    return CB(f"({a.code} {'in' if op == 'IN' else 'not in'} "
                              f"{self.m.const(frozenset(o.const for o in opts))})", False)
                call = f"one_of({a.code}, ({''.join(o.code + ', ' for o in opts)}))"
                return CB(call if op == "IN" else f"not_({call})", True)
            if op in _RELATIONAL:
                a, b = (self.cterm(fn, x, env, vis) for x in e.args)
                if (a.const is not ... and b.const is not ...) or a.const is None or b.const is None:
                    return _cb_const(_RELATIONAL[op][1](a.const if a.const is not ... else None,
                                                        b.const if b.const is not ... else None))
                if op in ("=", "!=") and not a.err and not b.err and (
                        a.kind in ("iri", "node") or b.kind in ("iri", "node")):
                    return CB(f"({a.code} {'==' if op == '=' else '!='} {b.code})", False)
                return CB(f"{_RELATIONAL[op][0]}({a.code}, {b.code})", True)
        t = self.cterm(fn, e, env, vis)
        if t.const is not ...:
            return _cb_const(runtime.ebv(t.const))
        return CB(f"ebv({t.code})", True)

    # ---- join order --------------------------------------------------------------------------------------

    def estimate(self, u: Unit, bound: set) -> float:
        if u.kind in ("filter", "minus"):
            return -2.0
        if u.kind == "extend":
            return -1.0
        if u.kind == "opt":
            return 0.0
        if u.kind == "path":
            s, _, o = u.node
            if (not isinstance(s, Var) or s.name in bound) or (not isinstance(o, Var) or o.name in bound):
                return 2.0
            return 1e9
        if u.kind == "tp":
            s, p, o = u.node
            if isinstance(p, Var):
                if self.nullable and p.name in bound and ((not isinstance(s, Var) or s.name in bound)
                                        or (not isinstance(o, Var) or o.name in bound)):
                    return 3.0
                return 1e9
            s_b = not isinstance(s, Var) or s.name in bound
            o_b = not isinstance(o, Var) or o.name in bound
            return self.stats.estimate(None if isinstance(s, Var) else s, p, None if isinstance(o, Var) else o,
                                       s_b, o_b)
        if u.kind == "values":
            if set(u.node.vars) <= bound:
                return 0.5
            return float(len(u.node.rows))
        if u.kind == "sub":
            return 1.0 if set(u.node.project) & bound else 4.0
        if u.kind == "union":
            return sum(self._estimate_pattern(b, bound) for b in u.node.branches)
        raise Unsupported(u.kind)

    def _estimate_pattern(self, node, bound: set) -> float:
        block = Block(itertools.count(10**9))
        flatten(node, block)
        rows = 1.0
        for u in order(block, bound, self.estimate):
            rows *= max(0.01, self.estimate(u, bound)) if u.kind not in ("filter", "extend", "minus", "opt") else 1.0
            bound = bound | u.binds
        return rows


def _exists_vars(e) -> set:
    """The variables of the EXISTS patterns in an expression (substituted there: a join on them)."""
    if isinstance(e, Exists):
        return set(pattern_vars(e.p))
    if isinstance(e, Call):
        out: set = set()
        for a in e.args:
            for x in a if isinstance(a, list) else [a]:
                out |= _exists_vars(x)
        return out
    return set()


def _cb_const(value) -> CB:
    return CB(repr(value), value is None, value)


def _meet(a: str, b: str) -> str:
    """What a variable bound as both kinds is (a join agrees only on equal terms)."""
    for k in ("iri", "lit", "node"):
        if k in (a, b):
            return k
    return "any"


def _join_kinds(kinds) -> str:
    kinds = set(kinds)
    return kinds.pop() if len(kinds) == 1 else "any"


_CONDITIONS = {"&&", "||", "!", "BOUND", "IN", "NOT IN", "=", "!=", "<", ">", "<=", ">=", "LANGMATCHES", "STRENDS"}
_RELATIONAL = {"=": ("equals", runtime.equals), "!=": ("not_equals", runtime.not_equals),
               "<": ("less", runtime.less), ">": ("greater", runtime.greater),
               "<=": ("less_eq", runtime.less_eq), ">=": ("greater_eq", runtime.greater_eq)}
_TERM_FUNCTIONS = {"CONCAT": "concat", "STRAFTER": "strafter", "STRBEFORE": "strbefore", "+": "add",
                   "-": "subtract", "*": "multiply", "/": "divide", "neg": "negate", "pos": "plus",
                   "COALESCE": "coalesce"}
_FOLDABLE = {"STR": runtime.str_, "CONCAT": runtime.concat, "STRAFTER": runtime.strafter,
             "STRBEFORE": runtime.strbefore}


class QueryCompiler(RuleCompiler):
    """Compiles one named SELECT into `module`: a function `(X, *parameters) -> rows`, a row a tuple of the
    projected variables' terms (None: unbound), in the query's ORDER BY (see the module's docstring)."""

    MEMO = True

    def __init__(self, module: Module, stats, fn_name: str):
        super().__init__(module, stats, fn_name)
        self.nullable = True

    def compile(self, text: str, params: dict | None = None) -> tuple[str, list[str]]:
        """The function's source and the projected variables; `params`: {variable: kind of its term, "iri" or
        "lit"}, the function's arguments after the index, in that order."""
        q = read_select(text)
        params = params or {}
        for v in params:
            if v not in q.project:
                raise Unsupported(f"the parameter ?{v} is not projected")
        f = Function(self.fn_name, [self._name(v) for v in params])
        f.prologue += ["rows = []", "_row = rows.append"]
        env = {v: Binding(self._name(v), frozenset({SUBST}), kind) for v, kind in params.items()}
        needs = set(q.project).union(*(expr_vars(e) for e, _ in q.order))

        def found(fn, env, ind):
            row = "(" + "".join(f"{env[v].name if v in env else 'None'}, " for v in q.project) + ")"
            if q.order:
                keys = [self.cterm(fn, e, env, ALL) for e, _ in q.order]
                row = f"({row}, ({''.join(k.code + ', ' for k in keys)}))"
            fn.lines.add(ind, f"_row({row})", effect=True)

        self.emit_pattern(f, q.where, env, 1, found, needs, False)
        descending = tuple(d for _, d in q.order) if q.order else None
        if descending is None and not q.distinct:
            epilogue = ["return rows"]
        else:
            epilogue = [f"return _rows(rows, {descending!r}, {q.distinct})"]
        return f.source(epilogue), list(q.project)
